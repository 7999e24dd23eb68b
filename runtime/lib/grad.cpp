//===-- grad.cpp - Gradient L2 norm and clipping --------------------------===//
//
// The L2 norm over several tensors without intermediate overflow: the values
// are scaled by an exact power of two 2^-e chosen from the largest magnitude
// (e = ilogb(max |x|), only when max |x| is outside [2^-400, 2^400]) and
// their squares summed in f64 in order (tensor by tensor, element by
// element); norm = 2^e * sqrt(sum). Like LAPACK's dnrm2, but the scaling
// itself adds no rounding error.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <cmath>
#include <type_traits>

namespace mixrt {
namespace detail {
namespace {

/// Calls f(i, x) for every element of `view` (x as double).
template <class F> void forEachValue(const GradView &view, F &&f) {
  if (view.f64) {
    const double *p = static_cast<const double *>(view.data);
    for (int64_t i = 0; i < view.size; ++i)
      f(i, p[i]);
  } else {
    const float *p = static_cast<const float *>(view.data);
    for (int64_t i = 0; i < view.size; ++i)
      f(i, static_cast<double>(p[i]));
  }
}

/// The norm over the tensors views(0) .. views(n - 1).
template <class Views>
absl::StatusOr<double> gradNormImpl(absl::string_view op, int64_t n,
                                    const Views &views) {
  double maxAbs = 0.0;
  for (int64_t t = 0; t < n; ++t) {
    const GradView view = views(t);
    int64_t bad = -1;
    double badValue = 0.0;
    forEachValue(view, [&](int64_t i, double x) {
      if (bad < 0 && !std::isfinite(x)) {
        bad = i;
        badValue = x;
      }
      maxAbs = std::max(maxAbs, std::fabs(x));
    });
    if (bad >= 0)
      return invalidArgument(op, ": element ", bad, " of tensor ", t, " (",
                             badValue, ") is not finite");
  }
  if (maxAbs == 0.0)
    return 0.0;

  int exponent = 0;
  if (maxAbs < 0x1p-400 || maxAbs > 0x1p400)
    exponent = std::ilogb(maxAbs);
  // 2^-exponent is a normal or subnormal double unless max |x| < 2^-1023;
  // then the scaling is done per element with ldexp.
  const bool multiply = -exponent <= 1023;
  const double factor = multiply ? std::ldexp(1.0, -exponent) : 1.0;
  double sum = 0.0;
  for (int64_t t = 0; t < n; ++t)
    forEachValue(views(t), [&](int64_t, double x) {
      const double scaled = multiply ? x * factor : std::ldexp(x, -exponent);
      sum += scaled * scaled;
    });
  const double norm = std::ldexp(std::sqrt(sum), exponent);
  if (!std::isfinite(norm))
    return outOfRange(op, ": the norm overflows f64 (", std::sqrt(sum), " * 2^",
                      exponent, ")");
  return norm;
}

} // namespace

absl::StatusOr<double> gradNormViews(absl::string_view op,
                                     absl::Span<const GradView> grads) {
  return gradNormImpl(op, static_cast<int64_t>(grads.size()),
                      [&](int64_t t) { return grads[t]; });
}

absl::Status checkClipArgs(absl::string_view op, double maxNorm, double eps) {
  if (!std::isfinite(maxNorm) || maxNorm < 0.0)
    return invalidArgument(op, ": max_norm (", maxNorm,
                           ") must be finite and >= 0");
  if (!std::isfinite(eps) || eps < 0.0)
    return invalidArgument(op, ": eps (", eps, ") must be finite and >= 0");
  return absl::OkStatus();
}

double clipCoef(double norm, double maxNorm, double eps) {
  const double coef = maxNorm / (norm + eps);
  return coef < 1.0 ? coef : 1.0; // Also 1 for 0/0 and x/0.
}

void scaleGradViews(absl::Span<const GradView> grads, double coef) {
  for (const GradView &view : grads) {
    if (view.f64) {
      double *p = static_cast<double *>(view.data);
      for (int64_t i = 0; i < view.size; ++i)
        p[i] = p[i] * coef;
    } else {
      float *p = static_cast<float *>(view.data);
      for (int64_t i = 0; i < view.size; ++i)
        p[i] = static_cast<float>(static_cast<double>(p[i]) * coef);
    }
  }
}

} // namespace detail

namespace {

template <class T> detail::GradView viewOf(absl::Span<const T> grad) {
  return {const_cast<T *>(grad.data()), static_cast<int64_t>(grad.size()),
          std::is_same_v<T, double>};
}

template <class T>
absl::StatusOr<double> gradNorm(absl::string_view op,
                                absl::Span<const absl::Span<const T>> grads) {
  return detail::gradNormImpl(op, static_cast<int64_t>(grads.size()),
                              [&](int64_t t) { return viewOf(grads[t]); });
}

template <class T>
absl::StatusOr<ClipResult> clipGradNorm(absl::Span<const absl::Span<T>> grads,
                                        double maxNorm, double eps) {
  constexpr absl::string_view kOp = "clip_grad_norm";
  if (absl::Status s = detail::checkClipArgs(kOp, maxNorm, eps); !s.ok())
    return s;
  absl::StatusOr<double> norm = detail::gradNormImpl(
      kOp, static_cast<int64_t>(grads.size()),
      [&](int64_t t) { return viewOf(absl::Span<const T>(grads[t])); });
  if (!norm.ok())
    return norm.status();
  ClipResult result;
  result.norm = *norm;
  result.coef = detail::clipCoef(*norm, maxNorm, eps);
  if (result.coef < 1.0)
    for (absl::Span<T> grad : grads)
      for (T &g : grad)
        g = static_cast<T>(static_cast<double>(g) * result.coef);
  return result;
}

} // namespace

absl::StatusOr<double>
GradNorm(absl::Span<const absl::Span<const float>> grads) {
  return gradNorm<float>("grad_norm", grads);
}

absl::StatusOr<double>
GradNorm(absl::Span<const absl::Span<const double>> grads) {
  return gradNorm<double>("grad_norm", grads);
}

absl::StatusOr<ClipResult>
ClipGradNorm(absl::Span<const absl::Span<float>> grads, double maxNorm,
             double eps) {
  return clipGradNorm<float>(grads, maxNorm, eps);
}

absl::StatusOr<ClipResult>
ClipGradNorm(absl::Span<const absl::Span<double>> grads, double maxNorm,
             double eps) {
  return clipGradNorm<double>(grads, maxNorm, eps);
}

} // namespace mixrt

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

