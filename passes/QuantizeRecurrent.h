//===- QuantizeRecurrent.h - int8 lstm and gru for mix-quantize -*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-quantize rewrites an int8 mix.lstm or mix.gru into the ops it
// computes, unrolled over the time steps, with its GEMMs as integer GEMMs
// (QuantizeRecurrent.cpp says how). Weights and activations are quantized
// by mix-quantize's own code (Quantize.cpp, through RecurrentQuantizer),
// exactly like a dense layer's.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_QUANTIZERECURRENT_H
#define MIXC_PASSES_QUANTIZERECURRENT_H

#include "dialect/MixOps.h"

#include <array>
#include <functional>

namespace mix {

/// What the recurrent rewrite needs from mix-quantize, so that its integer
/// GEMMs are quantized exactly like a dense layer's.
struct RecurrentQuantizer {
  /// The int8 form (values, scales, zero points) of a constant f32 weight,
  /// row-major `[K, N]` data, quantized per output column N (or per tensor
  /// when mix-quantize is asked to); failure after a diagnostic.
  std::function<mlir::FailureOr<std::array<mlir::Value, 3>>(
      llvm::ArrayRef<float> data, int64_t k, int64_t n)>
      weight;
  /// `x` (`[M, K]`, f32) quantized at the builder's insertion point.
  /// `layerInput`: `x` is the layer's own input, whose scale may come from
  /// the calibration file; else it is computed inside the layer (the state
  /// h) and its scale is dynamic. Failure after a diagnostic.
  std::function<mlir::FailureOr<QuantizeOp>(mlir::OpBuilder &b, mlir::Value x,
                                            bool layerInput)>
      activation;
};

/// Replaces every use of the results of `layer` (a mix.lstm or mix.gru
/// whose operands are f32 after mix-insert-casts) by the unrolled int8
/// computation. `w` and `r` are the data of its weights, row-major `[D, G*H,
/// I]` and `[D, G*H, H]`. The layer itself is left to the caller to erase.
mlir::LogicalResult quantizeRecurrentLayer(mlir::Operation *layer,
                                           llvm::ArrayRef<float> w,
                                           llvm::ArrayRef<float> r,
                                           const RecurrentQuantizer &quantizer);

} // namespace mix

#endif // MIXC_PASSES_QUANTIZERECURRENT_H
