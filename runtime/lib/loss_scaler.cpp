//===-- loss_scaler.cpp - Dynamic loss scaling ----------------------------===//
//
// PyTorch GradScaler semantics (growth factor, backoff, growth interval,
// growth tracker) plus a maximum scale the growth never exceeds and a
// minimum scale the backoff never goes below.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <cmath>

/// The C handle.
struct mixrt_loss_scaler {
  mixrt::LossScaler value;
};

namespace mixrt {
namespace detail {

absl::Status checkLossScalerConfig(absl::string_view kOp,
                                   absl::string_view prefix,
                                   const LossScalerConfig &c) {
  if (!std::isfinite(c.initial_scale) || !(c.initial_scale > 0.0))
    return invalidArgument(kOp, ": ", prefix, "initial_scale (",
                           c.initial_scale, ") must be positive and finite");
  if (!std::isfinite(c.growth_factor) || !(c.growth_factor > 1.0))
    return invalidArgument(kOp, ": ", prefix, "growth_factor (",
                           c.growth_factor, ") must be finite and > 1");
  if (!(c.backoff_factor > 0.0 && c.backoff_factor < 1.0))
    return invalidArgument(kOp, ": ", prefix, "backoff_factor (",
                           c.backoff_factor, ") must be in (0, 1)");
  if (c.growth_interval < 1)
    return invalidArgument(kOp, ": ", prefix, "growth_interval (",
                           c.growth_interval, ") must be >= 1");
  if (!std::isfinite(c.max_scale) || !(c.max_scale >= c.initial_scale))
    return invalidArgument(kOp, ": ", prefix, "max_scale (", c.max_scale,
                           ") must be finite and >= initial_scale (",
                           c.initial_scale, ")");
  if (!std::isfinite(c.min_scale) || !(c.min_scale > 0.0) ||
      !(c.min_scale <= c.initial_scale))
    return invalidArgument(kOp, ": ", prefix, "min_scale (", c.min_scale,
                           ") must be positive, finite and <= initial_scale (",
                           c.initial_scale, ")");
  return absl::OkStatus();
}

} // namespace detail

namespace {

template <class T> absl::StatusOr<T> scaleLoss(double scale, T loss) {
  if (!std::isfinite(loss))
    return detail::invalidArgument("scale_loss: loss (", loss,
                                   ") is not finite");
  const T scaled = static_cast<T>(static_cast<double>(loss) * scale);
  if (!std::isfinite(scaled))
    return detail::outOfRange("scale_loss: loss (", loss, ") * scale (", scale,
                              ") is not finite");
  return scaled;
}

template <class T>
bool unscale(double scale, absl::Span<const absl::Span<T>> grads) {
  const double inverse = 1.0 / scale; // Reciprocal in f64, as PyTorch does.
  bool foundInf = false;
  for (absl::Span<T> grad : grads)
    for (T &g : grad) {
      g = static_cast<T>(static_cast<double>(g) * inverse);
      foundInf |= !std::isfinite(g);
    }
  return foundInf;
}

} // namespace

absl::StatusOr<LossScaler> LossScaler::Create(const LossScalerConfig &config) {
  if (absl::Status s =
          detail::checkLossScalerConfig("loss_scaler_create", "", config);
      !s.ok())
    return s;
  return LossScaler(config);
}

absl::StatusOr<float> LossScaler::ScaleLoss(float loss) const {
  return scaleLoss(scale_, loss);
}

absl::StatusOr<double> LossScaler::ScaleLoss(double loss) const {
  return scaleLoss(scale_, loss);
}

absl::StatusOr<bool>
LossScaler::Unscale(absl::Span<const absl::Span<float>> grads) const {
  return unscale(scale_, grads);
}

absl::StatusOr<bool>
LossScaler::Unscale(absl::Span<const absl::Span<double>> grads) const {
  return unscale(scale_, grads);
}

void LossScaler::Update(bool foundInf) {
  if (foundInf) {
    // The floor keeps the scale positive: 5,000 halvings of 2^16 would
    // otherwise reach exactly 0, which never grows back.
    scale_ = std::max(scale_ * config_.backoff_factor, config_.min_scale);
    growth_tracker_ = 0;
    return;
  }
  if (++growth_tracker_ < config_.growth_interval)
    return;
  const double grown = scale_ * config_.growth_factor;
  if (std::isfinite(grown) && grown <= config_.max_scale)
    scale_ = grown;
  growth_tracker_ = 0;
}

absl::StatusOr<bool> LossScaler::Step(absl::Span<const absl::Span<float>> grads,
                                      absl::FunctionRef<absl::Status()> apply) {
  absl::StatusOr<bool> foundInf = Unscale(grads);
  if (!foundInf.ok())
    return foundInf.status();
  if (!*foundInf)
    if (absl::Status s = apply(); !s.ok())
      return s;
  Update(*foundInf);
  return *foundInf;
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

using mixrt::detail::checkPtr;
using mixrt::detail::guardC;

/// Longest part of a callback's own message quoted by step (see mixrt.h).
constexpr size_t kMaxQuotedMessageBytes = 256;

template <class T>
mixrt_status_code unscaleC(const char *op, const mixrt_loss_scaler *scaler,
                           T *const *tensors, const int64_t *sizes,
                           int64_t numTensors, int32_t *outFoundInf) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr(op, scaler, "scaler"); !s.ok())
      return s;
    if (absl::Status s = checkPtr(op, outFoundInf, "out_found_inf"); !s.ok())
      return s;
    std::vector<absl::Span<T>> spans;
    if (absl::Status s =
            mixrt::detail::tensorSpans(op, tensors, sizes, numTensors, spans);
        !s.ok())
      return s;
    absl::StatusOr<bool> found = scaler->value.Unscale(spans);
    if (!found.ok())
      return found.status();
    *outFoundInf = *found ? 1 : 0;
    return absl::OkStatus();
  });
}

