//===-- optim.cpp - Master-weight SGD and Adam ----------------------------===//
//
// f64 master weights updated by SGD (momentum, dampening, nesterov, weight
// decay) or Adam with PyTorch's single-tensor formulas, and the
// low-precision copies (f16, bf16, or int8 symmetric per tensor) re-derived
// from the new masters after every step. A step is all or nothing.
//
//===----------------------------------------------------------------------===//

#include "float_bits.h"
#include "internal.h"

#include <cmath>
#include <optional>

namespace mixrt {

/// One parameter: masters, optimizer state and the low-precision copy.
struct Param {
  std::vector<double> master;
  /// SGD momentum buffer or Adam first moment (empty until the first step
  /// for SGD, as PyTorch creates the buffer lazily).
  std::vector<double> moment1;
  /// Adam second moment.
  std::vector<double> moment2;
  int64_t steps = 0;
  LowpFormat lowp = LowpFormat::kNone;
  std::vector<uint16_t> lowpU16;
  std::optional<QTensor> lowpInt8;
};

struct Optimizer::Impl {
  OptimizerConfig config;
  std::vector<Param> params;
};

namespace {

absl::Status checkConfig(const OptimizerConfig &c) {
  constexpr absl::string_view kOp = "optimizer_create";
  if (!std::isfinite(c.learning_rate) || !(c.learning_rate > 0.0))
    return detail::invalidArgument(kOp, ": learning_rate (", c.learning_rate,
                                   ") must be positive and finite");
  if (!std::isfinite(c.weight_decay) || c.weight_decay < 0.0)
    return detail::invalidArgument(kOp, ": weight_decay (", c.weight_decay,
                                   ") must be finite and >= 0");
  switch (c.kind) {
  case OptimizerKind::kSgd:
    if (!(c.momentum >= 0.0 && c.momentum < 1.0))
      return detail::invalidArgument(kOp, ": momentum (", c.momentum,
                                     ") must be in [0, 1)");
    if (!(c.dampening >= 0.0 && c.dampening <= 1.0))
      return detail::invalidArgument(kOp, ": dampening (", c.dampening,
                                     ") must be in [0, 1]");
    if (c.nesterov && (c.momentum <= 0.0 || c.dampening != 0.0))
      return detail::invalidArgument(
          kOp, ": nesterov needs momentum > 0 and dampening 0");
    return absl::OkStatus();
  case OptimizerKind::kAdam:
    if (!(c.beta1 >= 0.0 && c.beta1 < 1.0))
      return detail::invalidArgument(kOp, ": beta1 (", c.beta1,
                                     ") must be in [0, 1)");
    if (!(c.beta2 >= 0.0 && c.beta2 < 1.0))
      return detail::invalidArgument(kOp, ": beta2 (", c.beta2,
                                     ") must be in [0, 1)");
    if (!std::isfinite(c.epsilon) || !(c.epsilon > 0.0))
      return detail::invalidArgument(kOp, ": epsilon (", c.epsilon,
                                     ") must be positive and finite");
    return absl::OkStatus();
  }
  return detail::invalidArgument(kOp, ": unknown optimizer kind ",
                                 static_cast<int>(c.kind));
}

template <class Fmt>
absl::Status deriveU16(absl::string_view op, absl::string_view fmtName,
                       int64_t index, const std::vector<double> &master,
                       std::vector<uint16_t> &out) {
  out.resize(master.size());
  for (size_t i = 0; i < master.size(); ++i) {
    out[i] = detail::narrow<Fmt>(master[i]);
    if (detail::isNonFinite16<Fmt>(out[i]))
      return detail::outOfRange(op, ": element ", i, " of parameter ", index,
                                " (", master[i], ") overflows ", fmtName);
  }
  return absl::OkStatus();
}

/// Re-derives the low-precision copy of `p` from its masters.
absl::Status deriveLowp(absl::string_view op, int64_t index, Param &p) {
  switch (p.lowp) {
  case LowpFormat::kNone:
    return absl::OkStatus();
  case LowpFormat::kF16:
    return deriveU16<detail::F16Format>(op, "f16", index, p.master, p.lowpU16);
  case LowpFormat::kBF16:
    return deriveU16<detail::BF16Format>(op, "bf16", index, p.master,
                                         p.lowpU16);
  case LowpFormat::kInt8: {
    const int64_t shape[] = {static_cast<int64_t>(p.master.size())};
    absl::StatusOr<QTensor> q = QTensorBuilder::quantize<double>(
        op, p.master, shape, QScheme::kSymmetric, kPerTensor, {}, {});
    if (!q.ok())
      return q.status();
    p.lowpInt8 = std::move(*q);
    return absl::OkStatus();
  }
  }
  return detail::invalidArgument(op, ": unknown low-precision format ",
                                 static_cast<int>(p.lowp));
}

/// SGD as torch.optim.SGD: d = g + wd * w; with momentum, buf = d on the
/// first step, else buf = momentum * buf + (1 - dampening) * d, and d = buf
/// (or d + momentum * buf with nesterov); w -= lr * d.
template <class T>
void sgdStep(const OptimizerConfig &c, absl::Span<const T> grad, Param &p) {
  const bool firstStep = p.moment1.empty();
  if (c.momentum != 0.0 && firstStep)
    p.moment1.resize(p.master.size());
  for (size_t i = 0; i < p.master.size(); ++i) {
    double d = static_cast<double>(grad[i]);
    if (c.weight_decay != 0.0)
      d += c.weight_decay * p.master[i];
    if (c.momentum != 0.0) {
      double &buf = p.moment1[i];
      buf = firstStep ? d : c.momentum * buf + (1.0 - c.dampening) * d;
      d = c.nesterov ? d + c.momentum * buf : buf;
    }
    p.master[i] -= c.learning_rate * d;
  }
}

/// Adam as torch.optim.Adam (single-tensor path): g += wd * w;
/// m += (1 - b1) * (g - m); v = b2 * v + (1 - b2) * g * g;
/// w -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
template <class T>
void adamStep(const OptimizerConfig &c, absl::Span<const T> grad, Param &p) {
  if (p.moment1.empty()) {
    p.moment1.assign(p.master.size(), 0.0);
    p.moment2.assign(p.master.size(), 0.0);
  }
  const double t = static_cast<double>(p.steps + 1);
  const double stepSize = c.learning_rate / (1.0 - std::pow(c.beta1, t));
  const double correction2Sqrt = std::sqrt(1.0 - std::pow(c.beta2, t));
  for (size_t i = 0; i < p.master.size(); ++i) {
    double g = static_cast<double>(grad[i]);
    if (c.weight_decay != 0.0)
      g += c.weight_decay * p.master[i];
    double &m = p.moment1[i];
    double &v = p.moment2[i];
    m += (1.0 - c.beta1) * (g - m);
    v = c.beta2 * v + (1.0 - c.beta2) * g * g;
    const double denom = std::sqrt(v) / correction2Sqrt + c.epsilon;
    p.master[i] -= stepSize * (m / denom);
  }
}

} // namespace

OptimizerConfig OptimizerConfig::Sgd(double lr, double momentum) {
  OptimizerConfig c;
  c.kind = OptimizerKind::kSgd;
  c.learning_rate = lr;
  c.momentum = momentum;
  return c;
}

OptimizerConfig OptimizerConfig::Adam(double lr, double beta1, double beta2,
                                      double epsilon) {
  OptimizerConfig c;
  c.kind = OptimizerKind::kAdam;
  c.learning_rate = lr;
  c.beta1 = beta1;
  c.beta2 = beta2;
  c.epsilon = epsilon;
  return c;
}

Optimizer::Optimizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Optimizer::Optimizer(Optimizer &&) noexcept = default;
Optimizer &Optimizer::operator=(Optimizer &&) noexcept = default;
Optimizer::~Optimizer() = default;

absl::StatusOr<Optimizer> Optimizer::Create(const OptimizerConfig &config) {
  if (absl::Status s = checkConfig(config); !s.ok())
    return s;
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  return Optimizer(std::move(impl));
}

absl::StatusOr<int64_t> Optimizer::AddParam(absl::Span<const double> values,
                                            LowpFormat lowp) {
  constexpr absl::string_view kOp = "optimizer_add_param";
  if (values.empty())
    return detail::invalidArgument(kOp, ": the parameter is empty");
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return detail::invalidArgument(kOp, ": value ", i, " (", values[i],
                                     ") is not finite");
  Param p;
  p.master.assign(values.begin(), values.end());
  p.lowp = lowp;
  const int64_t index = num_params();
  if (absl::Status s = deriveLowp(kOp, index, p); !s.ok())
    return s;
  impl_->params.push_back(std::move(p));
  return index;
}

int64_t Optimizer::num_params() const {
  return static_cast<int64_t>(impl_->params.size());
}

namespace {

template <class T>
absl::Status stepImpl(const OptimizerConfig &config, std::vector<Param> &params,
                      absl::Span<const absl::Span<const T>> grads) {
  constexpr absl::string_view kOp = "optimizer_step";
  if (grads.size() != params.size())
    return detail::invalidArgument(kOp, ": got ", grads.size(),
                                   " gradients for ", params.size(),
                                   " parameters");
  for (size_t p = 0; p < grads.size(); ++p) {
    if (grads[p].size() != params[p].master.size())
      return detail::invalidArgument(kOp, ": gradient ", p, " has ",
                                     grads[p].size(), " elements, parameter ",
                                     params[p].master.size());
    for (size_t i = 0; i < grads[p].size(); ++i)
      if (!std::isfinite(grads[p][i]))
        return detail::invalidArgument(kOp, ": element ", i, " of gradient ", p,
                                       " (", grads[p][i], ") is not finite");
  }
  // Update a copy and commit only if every parameter succeeded.
  std::vector<Param> next = params;
  for (size_t p = 0; p < next.size(); ++p) {
    if (config.kind == OptimizerKind::kSgd)
      sgdStep(config, grads[p], next[p]);
    else
      adamStep(config, grads[p], next[p]);
    ++next[p].steps;
    for (size_t i = 0; i < next[p].master.size(); ++i)
      if (!std::isfinite(next[p].master[i]))
        return detail::outOfRange(kOp, ": element ", i, " of parameter ", p,
                                  " becomes non-finite");
    if (absl::Status s = deriveLowp(kOp, p, next[p]); !s.ok())
      return s;
  }
  params.swap(next);
  return absl::OkStatus();
}

} // namespace

absl::Status Optimizer::Step(absl::Span<const absl::Span<const float>> grads) {
  return stepImpl(impl_->config, impl_->params, grads);
}

absl::Status Optimizer::Step(absl::Span<const absl::Span<const double>> grads) {
  return stepImpl(impl_->config, impl_->params, grads);
}

const OptimizerConfig &Optimizer::config() const { return impl_->config; }

absl::Span<const double> Optimizer::master(int64_t index) const {
  if (index < 0 || index >= num_params())
    return {};
  return impl_->params[index].master;
}

LowpFormat Optimizer::lowp_format(int64_t index) const {
  if (index < 0 || index >= num_params())
    return LowpFormat::kNone;
  return impl_->params[index].lowp;
}

absl::Span<const uint16_t> Optimizer::lowp_u16(int64_t index) const {
  if (index < 0 || index >= num_params())
    return {};
  return impl_->params[index].lowpU16;
}

const QTensor *Optimizer::lowp_int8(int64_t index) const {
  if (index < 0 || index >= num_params() || !impl_->params[index].lowpInt8)
    return nullptr;
  return &*impl_->params[index].lowpInt8;
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

/// The C handle.
struct mixrt_optimizer {
  mixrt::Optimizer value;
};

namespace {

using mixrt::detail::checkPtr;
using mixrt::detail::guardC;

template <class T>
mixrt_status_code stepC(const char *op, mixrt_optimizer *optimizer,
                        const T *const *grads, const int64_t *sizes,
                        int64_t numGrads) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr(op, optimizer, "optimizer"); !s.ok())
      return s;
    std::vector<absl::Span<const T>> spans;
    if (absl::Status s =
            mixrt::detail::tensorSpans(op, grads, sizes, numGrads, spans);
        !s.ok())
      return s;
    return optimizer->value.Step(spans);
  });
}

