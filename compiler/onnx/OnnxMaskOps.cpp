//===- OnnxMaskOps.cpp - ONNX Gather, Expand, compares, Not, Where -------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The indexing ops of issue 13: Gather of an activation (mix.gather) by
// constant indices (negative ones normalized here, out-of-range ones
// refused) or by indices computed at run time (an operand of mix.gather)
// and Expand of a tensor to a constant (or folded) shape (mix.expand).
// Gather of a constant table by computed indices stays an embedding
// (OnnxOps.cpp); Gather of constants only is folded (OnnxFold.cpp).
//
// The attention-mask ops: Equal, Less, LessOrEqual, Greater, GreaterOrEqual
// of float tensors become mix.compare (an i1 mask); Not of a comparison is
// the negated comparison (not `lt` is `uge`: true where unordered, exact with
// NaN), Not of another mask and And, Or, Xor are mix.logical; Where(cond, x,
// y) becomes mix.where. A bool operand is a mask computed here or a
// constant bool tensor (a float 0/1 weight compared `ne` 0, since weights
// are floats). A mask cannot be a graph
// input or output (ONNX bool inputs are refused with the other unsupported
// element types, outputs in OnnxImport.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringSwitch.h"

#include <limits>
#include <string>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

bool isFloat(Importer &im, const onnx::NodeProto &node, Value v);

/// Gather(data, indices) with `data` an activation.
void convertGather(Importer &im, const onnx::NodeProto &node, Value x) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank();
  int64_t axis = attrInt(node, "axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank)
    return im.problem(node, "axis " + std::to_string(axis) +
                                " is out of range for rank " +
                                std::to_string(rank));
  if (axis < 0)
    axis += rank;
  int64_t dim = xt.getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return im.problem(node, "cannot gather along the dynamic batch");
  OpBuilder &b = im.builder;
  // input[:axis] + the indices' shape + input[axis + 1:].
  auto resultType = [&](ArrayRef<int64_t> indexShape) {
    SmallVector<int64_t> shape(xt.getShape().take_front(axis));
    llvm::append_range(shape, indexShape);
    llvm::append_range(shape, xt.getShape().drop_front(axis + 1));
    return RankedTensorType::get(shape, xt.getElementType());
  };
  const Constant *indices = im.constant(input(node, 1));
  if (!indices) {
    // Indices computed at run time: an operand of mix.gather (negative ones
    // count from the end there).
    Value ids = im.value(input(node, 1));
    if (!ids)
      return;
    auto it = cast<RankedTensorType>(ids.getType());
    if (!it.getElementType().isInteger(32) &&
        !it.getElementType().isInteger(64))
      return im.problem(node, "the indices of a Gather must be int32 or int64");
    if (!it.hasStaticShape())
      return im.problem(node, "the indices '" + input(node, 1) +
                                  "' of a Gather must have a static shape, "
                                  "got " +
                                  shapeString(it.getShape()));
    if (dim == 0 && it.getNumElements() != 0)
      return im.problem(node, "cannot gather by indices computed at run time "
                              "along axis " +
                                  std::to_string(axis) + " of size 0");
    im.define(
        node.output(0),
        layer<GatherOp>(im, resultType(it.getShape()), {x, ids},
                        {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))}));
    return;
  }
  auto values = im.constantInts(input(node, 1));
  if (!values || indices->numElements() != int64_t(values->size()))
    return im.problem(node, "the indices of a Gather must be integers");
  std::vector<int64_t> normalized;
  for (int64_t index : *values) {
    if (index < -dim || index >= dim)
      return im.problem(node, "index " + std::to_string(index) +
                                  " is out of range for axis " +
                                  std::to_string(axis) + " of size " +
                                  std::to_string(dim));
    normalized.push_back(index < 0 ? index + dim : index);
  }
  auto indicesType =
      RankedTensorType::get(indices->shape, im.builder.getI64Type());
  im.define(node.output(0),
            layer<GatherOp>(
                im, resultType(indices->shape), {x},
                {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                 b.getNamedAttr("indices", DenseIntElementsAttr::get(
                                               indicesType, normalized))}));
}