template <class T>
mixrt_status_code scaleLossC(const char *op, const mixrt_loss_scaler *scaler,
                             T loss, T *outScaled) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr(op, scaler, "scaler"); !s.ok())
      return s;
    if (absl::Status s = checkPtr(op, outScaled, "out_scaled"); !s.ok())
      return s;
    absl::StatusOr<T> scaled = scaler->value.ScaleLoss(loss);
    if (!scaled.ok())
      return scaled.status();
    *outScaled = *scaled;
    return absl::OkStatus();
  });
}

} // namespace

extern "C" {

void mixrt_loss_scaler_config_init(mixrt_loss_scaler_config *out_config) {
  if (!out_config)
    return;
  const mixrt::LossScalerConfig defaults;
  out_config->initial_scale = defaults.initial_scale;
  out_config->growth_factor = defaults.growth_factor;
  out_config->backoff_factor = defaults.backoff_factor;
  out_config->growth_interval = defaults.growth_interval;
  out_config->max_scale = defaults.max_scale;
  out_config->min_scale = defaults.min_scale;
}

mixrt_status_code
mixrt_loss_scaler_create(const mixrt_loss_scaler_config *config,
                         mixrt_loss_scaler **out_scaler) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s =
            checkPtr("loss_scaler_create", out_scaler, "out_scaler");
        !s.ok())
      return s;
    *out_scaler = nullptr;
    mixrt::LossScalerConfig c;
    if (config) {
      c.initial_scale = config->initial_scale;
      c.growth_factor = config->growth_factor;
      c.backoff_factor = config->backoff_factor;
      c.growth_interval = config->growth_interval;
      c.max_scale = config->max_scale;
      c.min_scale = config->min_scale;
    }
    absl::StatusOr<mixrt::LossScaler> scaler = mixrt::LossScaler::Create(c);
    if (!scaler.ok())
      return scaler.status();
    *out_scaler = new mixrt_loss_scaler{std::move(*scaler)};
    return absl::OkStatus();
  });
}

void mixrt_loss_scaler_destroy(mixrt_loss_scaler *scaler) { delete scaler; }

double mixrt_loss_scaler_scale(const mixrt_loss_scaler *scaler) {
  return scaler ? scaler->value.scale() : 0.0;
}

