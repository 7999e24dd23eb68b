//===-- ukernel_test.cpp - GEMM microkernels of the core ------------------===//
//
// Every path this CPU has (forced one by one with mixrt_ukernel_set_isa),
// bit for bit against a plain reference of the contract of mixrt/ukernel.h
// (fmaf chain over ascending k, + bias, relu, canonical NaN; exact int8 with
// zero points and the rescale of mixc's qdense lowering), and against
// mixrt's reference GEMMs where their contracts meet. Shapes: every
// combination of M, N, K in {1, 2, 3, 7, 16, 17, 33, 64, 100, 257}, padded
// leading dimensions, bias and relu on and off; adversarial values (int8
// extremes, f32 denormals, infinities, NaN, -0).
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mixrt::test;

namespace {

const int64_t kSizes[] = {1, 2, 3, 7, 16, 17, 33, 64, 100, 257};

float widen(mixrt_ukernel_type t, const void *b, int64_t i) {
  if (t == MIXRT_UKERNEL_F32)
    return static_cast<const float *>(b)[i];
  const uint16_t h = static_cast<const uint16_t *>(b)[i];
  return t == MIXRT_UKERNEL_F16 ? mixrt_f16_to_f32(h)
                                : f32FromBits(static_cast<uint32_t>(h) << 16);
}

/// The float contract, as plainly as possible.
std::vector<float> referenceF32(mixrt_ukernel_type t, int64_t m, int64_t n,
                                int64_t k, const std::vector<float> &a,
                                int64_t lda, const void *b, int64_t ldb,
                                int64_t ldc, const float *bias, bool relu,
                                const std::vector<float> *init = nullptr) {
  std::vector<float> c(static_cast<size_t>((m - 1) * ldc + n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      // MIXRT_UKERNEL_ACCUMULATE: the chain starts from C's value.
      float acc = init ? (*init)[i * ldc + j] : 0.0f;
      for (int64_t kk = 0; kk < k; ++kk)
        acc = std::fma(a[i * lda + kk], widen(t, b, kk * ldb + j), acc);
      if (bias)
        acc = acc + bias[j];
      c[i * ldc + j] = reluCanon(acc, relu);
    }
  return c;
}

struct S8Params {
  std::vector<int32_t> aZp, bZp; // empty: NULL
  std::vector<float> aScales, bScales;
  bool perRow = false;
};

int32_t exactS8(int64_t i, int64_t j, int64_t k, const std::vector<int8_t> &a,
                int64_t lda, const std::vector<int8_t> &b, int64_t ldb,
                const S8Params &p) {
  const int64_t za = p.aZp.empty() ? 0 : p.aZp[p.perRow ? i : 0];
  const int64_t zb = p.bZp.empty() ? 0 : p.bZp[j];
  int64_t s = 0;
  for (int64_t kk = 0; kk < k; ++kk)
    s += (a[i * lda + kk] - za) * (b[kk * ldb + j] - zb);
  // The tests keep the exact sum within int32 (as mixc proves).
  REQUIRE(s >= INT32_MIN);
  REQUIRE(s <= INT32_MAX);
  return static_cast<int32_t>(s);
}

float rescaleRef(int32_t acc, float sa, float sb, const float *bias, int64_t j,
                 bool relu) {
  float v =
      static_cast<float>((static_cast<double>(sa) * static_cast<double>(sb)) *
                         static_cast<double>(acc));
  if (bias)
    v = v + bias[j];
  return reluCanon(v, relu);
}

template <class T>
std::vector<unsigned char> pack(mixrt_ukernel_type t, int64_t k, int64_t n,
                                const std::vector<T> &b, int64_t ldb) {
  const int64_t size = mixrt_ukernel_packed_size(t, k, n);
  REQUIRE(size >= MIXRT_UKERNEL_HEADER_BYTES);
  std::vector<unsigned char> out(static_cast<size_t>(size), 0xcd);
  REQUIRE(mixrt_ukernel_pack_b(t, k, n, b.data(), ldb, out.data()) ==
          MIXRT_STATUS_OK);
  return out;
}

/// Random f32 values; adversarial ones (denormals, inf, NaN, -0, huge) with
/// probability `special`.
float randomFloat(std::mt19937 &rng, double special) {
  std::uniform_real_distribution<float> uni(-2.0f, 2.0f);
  if (std::uniform_real_distribution<double>(0, 1)(rng) >= special)
    return uni(rng);
  switch (rng() % 8) {
  case 0:
    return f32FromBits(0x00000001u + rng() % 0x7fffffu); // denormal
  case 1:
    return -f32FromBits(0x00000001u + rng() % 0x7fffffu);
  case 2:
    return std::numeric_limits<float>::infinity();
  case 3:
    return -std::numeric_limits<float>::infinity();
  case 4:
    return f32FromBits(0x7fc00000u | (rng() & 0x3fffffu) |
                       (rng() & 1u) << 31); // quiet NaN, random payload/sign
  case 5:
    return -0.0f;
  case 6:
    return 3.0e38f * (rng() % 2 ? 1.0f : -1.0f);
  default:
    return 1.0e-38f * uni(rng);
  }
}

/// One float-weight GEMM on every path against the reference; with
/// `accumulate`, C starts with random values (specials as A's) and the call
/// passes MIXRT_UKERNEL_ACCUMULATE, also on `threads` threads.
template <class W>
void checkFloat(mixrt_ukernel_type t, int64_t m, int64_t n, int64_t k,
                std::mt19937 &rng, double special, bool padded, bool useBias,
                bool relu, const std::vector<W> &bIn = {},
                bool accumulate = false, int32_t threads = 1) {
  const int64_t lda = std::max<int64_t>(k, 1) + (padded ? 3 : 0),
                ldb = n + (padded ? 5 : 0), ldc = n + (padded ? 2 : 0);
  std::vector<float> a(static_cast<size_t>(m * lda));
  for (float &x : a)
    x = randomFloat(rng, special);
  std::vector<W> b = bIn;
  if (b.empty()) {
    b.resize(static_cast<size_t>(k * ldb));
    for (W &x : b) {
      const float f = randomFloat(rng, special);
      if constexpr (sizeof(W) == 4)
        x = f;
      else if (t == MIXRT_UKERNEL_F16)
        x = mixrt_f32_to_f16(f);
      else
        x = mixrt_f32_to_bf16(f);
    }
  }
  std::vector<float> bias(static_cast<size_t>(n));
  for (float &x : bias)
    x = randomFloat(rng, special);
  const float *biasPtr = useBias ? bias.data() : nullptr;
  const auto packed = pack(t, k, n, b, ldb);
  const size_t cSize = static_cast<size_t>((m - 1) * ldc + n);
  // Without accumulate, C holds a sentinel the call must overwrite.
  std::vector<float> init(cSize, f32FromBits(kSentinel));
  if (accumulate) // the gaps between rows (ldc > N) keep the sentinel
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        init[i * ldc + j] = randomFloat(rng, special);
  const auto want = referenceF32(t, m, n, k, a, lda, b.data(), ldb, ldc,
                                 biasPtr, relu, accumulate ? &init : nullptr);
  const uint32_t flags = (relu ? MIXRT_UKERNEL_RELU : 0) |
                         (accumulate ? MIXRT_UKERNEL_ACCUMULATE : 0);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    const std::vector<float> c =
        runOnThreads(threads, cSize, 0.0f, [&](float *out) {
          std::copy(init.begin(), init.end(), out);
          return mixrt_ukernel_gemm_f32(m, n, k, a.data(), lda, packed.data(),
                                        out, ldc, biasPtr, flags);
        });
    requireSame(c, want, m, n, ldc,
                std::string(mixrt_ukernel_isa_name(isa)) +
                    " M=" + std::to_string(m) + " N=" + std::to_string(n) +
                    " K=" + std::to_string(k) +
                    (accumulate ? " accumulate" : "") + " threads " +
                    std::to_string(threads));
  }
}

void checkS8(int64_t m, int64_t n, int64_t k, const std::vector<int8_t> &a,
             int64_t lda, const std::vector<int8_t> &b, int64_t ldb,
             int64_t ldc, const S8Params &p, const float *bias, bool relu) {
  const auto packed = pack(MIXRT_UKERNEL_S8, k, n, b, ldb);
  std::vector<int32_t> wantI(static_cast<size_t>((m - 1) * ldc + n));
  std::vector<float> wantF(wantI.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int32_t s = exactS8(i, j, k, a, lda, b, ldb, p);
      wantI[i * ldc + j] = s;
      wantF[i * ldc + j] = rescaleRef(s, p.aScales[p.perRow ? i : 0],
                                      p.bScales[j], bias, j, relu);
    }
  const int32_t *aZp = p.aZp.empty() ? nullptr : p.aZp.data();
  const int32_t *bZp = p.bZp.empty() ? nullptr : p.bZp.data();
  const uint32_t rowFlag = p.perRow ? MIXRT_UKERNEL_A_PER_ROW : 0;
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    const std::string what =
        std::string(mixrt_ukernel_isa_name(isa)) + " M=" + std::to_string(m) +
        " N=" + std::to_string(n) + " K=" + std::to_string(k);
    std::vector<int32_t> ci(wantI.size(), static_cast<int32_t>(kSentinel));
    REQUIRE(mixrt_ukernel_gemm_s8s8s32(m, n, k, a.data(), lda, aZp,
                                       packed.data(), bZp, ci.data(), ldc,
                                       rowFlag) == MIXRT_STATUS_OK);
    requireSame(ci, wantI, m, n, ldc, what + " s32");
    std::vector<float> cf(wantF.size(), f32FromBits(kSentinel));
    REQUIRE(mixrt_ukernel_gemm_s8s8f32(
                m, n, k, a.data(), lda, p.aScales.data(), aZp, packed.data(),
                p.bScales.data(), bZp, cf.data(), ldc, bias,
                rowFlag | (relu ? MIXRT_UKERNEL_RELU : 0)) == MIXRT_STATUS_OK);
    requireSame(cf, wantF, m, n, ldc, what + " f32");
  }
}

