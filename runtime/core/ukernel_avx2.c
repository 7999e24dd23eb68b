/*===-- ukernel_avx2.c - GEMM microkernels: AVX2 + FMA + F16C path --------===*\
|*                                                                            *|
|* f32/f16/bf16 weights: tiles of up to 6 rows x 1 panel (16 columns, 2 ymm) *|
|* or, for M <= 3, 3 rows x 2 panels; A copied row by row per k block,      *|
|* broadcast from the copy, one vfmadd231ps per k, k ascending (k blocks     *|
|* carry the f32 accumulators through C, which is exact), so every output   *|
|* is the chain of the contract.                                             *|
|* int8: the 4-k groups of a panel sign-extended to int16 (vpmovsxbw), one   *|
|* vpmaddwd per 4 columns x 4 k against the row's broadcast 4 k: each 32-bit *|
|* lane holds the sum of 2 products (|sum| <= 32768), the two lanes of a     *|
|* column are added at the end (vphaddd). Never vpmaddubsw (it saturates).   *|
|*                                                                            *|
|* Every function carries target("avx2,fma,f16c"); the dispatcher calls      *|
|* them only on such CPUs. Not compiled beyond x86-64.                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "ukernel_internal.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define UK_T __attribute__((target("avx2,fma,f16c")))
#define UK_INLINE static inline __attribute__((always_inline)) UK_T

/* k per block of the float kernels: a 16 x 256 f32 panel is 16 KB. */
#define UK_KC 256
/* Panels of one block of B (256 columns: 256 KB of f32 at UK_KC). */
#define UK_NCP 16

/* Lanes [0, valid) set, valid in [0, 8]. */
UK_INLINE __m256i laneMask(int64_t valid) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)valid), iota);
}

/* The range from the signed and the unsigned maximum of the bits and 0
 * (vpmaxsd, vpmaxud: 2 instructions a vector, 4 independent pairs), as
 * mixrt_uk_range_f32_avx512 explains. */
UK_T uk_range mixrt_uk_range_f32_avx2(const float *x, int64_t n) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  __m256i u0 = s0, u1 = s0, u2 = s0, u3 = s0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i b0 = _mm256_loadu_si256((const __m256i *)(x + i)),
                  b1 = _mm256_loadu_si256((const __m256i *)(x + i + 8)),
                  b2 = _mm256_loadu_si256((const __m256i *)(x + i + 16)),
                  b3 = _mm256_loadu_si256((const __m256i *)(x + i + 24));
    s0 = _mm256_max_epi32(s0, b0);
    u0 = _mm256_max_epu32(u0, b0);
    s1 = _mm256_max_epi32(s1, b1);
    u1 = _mm256_max_epu32(u1, b1);
    s2 = _mm256_max_epi32(s2, b2);
    u2 = _mm256_max_epu32(u2, b2);
    s3 = _mm256_max_epi32(s3, b3);
    u3 = _mm256_max_epu32(u3, b3);
  }
  for (; i + 8 <= n; i += 8) {
    const __m256i b = _mm256_loadu_si256((const __m256i *)(x + i));
    s0 = _mm256_max_epi32(s0, b);
    u0 = _mm256_max_epu32(u0, b);
  }
  s0 = _mm256_max_epi32(_mm256_max_epi32(s0, s1), _mm256_max_epi32(s2, s3));
  u0 = _mm256_max_epu32(_mm256_max_epu32(u0, u1), _mm256_max_epu32(u2, u3));
  int32_t sv[8];
  uint32_t uv[8];
  _mm256_storeu_si256((__m256i *)(void *)sv, s0);
  _mm256_storeu_si256((__m256i *)(void *)uv, u0);
  int32_t smax = 0;
  uint32_t umax = 0;
  for (int j = 0; j < 8; ++j) {
    smax = sv[j] > smax ? sv[j] : smax;
    umax = uv[j] > umax ? uv[j] : umax;
  }
  for (; i < n; ++i) {
    uint32_t b;
    __builtin_memcpy(&b, x + i, sizeof b);
    smax = (int32_t)b > smax ? (int32_t)b : smax;
    umax = b > umax ? b : umax;
  }
  const uint32_t lo = umax >= 0x80000000u ? umax : 0u, hi = (uint32_t)smax;
  uk_range r;
  __builtin_memcpy(&r.lo, &lo, sizeof lo);
  __builtin_memcpy(&r.hi, &hi, sizeof hi);
  r.negative_zero = umax == 0x80000000u;
  r.non_finite = hi >= 0x7f800000u || umax >= 0xff800000u;
  return r;
}

/* 8 quantized lanes as int32 t in [qmin - zp, 127 - zp], or 0x80000000
 * for a NaN quotient: the int8 result is the low byte of t + zp (then zp
 * for a NaN). The epilogue of mixrt_uk_quantize_f32_s8_avx512 (which
 * explains it): clamp the quotient to [lo, hi] = [qmin - zp, 127 - zp]
 * with the NaN kept (vmaxps / vminps return their second operand on a
 * NaN), then vcvtps2dq rounds to nearest even (the default MXCSR, which
 * the division and the portable path's roundeven assume too); exact
 * integers of at most 255 in magnitude. The division stays: on Zen 4 a
 * multiply by RN(1/scale) with the Markstein correction was slower here
 * (the 256-bit divider keeps up: 9.8 vs 10.8 elements/ns in a standalone
 * loop). */
UK_INLINE __m256i quant8(__m256 v, __m256 scale, __m256 lo, __m256 hi) {
  const __m256 c =
      _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_div_ps(v, scale)));
  return _mm256_cvtps_epi32(c);
}

/* Lanes of v whose exponent is all ones (Inf, NaN), as a mask vector. */
UK_INLINE __m256i nonFinite8(__m256 v) {
  const __m256i e = _mm256_set1_epi32(0x7f800000);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(v), e), e);
}

/* 32 elements: x[0..32) -> out[0..32); a non-finite lane sets *bad. */
UK_INLINE void quant32(const float *x, int8_t *out, __m256 scale, __m256 lo,
                       __m256 hi, __m256i zp8, __m256i *bad) {
  const __m256 v0 = _mm256_loadu_ps(x), v1 = _mm256_loadu_ps(x + 8),
               v2 = _mm256_loadu_ps(x + 16), v3 = _mm256_loadu_ps(x + 24);
  *bad = _mm256_or_si256(
      *bad, _mm256_or_si256(_mm256_or_si256(nonFinite8(v0), nonFinite8(v1)),
                            _mm256_or_si256(nonFinite8(v2), nonFinite8(v3))));
  const __m256i a = quant8(v0, scale, lo, hi), b = quant8(v1, scale, lo, hi),
                c = quant8(v2, scale, lo, hi), d = quant8(v3, scale, lo, hi);
  /* To int16 with saturation (exact: |t| <= 255, a NaN's 0x80000000 gives
   * 0x8000), then the low bytes (and 0xff, packus: no saturation), + zp
   * modulo 256. packs work per 128-bit lane: [a0-3 b0-3 c0-3 d0-3 | a4-7
   * b4-7 c4-7 d4-7], then the dwords go back in order. */
  const __m256i low = _mm256_set1_epi16(0xff);
  const __m256i p =
      _mm256_packus_epi16(_mm256_and_si256(_mm256_packs_epi32(a, b), low),
                          _mm256_and_si256(_mm256_packs_epi32(c, d), low));
  _mm256_storeu_si256(
      (__m256i *)(void *)out,
      _mm256_add_epi8(_mm256_permutevar8x32_epi32(
                          p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)),
                      zp8));
}

UK_T int64_t mixrt_uk_quantize_f32_s8_avx2(const float *x, int64_t n,
                                           const uk_quant *qp, int8_t *out) {
  const __m256 scale = _mm256_set1_ps(qp->scale),
               lo = _mm256_set1_ps((float)(qp->qmin - qp->zero_point)),
               hi = _mm256_set1_ps((float)(127 - qp->zero_point));
  const __m256i zp8 = _mm256_set1_epi8((char)qp->zero_point);
  int64_t first = -1, i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i bad = _mm256_setzero_si256();
    quant32(x + i, out + i, scale, lo, hi, zp8, &bad);
    if (first < 0 && !_mm256_testz_si256(bad, bad))
      for (int64_t j = i;; ++j)
        if (!(x[j] - x[j] == 0.0f)) { /* Inf - Inf, NaN: NaN */
          first = j;
          break;
        }
  }
  if (i < n) {
    /* The tail through a +0-padded copy (+0 is finite). */
    float t[32] = {0};
    int8_t o[32];
    __builtin_memcpy(t, x + i, (size_t)(n - i) * sizeof(float));
    __m256i bad = _mm256_setzero_si256();
    quant32(t, o, scale, lo, hi, zp8, &bad);
    __builtin_memcpy(out + i, o, (size_t)(n - i));
    if (first < 0 && !_mm256_testz_si256(bad, bad))
      for (int64_t j = 0;; ++j)
        if (!(t[j] - t[j] == 0.0f)) {
          first = i + j;
          break;
        }
  }
  return first;
}

