//===- MixBase.td - mix dialect definition and enums -------*- tablegen -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The `mix` dialect and the enums shared by its attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_BASE_TD
#define MIX_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Mix_Dialect : Dialect {
  let name = "mix";
  let cppNamespace = "::mix";
  let summary = "Mixed-precision neural networks with hierarchical precision";
  let description = [{
    The `mix` dialect describes neural networks whose numeric precision is set
    hierarchically: a `mix.network` sets a default precision, a `mix.block`
    overrides it for everything it contains (blocks nest up to the input nesting limit, about 1000 levels), a layer
    op overrides its enclosing block, and a single property of a layer
    (`weights`, `activations`, `accumulator`, `output`) overrides the layer.

    ```mlir
    mix.network @net precision(f32) (%x: tensor<1x16xf32>) -> tensor<1x4xf32> {
      %y = mix.block @head precision(f16) (%a = %x) : (tensor<1x16xf32>) -> tensor<1x4xf32> {
        %w = mix.weight external "head.w" : tensor<16x4xf32>
        %d = mix.dense %a, %w precision(weights = int8) : (tensor<1x16xf32>, tensor<16x4xf32>) -> tensor<1x4xf32>
        mix.yield %d : tensor<1x4xf32>
      }
      mix.return %y : tensor<1x4xf32>
    }
    ```

    The tensor element types written in the source are the *interface* types
    of the model (what the caller passes in and gets back); the precision
    attributes say at which precision each layer stores and computes. The
    `mix-resolve-precision` pass gives every layer property a concrete
    precision and records where it came from.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 0;

  // The discardable attributes that passes attach or users write, declared
  // here and verified by the dialect (MixDialect.cpp); any other `mix.*`
  // attribute is an error.
  //   mix.k_chunk: on an int8 dense, matmul or conv2d (groups = 1), set by
  //     `mix-check-int8-accumulation{split-k}`: the K of each i32 partial sum.
  //   mix.name: on a network input or output, the parameter name the
  //     generated C header uses (a C identifier).
  //   mix.working_precision: on a weight input of a gradient network
  //     (`mix-differentiate{weights-as-inputs}`), f16 or bf16: the precision
  //     its layers read it at, to which a training step rounds the working
  //     copy once, from the master.
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$k_chunk,
    "::mlir::StringAttr":$name,
    "::mlir::Attribute":$working_precision
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;

  let extraClassDeclaration = [{
    /// Registers the attributes (defined in MixAttrs.cpp).
    void registerAttributes();
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Numeric formats a precision can name. New formats (for example the fp8
// variants f8E4M3FN / f8E5M2) are added as new cases here plus one line each
// in the helper tables of MixAttrs.cpp (bit width, float-ness, element type).
def Mix_PrecisionKind : I32EnumAttr<"PrecisionKind", "numeric format", [
    I32EnumAttrCase<"f64", 0>,
    I32EnumAttrCase<"f32", 1>,
    I32EnumAttrCase<"f16", 2>,
    I32EnumAttrCase<"bf16", 3>,
    I32EnumAttrCase<"int8", 4>,
    I32EnumAttrCase<"i32", 5>,
  ]> {
  let cppNamespace = "::mix";
  let genSpecializedAttr = 0;
}

// Quantization scheme of an int8 precision.
def Mix_QuantScheme : I32EnumAttr<"QuantScheme", "int8 quantization scheme", [
    I32EnumAttrCase<"symmetric", 0>,
    I32EnumAttrCase<"asymmetric", 1>,
  ]> {
  let cppNamespace = "::mix";
  let genSpecializedAttr = 0;
}

// The level of the hierarchy that decided a resolved precision.
def Mix_PrecisionSource : I32EnumAttr<"PrecisionSource",
    "level that decided a precision", [
    I32EnumAttrCase<"network", 0>,
    I32EnumAttrCase<"block", 1>,
    I32EnumAttrCase<"layer", 2>,
    I32EnumAttrCase<"property", 3>,
    I32EnumAttrCase<"derived", 4>,
  ]> {
  let cppNamespace = "::mix";
  let genSpecializedAttr = 0;
}

// The properties of a layer that carry a precision.
def Mix_PrecisionProperty : I32EnumAttr<"PrecisionProperty",
    "precision property of a layer", [
    I32EnumAttrCase<"weights", 0>,
    I32EnumAttrCase<"activations", 1>,
    I32EnumAttrCase<"accumulator", 2>,
    I32EnumAttrCase<"output", 3>,
  ]> {
  let cppNamespace = "::mix";
  let genSpecializedAttr = 0;
}

#endif // MIX_BASE_TD