S8Params randomS8Params(std::mt19937 &rng, int64_t m, int64_t n, bool zps,
                        bool perRow) {
  S8Params p;
  p.perRow = perRow;
  const int64_t rows = perRow ? m : 1;
  std::uniform_real_distribution<float> scale(1e-4f, 0.1f);
  for (int64_t i = 0; i < rows; ++i) {
    p.aScales.push_back(scale(rng));
    if (zps)
      p.aZp.push_back(static_cast<int32_t>(rng() % 256) - 128);
  }
  for (int64_t j = 0; j < n; ++j) {
    p.bScales.push_back(scale(rng));
    if (zps)
      p.bZp.push_back(static_cast<int32_t>(rng() % 256) - 128);
  }
  return p;
}

} // namespace

TEST_CASE("ukernel: paths of this machine", "[ukernel]") {
  std::string names;
  for (mixrt_ukernel_isa isa : availablePaths())
    names +=
        std::string(names.empty() ? "" : ", ") + mixrt_ukernel_isa_name(isa);
  // Printed so the test log says what was covered (an AVX2-only machine
  // runs portable and avx2).
  std::printf("ukernel paths tested on this machine: %s (default %s)\n",
              names.c_str(), mixrt_ukernel_isa_name(mixrt_ukernel_get_isa()));
  CHECK(mixrt_ukernel_get_isa() <= mixrt_ukernel_cpu_isa());
  CHECK(std::string(mixrt_ukernel_isa_name(MIXRT_UKERNEL_ISA_AVX512_VNNI)) ==
        "avx512vnni");
  CHECK(std::string(mixrt_ukernel_isa_name(MIXRT_UKERNEL_ISA_AMX)) == "amx");
  CHECK(std::string(mixrt_ukernel_isa_name(
            static_cast<mixrt_ukernel_isa>(5))) == "unknown");
  CHECK(std::string(mixrt_ukernel_isa_name(
            static_cast<mixrt_ukernel_isa>(-1))) == "unknown");
}

TEST_CASE("ukernel: set_isa validates", "[ukernel]") {
  const mixrt_ukernel_isa saved = mixrt_ukernel_get_isa();
  CHECK(mixrt_ukernel_set_isa(static_cast<mixrt_ukernel_isa>(-1)) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_set_isa(static_cast<mixrt_ukernel_isa>(5)) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_get_isa() == saved);
  const int cpu = static_cast<int>(mixrt_ukernel_cpu_isa());
  if (cpu < static_cast<int>(MIXRT_UKERNEL_ISA_AMX))
    CHECK(mixrt_ukernel_set_isa(static_cast<mixrt_ukernel_isa>(cpu + 1)) ==
          MIXRT_STATUS_UNIMPLEMENTED);
  CHECK(mixrt_ukernel_set_isa(MIXRT_UKERNEL_ISA_PORTABLE) == MIXRT_STATUS_OK);
  CHECK(mixrt_ukernel_get_isa() == MIXRT_UKERNEL_ISA_PORTABLE);
  CHECK(mixrt_ukernel_set_isa(saved) == MIXRT_STATUS_OK);
}

TEST_CASE("ukernel: packed sizes and layout", "[ukernel]") {
  // 64-byte header, panels of 16 columns.
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, 3, 17) == 64 + 2 * 3 * 64);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F16, 3, 16) == 64 + 3 * 32);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_BF16, 0, 5) == 64);
  // int8: K rounded up to 4, then 16 int32 column sums per panel.
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8, 5, 17) ==
        64 + 2 * 8 * 16 + 2 * 64);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8, -1, 1) == -1);
  CHECK(mixrt_ukernel_packed_size(static_cast<mixrt_ukernel_type>(9), 1, 1) ==
        -1);
  CHECK(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, INT64_MAX / 8, 64) == -1);

  // The int8 layout byte by byte: (k / 4) * 64 + j * 4 + k % 4.
  const int64_t k = 5, n = 3;
  std::vector<int8_t> b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<int8_t>(i * 7 - 50);
  const auto packed = pack(MIXRT_UKERNEL_S8, k, n, b, n);
  const unsigned char *panel = packed.data() + 64;
  for (int64_t kk = 0; kk < 8; ++kk)
    for (int64_t j = 0; j < 16; ++j) {
      const int8_t want = kk < k && j < n ? b[kk * n + j] : 0;
      CHECK(static_cast<int8_t>(panel[(kk / 4) * 64 + j * 4 + kk % 4]) == want);
    }
  int32_t sums[16];
  std::memcpy(sums, panel + 8 * 16, sizeof sums);
  for (int64_t j = 0; j < 16; ++j) {
    int32_t want = 0;
    for (int64_t kk = 0; kk < k && j < n; ++kk)
      want += b[kk * n + j];
    CHECK(sums[j] == want);
  }
  // The float layout: K-major panels, zero-padded columns.
  std::vector<float> bf(static_cast<size_t>(2 * 17));
  for (size_t i = 0; i < bf.size(); ++i)
    bf[i] = static_cast<float>(i) + 1.0f;
  const auto pf = pack(MIXRT_UKERNEL_F32, 2, 17, bf, 17);
  const float *fp = reinterpret_cast<const float *>(pf.data() + 64);
  CHECK(fp[0 * 16 + 3] == bf[0 * 17 + 3]);
  CHECK(fp[1 * 16 + 15] == bf[1 * 17 + 15]);
  CHECK(fp[2 * 16 + 0] == bf[16]);      // panel 1, k 0, column 16
  CHECK(fp[2 * 16 + 1] == 0.0f);        // padding
  CHECK(fp[3 * 16 + 0] == bf[17 + 16]); // panel 1, k 1
}

