//===-- ukernel_dequantized_test.cpp - int8 weights in the float GEMM -----===//
//
// mixrt_ukernel_gemm_f32 with a B packed by mixrt_ukernel_pack_b_dequantized
// (weight-only int8): on every path this CPU has, bit for bit against
//  - the contract written plainly: w = scale[n] * (float)(int32_t)((uint32_t)q
//    - (uint32_t)zp[n]) (one rounding, mix.dequantize's extsi/subi/sitofp/
//    mulf), then the fmaf chain over ascending k, + bias, relu, canonical
//    NaN;
//  - the same GEMM on those dequantized weights packed as f32 (so the int8
//    form computes exactly what the f32 form of the weight would);
//  - mixrt_dequantize_f32 of mixrt's own quantizer, for the weights mixc
//    stores (per-channel symmetric and asymmetric).
// Shapes cross the tiles (12 / 4 rows with int8 weights, 14 / 6 with f32),
// k blocks (256) and blocks of B; zero points absent, all 0 (the kernels'
// symmetric form), in [-128, 127], and at the int32 extremes (the difference
// wraps and rounds before the product, as in the loops).
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mixrt::test;

namespace {

/// The dequantized weight of the contract.
float dequantized(int8_t q, float scale, int32_t zp) {
  const int32_t d = static_cast<int32_t>(static_cast<uint32_t>(q) -
                                         static_cast<uint32_t>(zp));
  return scale * static_cast<float>(d);
}

struct Weight {
  int64_t k = 0, n = 0, ldb = 0;
  std::vector<int8_t> q;
  std::vector<float> scales;
  std::vector<int32_t> zps; // empty: NULL
  std::vector<float> f32() const {
    std::vector<float> w(q.size());
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        w[kk * ldb + j] =
            dequantized(q[kk * ldb + j], scales[j], zps.empty() ? 0 : zps[j]);
    return w;
  }
  std::vector<unsigned char> packed() const {
    const int64_t size =
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, k, n);
    REQUIRE(size >= MIXRT_UKERNEL_HEADER_BYTES);
    std::vector<unsigned char> out(static_cast<size_t>(size), 0xcd);
    REQUIRE(mixrt_ukernel_pack_b_dequantized(k, n, q.data(), ldb, scales.data(),
                                             zps.empty() ? nullptr : zps.data(),
                                             out.data()) == MIXRT_STATUS_OK);
    return out;
  }
};

enum class Zps { None, AllZero, Int8, Extreme };

Weight randomWeight(std::mt19937 &rng, int64_t k, int64_t n, int64_t ldb,
                    Zps zps, double specialScales) {
  Weight w;
  w.k = k;
  w.n = n;
  w.ldb = ldb;
  w.q.resize(static_cast<size_t>(k * ldb));
  for (int8_t &v : w.q)
    v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  std::uniform_real_distribution<float> scale(1e-4f, 0.05f);
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t j = 0; j < n; ++j) {
    float s = scale(rng);
    if (u(rng) < specialScales) {
      // Scales mixc never makes, computed as they are.
      const float specials[] = {-0.5f,
                                0.0f,
                                f32FromBits(0x00000003u),
                                3.0e38f,
                                std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN()};
      s = specials[rng() % 6];
    }
    w.scales.push_back(s);
    switch (zps) {
    case Zps::None:
      break;
    case Zps::AllZero:
      w.zps.push_back(0);
      break;
    case Zps::Int8:
      w.zps.push_back(static_cast<int32_t>(rng() % 256) - 128);
      break;
    case Zps::Extreme: {
      const int32_t ext[] = {std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max(), 16777217,
                             -16777219, 77};
      w.zps.push_back(ext[rng() % 5]);
      break;
    }
    }
  }
  return w;
}

