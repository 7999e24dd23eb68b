//===-- gemm_s8_test.cpp - INT8 GEMM tests --------------------------------===//
//
// Exactness against an int64 reference (random and adversarial operands,
// odd shapes, padded leading dimensions, zero points, scales) on every SIMD
// path, and the int32 overflow boundary.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using namespace mixrt;
using namespace mixrt::test;

namespace {

/// A row-major int8 matrix with a padded leading dimension.
struct Matrix {
  int64_t rows, cols, ld;
  std::vector<int8_t> data;
  Matrix(int64_t r, int64_t c, int64_t pad = 0)
      : rows(r), cols(c), ld(c + pad),
        data(std::max<int64_t>(r * (c + pad), 1), 99) {}
  int8_t &at(int64_t i, int64_t j) { return data[i * ld + j]; }
  int8_t at(int64_t i, int64_t j) const { return data[i * ld + j]; }
};

/// sum_k (a - za[i]) * (b - zb[j]) in int64.
std::vector<int64_t> reference(const Matrix &a, const Matrix &b,
                               const std::vector<int32_t> &za,
                               const std::vector<int32_t> &zb) {
  std::vector<int64_t> c(a.rows * b.cols, 0);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      int64_t sum = 0;
      for (int64_t k = 0; k < a.cols; ++k)
        sum += int64_t{a.at(i, k) - za[za.size() == 1 ? 0 : i]} *
               (b.at(k, j) - zb[zb.size() == 1 ? 0 : j]);
      c[i * b.cols + j] = sum;
    }
  return c;
}

void fillRandom(Matrix &m, std::mt19937 &rng) {
  std::uniform_int_distribution<int> dist(-128, 127);
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j)
      m.at(i, j) = static_cast<int8_t>(dist(rng));
}

void fillConstant(Matrix &m, int8_t v) {
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j)
      m.at(i, j) = v;
}

/// Runs the raw entry point with ldc padding and checks every element
/// against the reference (and that the padding is untouched).
void checkRaw(const Matrix &a, const Matrix &b) {
  const int64_t m = a.rows, n = b.cols, k = a.cols, ldc = n + 3;
  const std::vector<int64_t> want = reference(a, b, {0}, {0});
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    INFO("simd " << simdLevelName(level) << " M " << m << " N " << n << " K "
                 << k);
    std::vector<int32_t> c(std::max<int64_t>(m * ldc, 1), -7);
    REQUIRE(mixrt_gemm_s8s8s32(m, n, k, a.data.data(), a.ld, b.data.data(),
                               b.ld, c.data(), ldc) == MIXRT_STATUS_OK);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j)
        REQUIRE(c[i * ldc + j] == want[i * n + j]);
      for (int64_t j = n;
           j < ldc && i * ldc + j < static_cast<int64_t>(c.size()); ++j)
        REQUIRE(c[i * ldc + j] == -7);
    }
  }
}

} // namespace

TEST_CASE("gemm_s8.random_shapes_match_int64_reference", "[gemm]") {
  std::mt19937 rng(42);
  const int64_t shapes[][3] = {
      {1, 1, 1},     {1, 1, 33},    {7, 13, 33}, {6, 16, 260},   {13, 17, 1},
      {37, 41, 260}, {73, 70, 513}, {5, 3, 2},   {100, 33, 300}, {2, 50, 259}};
  for (const auto &s : shapes) {
    Matrix a(s[0], s[2], 5), b(s[2], s[1], 2);
    fillRandom(a, rng);
    fillRandom(b, rng);
    checkRaw(a, b);
  }
}

