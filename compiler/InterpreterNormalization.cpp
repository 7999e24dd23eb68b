//===- InterpreterNormalization.cpp - log_softmax and the group norms -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// log_softmax, instance_norm and group_norm in the f64 interpreter: one loop
// nest each, all arithmetic in f64, sums in index order (the compiled code's
// order), two passes for the variance (see Interpreter.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/InterpreterImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::interp;

RefTensor interp::evalLogSoftmax(LogSoftmaxOp op, const RefTensor &x) {
  RefTensor y = x;
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  ArrayRef<int64_t> shape = x.shape;
  int64_t outer = product(shape.take_front(axis));
  int64_t len = shape[axis];
  int64_t inner = product(shape.drop_front(axis + 1));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double *v = y.data.data() + o * len * inner + i;
      // max (NaN if any element is NaN), then (x - max) - log(sum exp).
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < len; ++k)
        max = std::isnan(v[k * inner]) || std::isnan(max)
                  ? std::numeric_limits<double>::quiet_NaN()
                  : std::max(max, v[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k)
        sum += std::exp(v[k * inner] - max);
      double lse = std::log(sum);
      for (int64_t k = 0; k < len; ++k)
        v[k * inner] = (v[k * inner] - max) - lse;
    }
  return y;
}

/// y = (x - mean) / sqrt(var + eps) * scale[c] + bias[c] per sample and
/// group of `perGroup` consecutive channels (biased variance, two passes).
static RefTensor normalizeGroups(Value result, const RefTensor &x,
                                 const RefTensor &scale, const RefTensor &bias,
                                 int64_t groups, double eps) {
  RefTensor y = zerosLike(result);
  int64_t n = x.shape[0], c = x.shape[1];
  int64_t spatial = product(ArrayRef<int64_t>(x.shape).drop_front(2));
  int64_t perGroup = c / groups;
  int64_t size = perGroup * spatial;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t g = 0; g < groups; ++g) {
      int64_t base = (s * c + g * perGroup) * spatial;
      const double *in = x.data.data() + base;
      double mean = 0;
      for (int64_t i = 0; i < size; ++i)
        mean += in[i];
      mean /= static_cast<double>(size);
      double var = 0;
      for (int64_t i = 0; i < size; ++i)
        var += (in[i] - mean) * (in[i] - mean);
      var /= static_cast<double>(size);
      double denom = std::sqrt(var + eps);
      for (int64_t i = 0; i < size; ++i) {
        int64_t ch = g * perGroup + i / spatial;
        y.data[base + i] =
            (in[i] - mean) / denom * scale.data[ch] + bias.data[ch];
      }
    }
  return y;
}

RefTensor interp::evalInstanceNorm(InstanceNormOp op, const RefTensor &x,
                                   const RefTensor &scale,
                                   const RefTensor &bias) {
  return normalizeGroups(op.getResult(), x, scale, bias, x.shape[1],
                         op.getEpsilon().convertToDouble());
}

RefTensor interp::evalGroupNorm(GroupNormOp op, const RefTensor &x,
                                const RefTensor &scale, const RefTensor &bias) {
  return normalizeGroups(op.getResult(), x, scale, bias,
                         static_cast<int64_t>(op.getNumGroups()),
                         op.getEpsilon().convertToDouble());
}
