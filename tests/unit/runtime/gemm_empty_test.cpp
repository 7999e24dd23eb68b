//===-- gemm_empty_test.cpp - Empty dimensions of every GEMM --------------===//
//
// The rule of mixrt.h, the same for all seven C GEMM entry points: with M or
// N equal to 0 nothing is read or written (A, B and C may be NULL) and the
// call succeeds; with K equal to 0 A and B may be NULL and C is zeroed;
// otherwise every pointer is required. Leading dimensions are checked in
// every case. (A libFuzzer run found the reduced GEMM forming offsets from a
// NULL C when N = 0, and M = 2^40 with N = 0 looped over every row.)
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

using namespace mixrt;

namespace {

constexpr unsigned char kCanary = 0xA5;

/// The arguments of one call; the entry point casts the pointers.
struct Call {
  int64_t m, n, k, lda, ldb, ldc;
  const void *a;
  const void *b;
  void *c;
};

/// One C GEMM entry point with its element sizes.
struct Entry {
  const char *name;
  size_t aElem;
  size_t cElem;
  std::function<mixrt_status_code(const Call &)> run;
};

const float kOne = 1.0f;

/// A per-tensor operand with scale 1 and zero point 0.
mixrt_gemm_s8_operand operand(const void *data, int64_t ld) {
  return {static_cast<const int8_t *>(data), ld, 0, &kOne, nullptr};
}

template <class Out>
std::function<mixrt_status_code(const Call &)> s8Operands(mixrt_status_code (
    *fn)(int64_t, int64_t, int64_t, const mixrt_gemm_s8_operand *,
         const mixrt_gemm_s8_operand *, Out *, int64_t)) {
  return [fn](const Call &c) {
    const mixrt_gemm_s8_operand a = operand(c.a, c.lda);
    const mixrt_gemm_s8_operand b = operand(c.b, c.ldb);
    return fn(c.m, c.n, c.k, &a, &b, static_cast<Out *>(c.c), c.ldc);
  };
}

template <class T, class Out>
std::function<mixrt_status_code(const Call &)>
reduced(mixrt_status_code (*fn)(mixrt_float16_format, int64_t, int64_t, int64_t,
                                const T *, int64_t, const T *, int64_t, Out *,
                                int64_t)) {
  return [fn](const Call &c) {
    return fn(MIXRT_FORMAT_BF16, c.m, c.n, c.k, static_cast<const T *>(c.a),
              c.lda, static_cast<const T *>(c.b), c.ldb,
              static_cast<Out *>(c.c), c.ldc);
  };
}

std::vector<Entry> entries() {
  return {
      {"gemm_s8s8s32", 1, 4,
       [](const Call &c) {
         return mixrt_gemm_s8s8s32(c.m, c.n, c.k,
                                   static_cast<const int8_t *>(c.a), c.lda,
                                   static_cast<const int8_t *>(c.b), c.ldb,
                                   static_cast<int32_t *>(c.c), c.ldc);
       }},
      {"gemm_s8_s32", 1, 4, s8Operands<int32_t>(mixrt_gemm_s8_s32)},
      {"gemm_s8_f32", 1, 4, s8Operands<float>(mixrt_gemm_s8_f32)},
      {"gemm_s8_f64", 1, 8, s8Operands<double>(mixrt_gemm_s8_f64)},
      {"gemm_reduced_f32", 4, 4, reduced<float, float>(mixrt_gemm_reduced_f32)},
      {"gemm_reduced_f64", 8, 8,
       reduced<double, double>(mixrt_gemm_reduced_f64)},
      {"gemm_reduced_u16_f32", 2, 4,
       reduced<uint16_t, float>(mixrt_gemm_reduced_u16_f32)},
  };
}

/// Sets the last error message to a known value.
void markLastError() {
  REQUIRE(mixrt_f32_to_f16_array(nullptr, 1, nullptr) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
  REQUIRE(std::string(mixrt_last_error_message()) ==
          "f32_to_f16_array: src is null");
}

bool allCanary(const std::vector<unsigned char> &v) {
  for (unsigned char b : v)
    if (b != kCanary)
      return false;
  return true;
}

} // namespace

TEST_CASE("gemm_empty.m_or_n_zero_accepts_null_and_touches_nothing", "[gemm]") {
  // {M, N, K, lda, ldb, ldc}: every leading dimension valid.
  const int64_t shapes[][6] = {
      {0, 3, 2, 2, 3, 3}, // M = 0
      {2, 0, 2, 2, 1, 1}, // N = 0
      {0, 0, 0, 1, 1, 1}, // all zero
      {0, 3, 0, 1, 3, 3}, // M = K = 0
      {2, 0, 0, 1, 1, 1}, // N = K = 0
      // N = 0 with 2^40 rows: returns at once (no loop over the rows) and
      // needs no workspace.
      {int64_t{1} << 40, 0, 1, 1, 1, 1},
  };
  for (const Entry &e : entries()) {
    for (const auto &s : shapes) {
      INFO(e.name << " M " << s[0] << " N " << s[1] << " K " << s[2]);
      // All three NULL.
      markLastError();
      CHECK(e.run({s[0], s[1], s[2], s[3], s[4], s[5], nullptr, nullptr,
                   nullptr}) == MIXRT_STATUS_OK);
      // Success leaves the message unchanged.
      CHECK(std::string(mixrt_last_error_message()) ==
            "f32_to_f16_array: src is null");
      if (s[0] > 8)
        continue;
      // Real operands and a NULL C; real C: none of them is touched.
      std::vector<unsigned char> a(64, kCanary), b(64, kCanary), c(64, kCanary);
      CHECK(e.run({s[0], s[1], s[2], s[3], s[4], s[5], a.data(), b.data(),
                   nullptr}) == MIXRT_STATUS_OK);
      CHECK(e.run({s[0], s[1], s[2], s[3], s[4], s[5], nullptr, nullptr,
                   c.data()}) == MIXRT_STATUS_OK);
      CHECK(allCanary(a));
      CHECK(allCanary(b));
      CHECK(allCanary(c));
    }
  }
}

TEST_CASE("gemm_empty.k_zero_zeroes_c_without_reading_operands", "[gemm]") {
  const int64_t m = 2, n = 3, ldc = 4;
  for (const Entry &e : entries()) {
    INFO(e.name);
    std::vector<unsigned char> c(m * ldc * e.cElem, kCanary);
    REQUIRE(e.run({m, n, 0, 1, n, ldc, nullptr, nullptr, c.data()}) ==
            MIXRT_STATUS_OK);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < ldc; ++j)
        for (size_t byte = 0; byte < e.cElem; ++byte)
          // Zero (all-zero bytes in every output type) in the M x N result,
          // the padding column untouched.
          CHECK(c[(i * ldc + j) * e.cElem + byte] == (j < n ? 0 : kCanary));
    // C has elements: it is required.
    CHECK(e.run({m, n, 0, 1, n, ldc, nullptr, nullptr, nullptr}) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          std::string(e.name) + ": C is null");
  }
}

