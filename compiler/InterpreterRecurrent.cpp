//===- InterpreterRecurrent.cpp - glu, lstm and gru in the interpreter ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The gating and recurrent layers in the f64 interpreter: all arithmetic in
// f64, sums in index order (the compiled code's order).
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"

#include <cmath>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
} // namespace

RefTensor interp::evalGlu(GluOp op, const RefTensor &x) {
  RefTensor y = zerosLike(op.getResult());
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = x.shape;
  int64_t outer = product(shape.take_front(axis));
  int64_t half = shape[axis] / 2;
  int64_t inner = product(shape.drop_front(axis + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < half; ++k)
      for (int64_t i = 0; i < inner; ++i) {
        double a = x.data[(o * 2 * half + k) * inner + i];
        double b = x.data[(o * 2 * half + half + k) * inner + i];
        y.data[(o * half + k) * inner + i] = a * sigmoid(b);
      }
  return y;
}