/// Whether `v` holds floating-point elements, else records a problem.
bool isFloat(Importer &im, const onnx::NodeProto &node, Value v) {
  if (isa<FloatType>(cast<ShapedType>(v.getType()).getElementType()))
    return true;
  im.problem(node, node.op_type() + " of non-floating-point tensors is not "
                                    "supported (mix layers compute on "
                                    "floating-point tensors)");
  return false;
}

/// The numpy broadcast of `shapes` (the dynamic batch broadcasts with 1
/// only), or a problem recorded at `node`.
std::optional<SmallVector<int64_t>>
broadcastShapes(Importer &im, const onnx::NodeProto &node,
                ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i)
    for (ArrayRef<int64_t> s : shapes) {
      int64_t d = i < rank - s.size() ? 1 : s[i - (rank - s.size())];
      if (d == 1 || d == out[i])
        continue;
      if (out[i] != 1) {
        std::string list;
        for (ArrayRef<int64_t> t : shapes)
          list += (list.empty() ? "" : " and ") + shapeString(t);
        im.problem(node, "the shapes " + list + " are not broadcastable");
        return std::nullopt;
      }
      out[i] = d;
    }
  return out;
}

/// Equal, Less, ... of two float tensors, or of two integer tensors of one
/// type (int32, int64: exact signed comparison): a mix.compare mask.
void convertCompare(Importer &im, const onnx::NodeProto &node,
                    StringRef predicate) {
  Value a = im.operand(node, input(node, 0));
  Value b = im.operand(node, input(node, 1));
  if (!a || !b)
    return;
  Type ae = getElementTypeOrSelf(a.getType()),
       be = getElementTypeOrSelf(b.getType());
  if (isa<IntegerType>(ae) || isa<IntegerType>(be)) {
    if (ae != be || ae.isInteger(1)) {
      std::string types;
      llvm::raw_string_ostream os(types);
      os << ae << " and " << be;
      im.problem(node, node.op_type() + " of " + types +
                           " tensors is not supported (mix.compare takes two "
                           "float tensors or two integer tensors of one type)");
      return;
    }
  } else if (!isFloat(im, node, a) || !isFloat(im, node, b)) {
    return;
  }
  auto at = cast<RankedTensorType>(a.getType()),
       bt = cast<RankedTensorType>(b.getType());
  auto shape = broadcastShapes(im, node, {at.getShape(), bt.getShape()});
  if (!shape)
    return;
  OpBuilder &builder = im.builder;
  im.define(node.output(0),
            layer<CompareOp>(
                im, RankedTensorType::get(*shape, builder.getI1Type()), {a, b},
                {builder.getNamedAttr("predicate",
                                      builder.getStringAttr(predicate))}));
}

/// The values of a constant bool tensor (raw_data or int32_data), or none.
std::optional<std::vector<bool>> constantBools(const Constant *c) {
  if (!c || !c->proto || c->dtype != onnx::TensorProto::BOOL ||
      c->numElements() < 0)
    return std::nullopt;
  const onnx::TensorProto &t = *c->proto;
  std::vector<bool> values;
  if (t.has_raw_data()) {
    if (int64_t(t.raw_data().size()) != c->numElements())
      return std::nullopt;
    for (char v : t.raw_data())
      values.push_back(v != 0);
    return values;
  }
  if (t.int32_data_size() != c->numElements())
    return std::nullopt;
  for (int32_t v : t.int32_data())
    values.push_back(v != 0);
  return values;
}

/// A bool operand of And, Or, Xor, Not or Where: a mask computed in this
/// graph, or a constant bool tensor; null after recording a problem.
Value maskOperand(Importer &im, const onnx::NodeProto &node, int i) {
  Value m = im.value(input(node, i));
  if (!m) {
    const Constant *c = im.constant(input(node, i));
    if (!c)
      return Value(); // the producer failed and was reported
    std::optional<std::vector<bool>> bools = constantBools(c);
    if (!bools) {
      im.problem(node, "input " + std::to_string(i) + " of " + node.op_type() +
                           " must be a comparison (Equal, Less, ...), a "
                           "logical op of comparisons or a constant bool "
                           "tensor");
      return Value();
    }
    m = constantMask(im, c->shape,
                     SmallVector<bool>(bools->begin(), bools->end()));
  }
  if (!getElementTypeOrSelf(m.getType()).isInteger(1)) {
    im.problem(node, "input " + std::to_string(i) + " of " + node.op_type() +
                         " must be a bool mask");
    return Value();
  }
  return m;
}

