//===- LinalgBuilders.cpp - helpers building linalg on tensors ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/LinalgBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <limits>

using namespace mlir;

namespace mix::lowering {

/// f64 -> f32 rounding to odd: an inexact result gets its last bit set. A
/// following RNE rounding to a format with at most 22 significant bits then
/// equals one direct RNE rounding of the f64 (no double rounding).
Value truncF64ToF32RoundToOdd(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value t = arith::TruncFOp::create(b, loc, f32, x);
  Value back = arith::ExtFOp::create(b, loc, b.getF64Type(), t);
  // Ordered comparisons: NaN inputs keep the RNE result.
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, x);
  // Operands one per statement (the order of function arguments is
  // unspecified; the IR must not depend on the compiler that built mixc).
  Value absX = math::AbsFOp::create(b, loc, x);
  Value absBack = math::AbsFOp::create(b, loc, back);
  Value away =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, absBack, absX);
  Value bits = arith::BitcastOp::create(b, loc, i32, t);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  // Sign-magnitude: one less in the bits is one ulp towards zero.
  Value toward = arith::SelectOp::create(
      b, loc, away, arith::SubIOp::create(b, loc, bits, one), bits);
  Value odd = arith::OrIOp::create(b, loc, toward, one);
  Value result = arith::SelectOp::create(b, loc, inexact, odd, bits);
  return arith::BitcastOp::create(b, loc, f32, result);
}

/// Any float -> bf16 with one RNE rounding, in integer arithmetic, with
/// mixrt's NaN rule (quiet, sign and top payload bits kept): the upstream
/// bf16 expansion canonicalizes NaNs and loses their sign.
Value truncToBF16(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  if (v.getType().isF64())
    v = truncF64ToF32RoundToOdd(b, loc, v);
  else if (!v.getType().isF32())
    v = arith::ExtFOp::create(b, loc, f32, v); // f16: exact
  auto c = [&](int64_t x) {
    return arith::ConstantIntOp::create(b, loc, i32, x);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value high = arith::ShRUIOp::create(b, loc, bits, c(16));
  Value lsb = arith::AndIOp::create(b, loc, high, c(1));
  Value bias = arith::AddIOp::create(b, loc, c(0x7FFF), lsb);
  Value sixteen = c(16); // one operand op per statement (see above)
  Value rounded = arith::ShRUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, bias), sixteen);
  Value quietNaN = arith::OrIOp::create(b, loc, high, c(0x40));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  Value r = arith::SelectOp::create(b, loc, isNaN, quietNaN, rounded);
  Value r16 = arith::TruncIOp::create(b, loc, b.getI16Type(), r);
  return arith::BitcastOp::create(b, loc, b.getBF16Type(), r16);
}

/// Converts a scalar between float types with one rounding: exact extension,
/// or one RNE truncation (via f32 for f16 <-> bf16, where widening first is
/// exact).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isBF16())
    return truncToBF16(b, loc, v);
  unsigned fromWidth = cast<FloatType>(from).getWidth();
  unsigned toWidth = cast<FloatType>(to).getWidth();
  if (fromWidth == toWidth) // bf16 -> f16
    return arith::TruncFOp::create(
        b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  if (fromWidth < toWidth)
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// i64 -> f64 rounding to odd: the neighbour of the exact value towards
/// zero, with its last significand bit set when inexact. A following RNE
/// rounding to a format of at most 51 significant bits (through
/// truncF64ToF32RoundToOdd for bf16) equals one RNE rounding of the integer.
static Value integerToF64RoundToOdd(OpBuilder &b, Location loc, Value x) {
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  Value d = arith::SIToFPOp::create(b, loc, f64, x);
  // fptosi of 2^63 (INT64_MAX rounded up) is out of range: its integer is
  // INT64_MIN's bit pattern, and x - 2^63 wraps to the exact difference.
  Value limit = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0x1p63));
  Value big =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, d, limit);
  Value truncated = arith::FPToSIOp::create(b, loc, i64, d);
  Value minimum = arith::ConstantIntOp::create(
      b, loc, i64, std::numeric_limits<int64_t>::min());
  Value back = arith::SelectOp::create(b, loc, big, minimum, truncated);
  Value error = arith::SubIOp::create(b, loc, x, back);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value inexact =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, error, zero);
  // |d| > |x|: d rounded away from zero (error and d of opposite signs).
  Value errorNegative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, error, zero);
  // d has x's sign (x is not 0 when inexact).
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  Value away = arith::XOrIOp::create(b, loc, errorNegative, negative);
  Value bits = arith::BitcastOp::create(b, loc, i64, d);
  Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
  // Sign-magnitude: one less in the bits is one ulp towards zero.
  Value less = arith::SubIOp::create(b, loc, bits, one);
  Value toward = arith::SelectOp::create(b, loc, away, less, bits);
  Value odd = arith::OrIOp::create(b, loc, toward, one);
  Value result = arith::SelectOp::create(b, loc, inexact, odd, bits);
  return arith::BitcastOp::create(b, loc, f64, result);
}

