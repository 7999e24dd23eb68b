//===-- optim.cpp - Master-weight SGD, Adam and AdamW ---------------------===//
//
// f64 master weights updated by SGD (momentum, dampening, nesterov, weight
// decay), Adam or AdamW with PyTorch's single-tensor formulas (the update
// math is optim_math.h, shared with the trainer), and the
// low-precision copies (f16, bf16, or int8 symmetric per tensor) re-derived
// from the new masters after every step. A step is all or nothing.
//
//===----------------------------------------------------------------------===//

#include "float_bits.h"
#include "internal.h"
#include "optim_math.h"

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

} // namespace

namespace detail {

absl::Status checkOptimizerConfig(absl::string_view op,
                                  absl::string_view prefix,
                                  const OptimizerConfig &c) {
  if (!std::isfinite(c.learning_rate) || !(c.learning_rate > 0.0))
    return invalidArgument(op, ": ", prefix, "learning_rate (", c.learning_rate,
                           ") must be positive and finite");
  if (!std::isfinite(c.weight_decay) || c.weight_decay < 0.0)
    return invalidArgument(op, ": ", prefix, "weight_decay (", c.weight_decay,
                           ") must be finite and >= 0");
  switch (c.kind) {
  case OptimizerKind::kSgd:
    if (!(c.momentum >= 0.0 && c.momentum < 1.0))
      return invalidArgument(op, ": ", prefix, "momentum (", c.momentum,
                             ") must be in [0, 1)");
    if (!(c.dampening >= 0.0 && c.dampening <= 1.0))
      return invalidArgument(op, ": ", prefix, "dampening (", c.dampening,
                             ") must be in [0, 1]");
    if (c.nesterov && (c.momentum <= 0.0 || c.dampening != 0.0))
      return invalidArgument(op, ": ", prefix,
                             "nesterov needs momentum > 0 and dampening 0");
    return absl::OkStatus();
  case OptimizerKind::kAdam:
  case OptimizerKind::kAdamW:
    if (!(c.beta1 >= 0.0 && c.beta1 < 1.0))
      return invalidArgument(op, ": ", prefix, "beta1 (", c.beta1,
                             ") must be in [0, 1)");
    if (!(c.beta2 >= 0.0 && c.beta2 < 1.0))
      return invalidArgument(op, ": ", prefix, "beta2 (", c.beta2,
                             ") must be in [0, 1)");
    if (!std::isfinite(c.epsilon) || !(c.epsilon > 0.0))
      return invalidArgument(op, ": ", prefix, "epsilon (", c.epsilon,
                             ") must be positive and finite");
    return absl::OkStatus();
  }
  return invalidArgument(op, ": unknown optimizer kind ",
                         static_cast<int>(c.kind));
}

} // namespace detail

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

OptimizerConfig OptimizerConfig::AdamW(double lr, double beta1, double beta2,
                                       double epsilon, double weight_decay) {
  OptimizerConfig c = Adam(lr, beta1, beta2, epsilon);
  c.kind = OptimizerKind::kAdamW;
  c.weight_decay = weight_decay;
  return c;
}

Optimizer::Optimizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Optimizer::Optimizer(Optimizer &&) noexcept = default;
Optimizer &Optimizer::operator=(Optimizer &&) noexcept = default;
Optimizer::~Optimizer() = default;

absl::StatusOr<Optimizer> Optimizer::Create(const OptimizerConfig &config) {
  if (absl::Status s =
          detail::checkOptimizerConfig("optimizer_create", "", config);
      !s.ok())
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
    Param &param = next[p];
    const int64_t size = static_cast<int64_t>(param.master.size());
    // The moments start at zero on the first step (the SGD momentum buffer
    // is then set to the first d, as PyTorch creates it lazily).
    if (detail::usesMoment1(config) && param.moment1.empty())
      param.moment1.assign(param.master.size(), 0.0);
    if (detail::usesMoment2(config) && param.moment2.empty())
      param.moment2.assign(param.master.size(), 0.0);
    const detail::UpdateCoefficients k =
        detail::updateCoefficients(config, param.steps + 1);
    const int64_t bad = detail::updateParam(
        config, k, param.master.data(),
        param.moment1.empty() ? nullptr : param.moment1.data(),
        param.moment2.empty() ? nullptr : param.moment2.data(), grads[p].data(),
        size, /*commit=*/true,
        [](int64_t, double w) { return std::isfinite(w); });
    ++param.steps;
    if (bad >= 0)
      return detail::outOfRange(kOp, ": element ", bad, " of parameter ", p,
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
  const int32_t k = mixrt::detail::enumValue(kind);
  const mixrt::OptimizerConfig c =
      k == MIXRT_OPTIMIZER_ADAM    ? mixrt::OptimizerConfig::Adam()
      : k == MIXRT_OPTIMIZER_ADAMW ? mixrt::OptimizerConfig::AdamW()
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
            kOp, "config->kind", "mixrt_optimizer_kind", config->kind, 3);
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
