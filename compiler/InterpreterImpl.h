//===- InterpreterImpl.h - internals of the interpreter ---------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shared by the files of the reference interpreter (not installed, not for
// other libraries): Interpreter.cpp runs regions and dispatches every op,
// InterpreterLayers.cpp evaluates the float layers, InterpreterQuantized.cpp
// emulates the quantized ops of mix-quantize bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_INTERPRETERIMPL_H
#define MIXC_COMPILER_INTERPRETERIMPL_H

#include "compiler/Interpreter.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace mix::interp {

/// Values of one region (blocks are isolated from above, so each region has
/// its own environment).
using Env = llvm::DenseMap<mlir::Value, RefTensor>;

//===----------------------------------------------------------------------===//
// Helpers (Interpreter.cpp)
//===----------------------------------------------------------------------===//

/// Formats a type as MLIR prints it.
std::string typeStr(mlir::Type type);

/// Formats a value readably: integers in full (`70000`, `-1`), other values
/// with the fewest digits that read back as the same double (`2.5`, `0.1`,
/// `1e+300`, `inf`, `nan`).
std::string valueStr(double v);

/// An error `file:line:col: message` at `loc`.
llvm::Error errorAt(mlir::Location loc, const llvm::Twine &message);

/// The static shape of a shaped value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value v);

/// A zero-filled tensor of `v`'s static shape.
RefTensor zerosLike(mlir::Value v);

/// The product of `dims` (1 for none).
int64_t product(llvm::ArrayRef<int64_t> dims);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Checks that `v` is an exact integer in [0, limit) and returns it.
std::optional<int64_t> indexIn(double v, int64_t limit);

/// Softmax of `n` values at `x[0], x[stride], ...` in place, max-subtracted.
void softmaxInPlace(double *x, int64_t n, int64_t stride);

/// `out[m, n] = sum_k a[m, k] * b[k, n]` for row-major matrices.
void matmul(const double *a, const double *b, double *out, int64_t m, int64_t k,
            int64_t n);

/// A 2-D convolution of `x` [N, C, H, W] with `w` [F, C/groups, KH, KW]
/// into `y` [N, F, OH, OW]: per output, `Acc acc{}` receives
/// `add(acc, xIndex, wIndex)` for every product (padded positions are
/// skipped: they hold 0, or the zero point for integer convolutions), then
/// `y = finish(acc, f)`. The attributes come from `op` (conv2d or qconv2d).
template <typename Acc, typename OpTy, typename Add, typename Finish>
void convolve(OpTy op, const RefTensor &x, const RefTensor &w, RefTensor &y,
              Add add, Finish finish) {
  int64_t batch = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  int64_t f = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  int64_t oh = y.shape[2], ow = y.shape[3];
  int64_t groups = static_cast<int64_t>(op.getGroups());
  int64_t fg = f / groups;
  llvm::ArrayRef<int64_t> s = op.getStrides(), p = op.getPadding(),
                          d = op.getDilations();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < f; ++o) {
      int64_t group = o / fg;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          Acc acc{};
          for (int64_t ci = 0; ci < cg; ++ci) {
            int64_t channel = group * cg + ci;
            for (int64_t u = 0; u < kh; ++u) {
              int64_t row = i * s[0] - p[0] + u * d[0];
              if (row < 0 || row >= h)
                continue;
              for (int64_t v = 0; v < kw; ++v) {
                int64_t col = j * s[1] - p[1] + v * d[1];
                if (col < 0 || col >= wd)
                  continue;
                add(acc, ((b * c + channel) * h + row) * wd + col,
                    ((o * cg + ci) * kh + u) * kw + v);
              }
            }
          }
          y.data[((b * f + o) * oh + i) * ow + j] = finish(acc, o);
        }
    }
}

//===----------------------------------------------------------------------===//
// Float layers (InterpreterLayers.cpp)
//===----------------------------------------------------------------------===//