/* mixrt_ukernel_conv2d_s8_rescale's row (uk_rescale_fn): 8 sums per step,
 * two f64 products of 4 (exact conversions; each product rounded to f64,
 * then to f32, as the scalar expression),
 * the f32 bias add, an Inf test on |v| (the bits of +Inf), then relu by
 * vmaxps(v, +0) (+0 for -0 and negative v; v is never NaN). The tail as
 * the portable row. */
/* The row of 8 sums per step from int32 (accI) or f32 (accF) sums: one
 * of them is NULL, a constant in each caller below. */
UK_INLINE UK_T int64_t rescaleRow(const int32_t *accI, const float *accF,
                                  int64_t n, double s, float bias, int has_bias,
                                  int relu, float *y) {
  const __m256d sv = _mm256_set1_pd(s);
  const __m256 bv = _mm256_set1_ps(bias), zero = _mm256_setzero_ps();
  const __m256i absMask = _mm256_set1_epi32(0x7fffffff),
                inf = _mm256_set1_epi32(0x7f800000);
  int64_t first = -1, j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256d dlo, dhi;
    if (accF) {
      const __m256 a = _mm256_loadu_ps(accF + j);
      dlo = _mm256_cvtps_pd(_mm256_castps256_ps128(a));
      dhi = _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
    } else {
      const __m256i a =
          _mm256_loadu_si256((const __m256i *)(const void *)(accI + j));
      dlo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(a));
      dhi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1));
    }
    const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(sv, dlo));
    const __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(sv, dhi));
    __m256 v = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    if (has_bias)
      v = _mm256_add_ps(v, bv);
    const __m256i bad = _mm256_cmpeq_epi32(
        _mm256_and_si256(_mm256_castps_si256(v), absMask), inf);
    if (first < 0 && !_mm256_testz_si256(bad, bad))
      first = j + __builtin_ctz(
                      (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(bad)));
    _mm256_storeu_ps(y + j, relu ? _mm256_max_ps(v, zero) : v);
  }
  for (; j < n; ++j) {
    float v = (float)(s * (accF ? (double)accF[j] : (double)accI[j]));
    if (has_bias)
      v = v + bias;
    if (first < 0 && !(v - v == 0.0f))
      first = j;
    y[j] = relu ? uk_relu(v) : v;
  }
  return first;
}

UK_T int64_t mixrt_uk_rescale_s32_avx2(const int32_t *acc, int64_t n, double s,
                                       float bias, int has_bias, int relu,
                                       float *y) {
  return rescaleRow(acc, NULL, n, s, bias, has_bias, relu, y);
}

/* mixrt_ukernel_depthwise_s8_rescale's conversion (uk_s8_to_f32_fn): 8
 * int8 per step (vpmovsxbd, vpsubd, vcvtdq2ps: exact), the tail scalar. */
UK_T void mixrt_uk_s8_to_f32_avx2(const int8_t *x, int64_t n, int32_t zp,
                                  float *out) {
  const __m256i z = _mm256_set1_epi32(zp);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_cvtepi8_epi32(
        _mm_loadl_epi64((const __m128i *)(const void *)(x + i)));
    _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(_mm256_sub_epi32(v, z)));
  }
  for (; i < n; ++i)
    out[i] = (float)((int32_t)x[i] - zp);
}

/* mixrt_ukernel_depthwise_s8_rescale's row (uk_rescale_f32_fn): the same
 * on f32 sums (exact conversions to f64 as well). */
UK_T int64_t mixrt_uk_rescale_f32_avx2(const float *acc, int64_t n, double s,
                                       float bias, int has_bias, int relu,
                                       float *y) {
  return rescaleRow(NULL, acc, n, s, bias, has_bias, relu, y);
}

UK_INLINE __m256 loadPs(const float *p, int64_t valid) {
  return valid >= 8 ? _mm256_loadu_ps(p)
                    : _mm256_maskload_ps(p, laneMask(valid));
}

/* Plain stores for whole vectors: vmaskmovps to memory is microcoded on
 * some AVX2 cores (AMD Zen: about ten times a store's cost), so masked
 * stores are kept for the tails. */
UK_INLINE void storePs(float *p, __m256 v, int64_t valid) {
  if (valid >= 8)
    _mm256_storeu_ps(p, v);
  else
    _mm256_maskstore_ps(p, laneMask(valid), v);
}

UK_INLINE __m256i loadEpi32(const int32_t *p, int64_t valid) {
  return valid >= 8 ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                    : _mm256_maskload_epi32((const int *)p, laneMask(valid));
}

UK_INLINE void storeEpi32(int32_t *p, __m256i v, int64_t valid) {
  if (valid >= 8)
    _mm256_storeu_si256((__m256i *)(void *)p, v);
  else
    _mm256_maskstore_epi32((int *)p, laneMask(valid), v);
}

UK_INLINE __m256 reluCanon(__m256 x, int relu) {
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  if (relu)
    x = _mm256_and_ps(x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NLE_UQ));
  return _mm256_blendv_ps(
      x, _mm256_castsi256_ps(_mm256_set1_epi32((int)UK_CANONICAL_NAN_BITS)),
      nan);
}

/* 8 weights of a panel row as f32: widened exactly, or dequantized (int8:
 * sign-extended, minus the zero points modulo 2^32, converted, times the
 * scales: one rounding, as mix.dequantize). */
UK_INLINE __m256 loadB(const unsigned char *p, const int type, __m256 sc,
                       __m256i zp) {
  if (type == MIXRT_UKERNEL_F32)
    return _mm256_loadu_ps((const float *)(const void *)p);
  if (type == MIXRT_UKERNEL_S8_DEQUANTIZED ||
      type == UK_TYPE_S8_DEQUANTIZED_SYM) {
    __m256i q =
        _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)p));
    if (type == MIXRT_UKERNEL_S8_DEQUANTIZED)
      q = _mm256_sub_epi32(q, zp);
    return _mm256_mul_ps(sc, _mm256_cvtepi32_ps(q));
  }
  const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
  if (type == MIXRT_UKERNEL_F16)
    return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/*===----------------------------------------------------------------------===*\
|* Float weights                                                              *|
\*===----------------------------------------------------------------------===*/

/* Rows of a packed A tile (the largest tile height). */
#define UK_MR 6
/* ... with dequantized int8 weights: 4 x 1 panel (8 accumulators, 2 weight
 * vectors, 2 scales, 2 zero points, the broadcast: 15 of 16 registers);
 * for M <= 2, 2 x 2 panels (8 accumulators, 4 weight vectors: the scales
 * and zero points are read from memory, 4 more independent FMA chains
 * mattered more at M = 1: 8.9 -> 7.2 us at 512 x 256). */
#define UK_MR_S8D 4
/* Floats between two rows of a packed A tile: a k block plus one cache
 * line, so that the rows fall into different L1 sets (rows of A at a
 * power-of-two stride, e.g. 1024 floats, would all alias to one set). */
#define UK_AS (UK_KC + 16)

/* ap[r * UK_AS + kk] = A[m0 + r][k0 + kk] for r < rows, kk < kc: each row
 * copied with 32-byte moves (the tile broadcasts from it at constant
 * offsets, so no transpose is needed). */
static UK_T void packA(const uk_f32_problem *p, int64_t m0, int rows,
                       int64_t k0, int64_t kc, float *ap) {
  for (int r = 0; r < rows; ++r) {
    const float *a = p->A + (m0 + r) * p->lda + k0;
    float *d = ap + r * UK_AS;
    int64_t kk = 0;
    for (; kk + 8 <= kc; kk += 8)
      _mm256_storeu_ps(d + kk, _mm256_loadu_ps(a + kk));
    for (; kk < kc; ++kk)
      d[kk] = a[kk];
  }
}

/* Rows [m0, m0 + R) x panels [q, q + P) over k block [k0, k0 + kc). */
UK_INLINE void tileF32(const int R, const int P, const int type,
                       const uk_f32_problem *p, int64_t m0, int64_t q,
                       int64_t k0, int64_t kc, int first, int last,
                       const float *ap) {
  const int dq = type == MIXRT_UKERNEL_S8_DEQUANTIZED ||
                 type == UK_TYPE_S8_DEQUANTIZED_SYM;
  const int64_t es = type == MIXRT_UKERNEL_F32 ? 4 : dq ? 1 : 2;
  const int64_t n0 = q * UK_NR;
  int64_t valid[4];
#pragma GCC unroll 4
  for (int v = 0; v < 2 * P; ++v) {
    const int64_t left = p->N - n0 - 8 * v;
    valid[v] = left < 0 ? 0 : left > 8 ? 8 : left;
  }
  __m256 acc[6][4];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < 2 * P; ++v)
      acc[r][v] = first
                      ? _mm256_setzero_ps()
                      : loadPs(p->C + (m0 + r) * p->ldc + n0 + 8 * v, valid[v]);
  const int64_t rb = p->row_bytes;
  const unsigned char *b = p->panels + q * p->panel_bytes + k0 * rb;
  /* Dequantized int8: the scales and zero points of the columns. */
  __m256 sc[4];
  __m256i zp[4];
