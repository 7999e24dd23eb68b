//===- OnnxComposite.cpp - ONNX ops written as several mix layers ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// ONNX ops that have no mix op of their own but are short chains of mix
// layers, each written as ONNX's reference implementation computes it (the
// numpy code of onnx/backend/test/case/node), so the chain keeps ONNX's
// numerics, overflow and NaN included:
//
//   PRelu            max(x, 0) + min(x, 0) * slope
//   ThresholdedRelu  where(x <= alpha (ordered: NaN stays), 0, x)
//   Softplus         log(exp(x) + 1)
//   Softsign         x / (|x| + 1)
//   Selu             elu(x, alpha) * gamma
//   Celu             max(x, 0) + min(alpha * (exp(x / alpha) - 1), 0)
//   Shrink           where(x < -lambd, x + bias, where(x > lambd, x - bias, 0))
//   GlobalMaxPool    reduce_max over the spatial axes, kept
//   MeanVarianceNormalization
//                    (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
//   DepthToSpace, SpaceToDepth
//                    reshape, transpose, reshape
//   Tile             concat of copies along each repeated axis
//   Trilu            where(mask, x, 0) with a constant mask of the kept
//                    triangle (j - i >= k upper, <= k lower)
//
// Each layer takes the node's location (and so its block and its precision
// in a plan). Sum, Mean and the ReduceL1/SumSquare/LogSum/LogSumExp family
// are with their relatives (OnnxOps.cpp, OnnxDataOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "llvm/ADT/STLExtras.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

NamedAttribute predicate(Importer &im, StringRef p) {
  return im.builder.getNamedAttr("predicate", im.builder.getStringAttr(p));
}

/// The mask type of comparisons of `type`'s elements.
RankedTensorType maskOf(RankedTensorType type) {
  return RankedTensorType::get(type.getShape(),
                               IntegerType::get(type.getContext(), 1));
}

} // namespace

