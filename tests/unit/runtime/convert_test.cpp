//===-- convert_test.cpp - Conversion tests (non-exhaustive part) ---------===//
//
// All 2^16 widening inputs, f64 -> f16/bf16 double-rounding cases and random
// f64 against an exact reference, special values, NaN payloads, bulk vs
// scalar on every SIMD path, checked conversions and bad arguments.
//
//===----------------------------------------------------------------------===//

#include "f16c_reference.h"
#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

using namespace mixrt;
using namespace mixrt::test;

namespace {

/// All positive finite values of a 16-bit format as doubles, indexed by
/// their bit pattern (0 .. inf - 1), built from the f32 widening which the
/// 2^16 tests below check exhaustively.
std::vector<double> positiveValues(bool bf16) {
  const uint32_t inf = bf16 ? 0x7f80 : 0x7c00;
  std::vector<double> values(inf);
  for (uint32_t h = 0; h < inf; ++h)
    values[h] = bf16 ? mixrt_bf16_to_f32(static_cast<uint16_t>(h))
                     : mixrt_f16_to_f32(static_cast<uint16_t>(h));
  return values;
}

/// Exact f64 -> f16/bf16 reference independent of the bit-level core: scale
/// |x| by the target ulp of its binade (exact), round to an integer with
/// nearbyint (RNE), scale back and look the value up in the sorted table.
uint16_t referenceNarrow(double x, bool bf16) {
  static const std::vector<double> f16Values = positiveValues(false);
  static const std::vector<double> bf16Values = positiveValues(true);
  const std::vector<double> &values = bf16 ? bf16Values : f16Values;
  const int mantBits = bf16 ? 7 : 10;
  const int minExp = bf16 ? -126 : -14;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
  const double a = std::fabs(x);
  if (a == 0.0)
    return sign;
  // Largest finite + half an ulp: ties go to the even neighbour, inf.
  const double maxFinite = values.back();
  const double halfUlpAboveMax =
      std::ldexp(1.0, (bf16 ? 127 : 15) - mantBits - 1);
  if (a >= maxFinite + halfUlpAboveMax)
    return sign | inf;
  const int e = std::max(std::ilogb(a), minExp);
  const double ulp = std::ldexp(1.0, e - mantBits);
  const double rounded = std::nearbyint(a / ulp) * ulp;
  const auto it = std::lower_bound(values.begin(), values.end(), rounded);
  if (it == values.end())
    return sign | inf;
  REQUIRE(*it == rounded);
  return sign | static_cast<uint16_t>(it - values.begin());
}

} // namespace