#pragma GCC unroll 4
  for (int v = 0; v < 2 * P; ++v) {
    sc[v] = _mm256_setzero_ps();
    zp[v] = _mm256_setzero_si256();
    if (dq)
      sc[v] = _mm256_loadu_ps(p->w_scales + n0 + 8 * v);
    if (type == MIXRT_UKERNEL_S8_DEQUANTIZED)
      zp[v] = _mm256_loadu_si256(
          (const __m256i *)(const void *)(p->w_zero_points + n0 + 8 * v));
  }
  for (int64_t kk = 0; kk < kc; ++kk, b += rb) {
    __m256 bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 2 * P; ++v)
      bv[v] = loadB(b + (v / 2) * p->panel_bytes + 8 * (v % 2) * es, type,
                    sc[v], zp[v]);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(ap + r * UK_AS + kk);
#pragma GCC unroll 4
      for (int v = 0; v < 2 * P; ++v)
        acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < 2 * P; ++v) {
      if (valid[v] == 0)
        continue;
      float *c = p->C + (m0 + r) * p->ldc + n0 + 8 * v;
      __m256 x = acc[r][v];
      if (last) {
        if (p->bias)
          x = _mm256_add_ps(x, loadPs(p->bias + n0 + 8 * v, valid[v]));
        x = reluCanon(x, p->relu);
      }
      storePs(c, x, valid[v]);
    }
}

#define UK_TYPES(R, P)                                                         \
  switch (type) {                                                              \
  case MIXRT_UKERNEL_F32:                                                      \
    tileF32(R, P, MIXRT_UKERNEL_F32, p, m0, q, k0, kc, first, last, ap);       \
    break;                                                                     \
  case MIXRT_UKERNEL_F16:                                                      \
    tileF32(R, P, MIXRT_UKERNEL_F16, p, m0, q, k0, kc, first, last, ap);       \
    break;                                                                     \
  case MIXRT_UKERNEL_S8_DEQUANTIZED:                                           \
    tileF32(R > UK_MR_S8D ? UK_MR_S8D : R, P, MIXRT_UKERNEL_S8_DEQUANTIZED, p, \
            m0, q, k0, kc, first, last, ap);                                   \
    break;                                                                     \
  case UK_TYPE_S8_DEQUANTIZED_SYM:                                             \
    tileF32(R > UK_MR_S8D ? UK_MR_S8D : R, P, UK_TYPE_S8_DEQUANTIZED_SYM, p,   \
            m0, q, k0, kc, first, last, ap);                                   \
    break;                                                                     \
  default:                                                                     \
    tileF32(R, P, MIXRT_UKERNEL_BF16, p, m0, q, k0, kc, first, last, ap);      \
    break;                                                                     \
  }

static UK_T void runTileF32(int rows, int panels, const uk_f32_problem *p,
                            int64_t m0, int64_t q, int64_t k0, int64_t kc,
                            int first, int last, const float *ap) {
  const int type = p->type == MIXRT_UKERNEL_S8_DEQUANTIZED && !p->w_zero_points
                       ? UK_TYPE_S8_DEQUANTIZED_SYM
                       : (int)p->type;
  if (panels == 2) {
    switch (rows) {
    case 1:
      UK_TYPES(1, 2) break;
    case 2:
      UK_TYPES(2, 2) break;
    default:
      UK_TYPES(3, 2) break;
    }
    return;
  }
  switch (rows) {
  case 1:
    UK_TYPES(1, 1) break;
  case 2:
    UK_TYPES(2, 1) break;
  case 3:
    UK_TYPES(3, 1) break;
  case 4:
    UK_TYPES(4, 1) break;
  case 5:
    UK_TYPES(5, 1) break;
  default:
    UK_TYPES(6, 1) break;
  }
}

UK_T void mixrt_uk_f32_avx2(const uk_f32_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  /* Small M: fewer rows, more columns per tile (independent FMA chains). */
  const int dq = p->type == MIXRT_UKERNEL_S8_DEQUANTIZED;
  const int mr = dq          ? (p->M <= 2 ? 2 : UK_MR_S8D)
                 : p->M <= 3 ? 3
                             : 6,
            pp = p->M <= (dq ? 2 : 3) ? 2 : 1;
  /* The A tile of a k block, row-major at stride UK_AS (6,528 bytes). */
  float ap[UK_MR * UK_AS] __attribute__((aligned(32)));
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t k0 = 0;; k0 += UK_KC) {
      const int64_t kc = p->K - k0 < UK_KC ? p->K - k0 : UK_KC;
      const int end = k0 + kc >= p->K;
      const int first = k0 == 0 && !p->accumulate, last = end && !p->partial;
      for (int64_t m0 = 0; m0 < p->M; m0 += mr) {
        const int rows = p->M - m0 < mr ? (int)(p->M - m0) : mr;
        packA(p, m0, rows, k0, kc, ap);
        int64_t q = qb;
        for (; q + pp <= qe; q += pp)
          runTileF32(rows, pp, p, m0, q, k0, kc, first, last, ap);
        for (; q < qe; ++q)
          runTileF32(rows, 1, p, m0, q, k0, kc, first, last, ap);
      }
      if (end)
        break;
    }
  }
}

/*===----------------------------------------------------------------------===*\
|* Packing the patches of a convolution (stride 1)                            *|
\*===----------------------------------------------------------------------===*/

UK_T void mixrt_uk_conv_pack_avx2(const uk_conv_problem *p, const float *in,
                                  const uk_conv_run *runs, int nruns,
                                  int panels, int64_t k0, int64_t kb,
                                  float *buf) {
  uk_conv_pack_state st;
  uk_conv_ent tab[UK_CONV_TAB];
  mixrt_uk_conv_pack_begin(&st, p, runs, nruns, panels, k0, tab);
  /* Lane j of a half is enabled by bit j of its 8-bit mask: all ones in
   * the lane (vmaskmovps reads the sign bit), by comparing the bit. */
  const __m256i lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  for (int64_t kk = 0; kk < kb; ++kk) {
    const uintptr_t plane = (uintptr_t)(in + st.c * p->H * p->W);
    const uk_conv_ent *row = st.tabled ? tab + st.tap * nruns : NULL;
    for (int t = 0; t < panels; ++t) {
      __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
      for (int i = st.first[t]; i < st.first[t + 1]; ++i) {
        const uk_conv_ent e =
            row ? row[i] : mixrt_uk_conv_entry(p, &runs[i], st.kh, st.kw);
        const float *src =
            (const float *)(plane + (uintptr_t)e.off * sizeof(float));
        if (e.m & 0xffu) {
          const __m256i m = _mm256_cmpeq_epi32(
              _mm256_and_si256(_mm256_set1_epi32((int)(e.m & 0xffu)), lanes),
              lanes);
          lo = _mm256_blendv_ps(lo, _mm256_maskload_ps(src, m),
                                _mm256_castsi256_ps(m));
        }
        if (e.m >> 8) {
          const __m256i m = _mm256_cmpeq_epi32(
              _mm256_and_si256(_mm256_set1_epi32((int)(e.m >> 8)), lanes),
              lanes);
          hi = _mm256_blendv_ps(hi, _mm256_maskload_ps(src + 8, m),
                                _mm256_castsi256_ps(m));
        }
      }
      float *d = buf + t * kb * UK_NR + kk * UK_NR;
      _mm256_store_ps(d, lo);
      _mm256_store_ps(d + 8, hi);
    }
    mixrt_uk_conv_pack_next(&st, p);
  }
}

/*===----------------------------------------------------------------------===*\
|* int8                                                                       *|
\*===----------------------------------------------------------------------===*/

/* 4 bytes of A from k (only `n` of them valid, the rest 0), as 4 int16
 * broadcast to every 64-bit lane. */
UK_INLINE __m256i loadA4(const int8_t *a, int n) {
  int32_t v = 0;
  if (n >= 4)
    __builtin_memcpy(&v, a, 4);
  else
    for (int i = 0; i < n; ++i)
      v |= (int32_t)((uint32_t)(uint8_t)a[i] << (8 * i));
  return _mm256_broadcastq_epi64(_mm_cvtepi8_epi16(_mm_cvtsi32_si128(v)));
}

/* The int32 results of 8 columns [n0, n0 + valid) of row m: finish (zero
 * points) and store, rescaled or not. */
UK_INLINE void epilogueS8(const uk_s8_problem *p, __m256i s, int64_t m,
                          int64_t n0, int64_t valid, int32_t za, uint32_t row) {
  s = _mm256_sub_epi32(
      s,
      _mm256_mullo_epi32(_mm256_set1_epi32(za),
                         _mm256_loadu_si256((
                             const __m256i *)(const void *)(p->colsums + n0))));
  if (p->b_zero_points)
    s = _mm256_sub_epi32(
        s, _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)row),
                              loadEpi32(p->b_zero_points + n0, valid)));
  if (!p->Cf) {
    if (p->accumulate)
      s = _mm256_add_epi32(s, loadEpi32(p->Ci + m * p->ldc + n0, valid));
    storeEpi32(p->Ci + m * p->ldc + n0, s, valid);
    return;
  }
  const __m256d sa = _mm256_set1_pd((double)uk_a_scale(p, m));
  const __m256 sb = loadPs(p->b_scales + n0, valid);
  const __m128 lo = _mm256_cvtpd_ps(_mm256_mul_pd(
      _mm256_mul_pd(sa, _mm256_cvtps_pd(_mm256_castps256_ps128(sb))),
      _mm256_cvtepi32_pd(_mm256_castsi256_si128(s))));
  const __m128 hi = _mm256_cvtpd_ps(_mm256_mul_pd(
      _mm256_mul_pd(sa, _mm256_cvtps_pd(_mm256_extractf128_ps(sb, 1))),
      _mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1))));
  __m256 x = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
  if (p->bias)
    x = _mm256_add_ps(x, loadPs(p->bias + n0, valid));
  storePs(p->Cf + m * p->ldc + n0, reluCanon(x, p->relu), valid);
}

