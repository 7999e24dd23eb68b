//===-- gemm_reduced_test.cpp - FP16/BF16 GEMM tests ----------------------===//
//
// Bit-exact against a scalar reference following the documented order
// (operands rounded RNE, acc = fmaf(a, b, acc) for k ascending from 0), on
// every SIMD path, and non-finite results reported as errors.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

using namespace mixrt;
using namespace mixrt::test;

namespace {

float roundTo(Float16Format f, float x) {
  return f == Float16Format::kF16 ? mixrt_f16_to_f32(mixrt_f32_to_f16(x))
                                  : mixrt_bf16_to_f32(mixrt_f32_to_bf16(x));
}

/// The documented order, written as plainly as possible.
template <class T>
std::vector<float> reference(Float16Format f, int64_t m, int64_t n, int64_t k,
                             const std::vector<T> &a, int64_t lda,
                             const std::vector<T> &b, int64_t ldb) {
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk)
        acc = std::fma(roundTo(f, a[i * lda + kk]), roundTo(f, b[kk * ldb + j]),
                       acc);
      c[i * n + j] = acc;
    }
  return c;
}

/// Values of mixed magnitudes and signs, so that any other summation order
/// would very likely change the rounding.
template <class T> std::vector<T> randomValues(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> exp(-12, 6);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(std::ldexp(mant(rng), exp(rng)));
  return v;
}

} // namespace

TEST_CASE("gemm_reduced.matches_scalar_reference_bit_for_bit", "[gemm]") {
  std::mt19937 rng(11);
  const int64_t shapes[][3] = {{1, 1, 1},    {3, 5, 7},     {6, 16, 256},
                               {7, 17, 257}, {13, 33, 600}, {80, 20, 31}};
  for (Float16Format f : {Float16Format::kF16, Float16Format::kBF16}) {
    for (const auto &s : shapes) {
      const int64_t m = s[0], n = s[1], k = s[2];
      const int64_t lda = k + 3, ldb = n + 1, ldc = n + 2;
      const std::vector<float> a = randomValues<float>(m * lda, rng);
      const std::vector<float> b = randomValues<float>(k * ldb, rng);
      const std::vector<float> want = reference(f, m, n, k, a, lda, b, ldb);
      const std::vector<double> a64(a.begin(), a.end()),
          b64(b.begin(), b.end());
      for (SimdLevel level : availableSimdLevels()) {
        SimdLevelScope scope(level);
        INFO("simd " << simdLevelName(level) << " bf16 "
                     << (f == Float16Format::kBF16) << " M " << m << " N " << n
                     << " K " << k);
        std::vector<float> c(m * ldc, -1.0f);
        REQUIRE(
            GemmReduced(f, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc)
                .ok());
        std::vector<double> c64(m * ldc);
        REQUIRE(GemmReduced(f, m, n, k, a64.data(), lda, b64.data(), ldb,
                            c64.data(), ldc)
                    .ok());
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            REQUIRE(bitsOf(c[i * ldc + j]) == bitsOf(want[i * n + j]));
            REQUIRE(c64[i * ldc + j] == static_cast<double>(want[i * n + j]));
          }
        CHECK(c[ldc - 1] == -1.0f); // Padding untouched.
      }
    }
  }
}

TEST_CASE("gemm_reduced.f64_operands_round_once", "[gemm]") {
  // 1 + 2^-11 + 2^-40 rounds to 1 + 2^-10 in f16 directly (to 1 via f32).
  const double a[] = {1.0 + 0x1p-11 + 0x1p-40};
  const double b[] = {1.0};
  double c = 0;
  REQUIRE(mixrt_gemm_reduced_f64(MIXRT_FORMAT_F16, 1, 1, 1, a, 1, b, 1, &c,
                                 1) == MIXRT_STATUS_OK);
  CHECK(c == 1.0 + 0x1p-10);
}