const mixrt::Optimizer *get(const mixrt_optimizer *optimizer) {
  return optimizer ? &optimizer->value : nullptr;
}

} // namespace

extern "C" {

void mixrt_optimizer_config_init(mixrt_optimizer_kind kind,
                                 mixrt_optimizer_config *out_config) {
  if (!out_config)
    return;
  // An unknown kind (compared as an integer) gets the SGD defaults and keeps
  // its value, so mixrt_optimizer_create() rejects the config.
  const mixrt::OptimizerConfig c =
      mixrt::detail::enumValue(kind) == MIXRT_OPTIMIZER_ADAM
          ? mixrt::OptimizerConfig::Adam()
          : mixrt::OptimizerConfig::Sgd(0.01);
  out_config->kind = kind;
  out_config->learning_rate = c.learning_rate;
  out_config->weight_decay = c.weight_decay;
  out_config->momentum = c.momentum;
  out_config->dampening = c.dampening;
  out_config->nesterov = c.nesterov ? 1 : 0;
  out_config->beta1 = c.beta1;
  out_config->beta2 = c.beta2;
  out_config->epsilon = c.epsilon;
}

mixrt_status_code mixrt_optimizer_create(const mixrt_optimizer_config *config,
                                         mixrt_optimizer **out_optimizer) {
  return guardC([&]() -> absl::Status {
    constexpr const char *kOp = "optimizer_create";
    if (absl::Status s = checkPtr(kOp, out_optimizer, "out_optimizer"); !s.ok())
      return s;
    *out_optimizer = nullptr;
    if (absl::Status s = checkPtr(kOp, config, "config"); !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkEnum(
            kOp, "config->kind", "mixrt_optimizer_kind", config->kind, 2);
        !s.ok())
      return s;
    mixrt::OptimizerConfig c;
    c.kind = static_cast<mixrt::OptimizerKind>(
        mixrt::detail::enumValue(config->kind));
    c.learning_rate = config->learning_rate;
    c.weight_decay = config->weight_decay;
    c.momentum = config->momentum;
    c.dampening = config->dampening;
    c.nesterov = config->nesterov != 0;
    c.beta1 = config->beta1;
    c.beta2 = config->beta2;
    c.epsilon = config->epsilon;
    absl::StatusOr<mixrt::Optimizer> optimizer = mixrt::Optimizer::Create(c);
    if (!optimizer.ok())
      return optimizer.status();
    *out_optimizer = new mixrt_optimizer{std::move(*optimizer)};
    return absl::OkStatus();
  });
}

void mixrt_optimizer_destroy(mixrt_optimizer *optimizer) { delete optimizer; }

mixrt_status_code mixrt_optimizer_add_param(mixrt_optimizer *optimizer,
                                            const double *values, int64_t count,
                                            mixrt_lowp_format lowp,
                                            int64_t *out_index) {
  return guardC([&]() -> absl::Status {
    constexpr const char *kOp = "optimizer_add_param";
    if (absl::Status s = checkPtr(kOp, optimizer, "optimizer"); !s.ok())
      return s;
    if (absl::Status s = mixrt::detail::checkNonNegative(kOp, count, "count");
        !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkBytes(kOp, "count", count, sizeof(double));
        !s.ok())
      return s;
    if (absl::Status s = checkPtr(kOp, values, "values", count > 0); !s.ok())
      return s;
    if (absl::Status s =
            mixrt::detail::checkEnum(kOp, "lowp", "mixrt_lowp_format", lowp, 4);
        !s.ok())
      return s;
    absl::StatusOr<int64_t> index = optimizer->value.AddParam(
        absl::Span<const double>(values, count),
        static_cast<mixrt::LowpFormat>(mixrt::detail::enumValue(lowp)));
    if (!index.ok())
      return index.status();
    if (out_index)
      *out_index = *index;
    return absl::OkStatus();
  });
}

int64_t mixrt_optimizer_num_params(const mixrt_optimizer *optimizer) {
  return optimizer ? optimizer->value.num_params() : 0;
}

mixrt_status_code mixrt_optimizer_step_f32(mixrt_optimizer *optimizer,
                                           const float *const *grads,
                                           const int64_t *sizes,
                                           int64_t num_grads) {
  return stepC("optimizer_step_f32", optimizer, grads, sizes, num_grads);
}

mixrt_status_code mixrt_optimizer_step_f64(mixrt_optimizer *optimizer,
                                           const double *const *grads,
                                           const int64_t *sizes,
                                           int64_t num_grads) {
  return stepC("optimizer_step_f64", optimizer, grads, sizes, num_grads);
}

int64_t mixrt_optimizer_param_size(const mixrt_optimizer *optimizer,
                                   int64_t index) {
  return optimizer ? static_cast<int64_t>(optimizer->value.master(index).size())
                   : 0;
}

const double *mixrt_optimizer_master(const mixrt_optimizer *optimizer,
                                     int64_t index) {
  const mixrt::Optimizer *o = get(optimizer);
  return o && !o->master(index).empty() ? o->master(index).data() : nullptr;
}

mixrt_lowp_format mixrt_optimizer_lowp_format(const mixrt_optimizer *optimizer,
                                              int64_t index) {
  const mixrt::Optimizer *o = get(optimizer);
  return static_cast<mixrt_lowp_format>(o ? o->lowp_format(index)
                                          : mixrt::LowpFormat::kNone);
}

const uint16_t *mixrt_optimizer_lowp_u16(const mixrt_optimizer *optimizer,
                                         int64_t index) {
  const mixrt::Optimizer *o = get(optimizer);
  return o && !o->lowp_u16(index).empty() ? o->lowp_u16(index).data() : nullptr;
}

const int8_t *mixrt_optimizer_lowp_int8(const mixrt_optimizer *optimizer,
                                        int64_t index) {
  const mixrt::Optimizer *o = get(optimizer);
  const mixrt::QTensor *q = o ? o->lowp_int8(index) : nullptr;
  return q ? q->data().data() : nullptr;
}

float mixrt_optimizer_lowp_int8_scale(const mixrt_optimizer *optimizer,
                                      int64_t index) {
  const mixrt::Optimizer *o = get(optimizer);
  const mixrt::QTensor *q = o ? o->lowp_int8(index) : nullptr;
  return q ? q->scales()[0] : 0.0f;
}

} // extern "C"