/* Rows [m0, m0 + R) x panel q, all of K. */
UK_INLINE void tileS8(const int R, const uk_s8_problem *p, int64_t m0,
                      int64_t q, const uint32_t *rows) {
  __m256i acc[2][4];
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c)
      acc[r][c] = _mm256_setzero_si256();
  const int8_t *panel = p->panels + q * p->panel_bytes;
  const int8_t *a = p->A + m0 * p->lda;
  const int64_t groups = (p->K + 3) / 4;
  for (int64_t g = 0; g < groups; ++g) {
    const int n = p->K - 4 * g >= 4 ? 4 : (int)(p->K - 4 * g);
    __m256i av[2];
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
      av[r] = loadA4(a + r * p->lda + 4 * g, n);
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128(
          (const __m128i *)(const void *)(panel + g * 64 + c * 16)));
#pragma GCC unroll 2
      for (int r = 0; r < R; ++r)
        acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(b, av[r]));
    }
  }
  const int64_t n0 = q * UK_NR;
#pragma GCC unroll 2
  for (int r = 0; r < R; ++r) {
    const int64_t m = m0 + r;
    const int32_t za = uk_a_zero_point(p, m);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const int64_t left = p->N - n0 - 8 * h;
      if (left <= 0)
        break;
      const __m256i s = _mm256_permute4x64_epi64(
          _mm256_hadd_epi32(acc[r][2 * h], acc[r][2 * h + 1]), 0xd8);
      epilogueS8(p, s, m, n0 + 8 * h, left > 8 ? 8 : left, za, rows[r]);
    }
  }
}

UK_T void mixrt_uk_s8_avx2(const uk_s8_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t m0 = 0; m0 < p->M; m0 += 2) {
      const int rows = p->M - m0 >= 2 ? 2 : 1;
      uint32_t terms[2] = {0, 0};
      if (p->b_zero_points)
        for (int r = 0; r < rows; ++r)
          terms[r] = uk_s8_row_term(p, m0 + r);
      for (int64_t q = qb; q < qe; ++q) {
        if (rows == 2)
          tileS8(2, p, m0, q, terms);
        else
          tileS8(1, p, m0, q, terms);
      }
    }
  }
}

/*===----------------------------------------------------------------------===*\
|* Depthwise convolution                                                      *|
\*===----------------------------------------------------------------------===*/

/* Tap loads of 8 outputs ow0 .. ow0 + 7 (the first `valid`, mask `m`) from
 * row[j * S]: S = 1 a masked load; S = 2 two masked loads of the 2 * valid
 * - 1 floats spanned, deinterleaved (vshufps + vpermpd); otherwise (S = 0)
 * a masked gather of index j * stride. Masked lanes read nothing. */
UK_INLINE __m256 dwLoad(const int S, const float *row, __m256i m, int64_t valid,
                        __m256i gather) {
  if (S == 1)
    return _mm256_maskload_ps(row, m);
  if (S == 2) {
    const int64_t span = 2 * valid - 1;
    const __m256 lo = _mm256_maskload_ps(row, laneMask(span > 8 ? 8 : span));
    const __m256 hi =
        _mm256_maskload_ps(row + 8, laneMask(span > 8 ? span - 8 : 0));
    const __m256 even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), row, gather,
                                  _mm256_castsi256_ps(m), 4);
}

/* Lanes [lo, hi) of 8 (both clamped to [0, 8]). */
UK_INLINE __m256i rangeMask(int64_t lo, int64_t hi) {
  lo = lo < 0 ? 0 : lo > 8 ? 8 : lo;
  hi = hi < 0 ? 0 : hi > 8 ? 8 : hi;
  return _mm256_andnot_si256(laneMask(lo), laneMask(hi));
}

/* The lanes of a border tap load: lane j (of the first `valid`) reads
 * column col + j * sw of an input row of W columns when it lies in [0, W),
 * and is +0 otherwise. S = 1 and S = 0 (the gather): the lanes `a`; S = 2:
 * the positions of the two span loads, `a` and `b`. No division for S = 1
 * and 2. */
typedef struct dwEdge {
  __m256i a, b;
} dwEdge;

UK_INLINE dwEdge dwEdgeMask(const int S, int64_t col, int64_t W, int64_t sw,
                            int64_t valid) {
  dwEdge e;
  if (S == 2) {
    /* Positions [0, 2 * valid - 1) of the span; inside: [plo, phi). */
    const int64_t span = 2 * valid - 1;
    const int64_t plo = col >= 0 ? 0 : -col;
    const int64_t phi = W - col < span ? W - col : span;
    e.a = rangeMask(plo, phi);
    e.b = rangeMask(plo - 8, phi - 8);
    return e;
  }
  int64_t jlo, jhi;
  if (S == 1) {
    jlo = col >= 0 ? 0 : -col;
    jhi = W - col;
  } else {
    jlo = col >= 0 ? 0 : (-col + sw - 1) / sw;
    jhi = W - 1 - col < 0 ? 0 : (W - 1 - col) / sw + 1;
  }
  e.a = rangeMask(jlo, jhi < valid ? jhi : valid);
  e.b = _mm256_setzero_si256();
  return e;
}

/* The border tap load of `row` from column `col` with the lanes of `e`:
 * masked-off lanes read nothing (the address is formed as an integer, as
 * it may lie before the row). */
UK_INLINE __m256 dwLoadEdge(const int S, const float *row, int64_t col,
                            dwEdge e, __m256i gather) {
  const float *base = (const float *)((uintptr_t)row + (uintptr_t)(col * 4));
  if (S == 2) {
    const __m256 lo = _mm256_maskload_ps(base, e.a);
    const __m256 hi = _mm256_maskload_ps(
        (const float *)((uintptr_t)base + 8 * sizeof(float)), e.b);
    const __m256 even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(
        _mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
  }
  if (S == 1)
    return _mm256_maskload_ps(base, e.a);
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, gather,
                                  _mm256_castsi256_ps(e.a), 4);
}

/* R output rows from oh0 of one plane, 8 outputs of a row at a time: per
 * tap (kh, kw ascending) one broadcast weight and R vfmadd231ps. A block
 * whose taps all lie inside the input (`rowsIn`: every tap row of the R
 * rows, and columns [owLo, owHi)) loads them directly; any other block
 * loads +0 for the padded taps (whole rows of zeros, masked-off lanes) and
 * still runs every fma, as the loops do. */
UK_INLINE void dwRows(const int R, const int S, const uk_dw_problem *p,
                      const float *in, const float *w, float *out, int64_t oh0,
                      const float *bias, int rowsIn, int64_t owLo,
                      int64_t owHi) {
  const __m256i gather = _mm256_mullo_epi32(
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)p->sw));
  const int64_t rowStep = p->sh * p->W;
  for (int64_t ow0 = 0; ow0 < p->OW; ow0 += 8) {
    const int64_t valid = p->OW - ow0 < 8 ? p->OW - ow0 : 8;
    const __m256i m = laneMask(valid);
    __m256 acc[4];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      acc[r] = _mm256_setzero_ps();
    if (rowsIn && ow0 >= owLo && ow0 + valid <= owHi) {
      for (int64_t kh = 0; kh < p->KH; ++kh) {
        const float *src = in + (oh0 * p->sh + kh * p->dh - p->pt) * p->W +
                           ow0 * p->sw - p->pl;
        for (int64_t kw = 0; kw < p->KW; ++kw) {
          const __m256 wv = _mm256_set1_ps(w[kh * p->KW + kw]);
          const float *tap = src + kw * p->dw;
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r)
            acc[r] = _mm256_fmadd_ps(
                dwLoad(S, tap + r * rowStep, m, valid, gather), wv, acc[r]);
        }
      }
    } else {
      /* The lanes of each tap column, once per block (up to 8 columns). */
      dwEdge edges[8];
      const int cached = p->KW <= 8;
      if (cached)
        for (int64_t kw = 0; kw < p->KW; ++kw)
          edges[kw] = dwEdgeMask(S, ow0 * p->sw + kw * p->dw - p->pl, p->W,
                                 p->sw, valid);
      for (int64_t kh = 0; kh < p->KH; ++kh) {
        /* Tap rows outside the image read nothing: +0. */
        int rowOk[4];
        const float *rows[4];
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const int64_t ih = (oh0 + r) * p->sh + kh * p->dh - p->pt;
          rowOk[r] = ih >= 0 && ih < p->H;
          rows[r] = rowOk[r] ? in + ih * p->W : in;
        }
        for (int64_t kw = 0; kw < p->KW; ++kw) {
          const __m256 wv = _mm256_set1_ps(w[kh * p->KW + kw]);
          const int64_t col = ow0 * p->sw + kw * p->dw - p->pl;
          const dwEdge e =
              cached ? edges[kw] : dwEdgeMask(S, col, p->W, p->sw, valid);
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) {
            const __m256 x = rowOk[r] ? dwLoadEdge(S, rows[r], col, e, gather)
                                      : _mm256_setzero_ps();
            acc[r] = _mm256_fmadd_ps(x, wv, acc[r]);
          }
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m256 x = acc[r];
      if (bias)
        x = _mm256_add_ps(x, _mm256_set1_ps(*bias));
      storePs(out + (oh0 + r) * p->OW + ow0, x, valid);
    }
  }
}