TEST_CASE("ukernel: argument checks", "[ukernel]") {
  std::vector<float> b(12, 1.0f), a(6, 1.0f), c(8, 0.0f);
  const auto packed = pack(MIXRT_UKERNEL_F32, 3, 4, b, 4);
  CHECK(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, 3, 4, b.data(), 3,
                             std::vector<unsigned char>(4096).data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT); // ldb < N
  CHECK(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, 3, 4, nullptr, 4,
                             std::vector<unsigned char>(4096).data()) ==
        MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 3, packed.data(), c.data(), 4,
                               nullptr, 0) == MIXRT_STATUS_OK);
  CHECK(c[0] == 3.0f);
  // Header mismatch: other K or N, other type, garbage.
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 2, a.data(), 3, packed.data(), c.data(), 4,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 3, 3, a.data(), 3, packed.data(), c.data(), 4,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  std::vector<unsigned char> garbage(packed.size(), 0);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 3, garbage.data(), c.data(),
                               4, nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  std::vector<int8_t> a8(6, 1);
  std::vector<int32_t> c32(8);
  CHECK(mixrt_ukernel_gemm_s8s8s32(2, 4, 3, a8.data(), 3, nullptr,
                                   packed.data(), nullptr, c32.data(), 4,
                                   0) == MIXRT_STATUS_INVALID_ARGUMENT);
  // Shapes, leading dimensions, flags, pointers.
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 2, packed.data(), c.data(), 4,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 3, packed.data(), c.data(), 3,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(-1, 4, 3, a.data(), 3, packed.data(), c.data(),
                               4, nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 3, packed.data(), c.data(), 4,
                               nullptr, 0x80) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, nullptr, 3, packed.data(), c.data(), 4,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_f32(2, 4, 3, a.data(), 3, packed.data(), nullptr, 4,
                               nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  // Empty outputs touch nothing.
  CHECK(mixrt_ukernel_gemm_f32(0, 4, 3, nullptr, 3, nullptr, nullptr, 4,
                               nullptr, 0) == MIXRT_STATUS_OK);
  // int8: zero points beyond int8, non-positive or non-finite scales.
  std::vector<int8_t> b8(12, 1);
  const auto p8 = pack(MIXRT_UKERNEL_S8, 3, 4, b8, 4);
  const int32_t badZp = 128;
  CHECK(mixrt_ukernel_gemm_s8s8s32(2, 4, 3, a8.data(), 3, &badZp, p8.data(),
                                   nullptr, c32.data(), 4,
                                   0) == MIXRT_STATUS_INVALID_ARGUMENT);
  const float one = 1.0f, scales[4] = {1.0f, 0.0f, 1.0f, 1.0f};
  const float nanScales[4] = {1.0f, NAN, 1.0f, 1.0f};
  CHECK(mixrt_ukernel_gemm_s8s8f32(
            2, 4, 3, a8.data(), 3, &one, nullptr, p8.data(), scales, nullptr,
            c.data(), 4, nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_s8s8f32(
            2, 4, 3, a8.data(), 3, &one, nullptr, p8.data(), nanScales, nullptr,
            c.data(), 4, nullptr, 0) == MIXRT_STATUS_INVALID_ARGUMENT);
  // relu is an epilogue of the f32 output only.
  CHECK(mixrt_ukernel_gemm_s8s8s32(
            2, 4, 3, a8.data(), 3, nullptr, p8.data(), nullptr, c32.data(), 4,
            MIXRT_UKERNEL_RELU) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(mixrt_ukernel_gemm_s8s8s32(2, 4, 3, a8.data(), 3, nullptr, p8.data(),
                                   nullptr, c32.data(), 4,
                                   0) == MIXRT_STATUS_OK);
  CHECK(c32[0] == 3);
}

TEST_CASE("ukernel: f32 on every path, all shape combinations", "[ukernel]") {
  std::mt19937 rng(12);
  int run = 0;
  for (int64_t m : kSizes)
    for (int64_t n : kSizes)
      for (int64_t k : kSizes) {
        ++run;
        checkFloat<float>(MIXRT_UKERNEL_F32, m, n, k, rng, 0.0, run % 3 == 0,
                          run % 2 == 0, run % 4 < 2);
      }
}

TEST_CASE("ukernel: f32 across k blocks and blocks of B", "[ukernel]") {
  // Beyond the sizes above: K over 2 or 3 k blocks of the vector paths
  // (256) with a tail, N over blocks of B (256 columns on AVX2, 512 on
  // AVX-512) with a partial panel, M over several A tiles (6 / 14 rows)
  // with a tail, and the small-M tiles (M <= 4) across the same blocks.
  std::mt19937 rng(15);
  struct Shape {
    int64_t m, n, k;
  };
  int run = 0;
  for (Shape s : {Shape{1, 1040, 600}, Shape{4, 530, 520}, Shape{15, 530, 777},
                  Shape{29, 600, 513}}) {
    ++run;
    checkFloat<float>(MIXRT_UKERNEL_F32, s.m, s.n, s.k, rng, 0.0, run % 2 == 0,
                      true, run % 3 == 0);
  }
  std::vector<uint16_t> none;
  checkFloat<uint16_t>(MIXRT_UKERNEL_BF16, 17, 530, 600, rng, 0.0, true, true,
                       false, none);
  checkFloat<uint16_t>(MIXRT_UKERNEL_F16, 17, 530, 600, rng, 0.0, false, false,
                       true, none);
}

TEST_CASE("ukernel: f32 with denormals, infinities, NaN", "[ukernel]") {
  std::mt19937 rng(13);
  for (int64_t m : {1, 3, 16, 17})
    for (int64_t n : {1, 16, 17, 33, 64})
      for (int64_t k : {1, 2, 7, 100, 257})
        for (int flags = 0; flags < 4; ++flags)
          checkFloat<float>(MIXRT_UKERNEL_F32, m, n, k, rng, 0.05, flags & 1,
                            true, flags & 2);
  // Only denormals: tiny products accumulate, never flushed.
  for (int64_t k : {1, 17, 300}) {
    std::vector<float> b(static_cast<size_t>(k * 20));
    for (float &x : b)
      x = f32FromBits(0x00000001u + rng() % 0x7fffffu);
    checkFloat<float>(MIXRT_UKERNEL_F32, 5, 20, k, rng, 0.0, false, false,
                      false, b);
  }
}

TEST_CASE("ukernel: f32 with MIXRT_UKERNEL_ACCUMULATE continues each "
          "output's chain from C",
          "[ukernel]") {
  // The recurrent layers' GEMMs add into sums that hold the biases and the
  // input GEMM: C's value is where each fma chain starts (so -0 + +0 and
  // an infinite or NaN start are kept as the loops keep them). Shapes
  // across the tiles, k blocks (256) and blocks of B (512 / 256 columns),
  // K = 0 (C's values through the epilogue), specials, the split over
  // threads (rows from M = 32, else panels).
  std::mt19937 rng(16);
  // The split needs 2^20 multiply-adds: 40 x 600 x 300 splits by rows,
  // 3 x 700 x 600 by panels (with a partial one).
  struct Shape {
    int64_t m, n, k;
    int32_t threads;
  };
  int run = 0;
  for (Shape s :
       {Shape{1, 1, 1, 1}, Shape{1, 1040, 600, 1}, Shape{3, 17, 0, 1},
        Shape{4, 530, 257, 1}, Shape{15, 33, 100, 1}, Shape{40, 600, 300, 1},
        Shape{40, 600, 300, 2}, Shape{3, 700, 600, 2}, Shape{17, 64, 7, 1}}) {
    for (double special : {0.0, 0.05}) {
      ++run;
      checkFloat<float>(MIXRT_UKERNEL_F32, s.m, s.n, s.k, rng, special,
                        run % 2 == 0, run % 3 == 0, run % 4 < 2, {}, true,
                        s.threads);
    }
  }
  std::vector<uint16_t> none;
  checkFloat<uint16_t>(MIXRT_UKERNEL_F16, 5, 100, 300, rng, 0.0, false, true,
                       false, none, true);
  checkFloat<uint16_t>(MIXRT_UKERNEL_BF16, 2, 1040, 600, rng, 0.0, true, false,
                       false, none, true, 3);
  // One exact sum by hand; an unknown flag bit is refused, C untouched.
  std::vector<unsigned char> packed =
      pack<float>(MIXRT_UKERNEL_F32, 1, 1, std::vector<float>{1.0f}, 1);
  float a = 2.0f, c = 3.0f;
  CHECK(mixrt_ukernel_gemm_f32(1, 1, 1, &a, 1, packed.data(), &c, 1, nullptr,
                               MIXRT_UKERNEL_ACCUMULATE) == MIXRT_STATUS_OK);
  CHECK(c == 5.0f);
  CHECK(mixrt_ukernel_gemm_f32(1, 1, 1, &a, 1, packed.data(), &c, 1, nullptr,
                               1u << 4) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(c == 5.0f);
}

TEST_CASE("ukernel: f16 and bf16 weights on every path", "[ukernel]") {
  std::mt19937 rng(14);
  const int64_t sizes[] = {1, 3, 7, 16, 17, 33, 100, 257};
  for (mixrt_ukernel_type t : {MIXRT_UKERNEL_F16, MIXRT_UKERNEL_BF16}) {
    int run = 0;
    for (int64_t m : sizes)
      for (int64_t n : sizes)
        for (int64_t k : sizes) {
          ++run;
          checkFloat<uint16_t>(t, m, n, k, rng, run % 5 == 0 ? 0.05 : 0.0,
                               run % 3 == 0, run % 2 == 0, run % 4 < 2);
        }
    // Every 16-bit pattern once as a weight (subnormals, inf, NaN).
    std::vector<uint16_t> all(65536);
    for (size_t i = 0; i < all.size(); ++i)
      all[i] = static_cast<uint16_t>(i);
    checkFloat<uint16_t>(t, 3, 256, 256, rng, 0.0, false, true, true, all);
  }
}

TEST_CASE("ukernel: f16/bf16 equal mixrt's reduced GEMM", "[ukernel]") {
  // mixrt_gemm_reduced_u16_f32 rounds A to the format too; with A already
  // in the format and no epilogue both are the same fmaf chain.
  std::mt19937 rng(15);
  for (auto [t, fmt] : {std::pair{MIXRT_UKERNEL_F16, MIXRT_FORMAT_F16},
                        std::pair{MIXRT_UKERNEL_BF16, MIXRT_FORMAT_BF16}})
    for (int64_t m : {1, 7, 33})
      for (int64_t n : {1, 17, 100})
        for (int64_t k : {1, 16, 257}) {
          std::vector<uint16_t> a16(static_cast<size_t>(m * k)),
              b16(static_cast<size_t>(k * n));
          std::vector<float> a(a16.size());
          std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
          for (size_t i = 0; i < a16.size(); ++i) {
            a16[i] = t == MIXRT_UKERNEL_F16 ? mixrt_f32_to_f16(uni(rng))
                                            : mixrt_f32_to_bf16(uni(rng));
            a[i] = widen(t, a16.data(), static_cast<int64_t>(i));
          }
          for (uint16_t &x : b16)
            x = t == MIXRT_UKERNEL_F16 ? mixrt_f32_to_f16(uni(rng))
                                       : mixrt_f32_to_bf16(uni(rng));
          std::vector<float> want(static_cast<size_t>(m * n));
          REQUIRE(mixrt_gemm_reduced_u16_f32(fmt, m, n, k, a16.data(), k,
                                             b16.data(), n, want.data(),
                                             n) == MIXRT_STATUS_OK);
          const auto packed = pack(t, k, n, b16, n);
          for (mixrt_ukernel_isa isa : availablePaths()) {
            IsaScope scope(isa);
            std::vector<float> c(want.size());
            REQUIRE(mixrt_ukernel_gemm_f32(m, n, k, a.data(), k, packed.data(),
                                           c.data(), n, nullptr,
                                           0) == MIXRT_STATUS_OK);
            requireSame(c, want, m, n, n, mixrt_ukernel_isa_name(isa));
          }
        }
}

namespace {

/// Leading dimensions of one int8 problem of checkS8Shapes.
struct S8Strides {
  int64_t lda, ldb, ldc;
};

/// Random int8 problems for every (m, n, k) of the lists, each checked on
/// every path (checkS8): zero points and per-row parameters on a third of
/// the runs each, bias on every other run, relu on half; strides(run, n, k)
/// gives the leading dimensions of run number `run` (from 1).
template <class Strides>
void checkS8Shapes(std::mt19937 &rng, const std::vector<int64_t> &ms,
                   const std::vector<int64_t> &ns,
                   const std::vector<int64_t> &ks, Strides strides) {
  int run = 0;
  for (int64_t m : ms)
    for (int64_t n : ns)
      for (int64_t k : ks) {
        ++run;
        const S8Strides st = strides(run, n, k);
        std::vector<int8_t> a(static_cast<size_t>(m * st.lda)),
            b(static_cast<size_t>(k * st.ldb));
        for (int8_t &x : a)
          x = static_cast<int8_t>(rng());
        for (int8_t &x : b)
          x = static_cast<int8_t>(rng());
        // With zero points |a - za|, |b - zb| <= 255: exact in int32 up to
        // K = 33025.
        const S8Params p =
            randomS8Params(rng, m, n, run % 3 == 1, run % 3 == 2);
        std::vector<float> bias(static_cast<size_t>(n));
        for (float &x : bias)
          x = std::uniform_real_distribution<float>(-50, 50)(rng);
        checkS8(m, n, k, a, st.lda, b, st.ldb, st.ldc, p,
                run % 2 ? bias.data() : nullptr, run % 4 < 2);
      }
}

} // namespace

TEST_CASE("ukernel: int8 on every path, all shape combinations", "[ukernel]") {
  std::mt19937 rng(16);
  const std::vector<int64_t> sizes(std::begin(kSizes), std::end(kSizes));
  checkS8Shapes(rng, sizes, sizes, sizes, [](int run, int64_t n, int64_t k) {
    const bool padded = run % 3 == 0;
    return S8Strides{k + (padded ? 5 : 0), n + (padded ? 1 : 0),
                     n + (padded ? 3 : 0)};
  });
}

TEST_CASE("ukernel: int8 around the VNNI tile and A-copy limits", "[ukernel]") {
  // VNNI: tiles of 2 panels and at most 14 rows, A copied for K <= 1024 (K
  // rounded up to 4), the kernel reading A in place above.
  std::mt19937 rng(20);
  checkS8Shapes(rng, {13, 14, 15, 29}, {31, 32, 33}, {1020, 1021, 1024, 1025},
                [](int run, int64_t n, int64_t k) {
                  return S8Strides{k + (run % 2 ? 3 : 0), n, n};
                });
}

TEST_CASE("ukernel: int8 VNNI rows balanced over the tiles", "[ukernel]") {
  // ceil(M / 14) tiles, the first M % tiles one row taller (7-14 rows
  // from M = 15, 13-14 from M = 169): M = 15 -> 8 + 7 rows, 27 -> 14 + 13,
  // 29 -> 10 + 10 + 9, 41 -> 14 + 14 + 13, 255-257 -> 19 tiles of 13-14.
  // Both sides of the A copy (K <= 1024; above it ceil(M / 13) tiles: 14 ->
  // 7 + 7, 27 -> 9 + 9 + 9, 256 -> 20 of 12-13); N = 17: a pair of panels
  // with a 1-column tail, 47: a pair and a single panel of 15 columns.
  std::mt19937 rng(21);
  checkS8Shapes(rng, {13, 15, 27, 28, 29, 41}, {17, 47}, {100, 1025},
                [](int run, int64_t n, int64_t k) {
                  return S8Strides{k + (run % 2 ? 7 : 0), n + (run % 3 ? 0 : 2),
                                   n + (run % 2 ? 0 : 5)};
                });
  checkS8Shapes(rng, {255, 256, 257}, {47}, {64, 1030},
                [](int run, int64_t n, int64_t k) {
                  return S8Strides{k + (run % 2 ? 0 : 3), n, n + (run % 2)};
                });
}

TEST_CASE("ukernel: int8 around the AMX blocks and k chunks", "[ukernel]") {
  // AMX: blocks of 32 rows (two 16-row tiles; M < 32 configured as M rows,
  // the last block of M >= 32 moved back to end at M), 2 panels, k in
  // 64-byte chunks read in place, the last K mod 64 (K rounded up to 4)
  // from zero-padded copies of A and of B (B in place when its 1 KiB chunk
  // stays inside the packed buffer: N = 513 has 33 panels, two blocks of
  // UK_NCP = 32 panels). A's rows end at the end of its allocation on the
  // runs without padding.
  std::mt19937 rng(22);
  checkS8Shapes(rng, {1, 15, 16, 17, 31, 32, 33, 48, 65}, {1, 16, 17, 33, 513},
                {4, 63, 64, 65, 130, 192}, [](int run, int64_t n, int64_t k) {
                  return S8Strides{k + (run % 2 ? 0 : 5), n + (run % 3 ? 0 : 2),
                                   n + (run % 2 ? 0 : 3)};
                });
}

TEST_CASE("ukernel: int8 extremes", "[ukernel]") {
  std::mt19937 rng(17);
  for (int8_t va : {int8_t{-128}, int8_t{127}})
    for (int8_t vb : {int8_t{-128}, int8_t{127}})
      for (int64_t m : {1, 3, 17})
        for (int64_t n : {1, 16, 33})
          for (int64_t k : {1, 2, 3, 7, 64, 257}) {
            std::vector<int8_t> a(static_cast<size_t>(m * k), va),
                b(static_cast<size_t>(k * n), vb);
            checkS8(m, n, k, a, k, b, n, n,
                    randomS8Params(rng, m, n, false, false), nullptr, false);
            // Zero points at the other extreme: |a - za| = 255.
            S8Params p = randomS8Params(rng, m, n, false, false);
            p.aZp.assign(1, va == -128 ? 127 : -128);
            p.bZp.assign(static_cast<size_t>(n), vb == -128 ? 127 : -128);
            checkS8(m, n, k, a, k, b, n, n, p, nullptr, true);
          }
}

TEST_CASE("ukernel: int8 sums up to the int32 limit", "[ukernel]") {
  // (-128)(-128) = 16384 per k: K = 131071 gives 2147467264 (the largest
  // such sum below 2^31); -128 x 127 gives the most negative sums.
  std::mt19937 rng(18);
  const int64_t k = 131071;
  for (int8_t vb : {int8_t{-128}, int8_t{127}}) {
    const int64_t m = 3, n = 17;
    std::vector<int8_t> a(static_cast<size_t>(m * k), -128),
        b(static_cast<size_t>(k * n), vb);
    // One row alternates signs: a mixed sum on the same kernel.
    for (int64_t kk = 0; kk < k; kk += 2)
      a[k + kk] = 127;
    checkS8(m, n, k, a, k, b, n, n, randomS8Params(rng, m, n, false, false),
            nullptr, false);
  }
}

TEST_CASE("ukernel: int8 equals mixrt's int8 GEMMs", "[ukernel]") {
  std::mt19937 rng(19);
  for (int64_t m : {1, 7, 64})
    for (int64_t n : {1, 17, 100})
      for (int64_t k : {1, 33, 257}) {
        std::vector<int8_t> a(static_cast<size_t>(m * k)),
            b(static_cast<size_t>(k * n));
        for (int8_t &x : a)
          x = static_cast<int8_t>(rng());
        for (int8_t &x : b)
          x = static_cast<int8_t>(rng());
        const S8Params p = randomS8Params(rng, m, n, true, false);
        std::vector<int32_t> wantI(static_cast<size_t>(m * n));
        REQUIRE(mixrt_gemm_s8s8s32(m, n, k, a.data(), k, b.data(), n,
                                   wantI.data(), n) == MIXRT_STATUS_OK);
        mixrt_gemm_s8_operand oa{a.data(), k, 0, p.aScales.data(),
                                 p.aZp.data()};
        mixrt_gemm_s8_operand ob{b.data(), n, 1, p.bScales.data(),
                                 p.bZp.data()};
        std::vector<float> wantF(static_cast<size_t>(m * n));
        REQUIRE(mixrt_gemm_s8_f32(m, n, k, &oa, &ob, wantF.data(), n) ==
                MIXRT_STATUS_OK);
        const auto packed = pack(MIXRT_UKERNEL_S8, k, n, b, n);
        for (mixrt_ukernel_isa isa : availablePaths()) {
          IsaScope scope(isa);
          std::vector<int32_t> ci(wantI.size());
          REQUIRE(mixrt_ukernel_gemm_s8s8s32(m, n, k, a.data(), k, nullptr,
                                             packed.data(), nullptr, ci.data(),
                                             n, 0) == MIXRT_STATUS_OK);
          requireSame(ci, wantI, m, n, n, mixrt_ukernel_isa_name(isa));
          std::vector<float> cf(wantF.size());
          REQUIRE(mixrt_ukernel_gemm_s8s8f32(
                      m, n, k, a.data(), k, p.aScales.data(), p.aZp.data(),
                      packed.data(), p.bScales.data(), p.bZp.data(), cf.data(),
                      n, nullptr, 0) == MIXRT_STATUS_OK);
          requireSame(cf, wantF, m, n, n, mixrt_ukernel_isa_name(isa));
        }
      }
}

TEST_CASE("ukernel: K = 0 gives the epilogue of 0", "[ukernel]") {
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    const auto packed = pack(MIXRT_UKERNEL_F32, 0, 3, std::vector<float>{}, 3);
    std::vector<float> c(6, 7.0f);
    const float bias[3] = {-1.0f, 2.0f, NAN};
    REQUIRE(mixrt_ukernel_gemm_f32(2, 3, 0, nullptr, 1, packed.data(), c.data(),
                                   3, bias,
                                   MIXRT_UKERNEL_RELU) == MIXRT_STATUS_OK);
    CHECK(bitsOf(c[3]) == 0u); // relu(-1) = +0
    CHECK(c[4] == 2.0f);
    CHECK(bitsOf(c[5]) == 0x7fc00000u);
    const auto p8 = pack(MIXRT_UKERNEL_S8, 0, 3, std::vector<int8_t>{}, 3);
    std::vector<int32_t> ci(6, 7);
    REQUIRE(mixrt_ukernel_gemm_s8s8s32(2, 3, 0, nullptr, 1, nullptr, p8.data(),
                                       nullptr, ci.data(), 3,
                                       0) == MIXRT_STATUS_OK);
    CHECK(ci == std::vector<int32_t>(6, 0));
  }
}

namespace {

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// The reference of mixrt_ukernel_range_f32: IEEE minimum / maximum from +0,
/// element by element, as the quantize lowering's arith.minimumf /
/// arith.maximumf compute them.
struct RangeRef {
  float lo = 0.0f, hi = 0.0f;
  int64_t first = -1;
};

RangeRef rangeReference(const std::vector<float> &x) {
  RangeRef r;
  bool nan = false;
  for (size_t i = 0; i < x.size(); ++i) {
    float v = x[i];
    if (!std::isfinite(v) && r.first < 0)
      r.first = static_cast<int64_t>(i);
    if (std::isnan(v)) {
      nan = true;
      continue;
    }
    if (v < r.lo || (v == r.lo && std::signbit(v)))
      r.lo = v;
    if (v > r.hi)
      r.hi = v;
  }
  if (nan)
    r.lo = r.hi = std::numeric_limits<float>::quiet_NaN();
  return r;
}

} // namespace

TEST_CASE("ukernel.range_f32 is the exact IEEE minimum and maximum from +0",
          "[ukernel]") {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    // Lengths around the vector widths; special values at chosen places.
    for (int64_t n : {0, 1, 7, 8, 15, 16, 17, 33, 1000}) {
      for (int variant = 0; variant < 7; ++variant) {
        std::vector<float> x(static_cast<size_t>(n));
        for (float &v : x)
          v = variant == 1 ? std::fabs(normal(rng)) : normal(rng);
        if (n > 0) {
          size_t at = static_cast<size_t>(n) * 2 / 3;
          switch (variant) {
          case 2:
            x[at] = -0.0f;
            break; // all others positive below
          case 3:
            x[at] = INFINITY;
            break;
          case 4:
            x[at] = -INFINITY;
            x[0] = NAN;
            break;
          case 5:
            x[at] = NAN;
            break;
          case 6:
            x[at] = 1e-45f;
            x[0] = -1e-45f;
            break; // subnormals
          default:
            break;
          }
          if (variant == 2)
            for (size_t i = 0; i < x.size(); ++i)
              if (i != at)
                x[i] = std::fabs(x[i]);
        }
        INFO("n " << n << " variant " << variant);
        RangeRef want = rangeReference(x);
        float lo = -7.0f, hi = -7.0f;
        CHECK(mixrt_ukernel_range_f32(x.data(), n, &lo, &hi) == want.first);
        if (std::isnan(want.lo)) {
          CHECK(floatBits(lo) == 0x7fc00000u);
          CHECK(floatBits(hi) == 0x7fc00000u);
        } else {
          CHECK(floatBits(lo) == floatBits(want.lo));
          CHECK(floatBits(hi) == floatBits(want.hi));
        }
      }
    }
  }
  // A -0 with positive values: lo is -0, hi positive; all -0: hi is +0.
  std::vector<float> negZeros(20, -0.0f);
  float lo = 1.0f, hi = 1.0f;
  CHECK(mixrt_ukernel_range_f32(negZeros.data(), 20, &lo, &hi) == -1);
  CHECK(floatBits(lo) == 0x80000000u);
  CHECK(floatBits(hi) == 0u);
  CHECK(mixrt_ukernel_range_f32(nullptr, 3, &lo, &hi) == -2);
  CHECK(mixrt_ukernel_range_f32(negZeros.data(), -1, &lo, &hi) == -2);
  CHECK(mixrt_ukernel_range_f32(negZeros.data(), 1, nullptr, &hi) == -2);
}

namespace {

/// Runs `gemm` once on one thread and once on `threads`, and checks every
/// output byte is the same.
template <typename T, typename Gemm>
void checkThreads(int64_t m, int64_t n, int32_t threads, Gemm &&gemm) {
  const auto count = static_cast<size_t>(m * n);
  const std::vector<T> one = runOnThreads(1, count, T(-7), gemm);
  const std::vector<T> many = runOnThreads(threads, count, T(-9), gemm);
  CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(T)) == 0);
}

} // namespace

