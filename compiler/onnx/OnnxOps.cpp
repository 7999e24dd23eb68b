//===- OnnxOps.cpp - ONNX ops into mix layers ----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One handler per ONNX op of opset 17 (the model was converted to it).
// Handlers record a problem (the node cannot be imported) instead of
// stopping: every problem of a model is reported at once.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

/// Layer ops: operands, result type, attributes.
/// The numpy broadcast of two shapes, or false.
bool broadcastShape(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                    SmallVector<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

} // namespace

std::optional<SmallVector<int64_t>> mix::onnx_import::windowPadding(
    Importer &im, const onnx::NodeProto &node, RankedTensorType inputType,
    llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
    llvm::ArrayRef<int64_t> dilations) {
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; })) {
    im.problem(node, "strides, dilations and kernel sizes must be positive");
    return std::nullopt;
  }
  std::string autoPad = attrString(node, "auto_pad", "NOTSET");
  if (autoPad == "NOTSET" || autoPad.empty()) {
    auto pads = attrInts(node, "pads").value_or(std::vector<int64_t>(4, 0));
    if (pads.size() != 4) {
      im.problem(node, "pads must have 4 values for a 2-D window");
      return std::nullopt;
    }
    return SmallVector<int64_t>(pads.begin(), pads.end());
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>(4, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") {
    im.problem(node, "unknown auto_pad '" + autoPad + "'");
    return std::nullopt;
  }
  SmallVector<int64_t> pads(4, 0);
  for (int i = 0; i < 2; ++i) {
    int64_t in = inputType.getDimSize(2 + i);
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[2 + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

namespace {

/// The result shape of Reshape(input, target) (allowzero = 0): 0 copies the
/// input dimension, -1 is inferred, kBatchDim is the dynamic batch.
std::optional<SmallVector<int64_t>>
reshapeResult(RankedTensorType in, llvm::ArrayRef<int64_t> target,
              std::string &error) {
  SmallVector<int64_t> out;
  int inferred = -1;
  bool inDynamic = !in.hasStaticShape();
  int64_t inStatic = 1;
  for (int64_t d : in.getShape())
    if (!ShapedType::isDynamic(d))
      inStatic *= d;
  int64_t outStatic = 1;
  bool outDynamic = false;
  for (auto [i, v] : llvm::enumerate(target)) {
    int64_t d = v;
    if (v == 0) {
      if (int64_t(i) >= in.getRank()) {
        error = "a 0 in the shape beyond the input's rank";
        return std::nullopt;
      }
      d = in.getDimSize(i);
    } else if (v == kBatchDim) {
      d = ShapedType::kDynamic;
    } else if (v == -1) {
      if (inferred >= 0) {
        error = "two -1 in the shape";
        return std::nullopt;
      }
      inferred = int(i);
    } else if (v < -1) {
      error = "a negative size in the shape";
      return std::nullopt;
    }
    if (ShapedType::isDynamic(d)) {
      if (i != 0) {
        error = "the dynamic batch would not stay the leading dimension";
        return std::nullopt;
      }
      outDynamic = true;
    } else if (v != -1) {
      outStatic *= d;
    }
    out.push_back(d);
  }
  if (inferred >= 0) {
    if (inDynamic && !outDynamic) {
      if (inferred != 0 || outStatic != inStatic) {
        error = "the dynamic batch would not stay the leading dimension";
        return std::nullopt;
      }
      out[0] = ShapedType::kDynamic;
      outDynamic = true;
    } else {
      if (outStatic == 0 || inStatic % outStatic != 0) {
        error = "the element counts do not match";
        return std::nullopt;
      }
      out[inferred] = inStatic / outStatic;
      outStatic = inStatic;
    }
  }
  if (inDynamic != outDynamic || outStatic != inStatic) {
    error = inDynamic != outDynamic
                ? "the dynamic batch would not stay the leading dimension"
                : "the element counts do not match";
    return std::nullopt;
  }
  return out;
}

/// True if `c` is a constant boolean tensor of falses (from raw_data or
/// int32_data, as ONNX stores booleans).
bool isConstantFalse(const Constant *c) {
  if (!c || !c->proto || c->dtype != onnx::TensorProto::BOOL ||
      c->numElements() < 1)
    return false;
  const onnx::TensorProto &t = *c->proto;
  if (t.has_raw_data())
    return int64_t(t.raw_data().size()) == c->numElements() &&
           llvm::all_of(t.raw_data(), [](char b) { return b == 0; });
  return t.int32_data_size() == c->numElements() &&
         llvm::all_of(t.int32_data(), [](int32_t v) { return v == 0; });
}

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

bool Importer::convertMath(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  std::string out = node.output_size() ? node.output(0) : "";
  auto f64 = [&](llvm::StringRef name, double v) {
    return builder.getNamedAttr(name, builder.getF64FloatAttr(v));
  };
  using Build =
      Value (*)(Importer &, Type, ValueRange, llvm::ArrayRef<NamedAttribute>);
  Build unary = llvm::StringSwitch<Build>(op)
                    .Case("Sigmoid", layer<SigmoidOp>)
                    .Case("Tanh", layer<TanhOp>)
                    .Case("HardSigmoid", layer<HardSigmoidOp>)
                    .Case("HardSwish", layer<HardSwishOp>)
                    .Case("LeakyRelu", layer<LeakyReluOp>)
                    .Case("Elu", layer<EluOp>)
                    .Case("Clip", layer<ClipOp>)
                    .Case("Exp", layer<ExpOp>)
                    .Case("Log", layer<LogOp>)
                    .Case("Sqrt", layer<SqrtOp>)
                    .Case("Abs", layer<AbsOp>)
                    .Case("Neg", layer<NegOp>)
                    .Case("Erf", layer<ErfOp>)
                    .Case("Reciprocal", layer<ReciprocalOp>)
                    .Case("Floor", layer<FloorOp>)
                    .Case("Ceil", layer<CeilOp>)
                    .Case("Round", layer<RoundOp>)
                    .Case("Sign", layer<SignOp>)
                    .Case("Sin", layer<SinOp>)
                    .Case("Cos", layer<CosOp>)
                    .Case("Tan", layer<TanOp>)
                    .Case("Asin", layer<AsinOp>)
                    .Case("Acos", layer<AcosOp>)
                    .Case("Atan", layer<AtanOp>)
                    .Case("Sinh", layer<SinhOp>)
                    .Case("Cosh", layer<CoshOp>)
                    .Case("Asinh", layer<AsinhOp>)
                    .Case("Acosh", layer<AcoshOp>)
                    .Case("Atanh", layer<AtanhOp>)
                    .Default(nullptr);
  Build binary = llvm::StringSwitch<Build>(op)
                     .Case("Sub", layer<SubOp>)
                     .Case("Div", layer<DivOp>)
                     .Case("Pow", layer<PowOp>)
                     .Case("Max", layer<MaximumOp>)
                     .Case("Min", layer<MinimumOp>)
                     .Case("Sum", layer<AddOp>)
                     .Case("Mean", layer<AddOp>)
                     .Default(nullptr);
  if (!unary && !binary)
    return false;

  SmallVector<NamedAttribute> attrs;
  if (op == "HardSigmoid")
    attrs = {f64("alpha", attrFloat(node, "alpha", 0.2)),
             f64("beta", attrFloat(node, "beta", 0.5))};
  else if (op == "LeakyRelu")
    attrs = {f64("alpha", attrFloat(node, "alpha", 0.01))};
  else if (op == "Elu")
    attrs = {f64("alpha", attrFloat(node, "alpha", 1.0))};
  // Bounds of a Clip computed at run time (scalar tensors), applied after
  // the constant ones as min(max(x, min), max), ONNX's definition.
  Value runMin, runMax;
  if (op == "Clip") {
    // min and max are optional inputs: constants become attributes.
    static const char *const names[] = {"min", "max"};
    for (int i = 0; i < 2; ++i) {
      const char *name = names[i];
      if (input(node, i + 1).empty())
        continue;
      if (std::optional<double> bound = constantScalar(input(node, i + 1))) {
        attrs.push_back(f64(name, *bound));
        continue;
      }
      Value v = value(input(node, i + 1));
      if (!v && !constant(input(node, i + 1)))
        return true; // the producer failed and was reported
      if (!v || cast<RankedTensorType>(v.getType()).getRank() != 0) {
        problem(node, llvm::Twine("the ") + name +
                          " of a Clip must be a float scalar (a constant, or "
                          "a tensor of rank 0 computed at run time)");
        return true;
      }
      (i == 0 ? runMin : runMax) = v;
    }
  }

  RankedTensorType type = floatTypeOf(node, out);
  if (binary) {
    // Max, Min, Sum and Mean take one or more operands: a chain of binary
    // layers in operand order (Mean: the Sum divided by their count, as
    // ONNX's reference computes it).
    bool variadic = op == "Max" || op == "Min" || op == "Sum" || op == "Mean";
    int n = node.input_size();
    if (variadic ? n < 1 : n != 2) {
      problem(node, "expects " + llvm::Twine(variadic ? "at least 1" : "2") +
                        " inputs");
      return true;
    }
    Value acc = operand(node, input(node, 0));
    if (!acc || !type)
      return true;
    if (n == 1) {
      define(out, acc);
      return true;
    }
    for (int i = 1; i < n; ++i) {
      Value next = operand(node, input(node, i));
      if (!next)
        return true;
      // Pow's exponent may be an integer tensor (opset 12): its exact value
      // rounded once to the base's type (mix.cast), as ONNX's reference
      // computes x ** float(y).
      auto nextType = cast<RankedTensorType>(next.getType());
      if (op == "Pow" && isa<IntegerType>(nextType.getElementType()))
        next = CastOp::create(
            builder, loc,
            RankedTensorType::get(nextType.getShape(), type.getElementType()),
            next);
      // Intermediate results broadcast only the operands seen so far.
      RankedTensorType step = type;
      if (i + 1 < n) {
        SmallVector<int64_t> shape;
        if (!broadcastShape(cast<RankedTensorType>(acc.getType()).getShape(),
                            cast<RankedTensorType>(next.getType()).getShape(),
                            shape)) {
          problem(node, "operand shapes are not broadcastable");
          return true;
        }
        step = RankedTensorType::get(shape, type.getElementType());
      }
      acc = binary(*this, step, {acc, next}, {});
    }
    if (op == "Mean")
      acc = layer<DivOp>(*this, type,
                         {acc, scalarWeight(*this, type.getElementType(), n)});
    define(out, acc);
    return true;
  }
  Value x = operand(node, input(node, 0));
  if (!x || !type)
    return true;
  // A Clip whose bounds are all computed at run time is the max/min alone.
  Value y = op == "Clip" && attrs.empty() && (runMin || runMax)
                ? x
                : unary(*this, type, {x}, attrs);
  if (runMin)
    y = layer<MaximumOp>(*this, type, {y, runMin}, {});
  if (runMax)
    y = layer<MinimumOp>(*this, type, {y, runMax}, {});
  define(out, y);
  return true;
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

void Importer::convert(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  std::string out = node.output_size() ? node.output(0) : "";
  auto operandAt = [&](int i) { return operand(node, input(node, i)); };
  auto resultType = [&]() { return typeOf(node, out); };
  auto i64Array = [&](llvm::StringRef name, llvm::ArrayRef<int64_t> values) {
    return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
  };

  if (convertMaskOp(node) || convertRecurrent(node) || convertComposite(node))
    return;
  if (op == "Identity" || op == "Dropout") {
    // Dropout is the identity in inference; with a training_mode (input 2)
    // that is not a constant false it drops at random, unless its ratio
    // (input 1, default 0.5) is a constant 0.
    if (op == "Dropout" && !input(node, 2).empty()) {
      std::optional<double> ratio =
          input(node, 1).empty() ? 0.5 : constantScalar(input(node, 1));
      if (!isConstantFalse(constant(input(node, 2))) && ratio != 0.0) {
        problem(node, "Dropout in training mode is not supported "
                      "(training_mode must be a constant false, or the ratio "
                      "a constant 0)");
        return;
      }
    }
    if (op == "Dropout" && hasOutput(node, 1)) {
      // The mask of a Dropout that drops nothing: all true, in x's shape
      // (its batch included). `x ule x` (less or equal, or unordered) holds
      // for every value, NaN included.
      Value x = operandAt(0);
      if (!x || !floatTypeOf(node, out))
        return;
      auto xType = cast<RankedTensorType>(x.getType());
      define(node.output(1),
             layer<CompareOp>(
                 *this,
                 RankedTensorType::get(xType.getShape(), builder.getI1Type()),
                 {x, x},
                 {builder.getNamedAttr("predicate",
                                       builder.getStringAttr("ule"))}));
    }
    if (const Constant *c = constant(input(node, 0))) {
      Constant copy = *c;
      defineConstant(out, std::move(copy));
      return;
    }
    if (Value v = value(input(node, 0)))
      define(out, v);
    return;
  }
  if (op == "Cast" || op == "CastLike") {
    // Of a value computed at run time, to a floating-point type: mix.cast
    // (CastLike: to the element type of its second input, which shape
    // inference gives the result).
    // From a float: one round-to-nearest-even like ONNX's Cast (overflow to
    // +-inf, unchecked). From an integer (int32, int64, or a bool mask of a
    // comparison: 0 or 1): one RNE rounding of the exact integer. Casts of
    // integer constants to integers are folded (OnnxFold.cpp); those to
    // floats become a mix.cast of an integer weight, which canonicalization
    // folds.
    RankedTensorType resultType = typeOf(node, out);
    if (resultType && !isa<FloatType>(resultType.getElementType())) {
      std::string elem;
      llvm::raw_string_ostream(elem) << resultType.getElementType();
      problem(node, "Cast to an integer type (" + elem +
                        ") of a tensor computed at run time is not supported "
                        "(mix.cast converts to f16, bf16, f32 and f64 only)");
      return;
    }
    Value x = resultType ? operandAt(0) : Value();
    if (!x)
      return;
    auto type =
        RankedTensorType::get(cast<RankedTensorType>(x.getType()).getShape(),
                              resultType.getElementType());
    define(out, x.getType() == type
                    ? x
                    : CastOp::create(builder, loc, type, x).getResult());
    return;
  }
  if (op == "Relu" || op == "Softmax" || op == "LogSoftmax") {
    Value x = operandAt(0);
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return;
    if (op == "Relu") {
      define(out, layer<ReluOp>(*this, type, {x}));
      return;
    }
    // Opset 13: along one axis (default -1); the verifier checks its range.
    NamedAttribute axis = builder.getNamedAttr(
        "axis", builder.getI64IntegerAttr(attrInt(node, "axis", -1)));
    define(out, op == "Softmax"
                    ? layer<SoftmaxOp>(*this, type, {x}, {axis})
                    : layer<LogSoftmaxOp>(*this, type, {x}, {axis}));
    return;
  }
  if (op == "Add" || op == "Mul") {
    // MatMul + Add of a 1-D constant: the bias of the dense layer.
    if (op == "Add") {
      for (int side = 0; side < 2; ++side) {
        const Constant *bias = constant(input(node, 1 - side));
        Value x = value(input(node, side));
        auto dense = x ? x.getDefiningOp<DenseOp>() : DenseOp();
        if (!bias || !dense || dense.getBias() ||
            uses.lookup(input(node, side)) != 1 || !x.use_empty() ||
            bias->shape.size() != 1 ||
            bias->shape[0] != dense.getType().getShape().back())
          continue;
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPoint(dense);
        Location saved = loc;
        loc = dense.getLoc();
        Value b = weight(node, *bias);
        loc = saved;
        if (!b)
          return;
        SmallVector<Value> operands = {dense.getInput(), dense.getWeight(), b};
        auto fused =
            DenseOp::create(builder, dense.getLoc(), TypeRange{dense.getType()},
                            operands, dense->getAttrs());
        pathOf[fused] = pathOf.lookup(dense);
        pathOf[b.getDefiningOp()] = pathOf.lookup(dense);
        dense.getResult().replaceAllUsesWith(fused.getResult());
        pathOf.erase(dense);
        dense->erase();
        define(out, fused.getResult());
        return;
      }
    }
    Value a = operandAt(0), b = operandAt(1);
    RankedTensorType type = resultType();
    if (!a || !b || !type)
      return;
    define(out, op == "Add" ? layer<AddOp>(*this, type, {a, b})
                            : layer<MulOp>(*this, type, {a, b}));
    return;
  }
  if (op == "MatMul" || op == "Gemm") {
    bool gemm = op == "Gemm";
    // Gemm: alpha * A' B' + beta * C. A transposed A is a mix.transpose;
    // alpha and beta scale the product and C with a mix.mul each (so the
    // bias is fused into the dense layer only when both are 1).
    double alpha = gemm ? attrFloat(node, "alpha", 1.0) : 1.0;
    double beta = gemm ? attrFloat(node, "beta", 1.0) : 1.0;
    bool transA = gemm && attrInt(node, "transA", 0) != 0;
    bool transB = gemm && attrInt(node, "transB", 0) != 0;
    Value a = operandAt(0);
    RankedTensorType type = floatTypeOf(node, out);
    if (!a || !type)
      return;
    auto scalar = [&](double v) {
      return scalarWeight(*this, type.getElementType(), v);
    };
    if (transA) {
      auto at = cast<RankedTensorType>(a.getType());
      if (at.getRank() != 2 || !at.hasStaticShape())
        return problem(node, "Gemm with transA = 1 needs a static 2-D A "
                             "(the batch would move)");
      a = layer<TransposeOp>(
          *this,
          RankedTensorType::get({at.getDimSize(1), at.getDimSize(0)},
                                at.getElementType()),
          {a},
          {builder.getNamedAttr("permutation",
                                builder.getDenseI64ArrayAttr({1, 0}))});
    }
    if (type.getRank() == 0 ||
        cast<RankedTensorType>(a.getType()).getRank() == 0)
      return problem(node, "a MatMul of vectors (a scalar result) is not "
                           "supported");
    // numpy's 1-D operands (MatMul only; Gemm's are 2-D): a vector A is a
    // [1, K] matrix and a vector B a [K, 1] one; the product is computed with
    // that 1 and then reshaped away. `inner` is the product's type with it.
    const Constant *w = constant(input(node, 1));
    bool aVector = cast<RankedTensorType>(a.getType()).getRank() == 1;
    bool bVector =
        !gemm &&
        (w ? w->shape.size() == 1
           : value(input(node, 1)) &&
                 cast<RankedTensorType>(value(input(node, 1)).getType())
                         .getRank() == 1);
    RankedTensorType inner = type;
    if (aVector || bVector) {
      SmallVector<int64_t> shape(type.getShape());
      if (aVector) {
        int64_t k = cast<RankedTensorType>(a.getType()).getDimSize(0);
        a = layer<ReshapeOp>(
            *this,
            RankedTensorType::get(
                {1, k}, cast<RankedTensorType>(a.getType()).getElementType()),
            {a});
        shape.insert(shape.end() - 1, 1);
      }
      if (bVector)
        shape.push_back(1);
      inner = RankedTensorType::get(shape, type.getElementType());
    }
    Value result;
    const Constant *bias = gemm && alpha == 1.0 && beta == 1.0
                               ? constant(input(node, 2))
                               : nullptr;
    Constant column;
    if (w && w->shape.size() == 1) {
      // A constant vector B is the one-column weight of a dense layer.
      column = *w;
      column.shape = {w->shape[0], 1};
      w = &column;
    }
    if (w && w->shape.size() == 2) {
      Value wv = weight(node, *w, transB);
      if (!wv)
        return;
      SmallVector<Value> operands = {a, wv};
      int64_t n = type.getShape().back();
      if (bias && bias->numElements() == n &&
          (bias->shape.size() == 1 ||
           (bias->shape.size() == 2 && bias->shape[0] == 1))) {
        Constant flat = *bias;
        flat.shape = {n};
        Value bv = weight(node, flat);
        if (!bv)
          return;
        operands.push_back(bv);
        bias = nullptr;
      }
      result = layer<DenseOp>(*this, inner, operands);
    } else {
      Value b = operandAt(1);
      if (!b)
        return;
      if (bVector) {
        int64_t k = cast<RankedTensorType>(b.getType()).getDimSize(0);
        b = layer<ReshapeOp>(
            *this,
            RankedTensorType::get(
                {k, 1}, cast<RankedTensorType>(b.getType()).getElementType()),
            {b});
      }
      if (transB) {
        auto bt = cast<RankedTensorType>(b.getType());
        if (bt.getRank() != 2 || !bt.hasStaticShape())
          return problem(node, "Gemm with transB = 1 needs a static 2-D B");
        b = layer<TransposeOp>(
            *this,
            RankedTensorType::get({bt.getDimSize(1), bt.getDimSize(0)},
                                  bt.getElementType()),
            {b},
            {builder.getNamedAttr("permutation",
                                  builder.getDenseI64ArrayAttr({1, 0}))});
      }
      auto at = cast<RankedTensorType>(a.getType());
      auto bt = cast<RankedTensorType>(b.getType());
      if (at.getRank() < 2 || bt.getRank() < 2)
        return problem(node, "MatMul of " + shapeString(at.getShape()) +
                                 " and " + shapeString(bt.getShape()) +
                                 ": the operands must be matrices");
      // numpy's batch broadcasting: each operand whose batch dimensions
      // differ from the broadcast ones is a mix.expand (a copy) first, so
      // mix.matmul sees equal batch dimensions. The dynamic batch only
      // meets itself.
      ArrayRef<int64_t> ab = at.getShape().drop_back(2),
                        bb = bt.getShape().drop_back(2);
      size_t rank = std::max(ab.size(), bb.size());
      SmallVector<int64_t> batch(rank);
      for (size_t i = 0; i < rank; ++i) {
        int64_t x = i < rank - ab.size() ? 1 : ab[i - (rank - ab.size())];
        int64_t y = i < rank - bb.size() ? 1 : bb[i - (rank - bb.size())];
        bool ok = x == y || (!ShapedType::isDynamic(x) &&
                             !ShapedType::isDynamic(y) && (x == 1 || y == 1));
        if (!ok)
          return problem(
              node, "MatMul of " + shapeString(at.getShape()) + " and " +
                        shapeString(bt.getShape()) +
                        ": the batch dimensions do not broadcast" +
                        (ShapedType::isDynamic(x) || ShapedType::isDynamic(y)
                             ? " (the dynamic batch only meets "
                               "itself)"
                             : ""));
        batch[i] = ShapedType::isDynamic(x) || x != 1 ? x : y;
      }
      auto expanded = [&](Value v, RankedTensorType t) {
        SmallVector<int64_t> shape(batch);
        shape.append(t.getShape().take_back(2).begin(),
                     t.getShape().take_back(2).end());
        if (ArrayRef<int64_t>(shape) == t.getShape())
          return v;
        return layer<ExpandOp>(
            *this, RankedTensorType::get(shape, t.getElementType()), {v});
      };
      result =
          layer<MatmulOp>(*this, inner, {expanded(a, at), expanded(b, bt)});
    }
    if (inner != type)
      result = layer<ReshapeOp>(*this, type, {result});
    if (alpha != 1.0)
      result = layer<MulOp>(*this, type, {result, scalar(alpha)});
    if (gemm && !input(node, 2).empty() &&
        (bias || value(input(node, 2)) ||
         (constant(input(node, 2)) && (alpha != 1.0 || beta != 1.0)))) {
      Value c = operandAt(2);
      if (!c)
        return;
      if (beta != 1.0)
        c = layer<MulOp>(*this, cast<RankedTensorType>(c.getType()),
                         {c, scalar(beta)});
      result = layer<AddOp>(*this, type, {result, c});
    }
    define(out, result);
    return;
  }
  if (op == "Conv") {
    Value x = operandAt(0);
    const Constant *w = constant(input(node, 1));
    RankedTensorType type = resultType();
    if (!x || !type)
      return;
    auto xt = cast<RankedTensorType>(x.getType());
    if (xt.getRank() != 4)
      return problem(node, "only 2-D convolutions (4-D inputs) are supported");
    if (!w)
      return problem(node, "the weight of a Conv must be a constant");
    SmallVector<int64_t> strides = pair(node, "strides");
    SmallVector<int64_t> dilations = pair(node, "dilations");
    if (strides.size() != 2 || dilations.size() != 2 || w->shape.size() != 4)
      return problem(node, "strides, dilations and weight must be 2-D");
    auto pads = windowPadding(*this, node, xt, {w->shape[2], w->shape[3]},
                              strides, dilations);
    if (!pads)
      return;
    Value wv = weight(node, *w);
    if (!wv)
      return;
    SmallVector<Value> operands = {x, wv};
    if (!input(node, 2).empty()) {
      const Constant *b = constant(input(node, 2));
      if (!b)
        return problem(node, "the bias of a Conv must be a constant");
      Value bv = weight(node, *b);
      if (!bv)
        return;
      operands.push_back(bv);
    }
    define(out, layer<Conv2DOp>(
                    *this, type, operands,
                    {i64Array("strides", strides), i64Array("padding", *pads),
                     i64Array("dilations", dilations),
                     builder.getNamedAttr("groups",
                                          builder.getI64IntegerAttr(
                                              attrInt(node, "group", 1)))}));
    return;
  }
  if (op == "BatchNormalization") {
    if (attrInt(node, "training_mode", 0) != 0 || hasOutput(node, 1) ||
        hasOutput(node, 2))
      return problem(node, "only the inference form of BatchNormalization "
                           "is supported");
    Value x = operandAt(0);
    RankedTensorType type = resultType();
    if (!x || !type)
      return;
    SmallVector<Value> operands = {x};
    for (int i = 1; i <= 4; ++i) {
      const Constant *c = constant(input(node, i));
      if (!c)
        return problem(node, "the scale, bias, mean and variance of a "
                             "BatchNormalization must be constants");
      Value v = weight(node, *c);
      if (!v)
        return;
      operands.push_back(v);
    }
    define(out,
           layer<BatchNormOp>(*this, type, operands,
                              {builder.getNamedAttr(
                                  "epsilon", builder.getF64FloatAttr(attrFloat(
                                                 node, "epsilon", 1e-5)))}));
    return;
  }
  if (op == "LayerNormalization" || op == "InstanceNormalization") {
    bool instance = op == "InstanceNormalization";
    Value x = operandAt(0);
    RankedTensorType type = resultType();
    if (!x || !type)
      return;
    auto xType = cast<RankedTensorType>(x.getType());
    int64_t rank = xType.getRank();
    int64_t axis = instance ? 1 : attrInt(node, "axis", -1);
    if (axis < -rank || axis >= rank)
      return problem(node, "axis " + std::to_string(axis) +
                               " is out of range for rank " +
                               std::to_string(rank));
    if (axis < 0)
      axis += rank;
    if (instance && rank < 3)
      return problem(node, "InstanceNormalization needs an input of rank 3 "
                           "or more");
    // The parameters have the shape of the normalized dimensions
    // (LayerNormalization) or of the channels (InstanceNormalization):
    // constants, or tensors computed at run time (graph inputs).
    SmallVector<int64_t> paramShape =
        instance ? SmallVector<int64_t>{xType.getDimSize(1)}
                 : SmallVector<int64_t>(xType.getShape().drop_front(axis));
    bool hasBias = !input(node, 2).empty();
    for (int i = 1; i <= (hasBias ? 2 : 1); ++i) {
      const Constant *c = constant(input(node, i));
      Value v = c ? Value() : value(input(node, i));
      if (!c && !v)
        return; // the producer failed and was reported
      ArrayRef<int64_t> shape =
          c ? ArrayRef<int64_t>(c->shape)
            : cast<RankedTensorType>(v.getType()).getShape();
      if (shape != ArrayRef<int64_t>(paramShape))
        return problem(node, op.str() + ": the scale and bias must have the "
                                        "shape of the normalized dimensions "
                                        "(broadcasting them is not "
                                        "supported)");
    }
    auto param = [&](int i) -> Value {
      if (const Constant *c = constant(input(node, i)))
        return weight(node, *c);
      return operandAt(i);
    };
    Value g = param(1);
    if (!g)
      return;
    Value b;
    if (hasBias) {
      b = param(2);
    } else {
      auto t = cast<RankedTensorType>(g.getType());
      b = WeightOp::create(builder, loc, t,
                           DenseElementsAttr::get(
                               t, builder.getZeroAttr(t.getElementType())),
                           StringAttr())
              .getResult();
    }
    if (!b)
      return;
    double eps = attrFloat(node, "epsilon", 1e-5);
    NamedAttribute epsilon =
        builder.getNamedAttr("epsilon", builder.getF64FloatAttr(eps));
    if (instance) {
      define(out, layer<InstanceNormOp>(*this, type, {x, g, b}, {epsilon}));
      return;
    }
    // The last axis alone is the default (-1), left out of the IR.
    SmallVector<NamedAttribute> attrs = {epsilon};
    if (axis != rank - 1)
      attrs.push_back(
          builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis)));
    define(out, layer<LayerNormOp>(*this, type, {x, g, b}, attrs));
    // The optional Mean and InvStdDev outputs ([d0, ..., 1, ...]): the same
    // statistics from reduce_mean, sub, mul, add and rsqrt layers.
    if (!hasOutput(node, 1) && !hasOutput(node, 2))
      return;
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    SmallVector<int64_t> statShape(xType.getShape());
    for (int64_t i = axis; i < rank; ++i)
      statShape[i] = 1;
    auto statType = RankedTensorType::get(statShape, xType.getElementType());
    NamedAttribute reduceAttrs[] = {
        builder.getNamedAttr("axes", builder.getDenseI64ArrayAttr(axes)),
        builder.getNamedAttr("keepdims", builder.getBoolAttr(true))};
    Value mean = layer<ReduceMeanOp>(*this, statType, {x}, reduceAttrs);
    if (hasOutput(node, 1))
      define(node.output(1), mean);
    if (!hasOutput(node, 2))
      return;
    Value centered = layer<SubOp>(*this, xType, {x, mean});
    Value squares = layer<MulOp>(*this, xType, {centered, centered});
    Value var = layer<ReduceMeanOp>(*this, statType, {squares}, reduceAttrs);
    auto epsType = RankedTensorType::get({1}, xType.getElementType());
    Value epsWeight =
        WeightOp::create(
            builder, loc, epsType,
            DenseElementsAttr::get(
                epsType, builder.getFloatAttr(xType.getElementType(), eps)),
            StringAttr())
            .getResult();
    Value shifted = layer<AddOp>(*this, statType, {var, epsWeight});
    define(node.output(2), layer<RsqrtOp>(*this, statType, {shifted}));
    return;
  }
  if (op == "GlobalAveragePool") {
    Value x = operandAt(0);
    RankedTensorType type = resultType();
    if (!x || !type)
      return;
    auto xt = cast<RankedTensorType>(x.getType());
    if (xt.getRank() != 4)
      return problem(node, "only 4-D GlobalAveragePool is supported");
    auto pooled =
        RankedTensorType::get(xt.getShape().take_front(2), xt.getElementType());
    Value y = layer<GlobalAvgPoolOp>(*this, pooled, {x});
    define(out, layer<ReshapeOp>(*this, type, {y}));
    return;
  }
  if (op == "MaxPool") {
    Value x = operandAt(0);
    RankedTensorType type = resultType();
    if (!x || !type)
      return;
    auto xt = cast<RankedTensorType>(x.getType());
    auto kernel = attrInts(node, "kernel_shape");
    if (xt.getRank() != 4 || !kernel || kernel->size() != 2)
      return problem(node, "only 2-D max pooling is supported");
    if (hasOutput(node, 1))
      return problem(node, "the Indices output of MaxPool is not supported");
    int64_t ceilMode = attrInt(node, "ceil_mode", 0);
    if (ceilMode != 0 && ceilMode != 1)
      return problem(node, "ceil_mode must be 0 or 1");
    SmallVector<int64_t> dilations = pair(node, "dilations");
    SmallVector<int64_t> strides = pair(node, "strides");
    if (strides.size() != 2 || dilations.size() != 2)
      return problem(node, "strides and dilations must have 2 values for a "
                           "2-D window");
    if (ceilMode && attrString(node, "auto_pad", "NOTSET") != "NOTSET")
      return problem(node, "MaxPool with ceil_mode = 1 and auto_pad is not "
                           "supported");
    auto pads = windowPadding(*this, node, xt, *kernel, strides, dilations);
    if (!pads)
      return;
    // ONNX 1.12's shape inference keeps a ceil_mode window that starts in
    // the end padding; mix drops it, as PyTorch and later ONNX do.
    for (int i = 0; ceilMode && i < 2; ++i) {
      int64_t in = xt.getDimSize(2 + i), before = (*pads)[i];
      int64_t size = type.getDimSize(2 + i);
      if (size > 1 && (size - 1) * strides[i] >= in + before)
        return problem(node, "MaxPool with ceil_mode = 1 whose last window "
                             "starts in the end padding is not supported");
    }
    define(out,
           layer<MaxPool2DOp>(
               *this, type, {x},
               {i64Array("kernel", *kernel), i64Array("strides", strides),
                i64Array("padding", *pads), i64Array("dilations", dilations),
                builder.getNamedAttr("ceil_mode",
                                     builder.getBoolAttr(ceilMode))}));
    return;
  }
  if (op == "Reshape" || op == "Flatten") {
    Value x = operandAt(0);
    if (!x)
      return;
    auto xt = cast<RankedTensorType>(x.getType());
    if (op == "Flatten") {
      int64_t axis = attrInt(node, "axis", 1);
      if (axis < 0)
        axis += xt.getRank();
      RankedTensorType type = resultType();
      if (!type)
        return;
      if (axis == 1)
        define(out, layer<FlattenOp>(*this, type, {x}));
      else
        define(out, layer<ReshapeOp>(*this, type, {x}));
      return;
    }
    if (attrInt(node, "allowzero", 0) != 0)
      return problem(node, "Reshape with allowzero = 1 is not supported");
    auto target = constantInts(input(node, 1));
    if (!target)
      return problem(node, "the shape of a Reshape must be known at import "
                           "(a constant, or a shape computation of constants)");
    std::string error;
    auto shape = reshapeResult(xt, *target, error);
    if (!shape)
      return problem(node, "cannot reshape " + shapeString(xt.getShape()) +
                               ": " + error);
    define(out,
           layer<ReshapeOp>(
               *this, RankedTensorType::get(*shape, xt.getElementType()), {x}));
    return;
  }
  if (op == "Gather") {
    const Constant *table = constant(input(node, 0));
    Value indices = value(input(node, 1));
    if (!table || !indices || table->shape.size() != 2 ||
        attrInt(node, "axis", 0) != 0)
      return problem(node, "Gather is supported on a constant 2-D table with "
                           "indices computed at run time (an embedding) or "
                           "on constants (folded)");
    RankedTensorType type = resultType();
    Value tv = weight(node, *table);
    if (!type || !tv)
      return;
    define(out, layer<EmbeddingOp>(*this, type, {indices, tv}));
    return;
  }
  if (convertMath(node) || convertDataOp(node))
    return;
  problem(node, "cannot be translated (only shape computations on constants "
                "are folded)");
}

std::vector<std::string> mix::getSupportedOnnxOps() {
  return {"Abs",
          "Acos",
          "Acosh",
          "Add",
          "And",
          "ArgMax",
          "ArgMin",
          "Asin",
          "Asinh",
          "Atan",
          "Atanh",
          "AveragePool",
          "BatchNormalization",
          "Cast",
          "CastLike",
          "Ceil",
          "Celu",
          "Clip",
          "Concat",
          "Constant",
          "ConstantOfShape",
          "Conv",
          "ConvTranspose",
          "Cos",
          "Cosh",
          "DepthToSpace",
          "Div",
          "Dropout",
          "Elu",
          "Equal",
          "Erf",
          "Exp",
          "Expand",
          "Flatten",
          "Floor",
          "GRU",
          "Gather",
          "Gemm",
          "GlobalAveragePool",
          "GlobalMaxPool",
          "Greater",
          "GreaterOrEqual",
          "HardSigmoid",
          "Hardmax",
          "HardSwish",
          "Identity",
          "InstanceNormalization",
          "IsInf",
          "IsNaN",
          "LRN",
          "LSTM",
          "LayerNormalization",
          "LeakyRelu",
          "Less",
          "LessOrEqual",
          "Log",
          "LogSoftmax",
          "MatMul",
          "Max",
          "MaxPool",
          "Mean",
          "MeanVarianceNormalization",
          "Min",
          "Mul",
          "Neg",
          "Not",
          "Or",
          "PRelu",
          "Pad",
          "Pow",
          "Reciprocal",
          "ReduceL1",
          "ReduceL2",
          "ReduceLogSum",
          "ReduceLogSumExp",
          "ReduceMax",
          "ReduceMean",
          "ReduceMin",
          "ReduceProd",
          "ReduceSum",
          "ReduceSumSquare",
          "Relu",
          "Reshape",
          "Resize",
          "Round",
          "Selu",
          "Shape",
          "Shrink",
          "Sigmoid",
          "Sign",
          "Sin",
          "Sinh",
          "Size",
          "Slice",
          "Softmax",
          "Softplus",
          "Softsign",
          "SpaceToDepth",
          "Split",
          "Sqrt",
          "Squeeze",
          "Sub",
          "Sum",
          "Tan",
          "Tanh",
          "ThresholdedRelu",
          "Tile",
          "Transpose",
          "Trilu",
          "Unsqueeze",
          "Where",
          "Xor"};
}