UK_INLINE void dwPlane(const int S, const uk_dw_problem *p, const float *in,
                       const float *w, float *out, const float *bias,
                       int64_t ohLo, int64_t ohHi, int64_t owLo, int64_t owHi) {
  /* Blocks of 4, 2, 1 rows as without padding (border rows too: one
   * accumulator alone would wait on each fma); a block is inside when all
   * its rows are. */
  int64_t oh = 0;
  for (; oh + 4 <= p->OH; oh += 4)
    dwRows(4, S, p, in, w, out, oh, bias, oh >= ohLo && oh + 4 <= ohHi, owLo,
           owHi);
  if (oh + 2 <= p->OH) {
    dwRows(2, S, p, in, w, out, oh, bias, oh >= ohLo && oh + 2 <= ohHi, owLo,
           owHi);
    oh += 2;
  }
  for (; oh < p->OH; ++oh)
    dwRows(1, S, p, in, w, out, oh, bias, oh >= ohLo && oh < ohHi, owLo, owHi);
}

/* r[j] lane i becomes r[i] lane j (8 x 8 floats). */
UK_INLINE void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  /* u[4h + k], 128-bit lane L: column 4L + k of rows 4h .. 4h + 3. */
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    u[4 * h] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
    u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xee);
    u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
    u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xee);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
    r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
  }
}

/* acc[j] (j < ov; all 8 when `full`) += the taps of the output whose tap
 * 0 is at src[j], ascending. */
UK_INLINE void dwBatchTaps(const int full, int64_t taps, const uk_dw_batch *b,
                           const float *wbuf, const float *const src[8],
                           int64_t ov, __m256 acc[8]) {
  for (int64_t t = 0; t < taps; ++t) {
    const __m256 wv = _mm256_load_ps(wbuf + t * 8);
    const int64_t off = (int64_t)b->toff[t] * 8;
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j)
      if (full || j < ov)
        acc[j] = _mm256_fmadd_ps(_mm256_load_ps(src[j] + off), wv, acc[j]);
  }
}

/* Small planes, 8 at a time (see uk_dw_batch): lane j of every vector is
 * plane i0 + j. */
static UK_T __attribute__((noinline)) void dwBatched(const uk_dw_problem *p,
                                                     const uk_dw_batch *b) {
  const int64_t hw = p->H * p->W, ohw = p->OH * p->OW, taps = p->KH * p->KW;
  /* The padded planes, 8 floats per position; +0 wherever no input
   * element is staged (the same positions for every group). */
  float staged[UK_DWB_POS * 8] __attribute__((aligned(32)));
  float wbuf[UK_DWB_TAPS * 8] __attribute__((aligned(32)));
  for (int64_t i = 0; i < b->positions; ++i)
    _mm256_store_ps(staged + i * 8, _mm256_setzero_ps());
  int64_t c = p->c0;
  for (int64_t i0 = 0; i0 < p->planes; i0 += 8) {
    const int64_t n = p->planes - i0 < 8 ? p->planes - i0 : 8;
    const __m256i lanes = laneMask(n);
    /* Lane j: channel (c0 + i0 + j) mod C. */
    int32_t chan[8];
    for (int j = 0; j < 8; ++j) {
      chan[j] = (int32_t)c;
      if (j < n && ++c == p->C)
        c = 0;
    }
    const __m256i ci = _mm256_loadu_si256((const __m256i *)chan);
    const __m256i wi = _mm256_mullo_epi32(ci, _mm256_set1_epi32((int)taps));
    if (taps <= 16 && chan[0] + n <= p->C) {
      /* Consecutive channels: their weight rows, transposed 8 taps at a
       * time. */
      const float *w0 = p->weight + (int64_t)chan[0] * taps;
      for (int64_t t0 = 0; t0 < taps; t0 += 8) {
        const int64_t tv = taps - t0 < 8 ? taps - t0 : 8;
        __m256 r[8];
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j)
          r[j] = j < n ? loadPs(w0 + j * taps + t0, tv) : _mm256_setzero_ps();
        transpose8(r);
#pragma GCC unroll 8
        for (int t = 0; t < 8; ++t)
          if (t < tv)
            _mm256_store_ps(wbuf + (t0 + t) * 8, r[t]);
      }
    } else {
      for (int64_t t = 0; t < taps; ++t)
        _mm256_store_ps(wbuf + t * 8, _mm256_mask_i32gather_ps(
                                          _mm256_setzero_ps(), p->weight + t,
                                          wi, _mm256_castsi256_ps(lanes), 4));
    }
    __m256 bv = _mm256_setzero_ps();
    if (p->bias)
      bv = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p->bias, ci,
                                    _mm256_castsi256_ps(lanes), 4);
    /* Stage: 8 input elements of the 8 planes, transposed. */
    const float *in = p->input + i0 * hw;
    for (int64_t k0 = 0; k0 < hw; k0 += 8) {
      const int64_t kv = hw - k0 < 8 ? hw - k0 : 8;
      __m256 r[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j)
        r[j] = j < n ? loadPs(in + j * hw + k0, kv) : _mm256_setzero_ps();
      transpose8(r);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j)
        if (j < kv && b->slot[k0 + j] >= 0)
          _mm256_store_ps(staged + (int64_t)b->slot[k0 + j] * 8, r[j]);
    }
    /* 8 outputs of the flattened plane at a time, one vector each. */
    float *out = p->output + i0 * ohw;
    for (int64_t o0 = 0; o0 < ohw; o0 += 8) {
      const int64_t ov = ohw - o0 < 8 ? ohw - o0 : 8;
      const float *src[8];
      __m256 acc[8];
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        src[j] = staged + (int64_t)b->base[j < ov ? o0 + j : o0] * 8;
        acc[j] = _mm256_setzero_ps();
      }
      if (ov == 8)
        dwBatchTaps(1, taps, b, wbuf, src, ov, acc);
      else
        dwBatchTaps(0, taps, b, wbuf, src, ov, acc);
      if (p->bias) {
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j)
          acc[j] = _mm256_add_ps(acc[j], bv);
      }
      transpose8(acc);
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j)
        if (j < n)
          storePs(out + j * ohw + o0, acc[j], ov);
    }
  }
}

UK_INLINE void dwPlanes(const int S, const uk_dw_problem *p) {
  int64_t ohLo, ohHi, owLo, owHi;
  mixrt_uk_dw_inside(p->OH, p->H, p->KH, p->sh, p->dh, p->pt, &ohLo, &ohHi);
  mixrt_uk_dw_inside(p->OW, p->W, p->KW, p->sw, p->dw, p->pl, &owLo, &owHi);
  /* Small planes with a border, at most two vectors wide (MobileNet's
   * 7x7 to 28x28: every vector of a row is a border one) are staged: the
   * taps' extent, padded with +0, into a buffer on the stack (L1), then the
   * interior code runs on it -- the same +0 inputs, so the same fmas and
   * bits. Wider rows take the border blocks above. */
  const int64_t hn = (p->OH - 1) * p->sh + (p->KH - 1) * p->dh + 1;
  const int64_t wn = (p->OW - 1) * p->sw + (p->KW - 1) * p->dw + 1;
  const int border = ohLo > 0 || ohHi < p->OH || owLo > 0 || owHi < p->OW;
  float staged[UK_DW_STAGE];
  uk_dw_problem q = *p;
  if (border && p->OW <= 16 && hn * wn <= UK_DW_STAGE) {
    q.H = hn, q.W = wn, q.pt = 0, q.pl = 0;
  } else {
    q.H = 0; /* not staged */
  }
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * p->KH * p->KW;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    if (q.H > 0) {
      for (int64_t y = 0; y < hn; ++y) {
        /* Columns x0 .. x0 + 8 - 1 of staged row y: input column x - pl
         * of row y - pt where it exists (masked load), +0 elsewhere. */
        const int64_t iy = y - p->pt;
        float *dst = staged + y * wn;
        const int rowIn = iy >= 0 && iy < p->H;
        for (int64_t x0 = 0; x0 < wn; x0 += 8) {
          __m256 v = _mm256_setzero_ps();
          if (rowIn) {
            const float *src = (const float *)((uintptr_t)(in + iy * p->W) +
                                               (uintptr_t)((x0 - p->pl) * 4));
            const __m256i m = rangeMask(p->pl - x0, p->pl + p->W - x0);
            v = _mm256_maskload_ps(src, m);
          }
          storePs(dst + x0, v, wn - x0);
        }
      }
      dwPlane(S, &q, staged, w, out, bias, 0, p->OH, 0, p->OW);
    } else {
      dwPlane(S, p, in, w, out, bias, ohLo, ohHi, owLo, owHi);
    }
    if (++c == p->C)
      c = 0;
  }
}