/// The predicate that holds exactly where `p` does not, NaN included.
StringRef negatedPredicate(StringRef p) {
  return llvm::StringSwitch<StringRef>(p)
      .Case("eq", "ne")
      .Case("ne", "eq")
      .Case("lt", "uge")
      .Case("le", "ugt")
      .Case("gt", "ule")
      .Case("ge", "ult")
      .Case("ult", "ge")
      .Case("ule", "gt")
      .Case("ugt", "le")
      .Default("lt");
}

/// Not of a mask: of a comparison, the negated comparison (not `a < b` is
/// `a >= b or unordered`, exact with NaN); of any other mask, a logical not.
void convertNot(Importer &im, const onnx::NodeProto &node) {
  Value m = maskOperand(im, node, 0);
  if (!m)
    return;
  OpBuilder &b = im.builder;
  if (auto compare = m.getDefiningOp<CompareOp>()) {
    im.define(node.output(0),
              layer<CompareOp>(
                  im, compare.getType(), {compare.getLhs(), compare.getRhs()},
                  {b.getNamedAttr("predicate", b.getStringAttr(negatedPredicate(
                                                   compare.getPredicate())))}));
    return;
  }
  im.define(node.output(0),
            layer<LogicalOp>(im, cast<RankedTensorType>(m.getType()), {m},
                             {b.getNamedAttr("kind", b.getStringAttr("not"))}));
}

/// And, Or, Xor of two masks (numpy broadcasting).
void convertLogical(Importer &im, const onnx::NodeProto &node, StringRef kind) {
  Value a = maskOperand(im, node, 0);
  Value c = maskOperand(im, node, 1);
  if (!a || !c)
    return;
  auto shape = broadcastShapes(im, node,
                               {cast<ShapedType>(a.getType()).getShape(),
                                cast<ShapedType>(c.getType()).getShape()});
  if (!shape)
    return;
  OpBuilder &b = im.builder;
  im.define(node.output(0),
            layer<LogicalOp>(im, RankedTensorType::get(*shape, b.getI1Type()),
                             {a, c},
                             {b.getNamedAttr("kind", b.getStringAttr(kind))}));
}

/// Where(cond, x, y): a mix.where.
void convertWhere(Importer &im, const onnx::NodeProto &node) {
  Value cond = maskOperand(im, node, 0);
  if (!cond)
    return;
  Value x = im.operand(node, input(node, 1));
  Value y = im.operand(node, input(node, 2));
  if (!x || !y || !isFloat(im, node, x) || !isFloat(im, node, y))
    return;
  auto xt = cast<RankedTensorType>(x.getType());
  auto shape = broadcastShapes(im, node,
                               {cast<ShapedType>(cond.getType()).getShape(),
                                xt.getShape(),
                                cast<ShapedType>(y.getType()).getShape()});
  if (!shape)
    return;
  im.define(node.output(0),
            layer<WhereOp>(im,
                           RankedTensorType::get(*shape, xt.getElementType()),
                           {cond, x, y}));
}

} // namespace