std::vector<float> reference(int64_t m, int64_t n, int64_t k,
                             const std::vector<float> &a, int64_t lda,
                             const std::vector<float> &wf, int64_t ldb,
                             int64_t ldc, const float *bias, bool relu) {
  std::vector<float> c(static_cast<size_t>((m - 1) * ldc + n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t kk = 0; kk < k; ++kk)
        acc = std::fma(a[i * lda + kk], wf[kk * ldb + j], acc);
      if (bias)
        acc = acc + bias[j];
      c[i * ldc + j] = reluCanon(acc, relu);
    }
  return c;
}

/// One GEMM with int8 weights on every path, against the reference and
/// against the f32-packed dequantized weights.
void check(std::mt19937 &rng, int64_t m, int64_t n, int64_t k, Zps zps,
           bool padded, bool useBias, bool relu, double specials) {
  const int64_t lda = k + (padded ? 3 : 0), ldb = n + (padded ? 5 : 0),
                ldc = n + (padded ? 2 : 0);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(m * lda));
  for (float &x : a)
    x = normal(rng);
  if (specials > 0 && !a.empty()) {
    a[rng() % a.size()] = std::numeric_limits<float>::infinity();
    a[rng() % a.size()] = -0.0f;
  }
  std::vector<float> bias(static_cast<size_t>(n));
  for (float &x : bias)
    x = normal(rng);
  const Weight w = randomWeight(rng, k, n, ldb, zps, specials);
  const std::vector<float> wf = w.f32();
  const auto packed = w.packed();
  std::vector<unsigned char> packedF(
      static_cast<size_t>(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, k, n)));
  REQUIRE(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, k, n, wf.data(), ldb,
                               packedF.data()) == MIXRT_STATUS_OK);
  const float *biasPtr = useBias ? bias.data() : nullptr;
  const uint32_t flags = relu ? MIXRT_UKERNEL_RELU : 0;
  const auto want = reference(m, n, k, a, lda, wf, ldb, ldc, biasPtr, relu);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    const std::string what =
        std::string(mixrt_ukernel_isa_name(isa)) + " M=" + std::to_string(m) +
        " N=" + std::to_string(n) + " K=" + std::to_string(k) +
        " zps=" + std::to_string(static_cast<int>(zps));
    std::vector<float> c(static_cast<size_t>((m - 1) * ldc + n),
                         f32FromBits(kSentinel));
    REQUIRE(mixrt_ukernel_gemm_f32(m, n, k, a.data(), lda, packed.data(),
                                   c.data(), ldc, biasPtr,
                                   flags) == MIXRT_STATUS_OK);
    requireSame(c, want, m, n, ldc, what);
    std::vector<float> cf(c.size(), f32FromBits(kSentinel));
    REQUIRE(mixrt_ukernel_gemm_f32(m, n, k, a.data(), lda, packedF.data(),
                                   cf.data(), ldc, biasPtr,
                                   flags) == MIXRT_STATUS_OK);
    requireSame(c, cf, m, n, ldc, what + " (f32-packed)");
  }
}

} // namespace

TEST_CASE("ukernel.dequantized: int8 weights on every path, all shapes",
          "[ukernel][dequantized]") {
  std::mt19937 rng(41);
  // M across the small tiles (<= 4), the int8 tiles (12 rows on AVX-512, 4
  // on AVX2) and their tails; N across panels, K across the k blocks.
  const int64_t ms[] = {1, 2, 3, 4, 5, 12, 13, 25};
  const int64_t ns[] = {1, 16, 17, 33, 64, 100};
  const int64_t ks[] = {1, 3, 17, 256, 300};
  int run = 0;
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks) {
        ++run;
        const Zps z = static_cast<Zps>(run % 4);
        check(rng, m, n, k, z, run % 3 == 0, run % 2 == 0, run % 5 < 2, 0.0);
      }
}

TEST_CASE("ukernel.dequantized: special scales and inputs, extreme zero "
          "points",
          "[ukernel][dequantized]") {
  std::mt19937 rng(42);
  for (int64_t m : {1, 4, 14})
    for (int64_t n : {17, 48})
      for (int64_t k : {7, 260})
        for (Zps z : {Zps::None, Zps::Int8, Zps::Extreme})
          check(rng, m, n, k, z, false, true, false, 0.3);
}