TEST_CASE("gemm_empty.non_empty_products_require_every_pointer", "[gemm]") {
  const int64_t m = 2, n = 2, k = 2;
  for (const Entry &e : entries()) {
    INFO(e.name);
    std::vector<unsigned char> a(m * k * e.aElem, 0), b(k * n * e.aElem, 0),
        c(m * n * e.cElem, kCanary);
    const struct {
      bool aNull, bNull, cNull;
      const char *what;
    } cases[] = {{true, false, false, "A is null"},
                 {false, true, false, "B is null"},
                 {false, false, true, "C is null"}};
    for (const auto &nulls : cases) {
      CHECK(e.run({m, n, k, k, n, n, nulls.aNull ? nullptr : a.data(),
                   nulls.bNull ? nullptr : b.data(),
                   nulls.cNull ? nullptr : c.data()}) ==
            MIXRT_STATUS_INVALID_ARGUMENT);
      CHECK(std::string(mixrt_last_error_message()) ==
            std::string(e.name) + ": " + nulls.what);
      CHECK(allCanary(c));
    }
    // All present: zero operands give zeros.
    CHECK(e.run({m, n, k, k, n, n, a.data(), b.data(), c.data()}) ==
          MIXRT_STATUS_OK);
    for (unsigned char byte : c)
      CHECK(byte == 0);
  }
}

TEST_CASE("gemm_empty.leading_dimensions_are_checked_when_empty", "[gemm]") {
  for (const Entry &e : entries()) {
    INFO(e.name);
    // M = 0, N = 3: ldc 2 < N.
    CHECK(e.run({0, 3, 2, 2, 3, 2, nullptr, nullptr, nullptr}) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          std::string(e.name) +
              ": leading dimension of C (2) is smaller than N (3) or 1");
    // N = 0: ldb 0 < 1.
    CHECK(e.run({2, 0, 2, 2, 0, 1, nullptr, nullptr, nullptr}) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          std::string(e.name) +
              ": leading dimension of B (0) is smaller than N (0) or 1");
    // Negative sizes stay errors.
    CHECK(e.run({2, -1, 2, 2, 1, 1, nullptr, nullptr, nullptr}) ==
          MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message()) ==
          std::string(e.name) + ": N (-1) is negative");
  }
}

TEST_CASE("gemm_empty.scales_are_validated_whatever_the_dimensions", "[gemm]") {
  // Per tensor: the one scale is needed even when N = 0; per channel with
  // M = 0 there are no scales and NULL is fine.
  mixrt_gemm_s8_operand a = {nullptr, 1, 0, nullptr, nullptr};
  mixrt_gemm_s8_operand b = {nullptr, 1, 0, &kOne, nullptr};
  CHECK(mixrt_gemm_s8_f32(2, 0, 1, &a, &b, nullptr, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "gemm_s8_f32: A needs 1 scales, got 0");
  a.per_channel = 1;
  CHECK(mixrt_gemm_s8_f32(0, 1, 1, &a, &b, nullptr, 1) == MIXRT_STATUS_OK);
  const float negative = -1.0f;
  b.scales = &negative;
  CHECK(mixrt_gemm_s8_f64(0, 1, 1, &a, &b, nullptr, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "gemm_s8_f64: scale 0 of B (-1) is not positive and finite");
  // The s32 variant ignores scales.
  CHECK(mixrt_gemm_s8_s32(0, 1, 1, &a, &b, nullptr, 1) == MIXRT_STATUS_OK);
  // The operand structs themselves are required.
  CHECK(mixrt_gemm_s8_s32(0, 0, 0, nullptr, &b, nullptr, 1) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) == "gemm_s8_s32: a is null");
}

TEST_CASE("gemm_empty.cxx_api_follows_the_same_rule", "[gemm]") {
  CHECK(GemmReduced(Float16Format::kF16, 3, 0, 4,
                    static_cast<const float *>(nullptr), 4,
                    static_cast<const float *>(nullptr), 1,
                    static_cast<float *>(nullptr), 1)
            .ok());
  CHECK(GemmS8S8S32(0, 5, 4, nullptr, 4, nullptr, 5, nullptr, 5).ok());
  const S8Operand a{nullptr, 4, false, absl::MakeConstSpan(&kOne, 1), {}};
  const S8Operand b{nullptr, 1, false, absl::MakeConstSpan(&kOne, 1), {}};
  CHECK(GemmS8(3, 0, 4, a, b, static_cast<double *>(nullptr), 1).ok());
}
