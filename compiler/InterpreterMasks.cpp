//===- InterpreterMasks.cpp - gather, expand, compare, logical, where -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The reference semantics of the indexing and mask layers of issue 13:
// gather by constant or run-time indices, expand (numpy broadcast), compare and
// logical (an i1 mask held as 0 and 1) and where. They copy or compare
// elements, so the f64 reference is exact.
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"

using namespace mlir;
using namespace mix;
using namespace mix::interp;

llvm::Expected<RefTensor> interp::evalGather(GatherOp op, const RefTensor &x,
                                             const RefTensor *runtimeIndices) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  // x viewed as [outer, dim, inner]; y as [outer, count, inner].
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  int64_t dim = x.shape[axis];
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  SmallVector<int64_t> indices;
  if (!runtimeIndices) {
    indices.assign(op.getIndices()->getValues<int64_t>().begin(),
                   op.getIndices()->getValues<int64_t>().end());
  } else {
    // Run-time indices in [-dim, dim), negative ones from the end (ONNX).
    for (auto [i, value] : llvm::enumerate(runtimeIndices->data)) {
      std::optional<int64_t> at =
          indexIn(value < 0 ? value + double(dim) : value, dim);
      if (!at)
        return errorAt(op.getLoc(),
                       "mix.gather: index " + valueStr(value) + " at element " +
                           llvm::Twine(i) + " is out of range [" +
                           llvm::Twine(-dim) + ", " + llvm::Twine(dim) +
                           ") along axis " + llvm::Twine(axis));
      indices.push_back(*at);
    }
  }
  int64_t count = int64_t(indices.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t n = 0; n < count; ++n)
      for (int64_t i = 0; i < inner; ++i)
        y.data[(o * count + n) * inner + i] =
            x.data[(o * dim + indices[n]) * inner + i];
  return y;
}

RefTensor interp::evalExpand(ExpandOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = int64_t(y.shape.size());
  int64_t offset = rank - int64_t(x.shape.size());
  SmallVector<int64_t> inStrides = stridesOf(x.shape);
  SmallVector<int64_t> index(rank, 0);
  for (double &out : y.data) {
    int64_t source = 0;
    for (int64_t d = offset; d < rank; ++d)
      if (x.shape[d - offset] != 1)
        source += index[d] * inStrides[d - offset];
    out = x.data[source];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < y.shape[d])
        break;
      index[d] = 0;
    }
  }
  return y;
}

namespace {

/// `fn(operands at the element's broadcast index...)` for every element of
/// `y` (numpy broadcasting of every operand into y's shape).
template <typename Fn>
void broadcastInto(RefTensor &y, ArrayRef<const RefTensor *> operands, Fn fn) {
  size_t rank = y.shape.size();
  SmallVector<SmallVector<int64_t>> strides;
  for (const RefTensor *t : operands) {
    SmallVector<int64_t> own = stridesOf(t->shape), out(rank, 0);
    size_t lead = rank - t->shape.size();
    for (size_t i = 0; i < t->shape.size(); ++i)
      out[lead + i] = t->shape[i] == 1 ? 0 : own[i];
    strides.push_back(std::move(out));
  }
  SmallVector<int64_t> index(rank, 0);
  SmallVector<double> args(operands.size());
  for (double &out : y.data) {
    for (size_t o = 0; o < operands.size(); ++o) {
      int64_t at = 0;
      for (size_t i = 0; i < rank; ++i)
        at += index[i] * strides[o][i];
      args[o] = operands[o]->data[at];
    }
    out = fn(ArrayRef<double>(args));
    for (int64_t i = int64_t(rank) - 1; i >= 0; --i) {
      if (++index[i] < y.shape[i])
        break;
      index[i] = 0;
    }
  }
}

} // namespace

RefTensor interp::evalCompare(CompareOp op, const RefTensor &a,
                              const RefTensor &b) {
  StringRef p = op.getPredicate();
  RefTensor y = zerosLike(op.getResult());
  broadcastInto(y, {&a, &b}, [&](ArrayRef<double> v) {
    double l = v[0], r = v[1];
    // The unordered forms are the negations of the ordered ones.
    bool holds = p == "eq"    ? l == r
                 : p == "ne"  ? l != r
                 : p == "lt"  ? l < r
                 : p == "le"  ? l <= r
                 : p == "gt"  ? l > r
                 : p == "ge"  ? l >= r
                 : p == "ult" ? !(l >= r)
                 : p == "ule" ? !(l > r)
                 : p == "ugt" ? !(l <= r)
                              : !(l < r);
    return holds ? 1.0 : 0.0;
  });
  return y;
}

RefTensor interp::evalLogical(LogicalOp op, ArrayRef<const RefTensor *> masks) {
  StringRef kind = op.getKind();
  RefTensor y = zerosLike(op.getResult());
  broadcastInto(y, SmallVector<const RefTensor *>(masks.begin(), masks.end()),
                [&](ArrayRef<double> v) {
                  bool a = v[0] != 0;
                  bool holds = kind == "not"   ? !a
                               : kind == "and" ? a && v[1] != 0
                               : kind == "or"  ? a || v[1] != 0
                                               : a != (v[1] != 0);
                  return holds ? 1.0 : 0.0;
                });
  return y;
}

RefTensor interp::evalWhere(WhereOp op, const RefTensor &c, const RefTensor &x,
                            const RefTensor &y) {
  RefTensor r = zerosLike(op.getResult());
  broadcastInto(r, {&c, &x, &y},
                [](ArrayRef<double> v) { return v[0] != 0 ? v[1] : v[2]; });
  return r;
}
