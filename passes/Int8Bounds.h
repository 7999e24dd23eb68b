//===- Int8Bounds.h - proving int8 accumulation cannot overflow -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The int32 safety proof of int8 layers: with K products per output, the
// exact sum is bounded by K * max|a - za| * max|b - zb| (+ |bias|), where the
// maxima follow from the quantization schemes alone:
//   symmetric:  q in [-127, 127], zero point 0      -> max |q - z| = 127
//   asymmetric: q in [-128, 127], z in [-128, 127]  -> max |q - z| = 255
// If the bound exceeds 2^31 - 1 the layer is rejected (or K must be split);
// otherwise the margin is reported.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_INT8BOUNDS_H
#define MIXC_PASSES_INT8BOUNDS_H

#include "passes/PrecisionAnalysis.h"
#include "passes/Resolve.h"

#include <cstdint>
#include <optional>

namespace mix {

/// The largest |q - zero_point| an int8 precision admits.
int64_t maxCenteredMagnitude(PrecisionAttr int8Precision);

/// The int32 accumulation bound of one int8 layer.
struct Int8AccumulationBound {
  /// Products summed per output element (the contraction length).
  int64_t k = 0;
  int64_t maxActivation = 0; ///< max |a - za|
  int64_t maxWeight = 0;     ///< max |b - zb|
  /// k * maxActivation * maxWeight (exact: at most 2^63 for any k < 2^47).
  int64_t worstCase = 0;
  /// The largest k whose worst case fits int32.
  int64_t maxSafeK = 0;
  bool fits() const { return worstCase <= INT32_MAX; }
  /// INT32_MAX - worstCase (negative when it does not fit).
  int64_t margin() const { return int64_t(INT32_MAX) - worstCase; }
};

/// The contraction length of a GEMM-like layer: dense/matmul K, conv2d
/// C/groups * KH * KW, attention E (its projections), lstm/gru the larger
/// of I and H (the input and recurrent GEMMs); nullopt for others.
std::optional<int64_t> getContractionLength(mlir::Operation *layer);

/// The bound of `layer` under its resolution, or nullopt when the layer does
/// not multiply int8 by int8.
std::optional<Int8AccumulationBound>
getInt8AccumulationBound(LayerOpInterface layer, const LayerResolution &r);

/// The discardable attribute by which mix-check-int8-accumulation asks
/// mix-quantize to split K: the most products per i32 partial sum.
inline constexpr llvm::StringLiteral kKChunkAttrName =
    MixDialect::KChunkAttrHelper::getNameStr();

/// Checks every int8 layer below `root`; emits an error naming K and the
/// bound for each layer that could overflow. Fails if any could. With
/// `splitK`, a dense, matmul or conv2d (groups = 1) layer that could
/// overflow gets a `mix.k_chunk` attribute instead (split K into i32 partial
/// sums added exactly in f64).
/// Layers resolve through `precisions` when given, else a resolution of
/// its own.
mlir::LogicalResult
checkInt8Accumulation(mlir::Operation *root, bool splitK = false,
                      PrecisionAnalysis *precisions = nullptr);

/// The same proof for the integer ops of mix-quantize (qdense, qmatmul,
/// qconv2d), from their operands: an input quantized by mix.quantize is
/// bounded by its scheme, constant data and zero points exactly; a zero
/// point of unknown origin cannot be bounded and is an error. Each i32
/// partial sum (k_chunk) must fit. The lowering runs this before emitting
/// code, so no code that can wrap is generated whatever produced the ops.
mlir::LogicalResult checkIntegerAccumulation(mlir::Operation *root);

} // namespace mix

#endif // MIXC_PASSES_INT8BOUNDS_H