TEST_CASE("gemm_s8.adversarial_operands", "[gemm]") {
  for (int64_t k : {1, 33, 260}) {
    for (auto [va, vb] : {std::pair<int8_t, int8_t>{-128, -128},
                          {127, 127},
                          {-128, 127},
                          {127, -128}}) {
      Matrix a(7, k, 1), b(k, 19, 0);
      fillConstant(a, va);
      fillConstant(b, vb);
      checkRaw(a, b);
    }
    // Mixed signs: alternating extremes.
    Matrix a(9, k), b(k, 17, 4);
    for (int64_t i = 0; i < a.rows; ++i)
      for (int64_t j = 0; j < k; ++j)
        a.at(i, j) = (i + j) % 2 ? -128 : 127;
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < b.cols; ++j)
        b.at(i, j) = (i * 3 + j) % 5 < 2 ? -128 : 127;
    checkRaw(a, b);
  }
}

TEST_CASE("gemm_s8.empty_dimensions", "[gemm]") {
  int32_t c[4] = {5, 5, 5, 5};
  const int8_t a[1] = {1}, b[1] = {1};
  CHECK(mixrt_gemm_s8s8s32(2, 2, 0, a, 1, b, 2, c, 2) == MIXRT_STATUS_OK);
  CHECK((c[0] == 0 && c[3] == 0));
  CHECK(mixrt_gemm_s8s8s32(0, 2, 3, nullptr, 3, b, 2, c, 2) == MIXRT_STATUS_OK);
}

TEST_CASE("gemm_s8.int32_overflow_boundary", "[gemm]") {
  // Every product is (-128) * (-128) = 16384.
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    INFO("simd " << simdLevelName(level));
    const std::vector<int8_t> a(131072, -128), b(131072, -128);
    int32_t c = 0;
    REQUIRE(mixrt_gemm_s8s8s32(1, 1, 131071, a.data(), 131071, b.data(), 1, &c,
                               1) == MIXRT_STATUS_OK);
    CHECK(c == 2147467264);
    CHECK(mixrt_gemm_s8s8s32(1, 1, 131072, a.data(), 131072, b.data(), 1, &c,
                             1) == MIXRT_STATUS_OUT_OF_RANGE);
    CHECK_THAT(mixrt_last_error_message(),
               Catch::Contains("2147483648") && Catch::Contains("C[0][0]"));

    // The C++ API: raw and with operands.
    c = 0;
    REQUIRE(
        GemmS8S8S32(1, 1, 131071, a.data(), 131071, b.data(), 1, &c, 1).ok());
    CHECK(c == 2147467264);
    CHECK(GemmS8S8S32(1, 1, 131072, a.data(), 131072, b.data(), 1, &c, 1)
              .code() == absl::StatusCode::kOutOfRange);
    const float one[] = {1.0f};
    const S8Operand ao{a.data(), 131072, false, one, {}};
    const S8Operand bo{b.data(), 1, false, one, {}};
    CHECK(GemmS8(1, 1, 131071, ao, bo, &c, 1).ok());
    CHECK(c == 2147467264);
    CHECK(GemmS8(1, 1, 131072, ao, bo, &c, 1).code() ==
          absl::StatusCode::kOutOfRange);
    float f = 0;
    CHECK(GemmS8(1, 1, 131071, ao, bo, &f, 1).ok());
    CHECK(f == 2147467264.0f);
    CHECK(GemmS8(1, 1, 131072, ao, bo, &f, 1).code() ==
          absl::StatusCode::kOutOfRange);

    // Negative side: -128 * 127 = -16256 per product; 132104 of them sum to
    // -2147482624 (fits), 132105 to -2147498880 (does not).
    const std::vector<int8_t> am(132105, -128), bp(132105, 127);
    REQUIRE(mixrt_gemm_s8s8s32(1, 1, 132104, am.data(), 132104, bp.data(), 1,
                               &c, 1) == MIXRT_STATUS_OK);
    CHECK(c == -2147482624);
    CHECK(mixrt_gemm_s8s8s32(1, 1, 132105, am.data(), 132105, bp.data(), 1, &c,
                             1) == MIXRT_STATUS_OUT_OF_RANGE);
  }
}