RefTensor evalDense(DenseOp op, const RefTensor &x, const RefTensor &w,
                    const RefTensor *bias);
RefTensor evalMatmul(MatmulOp op, const RefTensor &a, const RefTensor &b);
RefTensor evalConv2D(Conv2DOp op, const RefTensor &x, const RefTensor &w,
                     const RefTensor *bias);
RefTensor evalBatchNorm(BatchNormOp op, const RefTensor &x,
                        const RefTensor &scale, const RefTensor &bias,
                        const RefTensor &mean, const RefTensor &variance);
RefTensor evalLayerNorm(LayerNormOp op, const RefTensor &x,
                        const RefTensor &gamma, const RefTensor &beta);
RefTensor evalSoftmax(SoftmaxOp op, const RefTensor &x);
/// log_softmax, instance_norm, group_norm (InterpreterNormalization.cpp).
RefTensor evalLogSoftmax(LogSoftmaxOp op, const RefTensor &x);
RefTensor evalInstanceNorm(InstanceNormOp op, const RefTensor &x,
                           const RefTensor &scale, const RefTensor &bias);
RefTensor evalGroupNorm(GroupNormOp op, const RefTensor &x,
                        const RefTensor &scale, const RefTensor &bias);
/// glu, lstm, gru (InterpreterRecurrent.cpp).
RefTensor evalGlu(GluOp op, const RefTensor &x);
/// y, y_h, y_c of an lstm (ONNX semantics; absent operands are null).
std::vector<RefTensor> evalLstm(LstmOp op, const RefTensor &x,
                                const RefTensor &w, const RefTensor &r,
                                const RefTensor *bias,
                                const RefTensor *initialH,
                                const RefTensor *initialC);
/// y, y_h of a gru (ONNX semantics; absent operands are null).
std::vector<RefTensor> evalGru(GruOp op, const RefTensor &x, const RefTensor &w,
                               const RefTensor &r, const RefTensor *bias,
                               const RefTensor *initialH);
RefTensor evalRelu(const RefTensor &x);
RefTensor evalGelu(GeluOp op, const RefTensor &x);
/// `lhs + rhs` and `lhs * rhs` with numpy broadcasting.
RefTensor evalAdd(AddOp op, const RefTensor &a, const RefTensor &b);
RefTensor evalMul(MulOp op, const RefTensor &a, const RefTensor &b);
/// The elementwise math layers of one operand (sigmoid ... reciprocal) and
/// of two with numpy broadcasting (sub, div, pow, maximum, minimum); null
/// for any other op.
std::optional<RefTensor> evalUnaryMath(mlir::Operation *op, const RefTensor &x);
std::optional<RefTensor> evalBinaryMath(mlir::Operation *op, const RefTensor &a,
                                        const RefTensor &b);
RefTensor evalGlobalAvgPool(GlobalAvgPoolOp op, const RefTensor &x);
RefTensor evalMaxPool2D(MaxPool2DOp op, const RefTensor &x);
RefTensor evalAvgPool2D(AvgPool2DOp op, const RefTensor &x);
RefTensor evalConvTranspose2D(ConvTranspose2DOp op, const RefTensor &x,
                              const RefTensor &w, const RefTensor *bias);
RefTensor evalResize(ResizeOp op, const RefTensor &x);

//===----------------------------------------------------------------------===//
// Indexing layers (InterpreterMasks.cpp)
//===----------------------------------------------------------------------===//

/// `runtimeIndices`: the indices operand's values, or null for the
/// attribute's; a run-time index outside [-dim, dim) is an error.
llvm::Expected<RefTensor> evalGather(GatherOp op, const RefTensor &x,
                                     const RefTensor *runtimeIndices);