TEST_CASE("convert.f16_to_f32.all_inputs_vs_f16c", "[convert]") {
  if (!f16cAvailable()) {
    WARN("SKIPPED: this CPU lacks F16C, the reference is unavailable");
    return;
  }
  std::vector<uint16_t> in(1 << 16);
  for (uint32_t h = 0; h < in.size(); ++h)
    in[h] = static_cast<uint16_t>(h);
  std::vector<float> want(in.size());
  f16cF16ToF32(in.data(), in.size(), want.data());
  for (uint32_t h = 0; h < in.size(); ++h) {
    INFO("f16 0x" << std::hex << h);
    REQUIRE(bitsOf(mixrt_f16_to_f32(in[h])) == bitsOf(want[h]));
  }
  for (SimdLevel level : availableSimdLevels()) {
    INFO("simd level " << simdLevelName(level));
    SimdLevelScope scope(level);
    std::vector<float> got(in.size());
    REQUIRE(mixrt_f16_to_f32_array(in.data(), in.size(), got.data()) ==
            MIXRT_STATUS_OK);
    REQUIRE(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
  }
}

TEST_CASE("convert.bf16_to_f32.all_inputs", "[convert]") {
  std::vector<uint16_t> in(1 << 16);
  std::vector<float> want(in.size());
  for (uint32_t h = 0; h < in.size(); ++h) {
    in[h] = static_cast<uint16_t>(h);
    uint32_t b = h << 16;
    if ((b & 0x7fffffffu) > 0x7f800000u)
      b |= 0x00400000u; // NaN: quiet bit set, payload and sign kept.
    want[h] = f32FromBits(b);
    INFO("bf16 0x" << std::hex << h);
    REQUIRE(bitsOf(mixrt_bf16_to_f32(in[h])) == b);
  }
  for (SimdLevel level : availableSimdLevels()) {
    INFO("simd level " << simdLevelName(level));
    SimdLevelScope scope(level);
    std::vector<float> got(in.size());
    REQUIRE(mixrt_bf16_to_f32_array(in.data(), in.size(), got.data()) ==
            MIXRT_STATUS_OK);
    REQUIRE(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
  }
}

TEST_CASE("convert.widen_to_f64.all_inputs", "[convert]") {
  for (uint32_t h = 0; h < (1u << 16); ++h) {
    INFO("bits 0x" << std::hex << h);
    const uint16_t v = static_cast<uint16_t>(h);
    const double f16 = mixrt_f16_to_f64(v), bf16 = mixrt_bf16_to_f64(v);
    if (std::isnan(f16)) {
      // Quiet, sign kept, 10 payload bits moved to the top of 52.
      const uint64_t want = (uint64_t{h & 0x8000u} << 48) |
                            0x7ff8000000000000ull |
                            (uint64_t{h & 0x3ffu} << 42);
      REQUIRE(bitsOf(f16) == want);
    } else {
      REQUIRE(bitsOf(f16) == bitsOf(static_cast<double>(mixrt_f16_to_f32(v))));
    }
    if (std::isnan(bf16)) {
      const uint64_t want = (uint64_t{h & 0x8000u} << 48) |
                            0x7ff8000000000000ull | (uint64_t{h & 0x7fu} << 45);
      REQUIRE(bitsOf(bf16) == want);
    } else {
      REQUIRE(bitsOf(bf16) ==
              bitsOf(static_cast<double>(mixrt_bf16_to_f32(v))));
    }
  }
}

TEST_CASE("convert.special_values", "[convert]") {
  // f16 boundaries.
  CHECK(mixrt_f32_to_f16(65504.0f) == 0x7bff);
  CHECK(mixrt_f32_to_f16(65519.99f) == 0x7bff);
  CHECK(mixrt_f32_to_f16(65520.0f) == 0x7c00); // Tie at max + ulp/2 -> inf.
  CHECK(mixrt_f32_to_f16(-1e30f) == 0xfc00);
  CHECK(mixrt_f32_to_f16(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(mixrt_f32_to_f16(0x1p-24f) == 0x0001);   // Smallest subnormal.
  CHECK(mixrt_f32_to_f16(0x1p-25f) == 0x0000);   // Tie -> even (0).
  CHECK(mixrt_f32_to_f16(0x1.8p-24f) == 0x0002); // Tie -> even (2).
  CHECK(mixrt_f32_to_f16(0x1.0000p-25f + 0x1p-40f) == 0x0001);
  CHECK(mixrt_f32_to_f16(0x1.ff8p-15f) == 0x03ff); // Largest subnormal.
  CHECK(mixrt_f32_to_f16(0x1.ffcp-15f) == 0x0400); // Tie -> min normal.
  CHECK(mixrt_f32_to_f16(-0.0f) == 0x8000);
  CHECK(mixrt_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00); // Tie -> even.
  CHECK(mixrt_f32_to_f16(1.0f + 0x3p-11f) == 0x3c02); // Tie -> even.
  // bf16 boundaries.
  CHECK(mixrt_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
  CHECK(mixrt_f32_to_bf16(1.0f + 0x3p-8f) == 0x3f82);
  CHECK(mixrt_f32_to_bf16(std::numeric_limits<float>::max()) == 0x7f80);
  CHECK(mixrt_f32_to_bf16(f32FromBits(0x7f7f7fff)) == 0x7f7f);
  CHECK(mixrt_f32_to_bf16(f32FromBits(0x00000001)) == 0x0000);
  CHECK(mixrt_f32_to_bf16(f32FromBits(0x00008000)) == 0x0000); // Tie -> even.
  CHECK(mixrt_f32_to_bf16(f32FromBits(0x00018000)) == 0x0002);
  // f64 extremes.
  CHECK(mixrt_f64_to_f16(1e300) == 0x7c00);
  CHECK(mixrt_f64_to_f16(-1e-300) == 0x8000);
  CHECK(mixrt_f64_to_bf16(1e300) == 0x7f80);
  CHECK(mixrt_f64_to_bf16(std::numeric_limits<double>::denorm_min()) == 0);
  CHECK(mixrt_f64_to_bf16(0x1p-133) == 0x0001); // bf16 smallest subnormal.
}

TEST_CASE("convert.nan_payload_rule", "[convert]") {
  // Quiet NaN, sign kept, top payload bits kept, quiet bit set.
  CHECK(mixrt_f32_to_f16(f32FromBits(0x7f812345)) == 0x7e09);
  CHECK(mixrt_f32_to_f16(f32FromBits(0xff812345)) == 0xfe09);
  CHECK(mixrt_f32_to_f16(f32FromBits(0x7f800001)) == 0x7e00);
  CHECK(mixrt_f32_to_f16(f32FromBits(0x7fffffff)) == 0x7fff);
  CHECK(mixrt_f32_to_bf16(f32FromBits(0x7f812345)) == 0x7fc1);
  CHECK(mixrt_f32_to_bf16(f32FromBits(0xff800001)) == 0xffc0);
  CHECK(mixrt_f64_to_f16(f64FromBits(0x7ff0000000000001ull)) == 0x7e00);
  CHECK(mixrt_f64_to_f16(f64FromBits(0xfff4000000000000ull)) == 0xff00);
  CHECK(mixrt_f64_to_bf16(f64FromBits(0x7ff0200000000000ull)) == 0x7fc1);
  CHECK(bitsOf(mixrt_f16_to_f32(0x7c01)) == 0x7fc02000u);
  CHECK(bitsOf(mixrt_f16_to_f32(0xfd01)) == 0xffe02000u);
  CHECK(bitsOf(mixrt_bf16_to_f32(0xff81)) == 0xffc10000u);
}

TEST_CASE("convert.f64_one_rounding", "[convert]") {
  struct Case {
    double x;
    uint16_t want;
    bool bf16;
  };
  // Each value rounds differently directly and via f32 (which first lands
  // on a tie or beyond the overflow threshold).
  const Case cases[] = {
      {1.0 + 0x1p-11 + 0x1p-40, 0x3c01, false},    // via f32: tie -> 0x3c00
      {1.0 + 0x3p-11 - 0x1p-40, 0x3c01, false},    // via f32: tie -> 0x3c02
      {-(1.0 + 0x1p-11 + 0x1p-40), 0xbc01, false}, // negative
      {65519.99999999, 0x7bff, false},             // via f32: 65520 -> inf
      {0x1p-25 + 0x1p-60, 0x0001, false},          // subnormal: via f32 -> 0
      {0x3p-25 - 0x1p-60, 0x0001, false},          // via f32: tie -> 0x0002
      {1.0 + 0x1p-8 + 0x1p-40, 0x3f81, true},      // via f32: tie -> 0x3f80
      {1.0 + 0x3p-8 - 0x1p-40, 0x3f81, true},      // via f32: tie -> 0x3f82
      {0x1p-134 + 0x1p-170, 0x0001, true},         // bf16 subnormal
  };
  for (const Case &c : cases) {
    INFO("x = " << c.x << " bf16 " << c.bf16);
    const uint16_t direct =
        c.bf16 ? mixrt_f64_to_bf16(c.x) : mixrt_f64_to_f16(c.x);
    const uint16_t viaF32 = c.bf16 ? mixrt_f32_to_bf16(static_cast<float>(c.x))
                                   : mixrt_f32_to_f16(static_cast<float>(c.x));
    CHECK(direct == c.want);
    CHECK(viaF32 != c.want); // The case really distinguishes the two.
    CHECK(referenceNarrow(c.x, c.bf16) == c.want);
    uint16_t bulk = 0;
    REQUIRE((c.bf16
                 ? mixrt_f64_to_bf16_array(&c.x, 1, &bulk)
                 : mixrt_f64_to_f16_array(&c.x, 1, &bulk)) == MIXRT_STATUS_OK);
    CHECK(bulk == c.want);
  }
}

TEST_CASE("convert.f64_random_vs_exact_reference", "[convert]") {
  std::mt19937_64 rng(12345);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i) {
    // Random mantissa bits, exponents around both formats' ranges.
    const uint64_t mant = rng() & ((uint64_t{1} << 52) - 1);
    const int exp = static_cast<int>(rng() % 320) - 160;
    const double x =
        std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -52), exp) *
        ((rng() & 1) ? -1.0 : 1.0);
    xs.push_back(x);
  }
  // Values near f16 ties: midpoint +- a few f64 ulps.
  for (int i = 0; i < 20000; ++i) {
    const uint16_t h = static_cast<uint16_t>(rng() % 0x7bff);
    const double lo = mixrt_f16_to_f64(h), hi = mixrt_f16_to_f64(h + 1);
    const double mid = lo + (hi - lo) / 2;
    xs.push_back(mid);
    xs.push_back(std::nextafter(mid, 0.0));
    xs.push_back(std::nextafter(mid, 1e9));
  }
  std::vector<uint16_t> f16(xs.size()), bf16(xs.size());
  REQUIRE(mixrt_f64_to_f16_array(xs.data(), xs.size(), f16.data()) ==
          MIXRT_STATUS_OK);
  REQUIRE(mixrt_f64_to_bf16_array(xs.data(), xs.size(), bf16.data()) ==
          MIXRT_STATUS_OK);
  for (size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs[i] << " (bits 0x" << std::hex << bitsOf(xs[i]) << ")");
    REQUIRE(f16[i] == referenceNarrow(xs[i], false));
    REQUIRE(bf16[i] == referenceNarrow(xs[i], true));
    REQUIRE(mixrt_f64_to_f16(xs[i]) == f16[i]);
    REQUIRE(mixrt_f64_to_bf16(xs[i]) == bf16[i]);
  }
}

TEST_CASE("convert.bulk_matches_scalar_on_every_path", "[convert]") {
  std::mt19937 rng(7);
  std::vector<float> src;
  const float specials[] = {0.0f,
                            -0.0f,
                            65520.0f,
                            -65504.0f,
                            0x1p-25f,
                            std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            f32FromBits(0xff812345),
                            f32FromBits(0x7f7fffff)};
  for (int i = 0; i < 1000; ++i)
    src.push_back(i < 9 ? specials[i] : f32FromBits(rng()));
  for (SimdLevel level : availableSimdLevels()) {
    SimdLevelScope scope(level);
    // Lengths around the vector widths exercise the scalar tails.
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 33, 1000}) {
      INFO("simd level " << simdLevelName(level) << " n " << n);
      std::vector<uint16_t> h(n), b(n);
      std::vector<float> back(n);
      REQUIRE(mixrt_f32_to_f16_array(src.data(), n, h.data()) ==
              MIXRT_STATUS_OK);
      REQUIRE(mixrt_f32_to_bf16_array(src.data(), n, b.data()) ==
              MIXRT_STATUS_OK);
      for (size_t i = 0; i < n; ++i) {
        REQUIRE(h[i] == mixrt_f32_to_f16(src[i]));
        REQUIRE(b[i] == mixrt_f32_to_bf16(src[i]));
      }
      REQUIRE(mixrt_f16_to_f32_array(h.data(), n, back.data()) ==
              MIXRT_STATUS_OK);
      for (size_t i = 0; i < n; ++i)
        REQUIRE(bitsOf(back[i]) == bitsOf(mixrt_f16_to_f32(h[i])));
      REQUIRE(mixrt_bf16_to_f32_array(b.data(), n, back.data()) ==
              MIXRT_STATUS_OK);
      for (size_t i = 0; i < n; ++i)
        REQUIRE(bitsOf(back[i]) == bitsOf(mixrt_bf16_to_f32(b[i])));
    }
  }
}

