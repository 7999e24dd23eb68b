//===- InterpreterMasks.cpp - gather and expand in the interpreter --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The reference semantics of the indexing layers of issue 13: gather by
// constant indices and expand (numpy broadcast). Both copy elements, so the
// f64 reference is exact.
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"

using namespace mlir;
using namespace mix;
using namespace mix::interp;

RefTensor interp::evalGather(GatherOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = int64_t(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  // x viewed as [outer, dim, inner]; y as [outer, count, inner].
  int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(axis));
  int64_t dim = x.shape[axis];
  int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(axis + 1));
  SmallVector<int64_t> indices(op.getIndices().getValues<int64_t>());
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