TEST_CASE("ukernel.threads give bit-identical results", "[ukernel]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Split by rows (M >= 32) and by panels (M < 32); each above the 2^20
  // multiply-adds that make a GEMM split. M = 256: parts of 128 rows (2
  // threads; 10 VNNI tiles of 12-13 rows each) or 88, 88 and 80 (3), K on
  // both sides of the VNNI A copy (K <= 1024).
  struct Shape {
    int64_t m, n, k;
  };
  for (Shape s : {Shape{67, 45, 400}, Shape{3, 700, 600}, Shape{40, 33, 1000},
                  Shape{256, 40, 200}, Shape{256, 33, 1030}}) {
    INFO("M " << s.m << " N " << s.n << " K " << s.k);
    std::vector<float> a(static_cast<size_t>(s.m * s.k)),
        b(static_cast<size_t>(s.k * s.n)), bias(static_cast<size_t>(s.n));
    for (float &v : a)
      v = normal(rng);
    for (float &v : b)
      v = normal(rng);
    for (float &v : bias)
      v = normal(rng);
    std::vector<int8_t> a8(a.size()), b8(b.size());
    for (int8_t &v : a8)
      v = static_cast<int8_t>(byte(rng));
    for (int8_t &v : b8)
      v = static_cast<int8_t>(byte(rng));
    std::vector<int32_t> aZero(static_cast<size_t>(s.m)),
        bZero(static_cast<size_t>(s.n));
    for (int32_t &v : aZero)
      v = byte(rng);
    for (int32_t &v : bZero)
      v = byte(rng);
    std::vector<float> aScale(static_cast<size_t>(s.m), 0.01f),
        bScale(static_cast<size_t>(s.n), 0.02f);
    std::vector<unsigned char> packedF(static_cast<size_t>(
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, s.k, s.n)));
    std::vector<unsigned char> packedS(static_cast<size_t>(
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8, s.k, s.n)));
    REQUIRE(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, s.k, s.n, b.data(), s.n,
                                 packedF.data()) == MIXRT_STATUS_OK);
    REQUIRE(mixrt_ukernel_pack_b(MIXRT_UKERNEL_S8, s.k, s.n, b8.data(), s.n,
                                 packedS.data()) == MIXRT_STATUS_OK);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      INFO("path " << mixrt_ukernel_isa_name(isa));
      for (int32_t threads : {2, 3}) {
        INFO(threads << " threads");
        checkThreads<float>(s.m, s.n, threads, [&](float *c) {
          return mixrt_ukernel_gemm_f32(s.m, s.n, s.k, a.data(), s.k,
                                        packedF.data(), c, s.n, bias.data(),
                                        MIXRT_UKERNEL_RELU);
        });
        checkThreads<int32_t>(s.m, s.n, threads, [&](int32_t *c) {
          return mixrt_ukernel_gemm_s8s8s32(
              s.m, s.n, s.k, a8.data(), s.k, aZero.data(), packedS.data(),
              bZero.data(), c, s.n, MIXRT_UKERNEL_A_PER_ROW);
        });
        checkThreads<float>(s.m, s.n, threads, [&](float *c) {
          return mixrt_ukernel_gemm_s8s8f32(
              s.m, s.n, s.k, a8.data(), s.k, aScale.data(), aZero.data(),
              packedS.data(), bScale.data(), bZero.data(), c, s.n, bias.data(),
              MIXRT_UKERNEL_A_PER_ROW);
        });
      }
    }
  }
  CHECK(mixrt_set_num_threads(0) == MIXRT_STATUS_INVALID_ARGUMENT);
  CHECK(std::string(mixrt_last_error_message()) ==
        "set_num_threads: n (0) is outside [1, 256]");
  CHECK(mixrt_set_num_threads(257) == MIXRT_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("ukernel.thread pool runs loops back to back, spinning or blocking, "
          "for concurrent callers",
          "[ukernel]") {
  // The pool's workers spin for MIXRT_SPIN_US microseconds between loops,
  // then block: both ways (0 blocks after every loop; 20000 keeps them
  // spinning through this whole test) must run every part of every loop
  // exactly once. 64 x 64 x 256 is exactly 2^20 multiply-adds (split in
  // parts by rows); two application threads call at once, so one of them
  // also takes the pool's busy path (runs its loop alone).
  const int64_t m = 64, n = 64, k = 256;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(m * k)),
      b(static_cast<size_t>(k * n));
  for (float &v : a)
    v = normal(rng);
  for (float &v : b)
    v = normal(rng);
  std::vector<unsigned char> packed(
      static_cast<size_t>(mixrt_ukernel_packed_size(MIXRT_UKERNEL_F32, k, n)));
  REQUIRE(mixrt_ukernel_pack_b(MIXRT_UKERNEL_F32, k, n, b.data(), n,
                               packed.data()) == MIXRT_STATUS_OK);
  auto gemm = [&](float *c) {
    return mixrt_ukernel_gemm_f32(m, n, k, a.data(), k, packed.data(), c, n,
                                  nullptr, 0);
  };
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
  std::vector<float> want(static_cast<size_t>(m * n));
  REQUIRE(gemm(want.data()) == MIXRT_STATUS_OK);

  const char *saved = std::getenv("MIXRT_SPIN_US");
  const std::string savedValue = saved ? saved : "";
  for (const char *spin : {"0", "20000", "not a number"}) {
    for (int32_t threads : {2, 3}) {
      INFO("MIXRT_SPIN_US=" << spin << ", " << threads << " threads");
      REQUIRE(setenv("MIXRT_SPIN_US", spin, 1) == 0);
      REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
      // Each caller counts the loops whose output differs from `want`.
      auto caller = [&](int loops, int *wrong) {
        std::vector<float> c(want.size());
        for (int i = 0; i < loops; ++i) {
          std::fill(c.begin(), c.end(), -1.0f);
          if (gemm(c.data()) != MIXRT_STATUS_OK ||
              std::memcmp(c.data(), want.data(), c.size() * sizeof(float)))
            ++*wrong;
        }
      };
      int wrongAlone = 0, wrongA = 0, wrongB = 0;
      caller(100, &wrongAlone);
      std::thread other(caller, 100, &wrongB);
      caller(100, &wrongA);
      other.join();
      CHECK(wrongAlone == 0);
      CHECK(wrongA == 0);
      CHECK(wrongB == 0);
    }
  }
  if (saved)
    setenv("MIXRT_SPIN_US", savedValue.c_str(), 1);
  else
    unsetenv("MIXRT_SPIN_US");
  REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
}

