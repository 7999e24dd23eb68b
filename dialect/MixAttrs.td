//===- MixAttrs.td - mix dialect attributes ----------------*- tablegen -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_ATTRS_TD
#define MIX_ATTRS_TD

include "dialect/MixBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"

class Mix_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Mix_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// The scheme of a quantize op, printed as the bare keyword.
def Mix_QuantSchemeAttr : EnumAttr<Mix_Dialect, Mix_QuantScheme, "scheme"> {
  let assemblyFormat = "$value";
}

def Mix_PrecisionAttr : Mix_Attr<"Precision", "precision"> {
  let summary = "A numeric precision: f64, f32, f16, bf16, int8 (with its scheme) or i32";
  let description = [{
    Names the format a layer property is stored or computed in. `int8`
    carries its quantization scheme (`symmetric`: range [-127, 127], zero
    point 0; `asymmetric`: range [-128, 127] with an integer zero point) and
    granularity (per tensor, or per axis with the axis). `i32` is only legal
    as an accumulator (the accumulator of int8 arithmetic).

    ```mlir
    #mix.precision<f16>
    #mix.precision<int8>                            // symmetric, per tensor
    #mix.precision<int8<asymmetric>>                // asymmetric, per tensor
    #mix.precision<int8<symmetric, axis = 0>>       // per output channel
    ```

    Inside op assembly (`precision(...)` clauses) the same body is written
    without the `#mix.precision<...>` wrapper.
  }];
  let parameters = (ins
    EnumParameter<Mix_PrecisionKind>:$kind,
    DefaultValuedParameter<"::mix::QuantScheme", "::mix::QuantScheme::symmetric">:$scheme,
    DefaultValuedParameter<"int64_t", "-1">:$axis
  );
  let builders = [
    AttrBuilder<(ins "::mix::PrecisionKind":$kind), [{
      return $_get($_ctxt, kind, ::mix::QuantScheme::symmetric, -1);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True for f64, f32, f16 and bf16.
    bool isFloat() const;
    /// True for int8 and i32.
    bool isInteger() const { return !isFloat(); }
    bool isInt8() const { return getKind() == ::mix::PrecisionKind::int8; }
    /// Storage width in bits.
    unsigned getBitWidth() const;
    /// True when the int8 precision is quantized per axis.
    bool isPerAxis() const { return getAxis() >= 0; }
    /// The MLIR element type of this precision (i8 for int8, i32 for i32).
    ::mlir::Type getElementType() const;
    /// Prints the body (`f16`, `int8<asymmetric, axis = 1>`), as used both
    /// inside `#mix.precision<...>` and in op `precision(...)` clauses.
    void printBody(::llvm::raw_ostream &os) const;
    std::string str() const;
    /// Parses a body as printed by printBody.
    static PrecisionAttr parseBody(::mlir::AsmParser &parser);
  }];
}

def Mix_DecisionAttr : Mix_Attr<"Decision", "decision"> {
  let summary = "A resolved precision with its provenance";
  let description = [{
    The precision a layer property resolved to and the level of the hierarchy
    that decided it: `network`, `block`, `layer`, `property` (an explicit
    per-property override) or `derived` (accumulator and output defaults,
    derived from the weights/activations precisions). `origin` names the
    network or block that decided it, when it has a name.

    ```mlir
    #mix.decision<f16 from block @stage1>
    #mix.decision<f32 from derived>
    ```
  }];
  let parameters = (ins
    "PrecisionAttr":$precision,
    EnumParameter<Mix_PrecisionSource>:$source,
    OptionalParameter<"::mlir::StringAttr">:$origin
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    void printBody(::llvm::raw_ostream &os) const;
    static DecisionAttr parseBody(::mlir::AsmParser &parser);
    /// "network @net", "block @stage1", "block <unnamed>", "layer",
    /// "property" or "derived": the one vocabulary of provenance.
    std::string describeSource() const;
  }];
}

def Mix_ResolvedAttr : Mix_Attr<"Resolved", "resolved"> {
  let summary = "The resolved precision of every property of a layer";
  let description = [{
    Written on every layer by `mix-resolve-precision`. `weights` is absent on
    layers without weights.

    ```mlir
    #mix.resolved<weights = f16 from block @stage1,
                  activations = f16 from block @stage1,
                  accumulator = f32 from derived,
                  output = f16 from block @stage1>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"DecisionAttr">:$weights,
    "DecisionAttr":$activations,
    "DecisionAttr":$accumulator,
    "DecisionAttr":$output
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The decision for `property`; null for weights on a layer without them.
    DecisionAttr get(::mix::PrecisionProperty property) const;
  }];
}

#endif // MIX_ATTRS_TD