TEST_CASE("gemm_s8.overflow_is_judged_on_the_final_sum", "[gemm]") {
  // Partial sums reach 2^31 after the first half, the final sum is
  // 131072 * (16384 - 16256) = 16777216: exact result, no error.
  const int64_t k = 2 * 131072;
  std::vector<int8_t> a(k, -128), b(k, -128);
  std::fill(b.begin() + k / 2, b.end(), 127);
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    int32_t c = 0;
    REQUIRE(mixrt_gemm_s8s8s32(1, 1, k, a.data(), k, b.data(), 1, &c, 1) ==
            MIXRT_STATUS_OK);
    CHECK(c == 16777216);
  }
}

TEST_CASE("gemm_s8.zero_points_and_overflow_with_zero_points", "[gemm]") {
  std::mt19937 rng(3);
  Matrix a(11, 45, 3), b(45, 21, 1);
  fillRandom(a, rng);
  fillRandom(b, rng);
  const std::vector<int32_t> zaRows = [&] {
    std::vector<int32_t> z(11);
    for (int32_t &v : z)
      v = static_cast<int32_t>(rng() % 256) - 128;
    return z;
  }();
  const std::vector<int32_t> zbCols = [&] {
    std::vector<int32_t> z(21);
    for (int32_t &v : z)
      v = static_cast<int32_t>(rng() % 256) - 128;
    return z;
  }();
  std::vector<float> sa(11), sb(21);
  for (size_t i = 0; i < sa.size(); ++i)
    sa[i] = 0.01f * (i + 1);
  for (size_t j = 0; j < sb.size(); ++j)
    sb[j] = 0.003f * (j + 2);
  const std::vector<int64_t> want = reference(a, b, zaRows, zbCols);
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    const S8Operand ao{a.data.data(), a.ld, true, sa, zaRows};
    const S8Operand bo{b.data.data(), b.ld, true, sb, zbCols};
    std::vector<int32_t> c32(11 * 21);
    std::vector<float> c(11 * 21);
    std::vector<double> c64(11 * 21);
    REQUIRE(GemmS8(11, 21, 45, ao, bo, c32.data(), 21).ok());
    REQUIRE(GemmS8(11, 21, 45, ao, bo, c.data(), 21).ok());
    REQUIRE(GemmS8(11, 21, 45, ao, bo, c64.data(), 21).ok());
    for (int64_t i = 0; i < 11; ++i)
      for (int64_t j = 0; j < 21; ++j) {
        const int64_t acc = want[i * 21 + j];
        REQUIRE(c32[i * 21 + j] == acc);
        const double exact = double{sa[i]} * double{sb[j]} * double(acc);
        REQUIRE(c[i * 21 + j] == static_cast<float>(exact));
        REQUIRE(c64[i * 21 + j] == exact);
      }
  }

  // |a - za| = 255 and |b - zb| = 255: 33025 * -65025 fits, 33026 does not.
  const std::vector<int8_t> a127(33026, 127), bm128(33026, -128);
  const int32_t za[] = {-128}, zb[] = {127};
  const S8Operand ao{a127.data(), 33026, false, {}, za};
  const S8Operand bo{bm128.data(), 1, false, {}, zb};
  int32_t c = 0;
  REQUIRE(GemmS8(1, 1, 33025, ao, bo, &c, 1).ok());
  CHECK(c == -2147450625);
  CHECK(GemmS8(1, 1, 33026, ao, bo, &c, 1).code() ==
        absl::StatusCode::kOutOfRange);
}