namespace {

/// The reference of mixrt_ukernel_quantize_f32_s8, op by op as mixc's
/// quantize lowering: r = roundeven(divf(x, scale)) + sitofp(zp); clamped =
/// minimumf(maximumf(r, qmin), 127); select(uno(r, r), sitofp(zp),
/// clamped); fptosi. std::nearbyint rounds half to even in the default
/// rounding mode.
int8_t quantizeReference(float x, float scale, int32_t zp, int32_t qmin) {
  const float zpf = static_cast<float>(zp);
  const float r = std::nearbyint(x / scale) + zpf;
  if (std::isnan(r))
    return static_cast<int8_t>(zp);
  float c = r < static_cast<float>(qmin) ? static_cast<float>(qmin) : r;
  c = c > 127.0f ? 127.0f : c;
  return static_cast<int8_t>(static_cast<int32_t>(c));
}

struct QuantRef {
  std::vector<int8_t> q;
  int64_t first = -1;
};

QuantRef quantizeReference(const std::vector<float> &x, float scale, int32_t zp,
                           int32_t qmin) {
  QuantRef r;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) && r.first < 0)
      r.first = static_cast<int64_t>(i);
    r.q.push_back(quantizeReference(x[i], scale, zp, qmin));
  }
  return r;
}

/// Checks one quantization on the current path against the reference.
void checkQuantize(const std::vector<float> &x, float scale, int32_t zp,
                   int32_t qmin) {
  const QuantRef want = quantizeReference(x, scale, zp, qmin);
  std::vector<int8_t> got(x.size() + 1, int8_t(0x5a));
  const int64_t n = static_cast<int64_t>(x.size());
  CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), n, scale, zp, qmin,
                                      got.data()) == want.first);
  CHECK(got[x.size()] == int8_t(0x5a)); // nothing beyond n
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (got[i] != want.q[i]) {
      if (bad++ < 4)
        FAIL_CHECK("x[" << i << "] = " << x[i] << " (bits " << std::hex
                        << floatBits(x[i]) << std::dec << ") gives "
                        << int(got[i]) << ", want " << int(want.q[i]));
    }
  CHECK(bad == 0);
}

