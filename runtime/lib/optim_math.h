//===-- optim_math.h - The per-parameter optimizer update -------*- C++ -*-===//
//
// The one implementation of the SGD / Adam / AdamW update over raw arrays of
// master weights, moments and gradients, shared by mixrt_optimizer
// (optim.cpp, f64 masters in std::vectors) and the trainer (trainer.cpp, f64
// or f32 masters in caller memory). Everything is computed in f64 from the
// stored values; the new master and moments are rounded once (RNE) to the
// storage type S (a no-op for double). Allocates nothing.
//
//===----------------------------------------------------------------------===//

#ifndef MIXRT_LIB_OPTIM_MATH_H
#define MIXRT_LIB_OPTIM_MATH_H

#include "mixrt/mixrt.hpp"

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

#include <cmath>
#include <cstdint>

namespace mixrt::detail {

/// Checks an optimizer configuration; messages read "<op>: <prefix><field>
/// (<value>) must ..." (prefix "" for mixrt_optimizer_create, "optimizer."
/// for the trainer's config).
absl::Status checkOptimizerConfig(absl::string_view op,
                                  absl::string_view prefix,
                                  const OptimizerConfig &config);

/// The per-step constants of an update.
struct UpdateCoefficients {
  /// Adam/AdamW: lr / (1 - beta1^t) and sqrt(1 - beta2^t).
  double stepSize = 0.0;
  double correction2Sqrt = 1.0;
  /// SGD: the momentum buffer is set to d (first step, as PyTorch creates
  /// it lazily) instead of being updated.
  bool firstStep = false;
};

/// The constants of step `t` (1 for the first update of the parameter).
inline UpdateCoefficients updateCoefficients(const OptimizerConfig &c,
                                             int64_t t) {
  UpdateCoefficients k;
  k.firstStep = t == 1;
  if (c.kind != OptimizerKind::kSgd) {
    const double td = static_cast<double>(t);
    k.stepSize = c.learning_rate / (1.0 - std::pow(c.beta1, td));
    k.correction2Sqrt = std::sqrt(1.0 - std::pow(c.beta2, td));
  }
  return k;
}

/// The new master, moment1 and moment2 of one element (f64, before the
/// rounding to the storage type).
///
/// SGD as torch.optim.SGD: d = g + wd * w; with momentum, buf = d on the
/// first step, else buf = momentum * buf + (1 - dampening) * d, and d = buf
/// (or d + momentum * buf with nesterov); w -= lr * d.
///
/// Adam as torch.optim.Adam (single-tensor path): g += wd * w;
/// m += (1 - b1) * (g - m); v = b2 * v + (1 - b2) * g * g;
/// w -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
///
/// AdamW as torch.optim.AdamW: w *= 1 - lr * wd, then the Adam update with
/// the gradient as it is (no L2 term).
inline void updateElement(const OptimizerConfig &c, const UpdateCoefficients &k,
                          double g, double &w, double &m, double &v) {
  if (c.kind == OptimizerKind::kSgd) {
    double d = g;
    if (c.weight_decay != 0.0)
      d += c.weight_decay * w;
    if (c.momentum != 0.0) {
      m = k.firstStep ? d : c.momentum * m + (1.0 - c.dampening) * d;
      d = c.nesterov ? d + c.momentum * m : m;
    }
    w -= c.learning_rate * d;
    return;
  }
  if (c.weight_decay != 0.0) {
    if (c.kind == OptimizerKind::kAdamW)
      w *= 1.0 - c.learning_rate * c.weight_decay;
    else
      g += c.weight_decay * w;
  }
  m += (1.0 - c.beta1) * (g - m);
  v = c.beta2 * v + (1.0 - c.beta2) * g * g;
  const double denom = std::sqrt(v) / k.correction2Sqrt + c.epsilon;
  w -= k.stepSize * (m / denom);
}

/// Updates `count` elements: master[i], moment1[i], moment2[i] (S = double
/// or float) from grad[i] (G = float or double). `moment1`/`moment2` may be
/// null when the optimizer does not use them (SGD without momentum: both;
/// SGD: moment2). `accept(i, newMaster)` sees every new master (rounded to
/// S) in order; the first false stops the loop and its index is returned
/// (-1 if every element was accepted). With `commit` false nothing is
/// written: a first pass can check a step that a second pass, with the same
/// inputs and so the same results, commits.
template <class S, class G, class Accept>
int64_t updateParam(const OptimizerConfig &c, const UpdateCoefficients &k,
                    S *master, S *moment1, S *moment2, const G *grad,
                    int64_t count, bool commit, Accept &&accept) {
  for (int64_t i = 0; i < count; ++i) {
    double w = static_cast<double>(master[i]);
    double m = moment1 ? static_cast<double>(moment1[i]) : 0.0;
    double v = moment2 ? static_cast<double>(moment2[i]) : 0.0;
    updateElement(c, k, static_cast<double>(grad[i]), w, m, v);
    const S newMaster = static_cast<S>(w);
    if (!accept(i, newMaster))
      return i;
    if (commit) {
      master[i] = newMaster;
      if (moment1)
        moment1[i] = static_cast<S>(m);
      if (moment2)
        moment2[i] = static_cast<S>(v);
    }
  }
  return -1;
}

/// True if the optimizer keeps a first / second moment per element.
inline bool usesMoment1(const OptimizerConfig &c) {
  return c.kind != OptimizerKind::kSgd || c.momentum != 0.0;
}
inline bool usesMoment2(const OptimizerConfig &c) {
  return c.kind != OptimizerKind::kSgd;
}

} // namespace mixrt::detail

#endif // MIXRT_LIB_OPTIM_MATH_H