bool Importer::convertMaskOp(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  std::string out = node.output_size() ? node.output(0) : "";
  StringRef predicate = llvm::StringSwitch<StringRef>(op)
                            .Case("Equal", "eq")
                            .Case("Less", "lt")
                            .Case("LessOrEqual", "le")
                            .Case("Greater", "gt")
                            .Case("GreaterOrEqual", "ge")
                            .Default("");
  if (!predicate.empty()) {
    convertCompare(*this, node, predicate);
    return true;
  }
  if (op == "Not") {
    convertNot(*this, node);
    return true;
  }
  if (op == "IsNaN" || op == "IsInf") {
    // IsNaN: x != x (unordered). IsInf: |x| == inf, or x == +inf (-inf)
    // when only one sign is detected. The mask as computed, no rounding.
    Value x = operand(node, input(node, 0));
    if (!x || !isFloat(*this, node, x))
      return true;
    auto xt = cast<RankedTensorType>(x.getType());
    auto maskType = RankedTensorType::get(xt.getShape(), builder.getI1Type());
    auto predicate = [&](StringRef p) {
      return builder.getNamedAttr("predicate", builder.getStringAttr(p));
    };
    if (op == "IsNaN") {
      define(out, layer<CompareOp>(*this, maskType, {x, x}, {predicate("ne")}));
      return true;
    }
    bool negative = attrInt(node, "detect_negative", 1) != 0,
         positive = attrInt(node, "detect_positive", 1) != 0;
    Type elem = xt.getElementType();
    const double inf = std::numeric_limits<double>::infinity();
    if (!negative && !positive) {
      // Never: x < -inf holds for no x, NaN included.
      define(out, layer<CompareOp>(*this, maskType,
                                   {x, scalarWeight(*this, elem, -inf)},
                                   {predicate("lt")}));
      return true;
    }
    Value v = x;
    double target = negative ? -inf : inf;
    if (negative && positive) {
      v = layer<AbsOp>(*this, xt, {x});
      target = inf;
    }
    define(out, layer<CompareOp>(*this, maskType,
                                 {v, scalarWeight(*this, elem, target)},
                                 {predicate("eq")}));
    return true;
  }
  StringRef logical = llvm::StringSwitch<StringRef>(op)
                          .Case("And", "and")
                          .Case("Or", "or")
                          .Case("Xor", "xor")
                          .Default("");
  if (!logical.empty()) {
    convertLogical(*this, node, logical);
    return true;
  }
  if (op == "Where") {
    convertWhere(*this, node);
    return true;
  }
  if (op == "Gather") {
    // A constant table is an embedding (OnnxOps.cpp) unless the indices are
    // constants too (integer constants are folded before).
    Value x = value(input(node, 0));
    if (!x && constant(input(node, 0)) && constant(input(node, 1)))
      x = operand(node, input(node, 0));
    if (!x)
      return false;
    if (isFloat(*this, node, x))
      convertGather(*this, node, x);
    return true;
  }
  if (op != "Expand")
    return false;
  Value x = operand(node, input(node, 0));
  if (!x || !isFloat(*this, node, x))
    return true;
  auto target = constantInts(input(node, 1));
  if (!target) {
    problem(node, "the shape of an Expand must be known at import (a "
                  "constant, or a shape computation of constants)");
    return true;
  }
  auto xt = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> in = xt.getShape();
  size_t rank = std::max(in.size(), target->size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t fromIn = rank - in.size(), fromTarget = rank - target->size();
    int64_t a = i < fromIn ? 1 : in[i - fromIn];
    int64_t b = i < fromTarget ? 1 : (*target)[i - fromTarget];
    bool dynamicIn = ShapedType::isDynamic(a), dynamicOut = b == kBatchDim;
    if (dynamicIn || dynamicOut) {
      // The batch expands to nothing else, and nothing expands to it.
      if (!(dynamicIn && (dynamicOut || b == 1))) {
        problem(node, "cannot expand " + shapeString(in) + " to the shape " +
                          shapeString(*target) +
                          ": the dynamic batch must stay the batch");
        return true;
      }
      shape[i] = ShapedType::kDynamic;
      continue;
    }
    if (b < 0 || (a != b && a != 1 && b != 1)) {
      problem(node, "cannot expand " + shapeString(in) + " to the shape " +
                        shapeString(*target));
      return true;
    }
    shape[i] = a == 1 ? b : a;
  }
  define(out, layer<ExpandOp>(*this,
                              RankedTensorType::get(shape, xt.getElementType()),
                              {x}));
  return true;
}

Value mix::onnx_import::scalarWeight(Importer &im, Type elem, double v) {
  auto type = RankedTensorType::get({}, elem);
  return WeightOp::create(
             im.builder, im.loc, type,
             DenseElementsAttr::get(type, im.builder.getFloatAttr(elem, v)),
             StringAttr())
      .getResult();
}

Value mix::onnx_import::constantMask(Importer &im, ArrayRef<int64_t> shape,
                                     ArrayRef<bool> values) {
  OpBuilder &b = im.builder;
  auto type = RankedTensorType::get(shape, b.getF32Type());
  SmallVector<float> data(values.begin(), values.end());
  Value w = WeightOp::create(b, im.loc, type,
                             DenseElementsAttr::get(type, ArrayRef(data)),
                             StringAttr());
  return layer<CompareOp>(im, RankedTensorType::get(shape, b.getI1Type()),
                          {w, scalarWeight(im, b.getF32Type(), 0.0)},
                          {b.getNamedAttr("predicate", b.getStringAttr("ne"))});
}