/// Random values spanning many magnitudes, with both signs.
std::vector<float> manyScales(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exp(-30, 30);
  std::vector<float> x(n);
  for (float &v : x)
    v = std::ldexp(mant(rng), exp(rng));
  return x;
}

const uint32_t kSpecials[] = {
    0x00000000u, 0x80000000u, // +-0
    0x7f800000u, 0xff800000u, // +-Inf
    0x7fc00000u, 0xffc00000u, 0x7fc12345u, 0xff812345u,
    0x7f800001u, // NaNs: payloads, sign, signalling
    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, // subnormals
    0x7f7fffffu, 0xff7fffffu, 0x7f000000u, 0xcf000000u, // huge
    0x4b000001u, 0xcb7fffffu,                           // >= 2^23 (integers)
    0x3f000000u, 0xbf000000u, 0x3fc00000u, 0xbfc00000u, // +-0.5, +-1.5
};

} // namespace

TEST_CASE("ukernel.quantize_f32_s8 equals the quantize lowering", "[ukernel]") {
  std::mt19937 rng(12);
  const float scales[] = {1.0f,
                          0.5f,
                          3.0f,
                          1.0f / 127.0f,
                          0.0137f,
                          1e-3f,
                          7.5e4f,
                          1e30f,
                          std::numeric_limits<float>::min(),
                          1e-40f, // subnormal
                          std::numeric_limits<float>::infinity()};
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (int64_t n : {0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1001}) {
      for (float scale : scales) {
        for (int32_t zp : {-128, 0, 5, 127}) {
          for (int32_t qmin : {-128, -127}) {
            INFO("n " << n << " scale " << scale << " zp " << zp << " qmin "
                      << qmin);
            std::vector<float> x = manyScales(rng, static_cast<size_t>(n));
            // Values around the int8 range at this scale.
            std::normal_distribution<float> normal(0.0f, 100.0f);
            for (size_t i = 0; i < x.size(); i += 2)
              x[i] = normal(rng) * scale;
            checkQuantize(x, scale, zp, qmin);
            // Specials at random places.
            if (n > 0) {
              std::vector<float> y = x;
              for (int k = 0; k < 3; ++k)
                y[rng() % y.size()] =
                    f32FromBits(kSpecials[rng() % std::size(kSpecials)]);
              checkQuantize(y, scale, zp, qmin);
            }
          }
        }
      }
    }
    // Every special value, in the vector body and in the tail.
    for (float scale : scales) {
      std::vector<float> x;
      for (int rep = 0; rep < 3; ++rep)
        for (uint32_t b : kSpecials)
          x.push_back(f32FromBits(b));
      INFO("specials, scale " << scale);
      for (int32_t zp : {-128, 0, 127})
        for (int32_t qmin : {-128, -127})
          checkQuantize(x, scale, zp, qmin);
    }
    // Exact ties x / scale = k + 0.5, even and odd k, both signs (the
    // quotients are exact at these scales).
    for (float scale : {1.0f, 0.5f, 0.25f, 3.0f, 2.0f}) {
      std::vector<float> x;
      for (int k = -300; k <= 300; ++k)
        x.push_back((static_cast<float>(k) + 0.5f) * scale);
      INFO("ties, scale " << scale);
      for (int32_t zp : {-128, 0, 1, 127})
        for (int32_t qmin : {-128, -127})
          checkQuantize(x, scale, zp, qmin);
      // The ties themselves round to even.
      std::vector<int8_t> q(4);
      const float t[4] = {0.5f * scale, 1.5f * scale, -0.5f * scale,
                          -2.5f * scale};
      CHECK(mixrt_ukernel_quantize_f32_s8(t, 4, scale, 0, -128, q.data()) ==
            -1);
      CHECK(q == std::vector<int8_t>{0, 2, 0, -2});
    }
    // Ties and near-ties far from zero (|x / scale| up to 2^23 and beyond)
    // with a zero point that brings them back into range.
    {
      std::vector<float> x;
      for (float v :
           {126.5f, 127.5f, 128.5f, -127.5f, -128.5f, -129.5f, 8388607.5f,
            8388608.0f, 16777216.0f, -8388607.5f, 4194303.5f, -4194304.5f})
        x.push_back(v);
      for (int32_t zp : {-128, -1, 0, 1, 127})
        checkQuantize(x, 1.0f, zp, -127);
    }
  }
}

