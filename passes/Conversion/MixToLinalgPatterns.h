//===- MixToLinalgPatterns.h - mix to linalg patterns by family -*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The mix -> linalg lowering grows by op family: one file per family, each
// with its populate...Patterns, all called by
// populateMixToLinalgConversionPatterns (passes/ConvertMixToLinalg.cpp).
// Internal to the lowering; the public entry points are in
// passes/ConvertMixToLinalg.h.
//
//   MixToLinalgElementwise.cpp     cast, relu, add, mul, gelu
//   MixToLinalgContractions.cpp    dense, matmul
//   MixToLinalgConvolutions.cpp    conv2d
//   MixToLinalgNormalization.cpp   batch_norm, layer_norm, instance_norm,
//                                  group_norm, pooling
//   MixToLinalgSoftmaxAndLosses.cpp softmax, log_softmax, cross_entropy_loss,
//                                  mse_loss
//   MixToLinalgAttention.cpp       attention, attention_core
//   MixToLinalgRecurrent.cpp       lstm, gru
//   MixToLinalgQuantized.cpp       quantize, qdense, qmatmul, qconv2d
//   MixToLinalgStructure.cpp       weight, reshape, flatten, embedding;
//                                  networks and blocks
//
// LayerLowering.h holds what the layer patterns share (the accumulator type,
// the init tensor, the bias epilogue).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_CONVERSION_MIXTOLINALGPATTERNS_H
#define MIXC_PASSES_CONVERSION_MIXTOLINALGPATTERNS_H

#include "passes/ConvertMixToLinalg.h"

#include "dialect/MixOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mix::lowering {

//===----------------------------------------------------------------------===//
// Patterns, one populate function per op family
//===----------------------------------------------------------------------===//

/// mix.cast, relu, add, mul, gelu.
void populateElementwisePatterns(mlir::RewritePatternSet &patterns,
                                 const MixToLinalgOptions &options);

/// The elementwise math layers: sigmoid ... reciprocal, sub, div, pow,
/// maximum, minimum; glu.
void populateMathPatterns(mlir::RewritePatternSet &patterns,
                          const MixToLinalgOptions &options);

/// transpose, concat, slice, pad.
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns,
                                  const MixToLinalgOptions &options);

/// reduce_sum, reduce_mean, reduce_l2, reduce_prod, reduce_max, reduce_min,
/// avg_pool2d.
void populateReductionPatterns(mlir::RewritePatternSet &patterns,
                               const MixToLinalgOptions &options);

/// conv_transpose2d and resize.
void populateUpsamplingPatterns(mlir::RewritePatternSet &patterns,
                                const MixToLinalgOptions &options);

/// gather and expand (issue 13's indexing layers).
void populateMaskPatterns(mlir::RewritePatternSet &patterns,
                          const MixToLinalgOptions &options);

/// Float dense and matmul.
void populateContractionPatterns(mlir::RewritePatternSet &patterns,
                                 const MixToLinalgOptions &options);

/// Float conv2d.
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns,
                                 const MixToLinalgOptions &options);

/// batch_norm, layer_norm, instance_norm, group_norm, global_avg_pool,
/// max_pool2d.
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns,
                                   const MixToLinalgOptions &options);

/// softmax, log_softmax, cross_entropy_loss, mse_loss.
void populateSoftmaxAndLossPatterns(mlir::RewritePatternSet &patterns,
                                    const MixToLinalgOptions &options);

/// The float recurrent layers: lstm, gru.
void populateRecurrentPatterns(mlir::RewritePatternSet &patterns,
                               const MixToLinalgOptions &options);

/// attention and attention_core (the float core of int8 attention).
void populateAttentionPatterns(mlir::RewritePatternSet &patterns,
                               const MixToLinalgOptions &options);

/// quantize and the integer GEMMs (qdense, qmatmul, qconv2d), with mixrt's
/// arithmetic.
void populateQuantizedPatterns(mlir::RewritePatternSet &patterns,
                               const MixToLinalgOptions &options);

/// Inline weights, reshape, flatten, embedding.
void populateStructurePatterns(mlir::RewritePatternSet &patterns,
                               const MixToLinalgOptions &options);

/// mix.network -> func.func with the same signature and the C interface, for
/// every network of `module` (after the patterns ran).
void convertNetworks(mlir::ModuleOp module);

//===----------------------------------------------------------------------===//
// Builders one family provides to another
//===----------------------------------------------------------------------===//

/// sum_k lhs[..., m, k] * rhs[(...,) k, n] accumulated into `init` (the
/// accumulator tensor of the result's shape; k ascending, one fma per step:
/// mixrt's reduced GEMM). Defined in MixToLinalgContractions.cpp.
mlir::Value contraction(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                        mlir::Value rhs, bool rhsBatched, mlir::Value init);

/// A convolution (one group, NCHW) as GEMMs of its patches (im2col), tile by
/// tile so the patches of a tile stay in a core's cache: for each image and
/// each band of `rowsPerTile` output rows (the largest divisor of OH whose
/// patches fit in `maxTileBytes`), the patches [rows*OW, C*KH*KW] (k =
/// (c*KH + kh)*KW + kw: the loops' (c, kh, kw) order) are copied into one
/// scratch tensor, and `gemm(lhs, init)` adds lhs x W^T into `init`, the
/// band's 0-filled rows of the [N*OH*OW, F] accumulator. Returns that
/// accumulator (element type `accElem`). Defined in
/// MixToLinalgConvolutions.cpp.
struct Im2colConv {
  /// [N, C, H, W], already padded.
  mlir::Value input;
  llvm::ArrayRef<int64_t> strides, dilations;
  int64_t kh = 1, kw = 1, f = 1, oh = 1, ow = 1;
  mlir::Type accElem;
  int64_t maxTileBytes = int64_t{512} << 10;

  /// The im2col of a convolution with the padded `input`, a weight of
  /// `weightType` [F, C, KH, KW] and a result of `resultType` [N, F, OH, OW].
  static Im2colConv of(mlir::Value input, llvm::ArrayRef<int64_t> strides,
                       llvm::ArrayRef<int64_t> dilations,
                       mlir::ShapedType weightType, mlir::ShapedType resultType,
                       mlir::Type accElem);
};
mlir::Value
im2colGemm(mlir::OpBuilder &b, mlir::Location loc, const Im2colConv &conv,
           llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                          mlir::Value lhs, mlir::Value init)>
               gemm);

/// The constant `weight` [F, K...] (K... flattened to K) transposed to
/// [K, F], or null if it is not a constant of byte-sized elements. Defined
/// in MixToLinalgConvolutions.cpp.
mlir::DenseElementsAttr transposedWeight(mlir::Value weight);

/// Softmax of `x` along `axis`: the maximum, exp(x - max) in x's element
/// type, the sum and the division in `accType`, one conversion to `outElem`.
/// Defined in MixToLinalgSoftmaxAndLosses.cpp.
mlir::Value softmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    int64_t axis, mlir::Type accType, mlir::Type outElem);

} // namespace mix::lowering

#endif // MIXC_PASSES_CONVERSION_MIXTOLINALGPATTERNS_H