Value integerToFloat(OpBuilder &b, Location loc, Value v, Type to,
                     bool isUnsigned) {
  unsigned width = cast<IntegerType>(v.getType()).getWidth();
  Type f32 = b.getF32Type();
  // i1 (0 or 1) and i8 (signed or unsigned) are exact in f32, and from there
  // in every float type.
  if (width == 1 || isUnsigned)
    return convertScalar(b, loc, arith::UIToFPOp::create(b, loc, f32, v), to);
  if (width <= 8)
    return convertScalar(b, loc, arith::SIToFPOp::create(b, loc, f32, v), to);
  // One RNE rounding of the integer (cvtsi2ss / cvtsi2sd).
  if (to.isF32() || to.isF64())
    return arith::SIToFPOp::create(b, loc, to, v);
  // f16: below 2^24 the f32 value is exact; from 65520 up both f32 and the
  // direct rounding overflow f16, so rounding through f32 is one rounding.
  if (to.isF16())
    return convertScalar(b, loc, arith::SIToFPOp::create(b, loc, f32, v), to);
  // bf16 (8 significant bits, f32's range): i32 is exact in f64; i64 is
  // rounded to odd in f64 first.
  Value d = width <= 32
                ? Value(arith::SIToFPOp::create(b, loc, b.getF64Type(), v))
                : integerToF64RoundToOdd(b, loc, v);
  return truncToBF16(b, loc, d);
}

/// The indexing map reading `operandType` inside an iteration space equal
/// to `resultType`'s shape, with numpy broadcasting (right-aligned; size-1
/// dimensions broadcast).
AffineMap broadcastMap(ShapedType operandType, ShapedType resultType,
                       MLIRContext *ctx) {
  int64_t rank = resultType.getRank(), opRank = operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < opRank; ++d) {
    int64_t resultDim = d + rank - opRank;
    if (operandType.getDimSize(d) == 1 && resultType.getDimSize(resultDim) != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value emptyLike(OpBuilder &b, Location loc, ShapedType type, Type elem) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), elem);
}

Value zeroConstant(OpBuilder &b, Location loc, Type elem) {
  if (isa<FloatType>(elem))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elem, 0));
}

Value zeroFilled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 Type elem) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, elem);
  Value zero = zeroConstant(b, loc, elem);
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
      .getResult(0);
}

/// An elementwise linalg.generic over the result shape; `body` gets the
/// scalar operands and returns the scalar result in the result type.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs,
                  ShapedType resultType,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value in : inputs)
    maps.push_back(
        broadcastMap(cast<ShapedType>(in.getType()), resultType, ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = emptyLike(b, loc, resultType, resultType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

/// `value` converted elementwise to the element type of `type` (same shape).
Value convertTensor(OpBuilder &b, Location loc, Value value, ShapedType type) {
  if (cast<ShapedType>(value.getType()).getElementType() ==
      type.getElementType())
    return value;
  return elementwise(b, loc, value, type,
                     [&](OpBuilder &nb, Location l, ValueRange a) {
                       return convertScalar(nb, l, a[0], type.getElementType());
                     });
}

/// A generic with the given maps and iterators on `inputs` into a fresh
/// tensor of `shape` x `elem` initialised to `init` (or uninitialised).
Value generic(OpBuilder &b, Location loc, ValueRange inputs,
              ArrayRef<int64_t> shape, Type elem, std::optional<double> init,
              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  Value out = tensor::EmptyOp::create(b, loc, shape, elem);
  if (init) {
    Value v =
        isa<FloatType>(elem)
            ? arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, *init))
            : arith::ConstantOp::create(
                  b, loc, b.getIntegerAttr(elem, static_cast<int64_t>(*init)));
    out = linalg::FillOp::create(b, loc, ValueRange{v}, ValueRange{out})
              .getResult(0);
  }
  return generic(b, loc, inputs, out, maps, iterators, body);
}

Value generic(OpBuilder &b, Location loc, ValueRange inputs, Value init,
              ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<ShapedType>(init.getType());
  return linalg::GenericOp::create(
             b, loc,
             TypeRange{
                 RankedTensorType::get(type.getShape(), type.getElementType())},
             inputs, ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
             })
      .getResult(0);
}