namespace {

/// The vector paths' way to x / scale (as mixrt_uk_quant_mode in the core):
/// 0 divide, 1 one Markstein step, 2 two steps.
int quantMode(float scale) {
  if (!(scale >= 0x1p-60f && scale <= 0x1p60f))
    return 0;
  const float y = 1.0f / scale;
  const double e = 1.0 - static_cast<double>(scale) * static_cast<double>(y);
  return e <= 0x1p-25 && e >= -0x1p-25 ? 1 : 2;
}

/// Inputs whose quotient by `scale` is at or next to k + 0.5 and k for k in
/// [-260, 260] (RN((k + 0.5) scale) and its neighbours up to 3 ulps away,
/// the tie itself when the product is exact), then specials and random bit
/// patterns.
std::vector<float> adversarialInputs(float scale, std::mt19937 &rng) {
  std::vector<float> x;
  for (int k = -260; k <= 260; ++k) // beyond +-255: the bounds x clamps to
    for (float c : {static_cast<float>(k) + 0.5f, static_cast<float>(k)}) {
      float t = c * scale;
      if (!std::isfinite(t))
        t = std::numeric_limits<float>::max();
      x.push_back(t);
      float up = t, down = t;
      for (int u = 0; u < 3; ++u) {
        up = std::nextafter(up, std::numeric_limits<float>::infinity());
        down = std::nextafter(down, -std::numeric_limits<float>::infinity());
        x.push_back(up);
        x.push_back(down);
      }
    }
  for (uint32_t b : kSpecials)
    x.push_back(f32FromBits(b));
  for (float v :
       {std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
        std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(),
        std::numeric_limits<float>::denorm_min(), 512.0f * scale,
        -512.0f * scale, std::nextafter(512.0f * scale, 0.0f),
        std::nextafter(-512.0f * scale, 0.0f), 256.0f * scale, 255.5f * scale,
        -256.5f * scale, 0.25f * scale, std::nextafter(0.5f * scale, 1.0f)})
    x.push_back(v);
  for (int i = 0; i < 300; ++i)
    x.push_back(f32FromBits(static_cast<uint32_t>(rng())));
  std::shuffle(x.begin() + x.size() / 2, x.end(), rng);
  return x;
}

} // namespace

