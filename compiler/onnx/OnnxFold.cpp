//===- OnnxFold.cpp - shape subgraphs folded; GELU recognized -------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Computations on constants (the shape subgraphs exporters write: Shape ->
// Gather -> Unsqueeze -> Concat -> Reshape, Constant, Cast of shapes) are
// evaluated at import; the exact GELU written out of Div, Erf, Add and Mul
// is recognized before the nodes are translated one by one.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

//===----------------------------------------------------------------------===//
// Folding of shape computations
//===----------------------------------------------------------------------===//

/// The largest integer tensor ConstantOfShape is folded into (shapes are
/// small; a large fill is no shape computation).
constexpr int64_t kMaxFoldedElements = 1 << 16;

bool Importer::fold(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  if (node.output_size() < 1)
    return false;
  std::string out = node.output(0);
  auto intsOf = [&](int i) { return constantInts(input(node, i)); };
  auto shapeOf = [&](int i) -> std::vector<int64_t> {
    const Constant *c = constant(input(node, i));
    return c ? c->shape : std::vector<int64_t>{};
  };
  auto result = [&](std::vector<int64_t> shape, std::vector<int64_t> ints,
                    int32_t dtype = onnx::TensorProto::INT64) {
    Constant c;
    c.shape = std::move(shape);
    c.ints = std::move(ints);
    c.dtype = dtype;
    c.name = out;
    defineConstant(out, std::move(c));
    return true;
  };

  if (op == "Constant") {
    if (const onnx::AttributeProto *a = findAttr(node, "value")) {
      Constant c;
      c.proto = &a->t();
      c.shape.assign(a->t().dims().begin(), a->t().dims().end());
      c.dtype = a->t().data_type();
      c.name = out;
      bool integer = isIntegerType(c.dtype);
      defineConstant(out, std::move(c));
      if (integer)
        if (auto ints = constantInts(out))
          constants[out].ints = std::move(ints);
      return true;
    }
    if (const onnx::AttributeProto *a = findAttr(node, "value_int"))
      return result({}, {a->i()});
    if (const onnx::AttributeProto *a = findAttr(node, "value_ints"))
      return result({a->ints_size()},
                    std::vector<int64_t>(a->ints().begin(), a->ints().end()));
    return false;
  }
  // The ranked type of input i: an activation's, or a constant's shape.
  auto rankedOf = [&](int i) -> RankedTensorType {
    if (Value v = value(input(node, i)))
      return dyn_cast<RankedTensorType>(v.getType());
    if (const Constant *c = constant(input(node, i));
        c && c->numElements() >= 0)
      return RankedTensorType::get(c->shape, builder.getF32Type());
    return {};
  };
  if (op == "Size") {
    // The element count of a static tensor (a dynamic batch is not folded).
    RankedTensorType ranked = rankedOf(0);
    if (!ranked || !ranked.hasStaticShape())
      return false;
    return result({}, {ranked.getNumElements()});
  }
  if (op == "Shape") {
    RankedTensorType ranked = rankedOf(0);
    if (!ranked)
      return false;
    std::vector<int64_t> dims;
    for (int64_t d : ranked.getShape())
      dims.push_back(ShapedType::isDynamic(d) ? kBatchDim : d);
    int64_t rank = int64_t(dims.size());
    int64_t start = attrInt(node, "start", 0), end = attrInt(node, "end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> slice(dims.begin() + start, dims.begin() + end);
    return result({int64_t(slice.size())}, slice);
  }
  // The rest computes on integer constants only.
  for (const std::string &name : node.input())
    if (!name.empty() && !constant(name))
      return false;
  if (op == "Identity") {
    Constant c = *constant(input(node, 0));
    c.name = out;
    defineConstant(out, std::move(c));
    return true;
  }
  auto data = intsOf(0);
  if (!data)
    return false;
  std::vector<int64_t> shape = shapeOf(0);
  // Results keep the element type of the data (int32 or int64).
  int32_t dtype = constant(input(node, 0))->dtype;
  if (op == "ConstantOfShape") {
    // An integer fill of a known shape: the shapes that expanded functions
    // build (LayerNormalization's reduced shape: ConstantOfShape(rank -
    // axis) of 1s, concatenated). The fill is the `value` tensor's one
    // element; a float fill (the default is float 0) is not a shape and is
    // left to the layers, which refuse it, as is a result of more than
    // kMaxFoldedElements elements.
    const onnx::AttributeProto *a = findAttr(node, "value");
    if (!a || !isIntegerType(a->t().data_type()) || shape.size() != 1)
      return false;
    int64_t count = 1;
    for (int64_t d : *data)
      if (d < 0 || llvm::MulOverflow(count, d, count) ||
          count > kMaxFoldedElements)
        return false;
    Constant fill;
    fill.proto = &a->t();
    fill.shape.assign(a->t().dims().begin(), a->t().dims().end());
    fill.dtype = a->t().data_type();
    fill.name = out;
    defineConstant(out, std::move(fill));
    auto value = constantInts(out);
    if (!value || value->size() != 1) {
      constants.erase(out);
      return false;
    }
    return result(*data, std::vector<int64_t>(count, value->front()),
                  a->t().data_type());
  }
  if (op == "Cast") {
    int64_t to = attrInt(node, "to", 0);
    if (!isIntegerType(int32_t(to)))
      return false;
    return result(shape, *data, int32_t(to));
  }
  if (op == "Gather") {
    auto indices = intsOf(1);
    if (!indices || shape.size() != 1 || attrInt(node, "axis", 0) != 0)
      return false;
    std::vector<int64_t> values;
    for (int64_t i : *indices) {
      if (i < 0)
        i += int64_t(data->size());
      if (i < 0 || i >= int64_t(data->size()))
        return false;
      values.push_back((*data)[i]);
    }
    return result(shapeOf(1), values, dtype);
  }
  if (op == "Concat") {
    std::vector<int64_t> values;
    for (int i = 0; i < node.input_size(); ++i) {
      auto part = intsOf(i);
      if (!part || shapeOf(i).size() != 1)
        return false;
      values.insert(values.end(), part->begin(), part->end());
    }
    return result({int64_t(values.size())}, values, dtype);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    auto axes = intsOf(1);
    std::vector<int64_t> newShape = shape;
    if (op == "Unsqueeze") {
      if (!axes)
        return false;
      int64_t rank = int64_t(shape.size() + axes->size());
      std::vector<int64_t> sorted;
      for (int64_t a : *axes)
        sorted.push_back(a < 0 ? a + rank : a);
      llvm::sort(sorted);
      for (int64_t a : sorted) {
        if (a < 0 || a > int64_t(newShape.size()))
          return false;
        newShape.insert(newShape.begin() + a, 1);
      }
    } else {
      newShape.clear();
      for (auto [i, d] : llvm::enumerate(shape)) {
        bool squeezed =
            axes ? llvm::any_of(*axes,
                                [&](int64_t a) {
                                  return (a < 0 ? a + int64_t(shape.size())
                                                : a) == int64_t(i);
                                })
                 : d == 1;
        if (!squeezed)
          newShape.push_back(d);
      }
    }
    return result(newShape, *data, dtype);
  }
  if (op == "Slice") {
    auto starts = intsOf(1), ends = intsOf(2);
    if (!starts || !ends || shape.size() != 1 || starts->size() != 1 ||
        ends->size() != 1)
      return false;
    auto steps =
        input(node, 4).empty()
            ? std::optional<std::vector<int64_t>>(std::vector<int64_t>{1})
            : intsOf(4);
    if (!steps || steps->size() != 1 || (*steps)[0] <= 0)
      return false;
    int64_t n = int64_t(data->size());
    int64_t s = (*starts)[0], e = (*ends)[0];
    if (s < 0)
      s += n;
    if (e < 0)
      e += n;
    s = std::clamp<int64_t>(s, 0, n);
    e = std::clamp<int64_t>(e, 0, n);
    std::vector<int64_t> values;
    for (int64_t i = s; i < e; i += (*steps)[0])
      values.push_back((*data)[i]);
    return result({int64_t(values.size())}, values, dtype);
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    auto rhs = intsOf(1);
    if (!rhs)
      return false;
    size_t n = std::max(data->size(), rhs->size());
    if ((data->size() != n && data->size() != 1) ||
        (rhs->size() != n && rhs->size() != 1))
      return false;
    std::vector<int64_t> values;
    for (size_t i = 0; i < n; ++i) {
      int64_t a = (*data)[data->size() == 1 ? 0 : i];
      int64_t b = (*rhs)[rhs->size() == 1 ? 0 : i];
      if (a == kBatchDim || b == kBatchDim || (op == "Div" && b == 0))
        return false;
      int64_t v = 0;
      bool overflow;
      if (op == "Add")
        overflow = llvm::AddOverflow(a, b, v);
      else if (op == "Sub")
        overflow = llvm::SubOverflow(a, b, v);
      else if (op == "Mul")
        overflow = llvm::MulOverflow(a, b, v);
      else if (!(overflow = a == INT64_MIN && b == -1))
        v = a / b;
      // A value the element type cannot hold is left to the layers (and
      // refused there) rather than folded wrongly.
      if (overflow ||
          (dtype == onnx::TensorProto::INT32 && int64_t(int32_t(v)) != v))
        return false;
      values.push_back(v);
    }
    // numpy broadcasting: the larger operand's shape; of two with the same
    // count (a scalar and a one-element vector), the higher rank.
    std::vector<int64_t> rhsShape = shapeOf(1);
    bool lhsShape = data->size() != rhs->size()
                        ? data->size() > rhs->size()
                        : shape.size() >= rhsShape.size();
    return result(lhsShape ? shape : rhsShape, values, dtype);
  }
  if (op == "Neg") {
    std::vector<int64_t> values;
    for (int64_t a : *data) {
      if (a == kBatchDim || a == INT64_MIN ||
          (dtype == onnx::TensorProto::INT32 && a == INT32_MIN))
        return false;
      values.push_back(-a);
    }
    return result(shape, values, dtype);
  }
  return false;
}

//===----------------------------------------------------------------------===//
// GELU written out (Erf and Tanh forms)
//===----------------------------------------------------------------------===//

void Importer::findGelus(llvm::DenseSet<int> &absorbed,
                         llvm::DenseMap<int, GeluMatch> &gelus) const {
  const auto &nodes = model.graph().node();
  // The node consuming each value, when exactly one does; the node
  // producing each value.
  llvm::StringMap<int> consumer, producer;
  for (auto [i, node] : llvm::enumerate(nodes)) {
    for (const std::string &in : node.input())
      consumer[in] = uses.lookup(in) == 1 ? int(i) : -1;
    for (const std::string &out : node.output())
      producer[out] = int(i);
  }
  auto only = [&](llvm::StringRef value, llvm::StringRef opType) -> int {
    auto it = consumer.find(value);
    if (it == consumer.end() || it->second < 0 ||
        nodes[it->second].op_type() != opType)
      return -1;
    return it->second;
  };
  // The node of `opType` with one output producing `value`, used once.
  auto from = [&](llvm::StringRef value, llvm::StringRef opType) -> int {
    auto it = producer.find(value);
    if (it == producer.end() || nodes[it->second].op_type() != opType ||
        nodes[it->second].output_size() != 1 || uses.lookup(value) != 1)
      return -1;
    return it->second;
  };
  auto near = [](std::optional<double> v, double want) {
    return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
  };
  // The other input of a binary node than `value`, or "".
  auto other = [](const onnx::NodeProto &n, llvm::StringRef value) {
    if (n.input_size() != 2)
      return llvm::StringRef();
    if (n.input(0) == value)
      return llvm::StringRef(n.input(1));
    if (n.input(1) == value)
      return llvm::StringRef(n.input(0));
    return llvm::StringRef();
  };
  // The input of binary node `n` other than a constant scalar close to
  // `k`, or "".
  auto byConstant = [&](const onnx::NodeProto &n, double k) -> llvm::StringRef {
    if (n.input_size() != 2)
      return {};
    for (int side = 0; side < 2; ++side)
      if (near(constantScalar(n.input(side)), k))
        return n.input(1 - side);
    return {};
  };
  for (auto [i, core] : llvm::enumerate(nodes)) {
    bool erfForm = core.op_type() == "Erf";
    if ((!erfForm && core.op_type() != "Tanh") || core.input_size() != 1 ||
        core.output_size() != 1)
      continue;
    // The nodes of the core (the Erf or Tanh and what feeds it), and x.
    llvm::SmallVector<int> inner = {int(i)};
    std::string x;
    if (erfForm) {
      // erf(x / sqrt(2)).
      int div = from(core.input(0), "Div");
      if (div < 0 || nodes[div].input_size() != 2 ||
          !near(constantScalar(nodes[div].input(1)), std::sqrt(2.0)))
        continue;
      inner.push_back(div);
      x = nodes[div].input(0);
    } else {
      // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)), each product in
      // either order.
      int scale = from(core.input(0), "Mul");
      llvm::StringRef sum =
          scale < 0 ? llvm::StringRef()
                    : byConstant(nodes[scale], std::sqrt(2.0 / M_PI));
      int add = sum.empty() ? -1 : from(sum, "Add");
      if (add < 0 || nodes[add].input_size() != 2)
        continue;
      for (int side = 0; side < 2 && x.empty(); ++side) {
        int cubic = from(nodes[add].input(side), "Mul");
        llvm::StringRef cube =
            cubic < 0 ? llvm::StringRef() : byConstant(nodes[cubic], 0.044715);
        int pow = cube.empty() ? -1 : from(cube, "Pow");
        if (pow < 0 || nodes[pow].input_size() != 2 ||
            nodes[pow].input(0) != nodes[add].input(1 - side) ||
            !near(constantScalar(nodes[pow].input(1)), 3.0))
          continue;
        x = nodes[pow].input(0);
        inner.append({scale, add, cubic, pow});
      }
      if (x.empty())
        continue;
    }
    int add = only(core.output(0), "Add");
    if (add < 0 ||
        !near(constantScalar(other(nodes[add], core.output(0))), 1.0))
      continue;
    int mul1 = only(nodes[add].output(0), "Mul");
    if (mul1 < 0)
      continue;
    llvm::StringRef factor = other(nodes[mul1], nodes[add].output(0));
    int last = -1, half = -1;
    if (factor == x) {
      // ((1 + core) * x) * 0.5
      last = only(nodes[mul1].output(0), "Mul");
      if (last < 0 ||
          !near(constantScalar(other(nodes[last], nodes[mul1].output(0))), 0.5))
        continue;
    } else {
      // (x * 0.5) * (1 + core)
      half = from(factor, "Mul");
      if (half < 0 || !near(constantScalar(other(nodes[half], x)), 0.5))
        continue;
      last = mul1;
    }
    absorbed.insert(inner.begin(), inner.end());
    absorbed.insert(add);
    if (half >= 0)
      absorbed.insert(half);
    if (last != mul1)
      absorbed.insert(mul1);
    gelus[last] = {x, /*approximate=*/!erfForm};
  }
}