/* The outputs of an R x NV block of rows from (oh0, ow0), + bias: whole
 * vectors stored plainly, the row tail (the first `valid` of a row)
 * masked. */
UK_INLINE void dwStoreRows(const int R, const int NV, __m256 acc[4][2],
                           const uk_dw_problem *p, float *out, int64_t oh0,
                           int64_t ow0, int64_t valid, const float *bias) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m256 x = acc[r][v];
      if (bias)
        x = _mm256_add_ps(x, _mm256_set1_ps(*bias));
      storePs(out + (oh0 + r) * p->OW + ow0 + 8 * v, x, valid - 8 * v);
    }
}

/* Stride-2 planes from deinterleaved rows (see UK_DW_S2): R output rows
 * from oh0, NV vectors of 8 outputs from ow0 (the first `valid` of them
 * stored). rows[t] is padded row oh0 * sh + t: its even padded columns, then
 * at + pitch its odd ones; tap (kh, kw) of output ow reads padded column
 * 2 * ow + kw * dw: half (kw * dw) & 1, element ow + (kw * dw >> 1) -- unit
 * stride, whole vectors (+0 past the padded row); K = 3 or 5: KW = K and
 * dw = 1 (the taps unrolled), else K = 0. Per tap one broadcast
 * weight and R * NV vfmadd231ps, (kh, kw) ascending from +0, then + bias:
 * the chain of the contract, padded taps included (+0 in the rows). */
UK_INLINE void dwRowsS2(const int K, const int R, const int NV,
                        const uk_dw_problem *p, const float *const *rows,
                        int64_t pitch, const float *w, float *out, int64_t oh0,
                        int64_t ow0, int64_t valid, const float *bias) {
  __m256 acc[4][2];
  const int64_t KW = K ? K : p->KW, dw = K ? 1 : p->dw;
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm256_setzero_ps();
  for (int64_t kh = 0; kh < p->KH; ++kh) {
    const float *src[4];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      src[r] = rows[r * p->sh + kh * p->dh] + ow0;
#pragma GCC unroll 8
    for (int64_t kw = 0; kw < KW; ++kw) {
      const __m256 wv = _mm256_set1_ps(w[kh * KW + kw]);
      const int64_t col = kw * dw;
      const int64_t off = (col & 1) * pitch + (col >> 1);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
          acc[r][v] = _mm256_fmadd_ps(_mm256_loadu_ps(src[r] + off + 8 * v), wv,
                                      acc[r][v]);
    }
  }
  dwStoreRows(R, NV, acc, p, out, oh0, ow0, valid, bias);
}

/* The loads of a deinterleaving vector: whole, or masked at the ends of
 * the row. */
typedef struct dwFillMask {
  __m256i lo, hi;
  int inside;
} dwFillMask;

/* Input row `row` deinterleaved into dst (even padded columns) and dst +
 * pitch (odd ones): the vectors [kLo, kHi) of each half (m[j]: the
 * loads of vector kLo + j), 16 padded columns
 * (two loads, masked at the ends of the row: +0 outside the input) and
 * two vshufps and two vpermpd per vector; the other vectors stay +0. */
UK_INLINE void dwFillS2(const uk_dw_problem *p, const float *row, float *dst,
                        int64_t pitch, int64_t kLo, int64_t kHi,
                        const dwFillMask *m) {
  for (int64_t k0 = kLo, j = 0; k0 < kHi; k0 += 8, ++j) {
    const int64_t x0 = 2 * k0 - p->pl; /* the input column of the first */
    __m256 lo, hi;
    if (m[j].inside) {
      lo = _mm256_loadu_ps(row + x0);
      hi = _mm256_loadu_ps(row + x0 + 8);
    } else {
      /* Masked-off lanes read nothing: the address is formed as an
       * integer, as it may lie before the row. */
      const float *base = (const float *)((uintptr_t)row + (uintptr_t)(x0 * 4));
      lo = _mm256_maskload_ps(base, m[j].lo);
      hi = _mm256_maskload_ps(
          (const float *)((uintptr_t)base + 8 * sizeof(float)), m[j].hi);
    }
    const __m256d even = _mm256_castps_pd(
                      _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))),
                  odd = _mm256_castps_pd(
                      _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm256_storeu_ps(dst + k0, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                   even, _MM_SHUFFLE(3, 1, 2, 0))));
    _mm256_storeu_ps(dst + pitch + k0, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                           odd, _MM_SHUFFLE(3, 1, 2, 0))));
  }
}

/* The R output rows from oh of a stride-2 plane on their tap rows `rows`:
 * 16 outputs of a row at a time (8 accumulators), 8 for the last ones. */
UK_INLINE void dwBlockS2(const int K, const int R, const uk_dw_problem *p,
                         const float *const *rows, int64_t pitch,
                         const float *w, float *out, int64_t oh,
                         const float *bias) {
  int64_t ow0 = 0;
  if (R == 4) {
    for (; ow0 + 8 < p->OW; ow0 += 16)
      dwRowsS2(K, 4, 2, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 16 ? p->OW - ow0 : 16, bias);
    if (ow0 < p->OW)
      dwRowsS2(K, 4, 1, p, rows, pitch, w, out, oh, ow0, p->OW - ow0, bias);
  } else if (R == 2) {
    for (; ow0 + 8 < p->OW; ow0 += 16)
      dwRowsS2(K, 2, 2, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 16 ? p->OW - ow0 : 16, bias);
    if (ow0 < p->OW)
      dwRowsS2(K, 2, 1, p, rows, pitch, w, out, oh, ow0, p->OW - ow0, bias);
  } else {
    for (; ow0 < p->OW; ow0 += 8)
      dwRowsS2(K, 1, 1, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 8 ? p->OW - ow0 : 8, bias);
  }
}

/* The stride-2 planes (sw = 2), when the tap rows of 4 output rows fit
 * UK_DW_S2 with a row of +0: the padded rows are deinterleaved once each
 * into a ring of `nr` slots as the blocks of 4, 2, 1 output rows move down
 * the plane (the padding rows are the row of +0), then the blocks run on
 * them (16 outputs of a row at a time, 8 accumulators; 8 for the last). */
static UK_T __attribute__((noinline)) int dwPlanesS2(const uk_dw_problem *p) {
  const int64_t off = (p->KW - 1) * p->dw >> 1;
  const int64_t pitch = ((p->OW + 15) & ~(int64_t)15) + ((off + 15) & ~15);
  if (p->OW > UK_DW_S2 || off > UK_DW_S2 || p->sh > UK_DW_S2 ||
      p->KH > UK_DW_S2 || p->dh > UK_DW_S2)
    return 0;
  const int64_t nr = 3 * p->sh + (p->KH - 1) * p->dh + 1;
  /* At most UK_DW_S2 / 10 floats per half (nr >= 4): at most
   * UK_DW_S2 / 80 vectors of 8, the size of `masks`. */
  if ((nr + 1) * 2 * pitch > UK_DW_S2)
    return 0;
  float buf[UK_DW_S2] __attribute__((aligned(64)));
  const float *rows[UK_DW_S2 / 32];
  const float *zero = buf + nr * 2 * pitch;
  for (int64_t k = 0; k < (nr + 1) * 2 * pitch; k += 8)
    _mm256_storeu_ps(buf + k, _mm256_setzero_ps());
  /* The vectors of a half that hold input columns. */
  int64_t kLo = 0, kHi = 0;
  while (kLo < pitch && 2 * kLo - p->pl + 16 <= 0)
    kLo += 8;
  while (kHi < pitch && 2 * kHi - p->pl < p->W)
    kHi += 8;
  dwFillMask masks[UK_DW_S2 / 80];
  for (int64_t k0 = kLo, j = 0; k0 < kHi; k0 += 8, ++j) {
    const int64_t x0 = 2 * k0 - p->pl;
    masks[j].inside = x0 >= 0 && x0 + 16 <= p->W;
    masks[j].lo = rangeMask(-x0, p->W - x0);
    masks[j].hi = rangeMask(-x0 - 8, p->W - x0 - 8);
  }
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * p->KH * p->KW;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    /* Padded rows [0, next) are filled, row `next` goes to slot `slot`;
     * row oh * sh is in slot `base`. */
    int64_t next = 0, slot = 0, base = 0;
    for (int64_t oh = 0; oh < p->OH;) {
      const int R = p->OH - oh >= 4 ? 4 : p->OH - oh >= 2 ? 2 : 1;
      const int64_t y0 = oh * p->sh;
      const int64_t span = (R - 1) * p->sh + (p->KH - 1) * p->dh + 1;
      for (; next < y0 + span; ++next) {
        const int64_t iy = next - p->pt;
        if (next >= y0 && iy >= 0 && iy < p->H)
          dwFillS2(p, in + iy * p->W, buf + slot * 2 * pitch, pitch, kLo, kHi,
                   masks);
        if (++slot == nr)
          slot = 0;
      }
      for (int64_t t = 0, s = base; t < span; ++t) {
        const int64_t iy = y0 + t - p->pt;
        rows[t] = iy >= 0 && iy < p->H ? buf + s * 2 * pitch : zero;
        if (++s == nr)
          s = 0;
      }
      if (p->KW == 3 && p->dw == 1)
        dwBlockS2(3, R, p, rows, pitch, w, out, oh, bias);
      else if (p->KW == 5 && p->dw == 1)
        dwBlockS2(5, R, p, rows, pitch, w, out, oh, bias);
      else
        dwBlockS2(0, R, p, rows, pitch, w, out, oh, bias);
      oh += R;
      base += R * p->sh;
      while (base >= nr)
        base -= nr;
    }
    if (++c == p->C)
      c = 0;
  }
  return 1;
}

