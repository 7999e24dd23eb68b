//===- MixInterfaces.td - mix op interfaces and traits -----*- tablegen -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#ifndef MIX_INTERFACES_TD
#define MIX_INTERFACES_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Layer categories (marker traits, queried by the interface and the policy).
//===----------------------------------------------------------------------===//

class Mix_LayerTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mix::OpTrait";
}

/// The layer has weight operands (parameters), so its `weights` property is
/// meaningful.
def Mix_HasWeights : Mix_LayerTrait<"HasWeights">;
/// The layer is a GEMM-like layer that may compute in int8 (dense, matmul,
/// conv2d, attention projections).
def Mix_Int8Capable : Mix_LayerTrait<"Int8Capable">;
/// Normalization layers (batch_norm, layer_norm).
def Mix_Normalization : Mix_LayerTrait<"Normalization">;
/// Loss layers.
def Mix_Loss : Mix_LayerTrait<"Loss">;
/// The layer sums over many elements (the sum is kept at accumulator
/// precision).
def Mix_Reduction : Mix_LayerTrait<"Reduction">;
/// The layer evaluates exp (at activations precision).
def Mix_UsesExp : Mix_LayerTrait<"UsesExp">;
/// The layer evaluates log (at activations precision).
def Mix_UsesLog : Mix_LayerTrait<"UsesLog">;
/// The layer evaluates pow (at activations precision).
def Mix_UsesPow : Mix_LayerTrait<"UsesPow">;

//===----------------------------------------------------------------------===//
// LayerOpInterface
//===----------------------------------------------------------------------===//

def Mix_LayerOpInterface : OpInterface<"LayerOpInterface"> {
  let cppNamespace = "::mix";
  let description = [{
    Uniform access to the precision properties of a layer op. Every layer op
    carries an optional layer precision (`precision`) and optional
    per-property overrides (`weights`, `activations`, `accumulator`,
    `output`); after `mix-resolve-precision` it also carries the resolved
    precisions with their provenance (`resolved`).
  }];

  let methods = [
    InterfaceMethod<"The layer-level precision override, or null.",
      "::mix::PrecisionAttr", "getLayerPrecision", (ins), [{}], [{
        return $_op.getPrecisionAttr();
      }]>,
    InterfaceMethod<"The explicit override of one property, or null.",
      "::mix::PrecisionAttr", "getPropertyOverride",
      (ins "::mix::PrecisionProperty":$property), [{}], [{
        switch (property) {
        case ::mix::PrecisionProperty::weights:
          return $_op.getWeightsPrecisionAttr();
        case ::mix::PrecisionProperty::activations:
          return $_op.getActivationsPrecisionAttr();
        case ::mix::PrecisionProperty::accumulator:
          return $_op.getAccumulatorPrecisionAttr();
        case ::mix::PrecisionProperty::output:
          return $_op.getOutputPrecisionAttr();
        }
        return {};
      }]>,
    InterfaceMethod<"The resolved precisions, or null before resolution.",
      "::mix::ResolvedAttr", "getResolution", (ins), [{}], [{
        return $_op.getResolvedAttr();
      }]>,
    InterfaceMethod<"Records the resolved precisions.",
      "void", "setResolution", (ins "::mix::ResolvedAttr":$resolution), [{}], [{
        $_op.setResolvedAttr(resolution);
      }]>,
    InterfaceMethod<"The weight (parameter) operands of the layer.",
      "::llvm::SmallVector<::mlir::Value>", "getWeightOperands", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"The op kind as written after `mix.` (e.g. `conv2d`).",
      "::llvm::StringRef", "getLayerKind", (ins), [{}], [{
        return $_op->getName().stripDialect();
      }]>,
  ];

  // Precision legality shared by every layer (i32 only as an accumulator,
  // int8 never as an accumulator, weights overrides only on layers with
  // weights, int8 axes inside the tensor rank).
  let verify = [{ return ::mix::verifyLayerPrecisions($_op); }];

  let extraSharedClassDeclaration = [{
    bool hasWeights() {
      return $_op->template hasTrait<::mix::OpTrait::HasWeights>();
    }
    bool isInt8Capable() {
      return $_op->template hasTrait<::mix::OpTrait::Int8Capable>();
    }
    bool isNormalization() {
      return $_op->template hasTrait<::mix::OpTrait::Normalization>();
    }
    bool isLoss() { return $_op->template hasTrait<::mix::OpTrait::Loss>(); }
    bool isReduction() {
      return $_op->template hasTrait<::mix::OpTrait::Reduction>();
    }
    bool usesExp() { return $_op->template hasTrait<::mix::OpTrait::UsesExp>(); }
    /// The function whose range or precision suffers in reduced formats
    /// that the layer evaluates ("exp", "log", "pow"), or "" (the policy's
    /// reduced-precision-reduction rule).
    ::llvm::StringRef rangeSensitiveFunction() {
      if (usesExp())
        return "exp";
      if ($_op->template hasTrait<::mix::OpTrait::UsesLog>())
        return "log";
      if ($_op->template hasTrait<::mix::OpTrait::UsesPow>())
        return "pow";
      return "";
    }
  }];
}

#endif // MIX_INTERFACES_TD