TEST_CASE("gemm_s8.qtensor_product", "[gemm]") {
  const std::vector<float> x = {1, -2, 3, 4, 0.5f, -1};
  const std::vector<float> w = {1, 0, -1, 2, 0.25f, 1};
  const QTensor a = *Quantize(x, {2, 3}, QScheme::kSymmetric, 0);
  const QTensor b = *Quantize(w, {3, 2}, QScheme::kAsymmetric, 1);
  const absl::StatusOr<std::vector<float>> c = GemmS8(a, b);
  REQUIRE(c.ok());
  // Exactly (float)(sa[i] * sb[j] * acc) with the integer accumulator.
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int64_t acc = 0;
      for (int k = 0; k < 3; ++k)
        acc += int64_t{a.data()[i * 3 + k] - a.zero_points()[i]} *
               (b.data()[k * 2 + j] - b.zero_points()[j]);
      const double want =
          double{a.scales()[i]} * double{b.scales()[j]} * double(acc);
      CHECK((*c)[i * 2 + j] == static_cast<float>(want));
    }
  CHECK(GemmS8(a, a).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("gemm_s8.non_finite_scaled_result", "[gemm]") {
  const int8_t a[] = {1}, b[] = {1};
  const float big[] = {3e38f};
  mixrt_gemm_s8_operand ao = {a, 1, 0, big, nullptr};
  mixrt_gemm_s8_operand bo = {b, 1, 0, big, nullptr};
  float c = 0;
  CHECK(mixrt_gemm_s8_f32(1, 1, 1, &ao, &bo, &c, 1) ==
        MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("not finite"));
  double d = 0;
  CHECK(mixrt_gemm_s8_f64(1, 1, 1, &ao, &bo, &d, 1) == MIXRT_STATUS_OK);
  CHECK(d == double(3e38f) * double(3e38f));
}

TEST_CASE("gemm_s8.bad_arguments", "[gemm]") {
  const int8_t a[6] = {}, b[6] = {};
  int32_t c[6];
  auto raw = [&](int64_t m, int64_t n, int64_t k, const int8_t *pa, int64_t lda,
                 const int8_t *pb, int64_t ldb, int32_t *pc, int64_t ldc) {
    return mixrt_gemm_s8s8s32(m, n, k, pa, lda, pb, ldb, pc, ldc);
  };
  CHECK(raw(-1, 2, 3, a, 3, b, 2, c, 2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("M (-1)"));
  CHECK(raw(2, 2, 3, a, 2, b, 2, c, 2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(),
             Catch::Contains("leading dimension of A (2)"));
  CHECK(raw(2, 2, 3, a, 3, b, 1, c, 2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(raw(2, 2, 3, a, 3, b, 2, c, 1) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(raw(2, 2, 3, nullptr, 3, b, 2, c, 2) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("A is null"));
  CHECK(raw(2, 2, 3, a, 3, b, 2, nullptr, 2) == MIXRT_STATUS_INVALID_ARGUMENT);

  const float one[] = {1.0f}, zero[] = {0.0f};
  const int32_t badZp[] = {300};
  mixrt_gemm_s8_operand ao = {a, 3, 0, one, nullptr};
  mixrt_gemm_s8_operand bo = {b, 2, 0, one, nullptr};
  float f[4];
  CHECK(mixrt_gemm_s8_f32(2, 2, 3, &ao, &bo, f, 2) == MIXRT_STATUS_OK);
  CHECK(mixrt_gemm_s8_f32(2, 2, 3, nullptr, &bo, f, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  bo.per_channel = 2;
  CHECK(mixrt_gemm_s8_f32(2, 2, 3, &ao, &bo, f, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  bo.per_channel = 0;
  bo.scales = zero;
  CHECK(mixrt_gemm_s8_f32(2, 2, 3, &ao, &bo, f, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("scale 0 of B"));
  bo.scales = nullptr;
  CHECK(mixrt_gemm_s8_f32(2, 2, 3, &ao, &bo, f, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_gemm_s8_s32(2, 2, 3, &ao, &bo, c, 2) == MIXRT_STATUS_OK);
  bo.zero_points = badZp;
  CHECK(mixrt_gemm_s8_s32(2, 2, 3, &ao, &bo, c, 2) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("[-128, 127]"));
}