/* Stride-1 planes with the input rows streamed through register-blocked
 * output rows (sh = sw = 1, dh = dw = 1, KH = KW = K, 3 or 5): R output
 * rows from oh0, 8 * NV outputs from ow0 (the first `valid` stored).
 * src[t] points at column x = ow0 - pl of input row oh0 + t - pt (or
 * `zero`, a row of +0, for the padding rows). Per input row (t ascending)
 * and tap column kw NV loads of 8 columns from x + kw -- whole when `E` = 0
 * (every column inside the row), else (NV = 1) masked by m[kw] (+0
 * outside) -- used by every output row of the block whose taps read it
 * (kh = t - r): one vfmadd231ps per output row and vector with the
 * broadcast weight (wv[kh * K + kw] for K = 3), (kh, kw) ascending from
 * +0, then + bias -- the chain of the contract, padded taps included (+0
 * lanes). NV = 2 keeps 8 chains in flight (4 rows x 2 vectors): enough to
 * hide the fma latency, which 4 chains are not. */
UK_INLINE void dwRowsS1(const int K, const int R, const int E, const int NV,
                        const uk_dw_problem *p, const float *const *src,
                        const __m256i *m, const float *w, const __m256 *wv,
                        float *out, int64_t oh0, int64_t ow0, int64_t valid,
                        const float *bias) {
  __m256 acc[4][2];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm256_setzero_ps();
#pragma GCC unroll 8
  for (int t = 0; t < R - 1 + K; ++t)
#pragma GCC unroll 5
    for (int kw = 0; kw < K; ++kw) {
      /* As an integer: column x + kw may lie before the row (masked
       * off). */
      const float *tap =
          (const float *)((uintptr_t)src[t] + (uintptr_t)(kw * 4));
      __m256 x[2];
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v)
        x[v] =
            E ? _mm256_maskload_ps(tap, m[kw]) : _mm256_loadu_ps(tap + 8 * v);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const int kh = t - r;
        if (kh < 0 || kh >= K)
          continue;
        const __m256 wk =
            K == 3 ? wv[kh * K + kw] : _mm256_set1_ps(w[kh * K + kw]);
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
          acc[r][v] = _mm256_fmadd_ps(x[v], wk, acc[r][v]);
      }
    }
  dwStoreRows(R, NV, acc, p, out, oh0, ow0, valid, bias);
}

/* The R output rows from oh of a stride-1 plane: the tap rows' pointers,
 * then for 3x3 16 outputs of a row at a time where the 18 columns they
 * span lie inside the row (whole loads), else 8 (whole loads where their
 * 8 + K - 1 columns do, masked ones at the ends of the row; 5x5 always 8:
 * 16 measured 5% slower there, register pressure). */
UK_INLINE void dwBlockS1(const int K, const int R, const uk_dw_problem *p,
                         const float *in, const float *w, const __m256 *wv,
                         float *out, int64_t oh, const float *bias,
                         const float *zero) {
  const float *rows[4 - 1 + 5];
  for (int t = 0; t < R - 1 + K; ++t) {
    const int64_t iy = oh + t - p->pt;
    rows[t] = iy >= 0 && iy < p->H ? in + iy * p->W : NULL;
  }
  for (int64_t ow0 = 0; ow0 < p->OW;) {
    const int64_t valid = p->OW - ow0 < 8 ? p->OW - ow0 : 8;
    const int64_t x = ow0 - p->pl;
    const float *src[4 - 1 + 5];
    for (int t = 0; t < R - 1 + K; ++t)
      src[t] = rows[t]
                   ? (const float *)((uintptr_t)rows[t] + (uintptr_t)(x * 4))
                   : zero;
    if (K == 3 && ow0 + 16 <= p->OW && x >= 0 && x + 16 + K - 1 <= p->W) {
      dwRowsS1(K, R, 0, 2, p, src, NULL, w, wv, out, oh, ow0, 16, bias);
      ow0 += 16;
      continue;
    }
    if (x >= 0 && x + 8 + K - 1 <= p->W) {
      dwRowsS1(K, R, 0, 1, p, src, NULL, w, wv, out, oh, ow0, valid, bias);
    } else {
      __m256i m[5];
      for (int kw = 0; kw < K; ++kw)
        m[kw] = rangeMask(-x - kw, p->W - x - kw);
      dwRowsS1(K, R, 1, 1, p, src, m, w, wv, out, oh, ow0, valid, bias);
    }
    ow0 += 8;
  }
}

/* The stride-1 planes of dwRowsS1: blocks of 4, 2, 1 output rows down each
 * plane. The stack: a row of 24 +0 floats (what 16 outputs of a 5-wide
 * window read: 20 columns). */
UK_INLINE void dwPlanesS1(const int K, const uk_dw_problem *p) {
  float zero[24] __attribute__((aligned(32)));
  for (int k = 0; k < 24; k += 8)
    _mm256_store_ps(zero + k, _mm256_setzero_ps());
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * K * K;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    __m256 wv[9];
    if (K == 3)
      for (int k = 0; k < 9; ++k)
        wv[k] = _mm256_set1_ps(w[k]);
    int64_t oh = 0;
    for (; oh + 4 <= p->OH; oh += 4)
      dwBlockS1(K, 4, p, in, w, wv, out, oh, bias, zero);
    if (oh + 2 <= p->OH) {
      dwBlockS1(K, 2, p, in, w, wv, out, oh, bias, zero);
      oh += 2;
    }
    if (oh < p->OH)
      dwBlockS1(K, 1, p, in, w, wv, out, oh, bias, zero);
    if (++c == p->C)
      c = 0;
  }
}

static UK_T __attribute__((noinline)) void
dwPlanesS1K3(const uk_dw_problem *p) {
  dwPlanesS1(3, p);
}

static UK_T __attribute__((noinline)) void
dwPlanesS1K5(const uk_dw_problem *p) {
  dwPlanesS1(5, p);
}

UK_T void mixrt_uk_dw_avx2(const uk_dw_problem *p) {
  uk_dw_batch batch;
  if (mixrt_uk_dw_batch_init(p, &batch))
    dwBatched(p, &batch);
  else if (p->sw == 1 && p->sh == 1 && p->dw == 1 && p->dh == 1 &&
           p->KH == p->KW && (p->KW == 3 || p->KW == 5) && p->H > 0 && p->W > 0)
    p->KW == 3 ? dwPlanesS1K3(p) : dwPlanesS1K5(p);
  else if (p->sw == 1)
    dwPlanes(1, p);
  else if (p->sw == 2 && dwPlanesS2(p))
    ;
  else if (p->sw == 2)
    dwPlanes(2, p);
  else if (p->sw <= (1 << 27))
    dwPlanes(0, p); /* 7 * stride fits the gather's int32 index */
  else
    mixrt_uk_dw_portable(p);
}

/* The int8 convolution's interleave (uk_conv_s8_interleave_fn): per panel
 * and quad of k, 4 rows of 16 bytes become the 64 bytes of 16 columns x 4
 * k (two rounds of unpacks), and their column sums are added widened to
 * int32. */
UK_T void mixrt_uk_conv_s8_interleave_avx2(const int8_t *t, int64_t pitch,
                                           int64_t rows, int panels,
                                           int64_t panel_bytes, int8_t *out,
                                           int32_t *sums, int add) {
  for (int q = 0; q < panels; ++q) {
    int8_t *panel = out + q * panel_bytes;
    __m256i *cs = (__m256i *)(void *)(sums + q * UK_NR);
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    if (add) {
      lo = _mm256_loadu_si256(cs);
      hi = _mm256_loadu_si256(cs + 1);
    }
    for (int64_t k = 0; k < rows; k += 4) {
      const int8_t *src = t + k * pitch + q * UK_NR;
      const __m128i r0 = _mm_loadu_si128((const __m128i *)(const void *)src);
      const __m128i r1 =
          _mm_loadu_si128((const __m128i *)(const void *)(src + pitch));
      const __m128i r2 =
          _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * pitch));
      const __m128i r3 =
          _mm_loadu_si128((const __m128i *)(const void *)(src + 3 * pitch));
      const __m128i a = _mm_unpacklo_epi8(r0, r1),
                    b = _mm_unpacklo_epi8(r2, r3);
      const __m128i c = _mm_unpackhi_epi8(r0, r1),
                    d = _mm_unpackhi_epi8(r2, r3);
      __m128i *dst = (__m128i *)(void *)(panel + k * UK_NR);
      _mm_storeu_si128(dst, _mm_unpacklo_epi16(a, b));
      _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(a, b));
      _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(c, d));
      _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(c, d));
      /* At most 4 x 128 in magnitude: exact in int16. */
      const __m256i s = _mm256_add_epi16(
          _mm256_add_epi16(_mm256_cvtepi8_epi16(r0), _mm256_cvtepi8_epi16(r1)),
          _mm256_add_epi16(_mm256_cvtepi8_epi16(r2), _mm256_cvtepi8_epi16(r3)));
      lo = _mm256_add_epi32(lo,
                            _mm256_cvtepi16_epi32(_mm256_castsi256_si128(s)));
      hi = _mm256_add_epi32(
          hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(s, 1)));
    }
    _mm256_storeu_si256(cs, lo);
    _mm256_storeu_si256(cs + 1, hi);
  }
}