TEST_CASE("convert.checked_reports_first_offender", "[convert]") {
  std::vector<uint16_t> out(4);
  const float ok[] = {1.0f, -2.5f, 65504.0f, 0x1p-30f};
  CHECK(mixrt_f32_to_f16_array_checked(ok, 4, out.data()) == MIXRT_STATUS_OK);
  CHECK(out[2] == 0x7bff);

  const float overflow[] = {1.0f, 2.0f, 70000.0f, NAN};
  CHECK(mixrt_f32_to_f16_array_checked(overflow, 4, out.data()) ==
        MIXRT_STATUS_OUT_OF_RANGE);
  CHECK_THAT(mixrt_last_error_message(),
             Catch::Contains("element 2") && Catch::Contains("overflows f16"));
  CHECK(out[3] == 0x7e00); // The output is still fully written.

  const float nan[] = {1.0f, NAN, 70000.0f};
  CHECK(mixrt_f32_to_f16_array_checked(nan, 3, out.data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(),
             Catch::Contains("element 1") && Catch::Contains("not finite"));

  const double inf[] = {0.0, -INFINITY};
  CHECK(mixrt_f64_to_bf16_array_checked(inf, 2, out.data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("element 1"));

  const double big[] = {3.5e38, 1.0};
  CHECK(mixrt_f64_to_bf16_array_checked(big, 2, out.data()) ==
        MIXRT_STATUS_OUT_OF_RANGE);
  const double fits[] = {65519.9, -65519.9};
  CHECK(mixrt_f64_to_f16_array_checked(fits, 2, out.data()) == MIXRT_STATUS_OK);
  const float bfBig[] = {std::numeric_limits<float>::max()};
  CHECK(mixrt_f32_to_bf16_array_checked(bfBig, 1, out.data()) ==
        MIXRT_STATUS_OUT_OF_RANGE);

  // The C++ API reports the same.
  const std::vector<float> v = {1.0f, 1e6f};
  std::vector<uint16_t> o(2);
  const absl::Status s = F32ToF16Checked(v, absl::MakeSpan(o));
  CHECK(s.code() == absl::StatusCode::kOutOfRange);
  CHECK_THAT(std::string(s.message()), Catch::Contains("element 1"));
}

TEST_CASE("convert.bad_arguments", "[convert]") {
  uint16_t out[2];
  float f[2] = {0, 0};
  CHECK(mixrt_f32_to_f16_array(nullptr, 2, out) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("src is null"));
  CHECK(mixrt_f32_to_f16_array(f, 2, nullptr) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("dst is null"));
  CHECK(mixrt_f32_to_bf16_array(f, -1, out) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(mixrt_last_error_message(), Catch::Contains("negative"));
  CHECK(mixrt_f16_to_f32_array(nullptr, 0, nullptr) == MIXRT_STATUS_OK);
  std::vector<uint16_t> small(1);
  CHECK(F32ToF16(std::vector<float>{1, 2}, absl::MakeSpan(small)).code() ==
        absl::StatusCode::kInvalidArgument);
}