namespace {

using mixrt::detail::checkPtr;

template <class T>
mixrt_status_code gradNormC(const char *op, const T *const *tensors,
                            const int64_t *sizes, int64_t numTensors,
                            double *outNorm) {
  return mixrt::detail::guardC([&]() -> absl::Status {
    if (absl::Status s = checkPtr(op, outNorm, "out_norm"); !s.ok())
      return s;
    std::vector<absl::Span<const T>> spans;
    if (absl::Status s =
            mixrt::detail::tensorSpans(op, tensors, sizes, numTensors, spans);
        !s.ok())
      return s;
    absl::StatusOr<double> norm = mixrt::GradNorm(spans);
    if (!norm.ok())
      return norm.status();
    *outNorm = *norm;
    return absl::OkStatus();
  });
}

template <class T>
mixrt_status_code clipC(const char *op, T *const *tensors, const int64_t *sizes,
                        int64_t numTensors, double maxNorm, double eps,
                        double *outNorm, double *outCoef) {
  return mixrt::detail::guardC([&]() -> absl::Status {
    std::vector<absl::Span<T>> spans;
    if (absl::Status s =
            mixrt::detail::tensorSpans(op, tensors, sizes, numTensors, spans);
        !s.ok())
      return s;
    absl::StatusOr<mixrt::ClipResult> result =
        mixrt::ClipGradNorm(spans, maxNorm, eps);
    if (!result.ok())
      return result.status();
    if (outNorm)
      *outNorm = result->norm;
    if (outCoef)
      *outCoef = result->coef;
    return absl::OkStatus();
  });
}

} // namespace

extern "C" {

mixrt_status_code mixrt_grad_norm_f32(const float *const *tensors,
                                      const int64_t *sizes, int64_t num_tensors,
                                      double *out_norm) {
  return gradNormC("grad_norm_f32", tensors, sizes, num_tensors, out_norm);
}

mixrt_status_code mixrt_grad_norm_f64(const double *const *tensors,
                                      const int64_t *sizes, int64_t num_tensors,
                                      double *out_norm) {
  return gradNormC("grad_norm_f64", tensors, sizes, num_tensors, out_norm);
}

mixrt_status_code mixrt_clip_grad_norm_f32(float *const *tensors,
                                           const int64_t *sizes,
                                           int64_t num_tensors, double max_norm,
                                           double eps, double *out_norm,
                                           double *out_coef) {
  return clipC("clip_grad_norm_f32", tensors, sizes, num_tensors, max_norm, eps,
               out_norm, out_coef);
}

mixrt_status_code mixrt_clip_grad_norm_f64(double *const *tensors,
                                           const int64_t *sizes,
                                           int64_t num_tensors, double max_norm,
                                           double eps, double *out_norm,
                                           double *out_coef) {
  return clipC("clip_grad_norm_f64", tensors, sizes, num_tensors, max_norm, eps,
               out_norm, out_coef);
}

} // extern "C"