TEST_CASE("gemm_reduced.u16_operands", "[gemm]") {
  std::mt19937 rng(5);
  const int64_t m = 9, n = 18, k = 40;
  const std::vector<float> af = randomValues<float>(m * k, rng);
  const std::vector<float> bf = randomValues<float>(k * n, rng);
  for (Float16Format f : {Float16Format::kF16, Float16Format::kBF16}) {
    std::vector<uint16_t> a(m * k), b(k * n);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = f == Float16Format::kF16 ? F32ToF16(af[i]) : F32ToBF16(af[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = f == Float16Format::kF16 ? F32ToF16(bf[i]) : F32ToBF16(bf[i]);
    const std::vector<float> want = reference(f, m, n, k, af, k, bf, n);
    for (SimdLevel level : availableSimdLevels()) {
      SimdLevelScope scope(level);
      std::vector<float> c(m * n);
      REQUIRE(mixrt_gemm_reduced_u16_f32(static_cast<mixrt_float16_format>(f),
                                         m, n, k, a.data(), k, b.data(), n,
                                         c.data(), n) == MIXRT_STATUS_OK);
      for (size_t i = 0; i < c.size(); ++i)
        REQUIRE(bitsOf(c[i]) == bitsOf(want[i]));
    }
  }
}

TEST_CASE("gemm_reduced.accumulation_order_is_k_ascending", "[gemm]") {
  // a = [2^24, 1 x 298, -2^24], b = ones: in ascending order every +1 is
  // absorbed by 2^24 (ties to even), so the result is exactly 0 (any other
  // order, e.g. the ones first, gives up to 298). K spans two k blocks.
  const int64_t k = 300, n = 20;
  std::vector<float> a(k, 1.0f), b(k * n, 1.0f);
  a[0] = 0x1p24f;
  a[k - 1] = -0x1p24f;
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    std::vector<float> c(n, -1.0f);
    REQUIRE(mixrt_gemm_reduced_f32(MIXRT_FORMAT_BF16, 1, n, k, a.data(), k,
                                   b.data(), n, c.data(),
                                   n) == MIXRT_STATUS_OK);
    for (float v : c)
      CHECK(v == 0.0f);
  }
}

TEST_CASE("gemm_reduced.non_finite_results_are_errors", "[gemm]") {
  float c[2];
  // 1e5 overflows f16 to inf.
  const float big[] = {1e5f, 1.0f}, one[] = {1.0f, 1.0f};
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 1, 1, 2, big, 2, one, 1, c,
                               1) == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("C[0][0]"));
  // Fine in bf16.
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_BF16, 1, 1, 2, big, 2, one, 1, c,
                               1) == MIXRT_STATUS_OK);
  // f32 accumulator overflow in bf16.
  const float huge[] = {3e38f, 3e38f};
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_BF16, 1, 1, 2, huge, 2, one, 1, c,
                               1) == MIXRT_STATUS_OUT_OF_RANGE);
  // NaN operand, second column.
  const float nanB[] = {1.0f, NAN};
  const float a1[] = {1.0f};
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 1, 2, 1, a1, 1, nanB, 2, c,
                               2) == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("C[0][1]"));
}

TEST_CASE("gemm_reduced.bad_arguments", "[gemm]") {
  float a[4] = {}, b[4] = {}, c[4];
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 2, 2, -2, a, 2, b, 2, c, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 2, 2, 2, a, 1, b, 2, c, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 2, 2, 2, a, 2, nullptr, 2, c,
                               2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_gemm_reduced_f32(static_cast<mixrt_float16_format>(9), 2, 2, 2, a,
                               2, b, 2, c, 2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "gemm_reduced_f32: format (9) is not a valid mixrt_float16_format");
  CHECK(mixrt_gemm_reduced_f32(MIXRT_FORMAT_F16, 2, 2, 0, a, 1, b, 2, c, 2) ==
        MIXRT_STATUS_OK);
  CHECK(c[3] == 0.0f);
}