bool Importer::convertComposite(const onnx::NodeProto &node) {
  StringRef op = node.op_type();
  static constexpr StringLiteral kOps[] = {"PRelu",
                                           "ThresholdedRelu",
                                           "Softplus",
                                           "Softsign",
                                           "Selu",
                                           "Celu",
                                           "Shrink",
                                           "GlobalMaxPool",
                                           "MeanVarianceNormalization",
                                           "DepthToSpace",
                                           "SpaceToDepth",
                                           "Tile",
                                           "Trilu",
                                           "Hardmax",
                                           "LRN"};
  bool known = llvm::is_contained(kOps, op);
  if (!known)
    return false;
  std::string out = node.output_size() ? node.output(0) : "";
  Value x = operand(node, input(node, 0));
  RankedTensorType type = floatTypeOf(node, out);
  if (!x || !type)
    return true;
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xType.getElementType())) {
    problem(node, "expects a float input");
    return true;
  }
  Type elem = xType.getElementType();
  auto f64 = [&](StringRef name, double v) {
    return builder.getNamedAttr(name, builder.getF64FloatAttr(v));
  };
  auto i64Array = [&](StringRef name, ArrayRef<int64_t> values) {
    return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
  };

  if (op == "PRelu") {
    Value slope = operand(node, input(node, 1));
    if (!slope)
      return true;
    // The slope broadcasts to X (unidirectional): the result is X's shape.
    auto slopeShape = cast<RankedTensorType>(slope.getType()).getShape();
    ArrayRef<int64_t> shape = xType.getShape();
    bool fits = slopeShape.size() <= shape.size();
    for (size_t i = 0; fits && i < slopeShape.size(); ++i) {
      int64_t s = slopeShape[slopeShape.size() - 1 - i];
      int64_t d = shape[shape.size() - 1 - i];
      fits = s == 1 || s == d;
    }
    if (!fits) {
      problem(node, "the slope " + shapeString(slopeShape) +
                        " does not broadcast to the input " +
                        shapeString(shape));
      return true;
    }
    Value zero = scalarWeight(*this, elem, 0.0);
    Value positive = layer<MaximumOp>(*this, xType, {x, zero});
    Value negative = layer<MinimumOp>(*this, xType, {x, zero});
    Value scaled = layer<MulOp>(*this, xType, {negative, slope});
    define(out, layer<AddOp>(*this, type, {positive, scaled}));
    return true;
  }
  if (op == "ThresholdedRelu") {
    Value alpha = scalarWeight(*this, elem, attrFloat(node, "alpha", 1.0));
    Value low = layer<CompareOp>(*this, maskOf(xType), {x, alpha},
                                 {predicate(*this, "le")});
    define(out, layer<WhereOp>(*this, type,
                               {low, scalarWeight(*this, elem, 0.0), x}));
    return true;
  }
  if (op == "Softplus") {
    Value e = layer<ExpOp>(*this, xType, {x});
    Value s = layer<AddOp>(*this, xType, {e, scalarWeight(*this, elem, 1.0)});
    define(out, layer<LogOp>(*this, type, {s}));
    return true;
  }
  if (op == "Softsign") {
    Value a = layer<AbsOp>(*this, xType, {x});
    Value d = layer<AddOp>(*this, xType, {a, scalarWeight(*this, elem, 1.0)});
    define(out, layer<DivOp>(*this, type, {x, d}));
    return true;
  }
  if (op == "Selu") {
    double alpha = attrFloat(node, "alpha", 1.67326319217681884765625);
    double gamma = attrFloat(node, "gamma", 1.05070102214813232421875);
    Value e = layer<EluOp>(*this, xType, {x}, {f64("alpha", alpha)});
    define(out,
           layer<MulOp>(*this, type, {e, scalarWeight(*this, elem, gamma)}));
    return true;
  }
  if (op == "Celu") {
    double alpha = attrFloat(node, "alpha", 1.0);
    Value zero = scalarWeight(*this, elem, 0.0);
    Value a = scalarWeight(*this, elem, alpha);
    Value positive = layer<MaximumOp>(*this, xType, {x, zero});
    Value q = layer<DivOp>(*this, xType, {x, a});
    Value e = layer<ExpOp>(*this, xType, {q});
    Value m = layer<SubOp>(*this, xType, {e, scalarWeight(*this, elem, 1.0)});
    Value s = layer<MulOp>(*this, xType, {a, m});
    Value negative = layer<MinimumOp>(*this, xType, {s, zero});
    define(out, layer<AddOp>(*this, type, {positive, negative}));
    return true;
  }
  if (op == "Shrink") {
    double bias = attrFloat(node, "bias", 0.0);
    double lambd = attrFloat(node, "lambd", 0.5);
    Value below = layer<CompareOp>(*this, maskOf(xType),
                                   {x, scalarWeight(*this, elem, -lambd)},
                                   {predicate(*this, "lt")});
    Value above = layer<CompareOp>(*this, maskOf(xType),
                                   {x, scalarWeight(*this, elem, lambd)},
                                   {predicate(*this, "gt")});
    Value b = scalarWeight(*this, elem, bias);
    Value plus = layer<AddOp>(*this, xType, {x, b});
    Value minus = layer<SubOp>(*this, xType, {x, b});
    Value inner = layer<WhereOp>(
        *this, xType, {above, minus, scalarWeight(*this, elem, 0.0)});
    define(out, layer<WhereOp>(*this, type, {below, plus, inner}));
    return true;
  }
  if (op == "GlobalMaxPool") {
    if (xType.getRank() < 3) {
      problem(node, "expects an input of rank 3 or more (N, C, spatial...)");
      return true;
    }
    SmallVector<int64_t> axes;
    for (int64_t i = 2; i < xType.getRank(); ++i)
      axes.push_back(i);
    define(out,
           layer<ReduceMaxOp>(
               *this, type, {x},
               {i64Array("axes", axes),
                builder.getNamedAttr("keepdims", builder.getBoolAttr(true))}));
    return true;
  }
  if (op == "MeanVarianceNormalization") {
    std::vector<int64_t> axes =
        attrInts(node, "axes").value_or(std::vector<int64_t>{0, 2, 3});
    SmallVector<int64_t> statShape(xType.getShape());
    for (int64_t &a : axes) {
      if (a < 0)
        a += xType.getRank();
      if (a < 0 || a >= xType.getRank()) {
        problem(node, "an axis is out of range");
        return true;
      }
      statShape[a] = 1;
    }
    auto statType = RankedTensorType::get(statShape, elem);
    NamedAttribute reduceAttrs[] = {
        i64Array("axes", axes),
        builder.getNamedAttr("keepdims", builder.getBoolAttr(true))};
    Value mean = layer<ReduceMeanOp>(*this, statType, {x}, reduceAttrs);
    Value squares = layer<MulOp>(*this, xType, {x, x});
    Value meanOfSquares =
        layer<ReduceMeanOp>(*this, statType, {squares}, reduceAttrs);
    Value squaredMean = layer<MulOp>(*this, statType, {mean, mean});
    Value var = layer<SubOp>(*this, statType, {meanOfSquares, squaredMean});
    Value std = layer<SqrtOp>(*this, statType, {var});
    Value denom =
        layer<AddOp>(*this, statType, {std, scalarWeight(*this, elem, 1e-9)});
    Value centered = layer<SubOp>(*this, xType, {x, mean});
    define(out, layer<DivOp>(*this, type, {centered, denom}));
    return true;
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    int64_t b = attrInt(node, "blocksize", 0);
    ArrayRef<int64_t> s = xType.getShape();
    if (xType.getRank() != 4 || b < 1 ||
        llvm::any_of(
            s.drop_front(),
            [](int64_t d) { return ShapedType::isDynamic(d); })) {
      problem(node, "expects a 4-D input with static C, H, W and a blocksize "
                    ">= 1");
      return true;
    }
    int64_t n = s[0], c = s[1], h = s[2], w = s[3];
    SmallVector<int64_t> split, perm, merged;
    if (op == "DepthToSpace") {
      if (c % (b * b) != 0) {
        problem(node, "the channels are not a multiple of blocksize^2");
        return true;
      }
      int64_t cOut = c / (b * b);
      // DCR: channels are (b, b, C'); CRD: (C', b, b).
      if (attrString(node, "mode", "DCR") == "CRD") {
        split = {n, cOut, b, b, h, w};
        perm = {0, 1, 4, 2, 5, 3};
      } else {
        split = {n, b, b, cOut, h, w};
        perm = {0, 3, 4, 1, 5, 2};
      }
      merged = {n, cOut, h * b, w * b};
    } else {
      if (h % b != 0 || w % b != 0) {
        problem(node, "the height and width are not multiples of blocksize");
        return true;
      }
      split = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      merged = {n, c * b * b, h / b, w / b};
    }
    SmallVector<int64_t> permuted;
    for (int64_t p : perm)
      permuted.push_back(split[p]);
    Value y = layer<ReshapeOp>(*this, RankedTensorType::get(split, elem), {x});
    y = layer<TransposeOp>(*this, RankedTensorType::get(permuted, elem), {y},
                           {i64Array("permutation", perm)});
    define(out, layer<ReshapeOp>(*this, type, {y}));
    return true;
  }
  if (op == "Tile") {
    std::optional<std::vector<int64_t>> repeats = constantInts(input(node, 1));
    if (!repeats || static_cast<int64_t>(repeats->size()) != xType.getRank()) {
      problem(node, "the repeats must be a constant with one value per axis");
      return true;
    }
    Value y = x;
    SmallVector<int64_t> shape(xType.getShape());
    for (int64_t axis = 0; axis < xType.getRank(); ++axis) {
      int64_t r = (*repeats)[axis];
      if (r == 1)
        continue;
      if (r < 1 || ShapedType::isDynamic(shape[axis])) {
        problem(node, "repeats must be >= 1, and 1 along the dynamic batch");
        return true;
      }
      shape[axis] *= r;
      SmallVector<Value> copies(r, y);
      y = layer<ConcatOp>(
          *this, RankedTensorType::get(shape, elem), copies,
          {builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis))});
    }
    define(out, y);
    return true;
  }
  if (op == "LRN") {
    // y = x / (bias + alpha / size * sum of x^2 over the channels
    // [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta, ONNX's formula:
    // the squares padded with zeros along C, the window's `size` slices
    // summed in channel order.
    int64_t size = attrInt(node, "size", 0);
    int64_t rank = xType.getRank();
    if (rank < 3 || ShapedType::isDynamic(xType.getDimSize(1)) || size < 1) {
      problem(node, "expects an input [N, C, ...] of rank 3 or more with a "
                    "static C, and a size >= 1");
      return true;
    }
    int64_t c = xType.getDimSize(1);
    int64_t before = (size - 1) / 2, after = size - 1 - before;
    double alpha = attrFloat(node, "alpha", 1e-4),
           beta = attrFloat(node, "beta", 0.75),
           bias = attrFloat(node, "bias", 1.0);
    Value squares = layer<MulOp>(*this, xType, {x, x});
    SmallVector<int64_t> paddedShape(xType.getShape());
    paddedShape[1] = c + size - 1;
    SmallVector<int64_t> pads(2 * rank, 0);
    pads[1] = before;
    pads[rank + 1] = after;
    Value padded = layer<PadOp>(*this, RankedTensorType::get(paddedShape, elem),
                                {squares}, {i64Array("pads", pads)});
    Value sum;
    for (int64_t j = 0; j < size; ++j) {
      Value window = layer<SliceOp>(
          *this, xType, {padded},
          {i64Array("axes", {int64_t(1)}), i64Array("starts", {j}),
           i64Array("ends", {j + c}), i64Array("steps", {int64_t(1)})});
      sum = sum ? layer<AddOp>(*this, xType, {sum, window}) : window;
    }
    Value scaled = layer<MulOp>(
        *this, xType, {sum, scalarWeight(*this, elem, alpha / double(size))});
    Value base =
        layer<AddOp>(*this, xType, {scaled, scalarWeight(*this, elem, bias)});
    Value denominator =
        layer<PowOp>(*this, xType, {base, scalarWeight(*this, elem, beta)});
    define(out, layer<DivOp>(*this, type, {x, denominator}));
    return true;
  }

  if (op == "Hardmax") {
    // 1 at the first maximum along the axis, 0 elsewhere (ONNX's reference:
    // argmax, then a one-hot of it): the argmax index (exact in f32 below
    // 2^24) compared with a constant iota along the axis.
    int64_t rank = xType.getRank();
    int64_t given = attrInt(node, "axis", -1);
    if (given < -rank || given >= rank) {
      problem(node, "axis " + std::to_string(given) +
                        " is out of range for rank " + std::to_string(rank));
      return true;
    }
    std::optional<int64_t> axis = given < 0 ? given + rank : given;
    int64_t n = xType.getDimSize(*axis);
    if (ShapedType::isDynamic(n) || n == 0 || n >= (int64_t(1) << 24)) {
      problem(node, "the axis of a Hardmax must be static, not empty and "
                    "below 2^24 elements");
      return true;
    }
    SmallVector<int64_t> kept(xType.getShape());
    kept[*axis] = 1;
    Value index = layer<ArgMaxOp>(
        *this, RankedTensorType::get(kept, builder.getI64Type()), {x},
        {builder.getNamedAttr("axis", builder.getI64IntegerAttr(*axis)),
         builder.getNamedAttr("keepdims", builder.getBoolAttr(true))});
    Value asFloat = CastOp::create(
        builder, loc, RankedTensorType::get(kept, builder.getF32Type()), index);
    SmallVector<int64_t> iotaShape(rank, 1);
    iotaShape[*axis] = n;
    SmallVector<float> iota;
    for (int64_t i = 0; i < n; ++i)
      iota.push_back(float(i));
    auto iotaType = RankedTensorType::get(iotaShape, builder.getF32Type());
    Value positions = WeightOp::create(
        builder, loc, iotaType,
        DenseElementsAttr::get(iotaType, ArrayRef(iota)), StringAttr());
    Value hot = layer<CompareOp>(
        *this, RankedTensorType::get(xType.getShape(), builder.getI1Type()),
        {asFloat, positions},
        {builder.getNamedAttr("predicate", builder.getStringAttr("eq"))});
    define(out, layer<WhereOp>(*this, type,
                               {hot, scalarWeight(*this, elem, 1.0),
                                scalarWeight(*this, elem, 0.0)}));
    return true;
  }

  if (op == "Trilu") {
    int64_t k = 0;
    if (!input(node, 1).empty()) {
      std::optional<std::vector<int64_t>> given = constantInts(input(node, 1));
      if (!given || given->size() != 1) {
        problem(node, "k must be a constant scalar");
        return true;
      }
      k = given->front();
    }
    bool upper = attrInt(node, "upper", 1) != 0;
    ArrayRef<int64_t> shape = xType.getShape();
    if (xType.getRank() < 2 || llvm::any_of(shape.take_back(2), [](int64_t d) {
          return ShapedType::isDynamic(d);
        })) {
      problem(node, "expects an input of rank 2 or more with static last "
                    "two dimensions");
      return true;
    }
    int64_t rows = shape[shape.size() - 2], cols = shape.back();
    // The kept triangle as a constant mask.
    SmallVector<bool> keep;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        keep.push_back(upper ? j - i >= k : j - i <= k);
    Value mask = constantMask(*this, {rows, cols}, keep);
    Value zero = scalarWeight(*this, elem, 0.0);
    define(out, layer<WhereOp>(*this, type, {mask, x, zero}));
    return true;
  }
  return false;
}
