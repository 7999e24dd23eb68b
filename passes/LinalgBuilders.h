//===- LinalgBuilders.h - helpers building linalg on tensors --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Small builders shared by the op families of the mix -> linalg lowering
// (passes/Conversion/) and by the calibration: scalar conversions with mixrt's
// rounding, linalg.generic shapes, and the run-time checks of generated code.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_LINALGBUILDERS_H
#define MIXC_PASSES_LINALGBUILDERS_H

#include "mixrt/core.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <string>

namespace mix::lowering {

/// f64 -> f32 rounding to odd (exact before a second RNE rounding to a
/// format with at most 22 significant bits).
mlir::Value truncF64ToF32RoundToOdd(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value x);

/// Any float -> bf16, one RNE rounding, mixrt's NaN rule.
mlir::Value truncToBF16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Converts a scalar between float types with one rounding.
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type to);

/// Converts a scalar integer (i1 as 0/1; i8 read unsigned when
/// `isUnsigned`; otherwise signed) to the float type `to` with one RNE
/// rounding of its exact value (mix.cast's contract).
mlir::Value integerToFloat(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, mlir::Type to, bool isUnsigned);

/// The map reading `operandType` in an iteration space of `resultType`'s
/// shape with numpy broadcasting.
mlir::AffineMap broadcastMap(mlir::ShapedType operandType,
                             mlir::ShapedType resultType,
                             mlir::MLIRContext *ctx);

mlir::Value emptyLike(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ShapedType type, mlir::Type elem);

/// The scalar 0 of a float or integer type.
mlir::Value zeroConstant(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type elem);

/// A tensor of `shape` x `elem` filled with 0.
mlir::Value zeroFilled(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<int64_t> shape, mlir::Type elem);

/// An elementwise linalg.generic over `resultType` (broadcasting inputs).
mlir::Value
elementwise(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
            mlir::ShapedType resultType,
            llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                           mlir::ValueRange)>
                body);

/// `value` converted elementwise to the element type of `type`.
mlir::Value convertTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::ShapedType type);

/// A linalg.generic with the given maps and iterators on `inputs` into a
/// fresh tensor of `shape` x `elem`, filled with `init` (or uninitialised).
mlir::Value
generic(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
        llvm::ArrayRef<int64_t> shape, mlir::Type elem,
        std::optional<double> init, llvm::ArrayRef<mlir::AffineMap> maps,
        llvm::ArrayRef<mlir::utils::IteratorType> iterators,
        llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>
            body);

/// The same generic into the given `init` tensor (its shape and element type
/// are the result's).
mlir::Value
generic(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
        mlir::Value init, llvm::ArrayRef<mlir::AffineMap> maps,
        llvm::ArrayRef<mlir::utils::IteratorType> iterators,
        llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>
            body);

/// Pads the two spatial dims of an NCHW tensor with the scalar `padValue`
/// (clamped-index reads, no tensor.pad).
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> padding,
                       mlir::Value padValue);

/// Indexing maps of lhs[..., m, k] x rhs[(...,) k, n] -> out[..., m, n]
/// over the loops (result dims but n..., k, n): n is innermost, so the loop
/// nest is vectorizable along n while each output sums its products in k
/// order (the rounding of mixrt's reduced GEMM is kept).
struct ContractionMaps {
  mlir::AffineMap lhs, rhs, output;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
  int64_t nDim = 0; ///< the loop of the result's last dimension
};
ContractionMaps contractionMaps(int64_t lhsRank, int64_t resultRank,
                                bool rhsBatched, mlir::MLIRContext *ctx);

/// Indexing maps of a 2-D convolution over the loops (n, f, c, kh, kw, oh,
/// ow), c/kh/kw reductions: input [N, C, H, W] (already padded), weight
/// [F, C/groups, KH, KW], output [N, F, OH, OW]. The output row is
/// innermost (vectorizable); each output sums in (c, kh, kw) order.
struct ConvMaps {
  mlir::AffineMap input, weight, output;
  /// The iterators: n, f parallel; c, kh, kw reduction; oh, ow parallel.
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
};
ConvMaps convMaps(llvm::ArrayRef<int64_t> strides,
                  llvm::ArrayRef<int64_t> dilations, int64_t groups,
                  mlir::ShapedType weightType, mlir::MLIRContext *ctx);

/// Indexing maps of 2-D pooling over the loops (n, c, oh, ow, kh, kw), kh
/// and kw reductions: the (padded) input read at (oh * sh + kh, ow * sw +
/// kw), a shape-only [KH, KW] operand giving the window's extent, and the
/// output [N, C, OH, OW].
struct PoolMaps {
  llvm::SmallVector<mlir::AffineMap> maps;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
};
/// With `dilations` (none: 1, 1), the input is read at (oh * sh + kh * dh,
/// ow * sw + kw * dw).
PoolMaps poolMaps(llvm::ArrayRef<int64_t> strides, mlir::MLIRContext *ctx,
                  llvm::ArrayRef<int64_t> dilations = {});

/// "file:line:col" of the first file location in `loc`, or "".
std::string formatSourceLocation(mlir::Location loc);

/// A layer as profiles name it: formatSourceLocation(loc), followed by
/// " (name)" when `loc` carries a name (a NameLoc, e.g. an ONNX node's).
std::string layerLabel(mlir::Location loc);

/// The address (`!llvm.ptr`) of a NUL-terminated string constant, one
/// global per distinct string in `module`.
mlir::Value stringAddress(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::ModuleOp module, llvm::StringRef value);

/// Emits `if (failed) mixrt_check_fail(code, "<origin's location>", what,
/// index, value)` (declaring the mixrt function in origin's module if
/// needed): how compiled code reports a failed checked-numerics condition.
/// `code` is the mixrt status the entry point returns; `index` is an i64,
/// `value` an f64.
void emitCheck(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *origin,
               mlir::Value failed, mixrt_status_code code, llvm::StringRef what,
               mlir::Value index, mlir::Value value);

/// `y` rounded to the float type `to`, inside a linalg.generic body whose
/// iteration space is `shape`. `y`'s type must hold every value exactly
/// (the wide type an op computed in). With `check`, a finite `y` that
/// rounds to +-inf is reported at `origin` (emitCheck:
/// MIXRT_STATUS_OUT_OF_RANGE, `what`, the element's linear index, y): the
/// test of a checked cast, shared by the casts, the elementwise math and
/// log_softmax.
mlir::Value roundChecked(mlir::OpBuilder &b, mlir::Location loc, mlir::Value y,
                         mlir::Type to, bool check, mlir::Operation *origin,
                         llvm::StringRef what, llvm::ArrayRef<int64_t> shape);

/// The row-major flat index (i64) of the current element of a linalg.generic
/// body whose iteration space is `shape`.
mlir::Value linearIndex(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape);

} // namespace mix::lowering

#endif // MIXC_PASSES_LINALGBUILDERS_H