TEST_CASE("ukernel.dequantized: across blocks of B and with threads",
          "[ukernel][dequantized]") {
  std::mt19937 rng(43);
  // N over a block of B (512 columns on AVX-512, 256 on AVX2) and a
  // partial panel; the threads split M >= 32 by rows, smaller M by panels
  // (the scales and zero points move with the panels).
  struct Shape {
    int64_t m, n, k;
  };
  for (Shape s : {Shape{3, 1040, 520}, Shape{40, 530, 300}}) {
    check(rng, s.m, s.n, s.k, Zps::Int8, false, true, true, 0.0);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> a(static_cast<size_t>(s.m * s.k));
    for (float &x : a)
      x = normal(rng);
    const Weight w = randomWeight(rng, s.k, s.n, s.n, Zps::Int8, 0.0);
    const auto packed = w.packed();
    const auto want =
        reference(s.m, s.n, s.k, a, s.k, w.f32(), s.n, s.n, nullptr, false);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      for (int32_t threads : {2, 3}) {
        INFO(mixrt_ukernel_isa_name(isa) << ", " << threads << " threads");
        const std::vector<float> c = runOnThreads(
            threads, want.size(), f32FromBits(kSentinel), [&](float *out) {
              return mixrt_ukernel_gemm_f32(s.m, s.n, s.k, a.data(), s.k,
                                            packed.data(), out, s.n, nullptr,
                                            0);
            });
        requireSame(c, want, s.m, s.n, s.n, "threads");
      }
    }
  }
}

TEST_CASE("ukernel.dequantized: mixrt's quantized weights, as "
          "mixrt_dequantize_f32 gives them",
          "[ukernel][dequantized]") {
  // The weights mixc stores: mixrt's quantizer per output channel (axis 1
  // of a K x N weight), symmetric and asymmetric; the GEMM computes with
  // exactly the weights mixrt_dequantize_f32 returns.
  std::mt19937 rng(44);
  const int64_t k = 70, n = 37, m = 5;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> wIn(static_cast<size_t>(k * n)),
      a(static_cast<size_t>(m * k));
  for (float &x : wIn)
    x = normal(rng);
  for (float &x : a)
    x = normal(rng);
  const int64_t shape[] = {k, n};
  for (mixrt_qscheme scheme :
       {MIXRT_QSCHEME_SYMMETRIC, MIXRT_QSCHEME_ASYMMETRIC}) {
    mixrt_qtensor *qt = nullptr;
    REQUIRE(mixrt_quantize_f32(wIn.data(), shape, 2, scheme, 1, &qt) ==
            MIXRT_STATUS_OK);
    std::vector<float> deq(wIn.size());
    REQUIRE(mixrt_dequantize_f32(qt, deq.data(),
                                 static_cast<int64_t>(deq.size())) ==
            MIXRT_STATUS_OK);
    REQUIRE(mixrt_qtensor_num_scales(qt) == n);
    std::vector<unsigned char> packed(static_cast<size_t>(
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, k, n)));
    REQUIRE(mixrt_ukernel_pack_b_dequantized(k, n, mixrt_qtensor_data(qt), n,
                                             mixrt_qtensor_scales(qt),
                                             mixrt_qtensor_zero_points(qt),
                                             packed.data()) == MIXRT_STATUS_OK);
    const auto want = reference(m, n, k, a, k, deq, n, n, nullptr, false);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      std::vector<float> c(want.size(), f32FromBits(kSentinel));
      REQUIRE(mixrt_ukernel_gemm_f32(m, n, k, a.data(), k, packed.data(),
                                     c.data(), n, nullptr,
                                     0) == MIXRT_STATUS_OK);
      requireSame(c, want, m, n, n, mixrt_ukernel_isa_name(isa));
    }
    mixrt_qtensor_destroy(qt);
  }
}

