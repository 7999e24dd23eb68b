//===-- grad_test.cpp - Gradient norm and clipping tests ------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>

using namespace mixrt;

TEST_CASE("grad.norm_exact_small_cases", "[grad]") {
  const std::vector<float> a = {3.0f}, b = {0.0f, 4.0f};
  const std::vector<absl::Span<const float>> grads = {a, b};
  CHECK(*GradNorm(grads) == 5.0);
  const std::vector<absl::Span<const float>> none;
  CHECK(*GradNorm(none) == 0.0);
  const std::vector<float> zeros(10, 0.0f);
  CHECK(*GradNorm(std::vector<absl::Span<const float>>{zeros}) == 0.0);
  // f32 extremes cannot overflow the f64 sum.
  const std::vector<float> big = {FLT_MAX, FLT_MAX};
  CHECK(*GradNorm(std::vector<absl::Span<const float>>{big}) ==
        Approx(double{FLT_MAX} * std::sqrt(2.0)).epsilon(1e-15));
}

TEST_CASE("grad.norm_near_f64_max", "[grad]") {
  const std::vector<double> a = {1e308, 1e308};
  absl::StatusOr<double> n = GradNorm(std::vector<absl::Span<const double>>{a});
  REQUIRE(n.ok());
  CHECK(*n == Approx(1.4142135623730951e308).epsilon(1e-15));
  CHECK(std::isfinite(*n));

  const std::vector<double> b = {1.7e308, 1.7e308};
  const absl::Status s =
      GradNorm(std::vector<absl::Span<const double>>{b}).status();
  CHECK(s.code() == absl::StatusCode::kOutOfRange);

  // Huge and tiny magnitudes mixed: 3e300 and 4e300 -> 5e300.
  const std::vector<double> c = {3e300, 4e300, 1e-300};
  CHECK(*GradNorm(std::vector<absl::Span<const double>>{c}) ==
        Approx(5e300).epsilon(1e-15));
  // Subnormals: 3 and 4 times denorm_min -> 5 times (scaled exactly).
  const double dm = std::numeric_limits<double>::denorm_min();
  const std::vector<double> d = {3 * dm, 4 * dm};
  CHECK(*GradNorm(std::vector<absl::Span<const double>>{d}) == 5 * dm);
}

TEST_CASE("grad.norm_rejects_non_finite", "[grad]") {
  const std::vector<float> a = {1.0f}, b = {2.0f, NAN};
  const absl::Status s =
      GradNorm(std::vector<absl::Span<const float>>{a, b}).status();
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("element 1 of tensor 1"));
}

TEST_CASE("grad.clip_coefficients_exact", "[grad]") {
  std::vector<float> a = {3.0f}, b = {4.0f};
  std::vector<absl::Span<float>> grads = {absl::MakeSpan(a), absl::MakeSpan(b)};
  absl::StatusOr<ClipResult> r = ClipGradNorm(grads, 1.0);
  REQUIRE(r.ok());
  CHECK(r->norm == 5.0);
  const double coef = 1.0 / (5.0 + 1e-6);
  CHECK(r->coef == coef);
  CHECK(a[0] == static_cast<float>(3.0 * coef));
  CHECK(b[0] == static_cast<float>(4.0 * coef));

  // Below the limit: coefficient capped at 1, gradients unchanged.
  std::vector<float> c = {0.3f, 0.4f};
  std::vector<absl::Span<float>> g2 = {absl::MakeSpan(c)};
  r = ClipGradNorm(g2, 10.0);
  CHECK(r->coef == 1.0);
  CHECK(c == std::vector<float>{0.3f, 0.4f});
  // norm + eps with eps 0 and a zero norm: 1, no division trouble.
  std::vector<double> z = {0.0};
  std::vector<absl::Span<double>> g3 = {absl::MakeSpan(z)};
  r = ClipGradNorm(g3, 0.0, 0.0);
  CHECK(r->coef == 1.0);
  // Explicit eps.
  std::vector<double> e = {6.0, 8.0};
  std::vector<absl::Span<double>> g4 = {absl::MakeSpan(e)};
  r = ClipGradNorm(g4, 5.0, 0.5);
  CHECK(r->coef == 5.0 / 10.5);
  CHECK(e[0] == 6.0 * (5.0 / 10.5));

  CHECK(ClipGradNorm(g4, -1.0).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ClipGradNorm(g4, 1.0, NAN).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("grad.c_api", "[grad]") {
  const float a[] = {3.0f}, b[] = {4.0f};
  const float *tensors[] = {a, b};
  const int64_t sizes[] = {1, 1};
  double norm = 0;
  REQUIRE(mixrt_grad_norm_f32(tensors, sizes, 2, &norm) == MIXRT_STATUS_OK);
  CHECK(norm == 5.0);
  CHECK(mixrt_grad_norm_f32(tensors, sizes, 2, nullptr) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_grad_norm_f32(nullptr, sizes, 2, &norm) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  const double big[] = {1.7e308, 1.7e308};
  const double *t64[] = {big};
  const int64_t s64[] = {2};
  CHECK(mixrt_grad_norm_f64(t64, s64, 1, &norm) == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("overflows"));

  double g[] = {6.0, 8.0};
  double *gt[] = {g};
  double coef = 0;
  REQUIRE(mixrt_clip_grad_norm_f64(gt, s64, 1, 5.0, MIXRT_CLIP_DEFAULT_EPS,
                                   &norm, &coef) == MIXRT_STATUS_OK);
  CHECK(norm == 10.0);
  CHECK(coef == 5.0 / (10.0 + 1e-6));
  CHECK(g[1] == 8.0 * coef);
  float f[] = {1.0f};
  float *ft[] = {f};
  const int64_t s1[] = {1};
  CHECK(mixrt_clip_grad_norm_f32(ft, s1, 1, 0.5, 0.0, nullptr, nullptr) ==
        MIXRT_STATUS_OK);
  CHECK(f[0] == 0.5f);
}