/// Pads the two spatial dims of an NCHW tensor with `value`, as a
/// linalg.generic that reads the source at clamped indices and selects the
/// pad value outside it (no tensor.pad: its bufferization needs a strided
/// memref copy, i.e. a runtime library call).
Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, Value padValue) {
  if (llvm::all_of(padding, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += padding[0] + padding[2];
  shape[3] += padding[1] + padding[3];
  Type elem = type.getElementType();
  MLIRContext *ctx = b.getContext();
  return generic(
      b, loc, ValueRange{}, shape, elem, std::nullopt,
      {AffineMap::getMultiDimIdentityMap(4, ctx)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto index = [&](int64_t i) {
          return arith::ConstantIndexOp::create(nb, l, i);
        };
        SmallVector<Value> source;
        Value inside = arith::ConstantIntOp::create(nb, l, 1, 1);
        for (int64_t d = 0; d < 4; ++d) {
          Value i = linalg::IndexOp::create(nb, l, d);
          if (d < 2) {
            source.push_back(i);
            continue;
          }
          int64_t before = padding[d - 2], size = type.getDimSize(d);
          Value shifted = arith::SubIOp::create(nb, l, i, index(before));
          Value ge = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge,
                                           shifted, index(0));
          Value lt = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                           shifted, index(size));
          inside = arith::AndIOp::create(nb, l, inside,
                                         arith::AndIOp::create(nb, l, ge, lt));
          // The bounds first, one op per statement: the order of function
          // arguments is unspecified, and the IR must not depend on the
          // compiler that built mixc.
          Value last = index(size - 1);
          Value clamped = arith::MinSIOp::create(
              nb, l, arith::MaxSIOp::create(nb, l, shifted, index(0)), last);
          source.push_back(clamped);
        }
        Value v = tensor::ExtractOp::create(nb, l, input, source);
        return Value(arith::SelectOp::create(nb, l, inside, v, padValue));
      });
}

ContractionMaps contractionMaps(int64_t lhsRank, int64_t resultRank,
                                bool rhsBatched, MLIRContext *ctx) {
  // Loops: the result's leading dims (..., m), then k, then n. With n
  // innermost, each step updates a row of outputs from a row of rhs
  // (contiguous, vectorizable), while every single output still
  // accumulates its products in k order.
  int64_t loops = resultRank + 1;
  int64_t kDim = resultRank - 1, nDim = resultRank;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
  // lhs: [..., K] where leading dims map to the result's leading dims.
  for (int64_t i = 0; i < lhsRank - 1; ++i)
    lhsExprs.push_back(d(i + (resultRank - lhsRank)));
  lhsExprs.push_back(d(kDim));
  if (rhsBatched)
    for (int64_t i = 0; i < resultRank - 2; ++i)
      rhsExprs.push_back(d(i));
  rhsExprs.push_back(d(kDim));
  rhsExprs.push_back(d(nDim));
  for (int64_t i = 0; i < resultRank - 1; ++i)
    outExprs.push_back(d(i));
  outExprs.push_back(d(nDim));
  ContractionMaps maps;
  maps.lhs = AffineMap::get(loops, 0, lhsExprs, ctx);
  maps.rhs = AffineMap::get(loops, 0, rhsExprs, ctx);
  maps.output = AffineMap::get(loops, 0, outExprs, ctx);
  maps.iterators.assign(loops, utils::IteratorType::parallel);
  maps.iterators[kDim] = utils::IteratorType::reduction;
  maps.nDim = nDim;
  return maps;
}

PoolMaps poolMaps(ArrayRef<int64_t> s, MLIRContext *ctx, ArrayRef<int64_t> d) {
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  int64_t dh = d.empty() ? 1 : d[0], dw = d.empty() ? 1 : d[1];
  PoolMaps m;
  m.maps = {AffineMap::get(6, 0,
                           {dim(0), dim(1), dim(2) * s[0] + dim(4) * dh,
                            dim(3) * s[1] + dim(5) * dw},
                           ctx),
            AffineMap::get(6, 0, {dim(4), dim(5)}, ctx),
            AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, ctx)};
  m.iterators = {
      utils::IteratorType::parallel,  utils::IteratorType::parallel,
      utils::IteratorType::parallel,  utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::reduction};
  return m;
}