TEST_CASE("ukernel.dequantized: sizes, layout and argument checks",
          "[ukernel][dequantized]") {
  // 2 panels of 5 x 16 bytes, then 32 scales and 32 zero points.
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, 5, 17) ==
        MIXRT_UKERNEL_HEADER_BYTES + 2 * 5 * 16 + 32 * 4 + 32 * 4);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, 0, 0) ==
        MIXRT_UKERNEL_HEADER_BYTES);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, -1, 4) == -1);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED,
                                  int64_t(1) << 62, 17) == -1);

  const int8_t q[] = {1, -2, 3, -128, 127, 0}; // 2 x 3
  const float scales[] = {0.5f, 2.0f, -1.0f};
  const int32_t zps[] = {1, 0, -1};
  std::vector<unsigned char> out(static_cast<size_t>(
      mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, 2, 3)));
  REQUIRE(mixrt_ukernel_pack_b_dequantized(2, 3, q, 3, scales, zps,
                                           out.data()) == MIXRT_STATUS_OK);
  const unsigned char *body = out.data() + MIXRT_UKERNEL_HEADER_BYTES;
  CHECK(static_cast<int8_t>(body[0]) == 1);
  CHECK(static_cast<int8_t>(body[16 + 0]) == -128);
  CHECK(static_cast<int8_t>(body[16 + 2]) == 0);
  CHECK(body[3] == 0); // padded column
  float s[16];
  int32_t z[16];
  std::memcpy(s, body + 32, sizeof s);
  std::memcpy(z, body + 32 + 64, sizeof z);
  CHECK(s[1] == 2.0f);
  CHECK(s[3] == 0.0f);
  CHECK(z[2] == -1);
  CHECK(z[3] == 0);
  // C = A x dequantized B, A = [[1, 1]]: (0.5 * 0 + 0.5 * -129,
  // 2 * -2 + 2 * 127, -1 * 4 + -1 * 1) = (-64.5, 250, -5).
  const float a[] = {1.0f, 1.0f};
  float c[3] = {0, 0, 0};
  REQUIRE(mixrt_ukernel_gemm_f32(1, 3, 2, a, 2, out.data(), c, 3, nullptr, 0) ==
          MIXRT_STATUS_OK);
  CHECK(c[0] == -64.5f);
  CHECK(c[1] == 250.0f);
  CHECK(c[2] == -5.0f);

  // Refused: the generic packer (no scales), NULL scales or B, ldb < N,
  // NULL out, negative sizes; and the int8 GEMMs do not take the buffer.
  std::vector<unsigned char> big(4096);
  CHECK(mixrt_ukernel_pack_b(MIXRT_UKERNEL_S8_DEQUANTIZED, 2, 3, q, 3,
                             big.data()) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(
      mixrt_ukernel_pack_b_dequantized(2, 3, q, 3, nullptr, zps, big.data()) ==
      MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_pack_b_dequantized(2, 3, nullptr, 3, scales, zps,
                                         big.data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_pack_b_dequantized(2, 3, q, 2, scales, zps, big.data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_pack_b_dequantized(2, 3, q, 3, scales, zps, nullptr) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(
      mixrt_ukernel_pack_b_dequantized(-1, 3, q, 3, scales, zps, big.data()) ==
      MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_pack_b_dequantized(0, 0, nullptr, 1, nullptr, nullptr,
                                         big.data()) == MIXRT_STATUS_OK);
  const int8_t a8[] = {1, 1};
  int32_t c32[3];
  CHECK(mixrt_ukernel_gemm_s8s8s32(1, 3, 2, a8, 2, nullptr, out.data(), nullptr,
                                   c32, 3, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  // The header's shape must match.
  CHECK(mixrt_ukernel_gemm_f32(1, 3, 3, a, 3, out.data(), c, 3, nullptr, 0) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
}