int64_t mixrt_loss_scaler_growth_tracker(const mixrt_loss_scaler *scaler) {
  return scaler ? scaler->value.growth_tracker() : 0;
}

mixrt_status_code
mixrt_loss_scaler_scale_loss_f32(const mixrt_loss_scaler *scaler, float loss,
                                 float *out_scaled) {
  return scaleLossC("loss_scaler_scale_loss_f32", scaler, loss, out_scaled);
}

mixrt_status_code
mixrt_loss_scaler_scale_loss_f64(const mixrt_loss_scaler *scaler, double loss,
                                 double *out_scaled) {
  return scaleLossC("loss_scaler_scale_loss_f64", scaler, loss, out_scaled);
}

mixrt_status_code mixrt_loss_scaler_unscale_f32(const mixrt_loss_scaler *scaler,
                                                float *const *tensors,
                                                const int64_t *sizes,
                                                int64_t num_tensors,
                                                int32_t *out_found_inf) {
  return unscaleC("loss_scaler_unscale_f32", scaler, tensors, sizes,
                  num_tensors, out_found_inf);
}

mixrt_status_code mixrt_loss_scaler_unscale_f64(const mixrt_loss_scaler *scaler,
                                                double *const *tensors,
                                                const int64_t *sizes,
                                                int64_t num_tensors,
                                                int32_t *out_found_inf) {
  return unscaleC("loss_scaler_unscale_f64", scaler, tensors, sizes,
                  num_tensors, out_found_inf);
}

mixrt_status_code mixrt_loss_scaler_update(mixrt_loss_scaler *scaler,
                                           int32_t found_inf) {
  return guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr("loss_scaler_update", scaler, "scaler");
        !s.ok())
      return s;
    scaler->value.Update(found_inf != 0);
    return absl::OkStatus();
  });
}

mixrt_status_code
mixrt_loss_scaler_step_f32(mixrt_loss_scaler *scaler, float *const *tensors,
                           const int64_t *sizes, int64_t num_tensors,
                           mixrt_optimizer_callback apply, void *user_data,
                           int32_t *out_skipped) {
  constexpr const char *kOp = "loss_scaler_step_f32";
  return guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr(kOp, scaler, "scaler"); !s.ok())
      return s;
    if (absl::Status s = checkPtr(kOp, apply ? &apply : nullptr, "apply");
        !s.ok())
      return s;
    if (absl::Status s = checkPtr(kOp, out_skipped, "out_skipped"); !s.ok())
      return s;
    std::vector<absl::Span<float>> spans;
    if (absl::Status s =
            mixrt::detail::tensorSpans(kOp, tensors, sizes, num_tensors, spans);
        !s.ok())
      return s;
    absl::StatusOr<bool> skipped =
        scaler->value.Step(spans, [&]() -> absl::Status {
          // Only a message the callback itself produced is quoted: the
          // last error may still be an earlier step's, and quoting that
          // nested every step's message in the next (80 bytes per step).
          const uint64_t generation = mixrt::detail::lastErrorGeneration();
          const int32_t code = mixrt::detail::enumValue(apply(user_data));
          if (code == MIXRT_STATUS_OK)
            return absl::OkStatus();
          if (!mixrt::detail::isStatusCode(code))
            return absl::InternalError(
                absl::StrCat(kOp, ": optimizer callback returned ", code,
                             ", which is not a mixrt_status_code"));
          std::string message = absl::StrCat(
              kOp, ": optimizer callback failed with ",
              mixrt_status_code_name(static_cast<mixrt_status_code>(code)));
          if (mixrt::detail::lastErrorGeneration() != generation)
            absl::StrAppend(
                &message, " (last error: ",
                mixrt::detail::truncateMessage(mixrt_last_error_message(),
                                               kMaxQuotedMessageBytes),
                ")");
          return absl::Status(static_cast<absl::StatusCode>(code), message);
        });
    if (!skipped.ok())
      return skipped.status();
    *out_skipped = *skipped ? 1 : 0;
    return absl::OkStatus();
  });
}

} // extern "C"