ConvMaps convMaps(ArrayRef<int64_t> s, ArrayRef<int64_t> d, int64_t groups,
                  ShapedType weightType, MLIRContext *ctx) {
  int64_t perGroupOut = weightType.getDimSize(0) / groups;
  int64_t perGroupIn = weightType.getDimSize(1);
  // Loops: n, f, c, kh, kw, oh, ow. The output row (ow) is innermost, so
  // the nest vectorizes along it, and every output still accumulates its
  // products in (c, kh, kw) order.
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n = dim(0), f = dim(1), c = dim(2), kh = dim(3), kw = dim(4),
             oh = dim(5), ow = dim(6);
  AffineExpr inChannel = f.floorDiv(perGroupOut) * perGroupIn + c;
  ConvMaps maps;
  maps.input = AffineMap::get(
      7, 0, {n, inChannel, oh * s[0] + kh * d[0], ow * s[1] + kw * d[1]}, ctx);
  maps.weight = AffineMap::get(7, 0, {f, c, kh, kw}, ctx);
  maps.output = AffineMap::get(7, 0, {n, f, oh, ow}, ctx);
  maps.iterators.assign(7, utils::IteratorType::parallel);
  for (int i = 2; i < 5; ++i)
    maps.iterators[i] = utils::IteratorType::reduction;
  return maps;
}

std::string formatSourceLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return formatSourceLocation(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatSourceLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string s = formatSourceLocation(inner); !s.empty())
        return s;
  return "";
}

/// The first name in `loc`, or "".
static std::string firstName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return firstName(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string s = firstName(inner); !s.empty())
        return s;
  return "";
}

std::string layerLabel(Location loc) {
  std::string label = formatSourceLocation(loc);
  if (std::string name = firstName(loc); !name.empty())
    label += (label.empty() ? "(" : " (") + name + ")";
  return label;
}

Value stringAddress(OpBuilder &b, Location loc, ModuleOp module,
                    StringRef value) {
  std::string name =
      "__mix_str_" + llvm::utohexstr(llvm::xxh3_64bits(value), true);
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    std::string data = value.str();
    data.push_back('\0');
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name, b.getStringAttr(data),
                           /*alignment=*/0);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
}

void emitCheck(OpBuilder &b, Location loc, Operation *origin, Value failed,
               mixrt_status_code code, StringRef what, Value index,
               Value value) {
  auto module = origin->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  constexpr StringLiteral callee = "mixrt_check_fail";
  if (!module.lookupSymbol(callee)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = b.getFunctionType(
        {b.getI32Type(), ptr, ptr, b.getI64Type(), b.getF64Type()}, {});
    func::FuncOp::create(b, loc, callee, type).setPrivate();
  }
  scf::IfOp::create(b, loc, failed, [&](OpBuilder &nb, Location l) {
    std::string where = formatSourceLocation(origin->getLoc());
    Value args[] = {arith::ConstantIntOp::create(nb, l, nb.getI32Type(),
                                                 static_cast<int32_t>(code)),
                    stringAddress(nb, l, module,
                                  where.empty() ? "<unknown location>" : where),
                    stringAddress(nb, l, module, what), index, value};
    func::CallOp::create(nb, l, callee, TypeRange{}, args);
    scf::YieldOp::create(nb, l);
  });
}

Value roundChecked(OpBuilder &b, Location loc, Value y, Type to, bool check,
                   Operation *origin, StringRef what, ArrayRef<int64_t> shape) {
  Value r = convertScalar(b, loc, y, to);
  if (!check)
    return r;
  Type wide = y.getType();
  Value inf = arith::ConstantOp::create(
      b, loc,
      b.getFloatAttr(
          wide, APFloat::getInf(cast<FloatType>(wide).getFloatSemantics())));
  // One operand op per statement: the IR must not depend on the order the
  // host compiler evaluates function arguments in.
  Value magnitude = math::AbsFOp::create(b, loc, y);
  Value back = convertScalar(b, loc, r, wide);
  Value backMagnitude = math::AbsFOp::create(b, loc, back);
  Value finite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, magnitude, inf);
  Value overflowed = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                           backMagnitude, inf);
  Value failed = arith::AndIOp::create(b, loc, finite, overflowed);
  Value reported = convertScalar(b, loc, y, b.getF64Type());
  Value index = linearIndex(b, loc, shape);
  emitCheck(b, loc, origin, failed, MIXRT_STATUS_OUT_OF_RANGE, what, index,
            reported);
  return r;
}

Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value flat = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t d = 0, e = shape.size(); d < e; ++d) {
    Value scaled = arith::MulIOp::create(
        b, loc, flat, arith::ConstantIndexOp::create(b, loc, shape[d]));
    flat = arith::AddIOp::create(b, loc, scaled,
                                 linalg::IndexOp::create(b, loc, d));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), flat);
}

} // namespace mix::lowering
