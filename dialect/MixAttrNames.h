//===- MixAttrNames.h - names of mix attributes set by the lowering -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Discardable attributes of the mix dialect that only the lowering sets (the
// ones a model may carry, mix.k_chunk and mix.name, are declared in
// MixBase.td). The dialect verifies them in MixDialect.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_DIALECT_MIXATTRNAMES_H
#define MIXC_DIALECT_MIXATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mix {

/// `mix.memory_plan = {workspace = N, intermediates = S, peak = P}` on a
/// lowered network function: the bytes of its planned workspace, the sum of
/// the bytes of all its intermediate buffers, and the liveness lower bound
/// (the most bytes live at once). Set by mix-plan-memory.
inline constexpr llvm::StringLiteral kMemoryPlanAttrName = "mix.memory_plan";

namespace attr {
/// `mix.recompute` (unit) on a mix.block, written by users: the gradient
/// network (mix-differentiate) computes the block's forward again before
/// its backward instead of keeping its activations (docs/training.md).
inline constexpr llvm::StringLiteral kRecompute = "mix.recompute";
/// `mix.ukernel = "gemm_f32" | "gemm_s8" | "range_f32"` on the
/// linalg.generic of a dense layer's GEMM (f32 activations and accumulator;
/// or the exact i32 sum of qdense, K not split) or of the per-tensor range
/// of a dynamic f32 quantize: mix-use-microkernels may replace it by a call
/// of the microkernel, and removes the attribute in any case. Also
/// `"quantize_f32"` / `"checked_quantize"` on the loop of an f32 quantize
/// (unchecked / checked): per tensor, the pass calls
/// mixrt_ukernel_quantize_f32_s8 and keeps the loop for when the call
/// finds a non-finite input (checked) or refuses its parameters; per axis,
/// a checked loop is guarded by a vector test with an unchecked copy.
/// `"checked_rescale"` on the loop of a checked int8 rescale (one scale
/// for A): guarded the same way; `"rescale"` on such a loop unchecked. Either
/// may compute the relu after it and be tiled when it reads its sums
/// transposed.
inline constexpr llvm::StringLiteral kUkernel = "mix.ukernel";
/// `mix.ukernel_bias` (unit) on the bias epilogue of such a GEMM when it is
/// `out = acc + bias[n]` in f32: the microkernel's own epilogue.
inline constexpr llvm::StringLiteral kUkernelBias = "mix.ukernel_bias";
/// `mix.ukernel_window = array<i64: stride_h, stride_w, dilation_h,
/// dilation_w, top, left, bottom, right>` beside `mix.ukernel =
/// "depthwise_f32"`: the window of the depthwise loop, which reads its
/// unpadded input inside its body (strides and dilations >= 1, padding >=
/// 0). Removed by mix-use-microkernels with mix.ukernel.
inline constexpr llvm::StringLiteral kUkernelWindow = "mix.ukernel_window";
/// `mix.folded_batch_norm = loc(...)` on a conv2d into which
/// mix-fold-batch-norm folded a batch_norm: that batch_norm's location (for
/// `mixc --report`).
inline constexpr llvm::StringLiteral kFoldedBatchNorm = "mix.folded_batch_norm";
} // namespace attr

} // namespace mix

#endif // MIXC_DIALECT_MIXATTRNAMES_H
