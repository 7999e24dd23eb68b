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
#include <type_traits>

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

/// The update of updateElement specialized per optimizer rule, for loops
/// the compiler can vectorize: the kind and the flags are template
/// arguments (no per-element branch), the per-step constants are hoisted
/// into FastCoefficients (each computed by the same expression as in
/// updateElement, so the same value). Every element goes through exactly
/// the f64 operations of updateElement, in the same order: the results are
/// bit-identical (the runtime is built without FMA contraction,
/// -ffp-contract=off, and sqrt stays the correctly rounded IEEE sqrt;
/// trainer.cpp is built with -fno-math-errno so that sqrt need not call
/// libm for errno, which changes no value). mixrt_optimizer keeps the
/// generic updateElement: the tests compare the two bit for bit.
enum class Rule : int {
  kSgd,           // SGD without momentum
  kSgdMomentum,   // SGD with momentum
  kSgdNesterov,   // SGD with Nesterov momentum
  kAdam,          // Adam / AdamW without weight decay (the same update)
  kAdamL2,        // Adam with weight decay (L2 on the gradient)
  kAdamDecoupled, // AdamW with weight decay
};

struct FastCoefficients {
  double lr, wd, momentum, dampingComplement, beta1Complement, beta2,
      beta2Complement, correction2Sqrt, epsilon, stepSize, decay;
  bool firstStep;
};

inline FastCoefficients fastCoefficients(const OptimizerConfig &c,
                                         const UpdateCoefficients &k) {
  FastCoefficients f;
  f.lr = c.learning_rate;
  f.wd = c.weight_decay;
  f.momentum = c.momentum;
  f.dampingComplement = 1.0 - c.dampening;
  f.beta1Complement = 1.0 - c.beta1;
  f.beta2 = c.beta2;
  f.beta2Complement = 1.0 - c.beta2;
  f.correction2Sqrt = k.correction2Sqrt;
  f.epsilon = c.epsilon;
  f.stepSize = k.stepSize;
  f.decay = 1.0 - c.learning_rate * c.weight_decay;
  f.firstStep = k.firstStep;
  return f;
}

/// The rule of a configuration, and whether SGD decays the weights.
inline Rule ruleOf(const OptimizerConfig &c) {
  if (c.kind == OptimizerKind::kSgd)
    return c.momentum == 0.0 ? Rule::kSgd
           : c.nesterov      ? Rule::kSgdNesterov
                             : Rule::kSgdMomentum;
  if (c.weight_decay == 0.0)
    return Rule::kAdam;
  return c.kind == OptimizerKind::kAdamW ? Rule::kAdamDecoupled : Rule::kAdamL2;
}

/// updateElement for rule R (SgdDecay: SGD with weight_decay != 0).
template <Rule R, bool SgdDecay>
inline void updateElementFast(const FastCoefficients &c, double g, double &w,
                              double &m, double &v) {
  if constexpr (R == Rule::kSgd || R == Rule::kSgdMomentum ||
                R == Rule::kSgdNesterov) {
    double d = g;
    if constexpr (SgdDecay)
      d += c.wd * w;
    if constexpr (R != Rule::kSgd) {
      // Both sides are computed and one selected (no side effects), so the
      // loop stays branch-free.
      const double next = c.momentum * m + c.dampingComplement * d;
      m = c.firstStep ? d : next;
      if constexpr (R == Rule::kSgdNesterov)
        d = d + c.momentum * m;
      else
        d = m;
    }
    w -= c.lr * d;
  } else {
    if constexpr (R == Rule::kAdamDecoupled)
      w *= c.decay;
    if constexpr (R == Rule::kAdamL2)
      g += c.wd * w;
    m += c.beta1Complement * (g - m);
    v = c.beta2 * v + c.beta2Complement * g * g;
    const double denom = std::sqrt(v) / c.correction2Sqrt + c.epsilon;
    w -= c.stepSize * (m / denom);
  }
}

/// Whether rule R reads and writes moment 1 / moment 2.
template <Rule R> constexpr bool ruleUsesMoment1() { return R != Rule::kSgd; }
template <Rule R> constexpr bool ruleUsesMoment2() {
  return R != Rule::kSgd && R != Rule::kSgdMomentum && R != Rule::kSgdNesterov;
}

/// Calls f(std::integral_constant<Rule, R>, std::bool_constant<SgdDecay>)
/// for the rule of `c`.
template <class F> inline auto dispatchRule(const OptimizerConfig &c, F &&f) {
  const bool decay = c.weight_decay != 0.0;
  using std::integral_constant;
  switch (ruleOf(c)) {
  case Rule::kSgd:
    return decay ? f(integral_constant<Rule, Rule::kSgd>(), std::true_type())
                 : f(integral_constant<Rule, Rule::kSgd>(), std::false_type());
  case Rule::kSgdMomentum:
    return decay ? f(integral_constant<Rule, Rule::kSgdMomentum>(),
                     std::true_type())
                 : f(integral_constant<Rule, Rule::kSgdMomentum>(),
                     std::false_type());
  case Rule::kSgdNesterov:
    return decay ? f(integral_constant<Rule, Rule::kSgdNesterov>(),
                     std::true_type())
                 : f(integral_constant<Rule, Rule::kSgdNesterov>(),
                     std::false_type());
  case Rule::kAdam:
    return f(integral_constant<Rule, Rule::kAdam>(), std::false_type());
  case Rule::kAdamL2:
    return f(integral_constant<Rule, Rule::kAdamL2>(), std::false_type());
  case Rule::kAdamDecoupled:
    break;
  }
  return f(integral_constant<Rule, Rule::kAdamDecoupled>(), std::false_type());
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