RefTensor evalExpand(ExpandOp op, const RefTensor &x);
/// 1 where `a predicate b` holds, else 0 (IEEE: NaN compares false, `ne`
/// and the unordered predicates true).
RefTensor evalCompare(CompareOp op, const RefTensor &a, const RefTensor &b);
/// and, or, xor of two masks, not of one (held as 0 and 1).
RefTensor evalLogical(LogicalOp op, llvm::ArrayRef<const RefTensor *> masks);
RefTensor evalWhere(WhereOp op, const RefTensor &c, const RefTensor &x,
                    const RefTensor &y);

RefTensor evalTranspose(TransposeOp op, const RefTensor &x);
RefTensor evalConcat(ConcatOp op, llvm::ArrayRef<const RefTensor *> inputs);
RefTensor evalSlice(SliceOp op, const RefTensor &x);
RefTensor evalPad(PadOp op, const RefTensor &x);
/// reduce_sum/mean/l2/max/min of `x` over the normalized, sorted `axes`.
/// argmax / argmin (the op's axis, keepdims and select_last_index).
RefTensor evalArgExtremum(mlir::Operation *op, const RefTensor &x);
RefTensor evalReduce(mlir::Operation *op, llvm::ArrayRef<int64_t> axes,
                     const RefTensor &x);
/// The same data under `op`'s result shape (reshape, flatten).
RefTensor evalReshape(mlir::Operation *op, const RefTensor &x);
/// The values of mix.attention's operands besides its input; the optional
/// ones (biases, mask) are null when absent.
struct AttentionOperands {
  const RefTensor *wq, *wk, *wv, *wo;
  const RefTensor *bq, *bk, *bv, *bo, *mask;
};
RefTensor evalAttention(AttentionOp op, const RefTensor &x,
                        const AttentionOperands &operands);
RefTensor evalAttentionCore(AttentionCoreOp op, const RefTensor &q,
                            const RefTensor &k, const RefTensor &v,
                            const RefTensor *mask);
RefTensor evalMseLoss(const RefTensor &prediction, const RefTensor &target);
/// Fails on an index outside the table.
llvm::Expected<RefTensor>
evalEmbedding(EmbeddingOp op, const RefTensor &indices, const RefTensor &table);
/// Fails on a label outside the classes.
llvm::Expected<RefTensor> evalCrossEntropy(CrossEntropyLossOp op,
                                           const RefTensor &logits,
                                           const RefTensor &labels);

//===----------------------------------------------------------------------===//
// Quantized ops (InterpreterQuantized.cpp)
//===----------------------------------------------------------------------===//

/// Quantizes `x` as compiled code and mixrt do and binds the op's three
/// results (values, used scales, used zero points) in `env`.
llvm::Error evalQuantize(QuantizeOp op, const RefTensor &x, Env &env);
/// `scale * (q - zero_point)` rounded once to f32 (mixrt_dequantize_f32).
RefTensor evalDequantize(DequantizeOp op, const RefTensor &q,
                         const RefTensor &scales, const RefTensor &zeroPoints);
RefTensor evalQDense(QDenseOp op, const RefTensor &x, const RefTensor &xs,
                     const RefTensor &xz, const RefTensor &w,
                     const RefTensor &ws, const RefTensor &wz,
                     const RefTensor *bias);
RefTensor evalQMatmul(QMatmulOp op, const RefTensor &a, const RefTensor &as,
                      const RefTensor &az, const RefTensor &b,
                      const RefTensor &bs, const RefTensor &bz);
RefTensor evalQConv2D(QConv2DOp op, const RefTensor &x, const RefTensor &xs,
                      const RefTensor &xz, const RefTensor &w,
                      const RefTensor &ws, const RefTensor &wz,
                      const RefTensor *bias);
/// The rescale of an integer GEMM beyond f32 is an error, as in mixrt and
/// in checked compiled code.
llvm::Expected<RefTensor> checkRescaled(mlir::Operation *op, RefTensor result);

} // namespace mix::interp

#endif // MIXC_COMPILER_INTERPRETERIMPL_H