/*===----------------------------------------------------------------------===*\
|* Grouped convolutions: a band's tiles (mixrt_uk_gconv_avx2) and copy        *|
\*===----------------------------------------------------------------------===*/

/* Positions [q0, q0 + 8 * V) of FR filters (FR x V ymm accumulators), as
 * gcTile of ukernel_avx512.c. */
UK_INLINE void gcTile(const uk_gconv_tile *t, int64_t q0, const int FR,
                      const int V, int64_t row, int64_t col) {
  __m256 acc[UK_GC_FR_AVX2][3];
#pragma GCC unroll 4
  for (int i = 0; i < FR; ++i)
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v)
      acc[i][v] = _mm256_setzero_ps();
  const float *src = t->band + q0;
  const float *w[UK_GC_FR_AVX512];
#pragma GCC unroll 8
  for (int i = 0; i < FR; ++i)
    w[i] = t->w + i * t->ws;
  for (int64_t c = 0, kk = 0; c < t->cg; ++c, src += t->plane)
    for (int64_t k = 0; k < t->taps; ++k, ++kk) {
      const float *x = src + t->toff[k];
      __m256 xv[3];
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v)
        xv[v] = _mm256_loadu_ps(x + 8 * v);
#pragma GCC unroll 4
      for (int i = 0; i < FR; ++i) {
        const __m256 wv = _mm256_broadcast_ss(w[i] + kk);
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm256_fmadd_ps(wv, xv[v], acc[i][v]);
      }
    }
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 3
  for (int v = 0; v < V; ++v) {
    int l0[8], len[8];
    int64_t at[8];
    const int segs = mixrt_uk_gc_segments(t, row, col, 8, l0, len, at);
    for (col += 8; col >= t->wp; col -= t->wp)
      ++row;
#pragma GCC unroll 4
    for (int i = 0; i < FR; ++i) {
      __m256 x = acc[i][v];
      if (t->bias)
        x = _mm256_add_ps(x, _mm256_set1_ps(t->bias[i]));
      if (t->relu)
        x = _mm256_and_ps(x,
                          _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NLE_UQ));
      float *out = t->out + i * t->out_plane;
      for (int s = 0; s < segs; ++s) {
        if (l0[s] == 0 && len[s] == 8) {
          _mm256_storeu_ps(out + at[s], x);
          continue;
        }
        const __m256 y = _mm256_permutevar8x32_ps(
            x, _mm256_add_epi32(iota, _mm256_set1_epi32(l0[s])));
        _mm256_maskstore_ps(out + at[s], laneMask(len[s]), y);
      }
    }
  }
}

/* Row i of channel c's phase planes (ri, 0) and (ri, 1) of stride 2 (x0[1]
 * = x0[0] + 1), as the AVX-512 copy: per 8 columns of each, 16 floats
 * (masked loads) split into even and odd lanes; stores stop at wp. */
UK_INLINE UK_T void gcFillPairs(const uk_gconv_fill *f, int64_t c, int ri,
                                int64_t i) {
  float *d = f->band + c * f->plane + ri * 2 * f->ps + i * f->wp;
  const int64_t ih = f->ih0[ri] < f->H ? f->ih0[ri] + i * f->sh : f->H;
  const int inside = ih >= 0 && ih < f->H;
  const uintptr_t src =
      inside ? (uintptr_t)(f->in + (c * f->H + ih) * f->W) : 0;
  for (int64_t j = 0; j < f->wp; j += 8) {
    const __m256i m = laneMask(f->wp - j < 8 ? f->wp - j : 8);
    __m256 even = _mm256_setzero_ps(), odd = even;
    if (inside) {
      const int64_t x = f->x0[0] + 2 * j;
      int64_t l0, h0, l1, h1;
      mixrt_uk_gc_lanes(x, 1, f->W, 8, &l0, &h0);
      mixrt_uk_gc_lanes(x + 8, 1, f->W, 8, &l1, &h1);
      const __m256 a =
          _mm256_maskload_ps((const float *)(src + (uintptr_t)x * 4),
                             _mm256_andnot_si256(laneMask(l0), laneMask(h0)));
      const __m256 b =
          _mm256_maskload_ps((const float *)(src + (uintptr_t)(x + 8) * 4),
                             _mm256_andnot_si256(laneMask(l1), laneMask(h1)));
      /* a0 a2 b0 b2 | a4 a6 b4 b6 -> a0 a2 a4 a6 b0 b2 b4 b6; odd alike. */
      even = _mm256_castpd_ps(_mm256_permute4x64_pd(
          _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
          _MM_SHUFFLE(3, 1, 2, 0)));
      odd = _mm256_castpd_ps(_mm256_permute4x64_pd(
          _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))),
          _MM_SHUFFLE(3, 1, 2, 0)));
    }
    _mm256_maskstore_ps(d + j, m, even);
    _mm256_maskstore_ps(d + f->ps + j, m, odd);
  }
}

/* The band copy (uk_gconv_fill), as mixrt_uk_gconv_fill_avx512: 8
 * columns a store (x + l * sw, +0 outside [0, W)), stride 1 a masked load,
 * stride 2 in both directions the paired rows above, else a masked gather;
 * masked-off lanes touch no memory. */
UK_T void mixrt_uk_gconv_fill_avx2(const uk_gconv_fill *f) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256i idx = _mm256_mullo_epi32(
      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)f->sw));
  if (f->sw == 2 && f->ncp == 2) {
    for (int64_t c = 0; c < f->cg; ++c)
      for (int64_t i = 0; i < f->rows; ++i)
        for (int ri = 0; ri < f->nrp; ++ri)
          gcFillPairs(f, c, ri, i);
  } else {
    for (int64_t c = 0; c < f->cg; ++c)
      for (int ri = 0; ri < f->nrp; ++ri)
        for (int ci = 0; ci < f->ncp; ++ci) {
          float *d0 = f->band + c * f->plane + (ri * f->ncp + ci) * f->ps;
          for (int64_t i = 0; i < f->rows; ++i) {
            float *d = d0 + i * f->wp;
            /* ih0 < H first: ih0 + i * sh cannot overflow then. */
            const int64_t ih =
                f->ih0[ri] < f->H ? f->ih0[ri] + i * f->sh : f->H;
            if (ih < 0 || ih >= f->H) {
              for (int64_t j = 0; j < f->wp; j += 8)
                _mm256_storeu_ps(d + j, zero);
              continue;
            }
            const uintptr_t src = (uintptr_t)(f->in + (c * f->H + ih) * f->W);
            for (int64_t j = 0; j < f->wp; j += 8) {
              const int64_t x = f->x0[ci] + j * f->sw;
              int64_t lo, hi;
              mixrt_uk_gc_lanes(x, f->sw, f->W, 8, &lo, &hi);
              const __m256i m = _mm256_andnot_si256(laneMask(lo), laneMask(hi));
              const void *at = (const void *)(src + (uintptr_t)x * 4);
              _mm256_storeu_ps(
                  d + j, f->sw == 1 ? _mm256_maskload_ps((const float *)at, m)
                                    : _mm256_mask_i32gather_ps(
                                          zero, (const float *)at, idx,
                                          _mm256_castsi256_ps(m), 4));
            }
          }
        }
  }
  float *slack = f->band + f->cg * f->plane;
  for (int64_t j = 0; j < 16 + f->wp; j += 8)
    _mm256_maskstore_ps(
        slack + j, laneMask(16 + f->wp - j < 8 ? 16 + f->wp - j : 8), zero);
}

#define UK_GC_TILE(FR)                                                         \
  case FR:                                                                     \
    if (V == 3)                                                                \
      gcTile(t, q0, FR, 3, row, col);                                          \
    else if (V == 2)                                                           \
      gcTile(t, q0, FR, 2, row, col);                                          \
    else                                                                       \
      gcTile(t, q0, FR, 1, row, col);                                          \
    break;

UK_T void mixrt_uk_gconv_avx2(const uk_gconv_tile *t) {
  const int64_t vectors = (t->nq + 7) / 8;
  int64_t row = 0, col = 0;
  for (int64_t v0 = 0; v0 < vectors; v0 += 3) {
    const int V = vectors - v0 >= 3 ? 3 : (int)(vectors - v0);
    const int64_t q0 = v0 * 8;
    switch (t->fr) {
      UK_GC_TILE(1)
      UK_GC_TILE(2)
      UK_GC_TILE(3)
      UK_GC_TILE(4)
    default:
      break;
    }
    for (col += 24; col >= t->wp; col -= t->wp)
      ++row;
  }
}
#undef UK_GC_TILE

#else
/* ISO C forbids an empty translation unit. */
typedef int mixrt_uk_avx2_unused;
#endif