TEST_CASE("ukernel.quantize_f32_s8 is the division on adversarial inputs",
          "[ukernel]") {
  std::mt19937 rng(21);
  std::vector<float> scales = {
      1.0f, 0.1f, 1.0f / 3.0f, 1.0f / 127.0f, 7.9e-3f, 0.02f, 3.0f,
      // powers of two around and inside [2^-60, 2^60]
      0x1p-149f, 0x1p-127f, 0x1p-126f, 0x1p-61f, 0x1p-60f, 0x1p-59f, 0x1p-1f,
      0x1p1f, 0x1p59f, 0x1p60f, 0x1p61f, 0x1p127f,
      // next to the boundaries of the range without a division
      std::nextafter(0x1p-60f, 0.0f), std::nextafter(0x1p-60f, 1.0f),
      std::nextafter(0x1p60f, 0.0f), std::nextafter(0x1p60f, 1e30f),
      // all-ones significands (RN(x RN(1/scale)) more than 1 ulp off)
      0x1.fffffep-8f, 0x1.fffffep0f, 0x1.fffffep-1f, 0x1.fffffep59f,
      0x1.fffffep-61f, 0x1.fffffep-60f, 0x1.000002p0f, 0x1.7ffffep-3f,
      // subnormal, smallest normal, largest, infinite
      1e-40f, std::numeric_limits<float>::denorm_min(),
      std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
      std::numeric_limits<float>::infinity()};
  // Random normal scales, most inside [2^-60, 2^60].
  for (int i = 0; i < 60; ++i) {
    const uint32_t exponent = 127 - 40 + rng() % 70;
    scales.push_back(f32FromBits(exponent << 23 | (rng() & 0x7fffffu)));
  }
  int modes[3] = {0, 0, 0};
  for (float scale : scales)
    ++modes[quantMode(scale)];
  CHECK(modes[0] > 0); // the division keeps being tested
  CHECK(modes[1] > 0);
  CHECK(modes[2] > 0);
  for (float scale : scales) {
    std::mt19937 inputs(static_cast<uint32_t>(floatBits(scale)));
    const std::vector<float> all = adversarialInputs(scale, inputs);
    for (mixrt_ukernel_isa isa : availablePaths()) {
      IsaScope scope(isa);
      for (int32_t zp : {-128, 0, 3, 127})
        for (int32_t qmin : {-128, -127}) {
          INFO("path " << mixrt_ukernel_isa_name(isa) << " scale "
                       << std::hexfloat << scale << std::defaultfloat
                       << " (mode " << quantMode(scale) << ") zp " << zp
                       << " qmin " << qmin);
          checkQuantize(all, scale, zp, qmin);
          // Lengths with tails, at several offsets.
          for (size_t n : {size_t(1), size_t(15), size_t(17), size_t(33),
                           size_t(47), size_t(95)})
            for (size_t at : {size_t(0), size_t(5), all.size() - n})
              checkQuantize(
                  std::vector<float>(all.begin() + at, all.begin() + at + n),
                  scale, zp, qmin);
        }
    }
  }
}

TEST_CASE("ukernel.quantize_f32_s8 reports the first non-finite element",
          "[ukernel]") {
  std::mt19937 rng(13);
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (int64_t n : {1, 17, 64, 100, 1001}) {
      const std::vector<float> base = manyScales(rng, static_cast<size_t>(n));
      std::vector<std::vector<int64_t>> placements = {
          {0}, {n - 1}, {n / 2}, {n / 2, n - 1}, {n - 1, 0}};
      if (n > 40)
        placements.push_back({n - 3, 33, 34, 35}); // a later vector first
      for (const std::vector<int64_t> &at : placements) {
        for (uint32_t special : {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                 0xffc00001u, 0x7f800001u}) {
          std::vector<float> x = base;
          for (int64_t i : at)
            x[static_cast<size_t>(i)] = f32FromBits(special);
          INFO("n " << n << " first place " << at[0] << " bits " << std::hex
                    << special);
          checkQuantize(x, 0.02f, 3, -128);
          float lo, hi;
          CHECK(mixrt_ukernel_range_f32(x.data(), n, &lo, &hi) ==
                rangeReference(x).first);
        }
      }
    }
  }
  // Bad arguments: -2 and nothing written.
  std::vector<float> x(4, 1.0f);
  std::vector<int8_t> q(4, int8_t(9));
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), -1, 1.0f, 0, -128, q.data()) ==
        -2);
  CHECK(mixrt_ukernel_quantize_f32_s8(nullptr, 4, 1.0f, 0, -128, q.data()) ==
        -2);
  CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), 4, 1.0f, 0, -128, nullptr) ==
        -2);
  for (float scale : {0.0f, -0.0f, -1.0f, -inf, std::nanf("")})
    CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), 4, scale, 0, -128,
                                        q.data()) == -2);
  for (int32_t zp : {-129, 128})
    CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), 4, 1.0f, zp, -128,
                                        q.data()) == -2);
  for (int32_t qmin : {-126, -129, 0})
    CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), 4, 1.0f, 0, qmin, q.data()) ==
          -2);
  CHECK(q == std::vector<int8_t>(4, int8_t(9)));
  CHECK(mixrt_ukernel_quantize_f32_s8(nullptr, 0, 1.0f, 0, -128, nullptr) ==
        -1);
  CHECK(mixrt_ukernel_quantize_f32_s8(x.data(), 4, inf, 0, -128, q.data()) ==
        -1);
  CHECK(q == std::vector<int8_t>(4, int8_t(0))); // 1 / Inf = +0
}

TEST_CASE("ukernel.range and quantize split over threads bit-identically",
          "[ukernel]") {
  std::mt19937 rng(14);
  // Above the 2^21 elements that make a range split (2^20 a quantize,
  // 2^18 on the portable path), in 4 parts per thread: 2 threads cut at
  // multiples of 262272 (n / 8 rounded up to 64), 3 threads of 174848.
  const int64_t n = (int64_t(1) << 21) + 1001;
  const std::vector<float> base = manyScales(rng, static_cast<size_t>(n));
  struct Case {
    const char *name;
    std::vector<std::pair<int64_t, uint32_t>> set;
  };
  const std::vector<Case> cases = {
      {"finite", {}},
      {"-0 only in a later part, all else positive", {}},
      {"Inf in the middle of part 2", {{1500000, 0x7f800000u}}},
      {"-Inf in part 2, +Inf later",
       {{1100000, 0xff800000u}, {2000000, 0x7f800000u}}},
      {"NaN in part 2, Inf in part 1",
       {{1200001, 0xffc01234u}, {800000, 0x7f800000u}}},
      {"NaN at 0 and in the tail", {{0, 0x7fc00000u}, {n - 1, 0x7f800000u}}},
      {"non-finite in the tail only", {{n - 2, 0xff800000u}}},
      {"smallest value in part 2", {{1700000, 0xf149f2cau}}},
  };
  for (mixrt_ukernel_isa isa : availablePaths()) {
    IsaScope scope(isa);
    INFO("path " << mixrt_ukernel_isa_name(isa));
    for (size_t c = 0; c < cases.size(); ++c) {
      INFO(cases[c].name);
      std::vector<float> x = base;
      if (c == 1) {
        for (float &v : x)
          v = std::fabs(v);
        x[1600000] = -0.0f;
      }
      for (auto [i, b] : cases[c].set)
        x[static_cast<size_t>(i)] = f32FromBits(b);
      const RangeRef want = rangeReference(x);
      const QuantRef wantQ = quantizeReference(x, 0.05f, -3, -127);
      for (int32_t threads : {1, 2, 3}) {
        INFO(threads << " threads");
        REQUIRE(mixrt_set_num_threads(threads) == MIXRT_STATUS_OK);
        float lo = -7.0f, hi = -7.0f;
        const int64_t first = mixrt_ukernel_range_f32(x.data(), n, &lo, &hi);
        std::vector<int8_t> q(static_cast<size_t>(n), int8_t(0x5a));
        const int64_t firstQ = mixrt_ukernel_quantize_f32_s8(
            x.data(), n, 0.05f, -3, -127, q.data());
        REQUIRE(mixrt_set_num_threads(1) == MIXRT_STATUS_OK);
        CHECK(first == want.first);
        CHECK(firstQ == want.first);
        if (std::isnan(want.lo)) {
          CHECK(floatBits(lo) == 0x7fc00000u);
          CHECK(floatBits(hi) == 0x7fc00000u);
        } else {
          CHECK(floatBits(lo) == floatBits(want.lo));
          CHECK(floatBits(hi) == floatBits(want.hi));
        }
        CHECK(std::memcmp(q.data(), wantQ.q.data(), q.size()) == 0);
      }
    }
  }
}
