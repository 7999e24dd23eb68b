/*===-- ukernel_avx512.c - GEMM microkernels: AVX-512 and VNNI paths ------===*\
|*                                                                            *|
|* f32/f16/bf16 weights: tiles of up to 14 rows x 2 panels (one zmm per      *|
|* panel and row: 28 accumulators), or for M <= 4 and a tail of at most 4    *|
|* rows up to 4 rows x 4 panels; A copied row by row per k block, broadcast  *|
|* from the copy, one vfmadd231ps per k, k ascending, k blocks carried       *|
|* through C (exact), so every output is the chain of the contract.          *|
|* int8 without VNNI: vpmovsxbw + vpmaddwd as on AVX2, 8 columns per zmm.    *|
|* int8 with VNNI: vpdpbusd on (A + 128) as u8 x B as s8 (exact: no         *|
|* saturation, products <= 255 * 128), starting from -(128 + za) * colsum,  *|
|* the column sums packed with B. Sums are modulo 2^32 like every int8 sum  *|
|* here: exact whenever the exact result fits in int32. For K <= 1024 the   *|
|* rows of A of a tile are first copied flipped (+128) at a fixed stride.   *|
|* Rows are balanced over the tiles (at most 14 a tile, 13 when A is read   *|
|* in place), so no short tail tile.                                        *|
|*                                                                            *|
|* Functions carry target attributes; the dispatcher calls them only on     *|
|* CPUs (and OSes) with AVX-512 F/BW/DQ/VL (+ VNNI). x86-64 only.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "ukernel_internal.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define UK_T                                                                   \
  __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl")))
#define UK_TV                                                                  \
  __attribute__((                                                              \
      target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))
#define UK_INLINE static inline __attribute__((always_inline))

/* k per block of the float kernels (a 2-panel f32 slice is 32 KB) and
 * panels per block of B (512 columns: 512 KB of f32, half an L2 of the
 * AVX-512 cores measured; 256 columns lost ~10 % at 1024^3). */
#define UK_KC 256
#define UK_NCP 32
/* int8 with VNNI: K up to UK_S8_KA copies A's rows of a tile, flipped,
 * UK_S8_AS bytes apart (not a multiple of 4 KiB: no aliasing of rows). */
#define UK_S8_KA 1024
#define UK_S8_AS (UK_S8_KA + 64)

UK_INLINE UK_T __mmask16 colMask(int64_t valid) {
  return valid >= 16 ? (__mmask16)0xffff
                     : (__mmask16)((1u << (valid < 0 ? 0 : valid)) - 1u);
}

UK_INLINE UK_T __m512 reluCanon(__m512 x, int relu) {
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  if (relu)
    x = _mm512_maskz_mov_ps(
        _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NLE_UQ), x);
  return _mm512_mask_mov_ps(
      x, nan,
      _mm512_castsi512_ps(_mm512_set1_epi32((int)UK_CANONICAL_NAN_BITS)));
}

/* 16 weights of a panel row as f32: widened exactly, or dequantized (int8:
 * sign-extended, minus the zero points modulo 2^32, converted, times the
 * scales: one rounding, as mix.dequantize). */
UK_INLINE UK_T __m512 loadB(const unsigned char *p, const int type, __m512 sc,
                            __m512i zp) {
  if (type == MIXRT_UKERNEL_F32)
    return _mm512_loadu_ps(p);
  if (type == MIXRT_UKERNEL_S8_DEQUANTIZED ||
      type == UK_TYPE_S8_DEQUANTIZED_SYM) {
    __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p));
    if (type == MIXRT_UKERNEL_S8_DEQUANTIZED)
      q = _mm512_sub_epi32(q, zp);
    return _mm512_mul_ps(sc, _mm512_cvtepi32_ps(q));
  }
  const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)p);
  if (type == MIXRT_UKERNEL_F16)
    return _mm512_cvtph_ps(h);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/*===----------------------------------------------------------------------===*\
|* Float weights                                                              *|
\*===----------------------------------------------------------------------===*/

/* Rows of a packed A tile (the largest tile height). */
#define UK_MR 14
/* ... with dequantized int8 weights: 12 x 2 panels (24 accumulators, 2
 * weight vectors, 2 scales, 2 zero points, the broadcast: no spills). */
#define UK_MR_S8D 12
/* Floats between two rows of a packed A tile: a k block plus one cache
 * line, so that the rows fall into different L1 sets (rows of A at a
 * power-of-two stride, e.g. 1024 floats, would all alias to one set). */
#define UK_AS (UK_KC + 16)

/* ap[r * UK_AS + kk] = A[m0 + r][k0 + kk] for r < rows, kk < kc: each row
 * copied with 64-byte moves (the tile broadcasts from it at constant
 * offsets, so no transpose is needed). */
static UK_T void packA(const uk_f32_problem *p, int64_t m0, int rows,
                       int64_t k0, int64_t kc, float *ap) {
  const __mmask16 tail = colMask(kc % 16);
  for (int r = 0; r < rows; ++r) {
    const float *a = p->A + (m0 + r) * p->lda + k0;
    float *d = ap + r * UK_AS;
    int64_t kk = 0;
    for (; kk + 16 <= kc; kk += 16)
      _mm512_storeu_ps(d + kk, _mm512_loadu_ps(a + kk));
    if (kk < kc)
      _mm512_mask_storeu_ps(d + kk, tail, _mm512_maskz_loadu_ps(tail, a + kk));
  }
}

UK_INLINE UK_T void tileF32(const int R, const int P, const int type,
                            const uk_f32_problem *p, int64_t m0, int64_t q,
                            int64_t k0, int64_t kc, int first, int last,
                            const float *ap) {
  const int64_t n0 = q * UK_NR;
  __mmask16 mask[4];
#pragma GCC unroll 4
  for (int v = 0; v < P; ++v)
    mask[v] = colMask(p->N - n0 - 16 * v);
  __m512 acc[14][4];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v)
      acc[r][v] = first ? _mm512_setzero_ps()
                        : _mm512_maskz_loadu_ps(
                              mask[v], p->C + (m0 + r) * p->ldc + n0 + 16 * v);
  const int64_t rb = p->row_bytes;
  const unsigned char *b = p->panels + q * p->panel_bytes + k0 * rb;
  const int64_t pb = p->panel_bytes;
  /* Dequantized int8: the panels' scales and zero points. */
  __m512 sc[4];
  __m512i zp[4];
#pragma GCC unroll 4
  for (int v = 0; v < P; ++v) {
    sc[v] = _mm512_setzero_ps();
    zp[v] = _mm512_setzero_si512();
    if (type == MIXRT_UKERNEL_S8_DEQUANTIZED ||
        type == UK_TYPE_S8_DEQUANTIZED_SYM)
      sc[v] = _mm512_loadu_ps(p->w_scales + n0 + 16 * v);
    if (type == MIXRT_UKERNEL_S8_DEQUANTIZED)
      zp[v] = _mm512_loadu_si512(p->w_zero_points + n0 + 16 * v);
  }
  for (int64_t kk = 0; kk < kc; ++kk, b += rb) {
    __m512 bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v)
      bv[v] = loadB(b + v * pb, type, sc[v], zp[v]);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * UK_AS + kk]);
#pragma GCC unroll 4
      for (int v = 0; v < P; ++v)
        acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < P; ++v) {
      __m512 x = acc[r][v];
      if (last) {
        if (p->bias)
          x = _mm512_add_ps(
              x, _mm512_maskz_loadu_ps(mask[v], p->bias + n0 + 16 * v));
        x = reluCanon(x, p->relu);
      }
      _mm512_mask_storeu_ps(p->C + (m0 + r) * p->ldc + n0 + 16 * v, mask[v], x);
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
  if (panels == 4) {
    switch (rows) {
    case 1:
      UK_TYPES(1, 4) break;
    case 2:
      UK_TYPES(2, 4) break;
    case 3:
      UK_TYPES(3, 4) break;
    default:
      UK_TYPES(4, 4) break;
    }
    return;
  }
  if (panels == 2) {
    switch (rows) {
    case 1:
      UK_TYPES(1, 2) break;
    case 2:
      UK_TYPES(2, 2) break;
    case 3:
      UK_TYPES(3, 2) break;
    case 4:
      UK_TYPES(4, 2) break;
    case 5:
      UK_TYPES(5, 2) break;
    case 6:
      UK_TYPES(6, 2) break;
    case 7:
      UK_TYPES(7, 2) break;
    case 8:
      UK_TYPES(8, 2) break;
    case 9:
      UK_TYPES(9, 2) break;
    case 10:
      UK_TYPES(10, 2) break;
    case 11:
      UK_TYPES(11, 2) break;
    case 12:
      UK_TYPES(12, 2) break;
    case 13:
      UK_TYPES(13, 2) break;
    default:
      UK_TYPES(14, 2) break;
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
  case 6:
    UK_TYPES(6, 1) break;
  case 7:
    UK_TYPES(7, 1) break;
  case 8:
    UK_TYPES(8, 1) break;
  case 9:
    UK_TYPES(9, 1) break;
  case 10:
    UK_TYPES(10, 1) break;
  case 11:
    UK_TYPES(11, 1) break;
  case 12:
    UK_TYPES(12, 1) break;
  case 13:
    UK_TYPES(13, 1) break;
  default:
    UK_TYPES(14, 1) break;
  }
}

UK_T void mixrt_uk_f32_avx512(const uk_f32_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  const int mr = p->M <= 4                                 ? 4
                 : p->type == MIXRT_UKERNEL_S8_DEQUANTIZED ? UK_MR_S8D
                                                           : 14,
            pp = p->M <= 4 ? 4 : 2;
  /* The A tile of a k block, row-major at stride UK_AS (15,232 bytes). */
  float ap[UK_MR * UK_AS] __attribute__((aligned(64)));
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t k0 = 0;; k0 += UK_KC) {
      const int64_t kc = p->K - k0 < UK_KC ? p->K - k0 : UK_KC;
      const int end = k0 + kc >= p->K;
      const int first = k0 == 0 && !p->accumulate, last = end && !p->partial;
      for (int64_t m0 = 0; m0 < p->M; m0 += mr) {
        const int rows = p->M - m0 < mr ? (int)(p->M - m0) : mr;
        packA(p, m0, rows, k0, kc, ap);
        /* A tail of at most 4 rows (M = 14t + 1 .. 4) takes 4-panel tiles:
         * 2 panels would give too few independent FMA chains. */
        const int pw = rows <= 4 ? 4 : pp;
        for (int64_t q = qb; q < qe;) {
          /* pw panels per tile, then 2 (pw == 4), then 1. */
          const int w = qe - q >= pw ? pw : qe - q >= 2 ? 2 : 1;
          runTileF32(rows, w, p, m0, q, k0, kc, first, last, ap);
          q += w;
        }
      }
      if (end)
        break;
    }
  }
}

/*===----------------------------------------------------------------------===*\
|* Packing the patches of a convolution (stride 1)                            *|
\*===----------------------------------------------------------------------===*/

UK_T void mixrt_uk_conv_pack_avx512(const uk_conv_problem *p, const float *in,
                                    const uk_conv_run *runs, int nruns,
                                    int panels, int64_t k0, int64_t kb,
                                    float *buf) {
  uk_conv_pack_state st;
  uk_conv_ent tab[UK_CONV_TAB];
  mixrt_uk_conv_pack_begin(&st, p, runs, nruns, panels, k0, tab);
  for (int64_t kk = 0; kk < kb; ++kk) {
    const uintptr_t plane = (uintptr_t)(in + st.c * p->H * p->W);
    const uk_conv_ent *row = tab + st.tap * nruns;
    for (int t = 0; t < panels; ++t) {
      __m512 v = _mm512_setzero_ps();
      for (int i = st.first[t]; i < st.first[t + 1]; ++i) {
        const uk_conv_ent e =
            st.tabled ? row[i] : mixrt_uk_conv_entry(p, &runs[i], st.kh, st.kw);
        if (e.m)
          v = _mm512_mask_loadu_ps(
              v, (__mmask16)e.m,
              (const float *)(plane + (uintptr_t)e.off * sizeof(float)));
      }
      _mm512_store_ps(buf + t * kb * UK_NR + kk * UK_NR, v);
    }
    mixrt_uk_conv_pack_next(&st, p);
  }
}

/*===----------------------------------------------------------------------===*\
|* int8                                                                       *|
\*===----------------------------------------------------------------------===*/

/* 4 bytes of A from k (`n` valid, the rest 0) as an int32. */
UK_INLINE int32_t loadA4(const int8_t *a, int n) {
  int32_t v = 0;
  if (n >= 4)
    __builtin_memcpy(&v, a, 4);
  else
    for (int i = 0; i < n; ++i)
      v |= (int32_t)((uint32_t)(uint8_t)a[i] << (8 * i));
  return v;
}

/* What the epilogue of 16 columns from n0 of row m needs of A's zero
 * point and scale: (offset + za) * colsum[n] and, rescaled, sa * sb[n] in
 * f64 (the first product of the rescale). With one zero point and one
 * scale for A, the same for every row: a tile computes them once. */
typedef struct uk_s8_cols {
  __m512i correction;
  __m512d scale_lo, scale_hi;
} uk_s8_cols;

UK_INLINE UK_T uk_s8_cols s8Cols(const uk_s8_problem *p, int64_t m, int64_t n0,
                                 __mmask16 mask, uint32_t offset_plus_za) {
  uk_s8_cols c;
  c.correction = _mm512_mullo_epi32(_mm512_set1_epi32((int32_t)offset_plus_za),
                                    _mm512_loadu_si512(p->colsums + n0));
  c.scale_lo = c.scale_hi = _mm512_setzero_pd();
  if (p->Cf) {
    const __m512d sa = _mm512_set1_pd((double)uk_a_scale(p, m));
    const __m512 sb = _mm512_maskz_loadu_ps(mask, p->b_scales + n0);
    c.scale_lo = _mm512_mul_pd(sa, _mm512_cvtps_pd(_mm512_castps512_ps256(sb)));
    c.scale_hi =
        _mm512_mul_pd(sa, _mm512_cvtps_pd(_mm512_extractf32x8_ps(sb, 1)));
  }
  return c;
}

/* Finish (zero points, offset) the int32 sums of 16 columns from n0 of row
 * m and store them, rescaled or not: (f32)((sa * sb) * acc) (+ bias). */
UK_INLINE UK_T void epilogueS8(const uk_s8_problem *p, __m512i s, int64_t m,
                               int64_t n0, __mmask16 mask, const uk_s8_cols *c,
                               uint32_t row) {
  s = _mm512_sub_epi32(s, c->correction);
  if (p->b_zero_points)
    s = _mm512_sub_epi32(
        s, _mm512_mullo_epi32(
               _mm512_set1_epi32((int32_t)row),
               _mm512_maskz_loadu_epi32(mask, p->b_zero_points + n0)));
  if (!p->Cf) {
    if (p->accumulate)
      s = _mm512_add_epi32(
          s, _mm512_maskz_loadu_epi32(mask, p->Ci + m * p->ldc + n0));
    _mm512_mask_storeu_epi32(p->Ci + m * p->ldc + n0, mask, s);
    return;
  }
  const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(
      c->scale_lo, _mm512_cvtepi32_pd(_mm512_castsi512_si256(s))));
  const __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(
      c->scale_hi, _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(s, 1))));
  __m512 x = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
  if (p->bias)
    x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask, p->bias + n0));
  _mm512_mask_storeu_ps(p->Cf + m * p->ldc + n0, mask, reluCanon(x, p->relu));
}

/* Without VNNI: rows [m0, m0 + R) x panel q; per 4-k group the panel's 64
 * bytes are 2 x 8 columns of 4 k, sign-extended to int16. */
UK_INLINE UK_T void tileS8(const int R, const uk_s8_problem *p, int64_t m0,
                           int64_t q, const uint32_t *rows) {
  __m512i acc[8][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  const int8_t *panel = p->panels + q * p->panel_bytes;
  const int8_t *a = p->A + m0 * p->lda;
  const int64_t groups = (p->K + 3) / 4;
  for (int64_t g = 0; g < groups; ++g) {
    const int n = p->K - 4 * g >= 4 ? 4 : (int)(p->K - 4 * g);
    const __m512i b0 = _mm512_cvtepi8_epi16(
        _mm256_loadu_si256((const __m256i *)(const void *)(panel + g * 64)));
    const __m512i b1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(
        (const __m256i *)(const void *)(panel + g * 64 + 32)));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512i av = _mm512_broadcastq_epi64(_mm_cvtepi8_epi16(
          _mm_cvtsi32_si128(loadA4(a + r * p->lda + 4 * g, n))));
      acc[r][0] = _mm512_add_epi32(acc[r][0], _mm512_madd_epi16(b0, av));
      acc[r][1] = _mm512_add_epi32(acc[r][1], _mm512_madd_epi16(b1, av));
    }
  }
  /* Lane 2c and 2c + 1 hold the two halves of column c. */
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const int64_t n0 = q * UK_NR;
  const __mmask16 mask = colMask(p->N - n0);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512i s =
        _mm512_add_epi32(_mm512_permutex2var_epi32(acc[r][0], even, acc[r][1]),
                         _mm512_permutex2var_epi32(acc[r][0], odd, acc[r][1]));
    const uk_s8_cols c =
        s8Cols(p, m0 + r, n0, mask, (uint32_t)uk_a_zero_point(p, m0 + r));
    epilogueS8(p, s, m0 + r, n0, mask, &c, rows[r]);
  }
}

UK_T void mixrt_uk_s8_avx512(const uk_s8_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t m0 = 0; m0 < p->M; m0 += 8) {
      const int rows = p->M - m0 < 8 ? (int)(p->M - m0) : 8;
      uint32_t terms[8] = {0};
      if (p->b_zero_points)
        for (int r = 0; r < rows; ++r)
          terms[r] = uk_s8_row_term(p, m0 + r);
      for (int64_t q = qb; q < qe; ++q)
        switch (rows) {
        case 1:
          tileS8(1, p, m0, q, terms);
          break;
        case 2:
          tileS8(2, p, m0, q, terms);
          break;
        case 3:
          tileS8(3, p, m0, q, terms);
          break;
        case 4:
          tileS8(4, p, m0, q, terms);
          break;
        case 5:
          tileS8(5, p, m0, q, terms);
          break;
        case 6:
          tileS8(6, p, m0, q, terms);
          break;
        case 7:
          tileS8(7, p, m0, q, terms);
          break;
        default:
          tileS8(8, p, m0, q, terms);
          break;
        }
    }
  }
}

/* The epilogue of a VNNI tile: rows [m0, m0 + R) x panels [q, q + P) of
 * res. */
UK_INLINE UK_TV void finishS8VnniBody(const int R, const int P,
                                      const uk_s8_problem *p, int64_t m0,
                                      int64_t q, const uint32_t *rows,
                                      const __m512i (*res)[2]) {
  if (!p->a_per_row) {
    uk_s8_cols cols[2];
    _Pragma("GCC unroll 2") for (int v = 0; v < P; ++v) {
      const int64_t n0 = (q + v) * UK_NR;
      cols[v] = s8Cols(p, m0, n0, colMask(p->N - n0),
                       128u + (uint32_t)uk_a_zero_point(p, m0));
    }
    _Pragma("GCC unroll 14") for (int r = 0; r < R; ++r)
        _Pragma("GCC unroll 2") for (int v = 0; v < P; ++v) {
      const int64_t n0 = (q + v) * UK_NR;
      epilogueS8(p, res[r][v], m0 + r, n0, colMask(p->N - n0), &cols[v],
                 rows[r]);
    }
  } else {
    _Pragma("GCC unroll 14") for (int r = 0; r < R; ++r) {
      const uint32_t za = (uint32_t)uk_a_zero_point(p, m0 + r);
      _Pragma("GCC unroll 2") for (int v = 0; v < P; ++v) {
        const int64_t n0 = (q + v) * UK_NR;
        const __mmask16 mask = colMask(p->N - n0);
        const uk_s8_cols c = s8Cols(p, m0 + r, n0, mask, 128u + za);
        epilogueS8(p, res[r][v], m0 + r, n0, mask, &c, rows[r]);
      }
    }
  }
}

/* Out of line, res in memory: with the epilogue inlined behind the k loop,
 * GCC kept a copy of every accumulator in memory, stored every k group. */
static __attribute__((noinline)) UK_TV void
finishS8Vnni(const int R, const int P, const uk_s8_problem *p, int64_t m0,
             int64_t q, const uint32_t *rows, const __m512i (*res)[2]) {
  /* A private copy: the stores (through may_alias vector types) would
   * otherwise reload and retest p's fields at every row. */
  const uk_s8_problem lp = *p;
  if (R == 14 && P == 2)
    finishS8VnniBody(14, 2, &lp, m0, q, rows, res);
  else if (R == 13 && P == 2)
    finishS8VnniBody(13, 2, &lp, m0, q, rows, res);
  else
    finishS8VnniBody(R, P, &lp, m0, q, rows, res);
}

/* VNNI: rows [m0, m0 + R) x panels [q, q + P); per 4-k group one zmm of B
 * per panel (16 columns x 4 k) and one broadcast 4 k of A (+128) per row. */
UK_INLINE UK_TV void tileS8Vnni(const int R, const int P,
                                const uk_s8_problem *p, int64_t m0, int64_t q,
                                const uint32_t *rows) {
  __m512i acc[14][2];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      acc[r][v] = _mm512_setzero_si512();
  const int8_t *panel = p->panels + q * p->panel_bytes;
  const int64_t pb = p->panel_bytes;
  const int8_t *a = p->A + m0 * p->lda;
  const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
  const int64_t full = p->K / 4;
  int64_t g = 0;
  for (; g < full; ++g) {
    __m512i bv[2];
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      bv[v] = _mm512_loadu_si512(panel + v * pb + g * 64);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      int32_t w;
      __builtin_memcpy(&w, a + r * p->lda + 4 * g, 4);
      const __m512i av = _mm512_xor_si512(_mm512_set1_epi32(w), flip);
#pragma GCC unroll 2
      for (int v = 0; v < P; ++v)
        acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], av, bv[v]);
    }
  }
  if (4 * full < p->K) {
    const int n = (int)(p->K - 4 * full);
    __m512i bv[2];
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      bv[v] = _mm512_loadu_si512(panel + v * pb + g * 64);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      /* The missing k read as 0 (+128 after the flip) against B's zero
       * padding: they add nothing. */
      const __m512i av = _mm512_xor_si512(
          _mm512_set1_epi32(loadA4(a + r * p->lda + 4 * g, n)), flip);
#pragma GCC unroll 2
      for (int v = 0; v < P; ++v)
        acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], av, bv[v]);
    }
  }
  if (!p->a_per_row) {
    uk_s8_cols cols[2];
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v) {
      const int64_t n0 = (q + v) * UK_NR;
      cols[v] = s8Cols(p, m0, n0, colMask(p->N - n0),
                       128u + (uint32_t)uk_a_zero_point(p, m0));
    }
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int v = 0; v < P; ++v) {
        const int64_t n0 = (q + v) * UK_NR;
        epilogueS8(p, acc[r][v], m0 + r, n0, colMask(p->N - n0), &cols[v],
                   rows[r]);
      }
    return;
  }
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r) {
    const uint32_t za = (uint32_t)uk_a_zero_point(p, m0 + r);
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v) {
      const int64_t n0 = (q + v) * UK_NR;
      const __mmask16 mask = colMask(p->N - n0);
      const uk_s8_cols c = s8Cols(p, m0 + r, n0, mask, 128u + za);
      epilogueS8(p, acc[r][v], m0 + r, n0, mask, &c, rows[r]);
    }
  }
}

/* As tileS8Vnni, A from abuf (packS8Flipped): rows UK_S8_AS apart, one
 * pointer and constant offsets, no flip, every group whole (B's padding is
 * 0). */
UK_INLINE UK_TV void tileS8VnniPacked(const int R, const int P,
                                      const uk_s8_problem *p, int64_t m0,
                                      int64_t q, const uint32_t *rows,
                                      const int8_t *abuf) {
  __m512i acc[14][2];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      acc[r][v] = _mm512_setzero_si512();
  const int64_t pb = p->panel_bytes;
  const int8_t *bp = p->panels + q * pb;
  const int8_t *ap = abuf;
  const int8_t *const end = abuf + ((p->K + 3) & ~(int64_t)3);
  for (; ap != end; ap += 4, bp += 64) {
    __m512i bv[2];
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      bv[v] = _mm512_loadu_si512(bp + v * pb);
#pragma GCC unroll 14
    for (int r = 0; r < R; ++r) {
      const __m512i av =
          _mm512_broadcastd_epi32(_mm_loadu_si32(ap + r * UK_S8_AS));
#pragma GCC unroll 2
      for (int v = 0; v < P; ++v)
        acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], av, bv[v]);
    }
  }
  __m512i res[14][2];
#pragma GCC unroll 14
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < P; ++v)
      res[r][v] = acc[r][v];
  finishS8Vnni(R, P, p, m0, q, rows, (const __m512i(*)[2])res);
}

/* The full tiles out of line: inlined into the driver beside the other
 * shapes, the register allocation of the (huge) driver spilled 1-2 of the
 * 28 accumulators every k group. */
static __attribute__((noinline)) UK_TV void
tileS8VnniPacked14x2(const uk_s8_problem *p, int64_t m0, int64_t q,
                     const uint32_t *rows, const int8_t *abuf) {
  tileS8VnniPacked(14, 2, p, m0, q, rows, abuf);
}

/* The 13-row tile of the balanced row split (mixrt_uk_s8_avx512vnni): out
 * of line for the same reason. */
static __attribute__((noinline)) UK_TV void
tileS8VnniPacked13x2(const uk_s8_problem *p, int64_t m0, int64_t q,
                     const uint32_t *rows, const int8_t *abuf) {
  tileS8VnniPacked(13, 2, p, m0, q, rows, abuf);
}

#define UK_VNNI_TILE(R, P)                                                     \
  do {                                                                         \
    if (abuf) {                                                                \
      if (R == 14 && P == 2)                                                   \
        tileS8VnniPacked14x2(p, m0, q, terms, abuf);                           \
      else if (R == 13 && P == 2)                                              \
        tileS8VnniPacked13x2(p, m0, q, terms, abuf);                           \
      else                                                                     \
        tileS8VnniPacked(R, P, p, m0, q, terms, abuf);                         \
    } else                                                                     \
      tileS8Vnni(R, P, p, m0, q, terms);                                       \
  } while (0)

#define UK_VNNI_ROWS(P)                                                        \
  switch (rows) {                                                              \
  case 1:                                                                      \
    UK_VNNI_TILE(1, P);                                                        \
    break;                                                                     \
  case 2:                                                                      \
    UK_VNNI_TILE(2, P);                                                        \
    break;                                                                     \
  case 3:                                                                      \
    UK_VNNI_TILE(3, P);                                                        \
    break;                                                                     \
  case 4:                                                                      \
    UK_VNNI_TILE(4, P);                                                        \
    break;                                                                     \
  case 5:                                                                      \
    UK_VNNI_TILE(5, P);                                                        \
    break;                                                                     \
  case 6:                                                                      \
    UK_VNNI_TILE(6, P);                                                        \
    break;                                                                     \
  case 7:                                                                      \
    UK_VNNI_TILE(7, P);                                                        \
    break;                                                                     \
  case 8:                                                                      \
    UK_VNNI_TILE(8, P);                                                        \
    break;                                                                     \
  case 9:                                                                      \
    UK_VNNI_TILE(9, P);                                                        \
    break;                                                                     \
  case 10:                                                                     \
    UK_VNNI_TILE(10, P);                                                       \
    break;                                                                     \
  case 11:                                                                     \
    UK_VNNI_TILE(11, P);                                                       \
    break;                                                                     \
  case 12:                                                                     \
    UK_VNNI_TILE(12, P);                                                       \
    break;                                                                     \
  case 13:                                                                     \
    UK_VNNI_TILE(13, P);                                                       \
    break;                                                                     \
  default:                                                                     \
    UK_VNNI_TILE(14, P);                                                       \
    break;                                                                     \
  }

/* Rows [m0, m0 + rows) of A, + 128 (as u8), into buf rows UK_S8_AS apart,
 * K padded to a multiple of 4 with 0x80 (any value: B's padding is 0). */
UK_INLINE UK_TV void packS8Flipped(const uk_s8_problem *p, int64_t m0, int rows,
                                   int8_t *buf) {
  const __m512i flip = _mm512_set1_epi32((int32_t)0x80808080u);
  const int64_t kp = (p->K + 3) & ~(int64_t)3;
  for (int r = 0; r < rows; ++r) {
    const int8_t *src = p->A + (m0 + r) * p->lda;
    int8_t *dst = buf + r * UK_S8_AS;
    for (int64_t k = 0; k < kp; k += 64) {
      const int64_t left = p->K - k;
      const __mmask64 m = left >= 64  ? ~(__mmask64)0
                          : left <= 0 ? (__mmask64)0
                                      : (((__mmask64)1 << left) - 1);
      const int64_t pleft = kp - k;
      const __mmask64 pm =
          pleft >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << pleft) - 1);
      _mm512_mask_storeu_epi8(
          dst + k, pm,
          _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + k), flip));
    }
  }
}

UK_TV void mixrt_uk_s8_avx512vnni(const uk_s8_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  _Alignas(64) int8_t apack[14 * UK_S8_AS];
  const int packA = p->K <= UK_S8_KA;
  if (p->M <= 0)
    return;
  /* Rows balanced over ceil(M / tmax) tiles, the first M % tiles of them
   * one row taller: M = 256 runs 9 tiles of 14 rows and 10 of 13, not 18 of
   * 14 and one of 4 (whose 8 accumulators wait on vpdpbusd's latency and
   * whose B loads serve 4 rows). Reading A in place (K > UK_S8_KA) the
   * tiles have at most 13 rows: the 14-row tile there also holds 14 row
   * addresses and GCC spilled 3 of its 28 accumulators every k group; the
   * 13-row one spills none (at K = 2048, M = 14..512: +4-10 %, even M = 14
   * as 7 + 7 rows). */
  const int64_t tmax = packA ? 14 : 13;
  const int64_t tiles = (p->M + tmax - 1) / tmax, base = p->M / tiles,
                extra = p->M % tiles;
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t t = 0, m0 = 0; t < tiles; m0 += base + (t < extra), ++t) {
      const int rows = (int)(base + (t < extra));
      uint32_t terms[14] = {0};
      if (p->b_zero_points)
        for (int r = 0; r < rows; ++r)
          terms[r] = uk_s8_row_term(p, m0 + r);
      const int8_t *abuf = NULL;
      if (packA) {
        packS8Flipped(p, m0, rows, apack);
        abuf = apack;
      }
      int64_t q = qb;
      for (; q + 2 <= qe; q += 2)
        UK_VNNI_ROWS(2)
      for (; q < qe; ++q)
        UK_VNNI_ROWS(1)
    }
  }
}

/*===----------------------------------------------------------------------===*\
|* int8 with AMX                                                              *|
\*===----------------------------------------------------------------------===*/

#define UK_TA                                                                  \
  __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl,"    \
                        "avx512vnni,amx-tile,amx-int8")))

/* The 64-byte operand of ldtilecfg (palette 1). */
typedef struct uk_amx_config {
  uint8_t palette, start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} uk_amx_config;

/* The epilogue of rows [m0, m0 + rows) x panels [q, q + P) from res, the
 * raw sums sum_k A[m][k] * B[k][n] (tdpbssd: no offset), with the row terms
 * of B's zero points (uk_s8_row_term, computed once per block of rows).
 * Out of line: one call per block of up to 32 x 32 outputs. */
static __attribute__((noinline)) UK_TA void
finishS8Amx(const uk_s8_problem *p, int64_t m0, int first, int rows, int64_t q,
            int P, const uint32_t *terms, const int32_t (*res)[2 * UK_NR]) {
  const uk_s8_problem lp = *p;
  uk_s8_cols cols[2];
  __mmask16 masks[2];
  for (int v = 0; v < P; ++v) {
    const int64_t n0 = (q + v) * UK_NR;
    masks[v] = colMask(lp.N - n0);
    if (!lp.a_per_row)
      cols[v] =
          s8Cols(&lp, m0, n0, masks[v], (uint32_t)uk_a_zero_point(&lp, m0));
  }
  for (int r = first; r < rows; ++r) {
    const int64_t m = m0 + r;
    const uint32_t term = terms[r];
    for (int v = 0; v < P; ++v) {
      const int64_t n0 = (q + v) * UK_NR;
      const __m512i s = _mm512_load_si512(res[r] + v * UK_NR);
      if (lp.a_per_row) {
        const uk_s8_cols c =
            s8Cols(&lp, m, n0, masks[v], (uint32_t)uk_a_zero_point(&lp, m));
        epilogueS8(&lp, s, m, n0, masks[v], &c, term);
      } else {
        epilogueS8(&lp, s, m, n0, masks[v], &cols[v], term);
      }
    }
  }
}

/* GCC's tile intrinsics are asm statements without a memory operand or
 * clobber: to the compiler they neither read atail/btail (so their stores
 * could be dropped or moved past the tile loads) nor write res. A compiler
 * barrier before the tile loads of a block and after its tile stores
 * orders them with the ordinary accesses. */
#define UK_AMX_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* The k loop of one block: 16 rows of A from `a0` (and 16 from `a1` when
 * TWO_ROWS) x panels from b0 (and b1 when TWO_PANELS), whole 64-byte k
 * chunks [0, kend) read in place (A at its row stride, B 16 quads x 64
 * bytes, contiguous), then at most one chunk from the zero-padded copies
 * (atail rows 64 bytes apart, bt0/bt1) when `tail`. C in tmm0 (rows
 * 0-15 x b0), tmm1 (x b1), tmm2, tmm3 (rows 16-31); A in tmm4, tmm5, B in
 * tmm6, tmm7. */
#define UK_AMX_BLOCK(TWO_ROWS, TWO_PANELS)                                     \
  do {                                                                         \
    UK_AMX_MEMORY_BARRIER();                                                   \
    _tile_zero(0);                                                             \
    if (TWO_PANELS)                                                            \
      _tile_zero(1);                                                           \
    if (TWO_ROWS) {                                                            \
      _tile_zero(2);                                                           \
      if (TWO_PANELS)                                                          \
        _tile_zero(3);                                                         \
    }                                                                          \
    for (int64_t k = 0; k < kend; k += 64) {                                   \
      _tile_loadd(4, a + k, lda);                                              \
      _tile_loadd(6, b0 + k * UK_NR, 64);                                      \
      _tile_dpbssd(0, 4, 6);                                                   \
      if (TWO_PANELS) {                                                        \
        _tile_loadd(7, b1 + k * UK_NR, 64);                                    \
        _tile_dpbssd(1, 4, 7);                                                 \
      }                                                                        \
      if (TWO_ROWS) {                                                          \
        _tile_loadd(5, a + 16 * lda + k, lda);                                 \
        _tile_dpbssd(2, 5, 6);                                                 \
        if (TWO_PANELS)                                                        \
          _tile_dpbssd(3, 5, 7);                                               \
      }                                                                        \
    }                                                                          \
    if (tail) {                                                                \
      _tile_loadd(4, atail, 64);                                               \
      _tile_loadd(6, bt0, 64);                                                 \
      _tile_dpbssd(0, 4, 6);                                                   \
      if (TWO_PANELS) {                                                        \
        _tile_loadd(7, bt1, 64);                                               \
        _tile_dpbssd(1, 4, 7);                                                 \
      }                                                                        \
      if (TWO_ROWS) {                                                          \
        _tile_loadd(5, atail + 16 * 64, 64);                                   \
        _tile_dpbssd(2, 5, 6);                                                 \
        if (TWO_PANELS)                                                        \
          _tile_dpbssd(3, 5, 7);                                               \
      }                                                                        \
    }                                                                          \
    UK_AMX_MEMORY_BARRIER();                                                   \
    _tile_stored(0, res[0], 2 * UK_NR * 4);                                    \
    if (TWO_PANELS)                                                            \
      _tile_stored(1, res[0] + UK_NR, 2 * UK_NR * 4);                          \
    if (TWO_ROWS) {                                                            \
      _tile_stored(2, res[16], 2 * UK_NR * 4);                                 \
      if (TWO_PANELS)                                                          \
        _tile_stored(3, res[16] + UK_NR, 2 * UK_NR * 4);                       \
    }                                                                          \
    UK_AMX_MEMORY_BARRIER();                                                   \
  } while (0)

/* The B chunk of panel `panel` from k = kend for the tail: in place when
 * its 1 KiB lies inside the packed buffer (rows past the panel's Kp are
 * the next panel's or the column sums, multiplied by the zero padding of
 * atail), else copied into buf with zeros after it. */
UK_INLINE UK_TA const int8_t *amxTailB(const int8_t *panel, int64_t kend,
                                       int64_t kp, const int8_t *bend,
                                       int8_t *buf) {
  const int8_t *src = panel + kend * UK_NR;
  if (src + 16 * 64 <= bend)
    return src;
  const int64_t bytes = (kp - kend) * UK_NR;
  for (int64_t i = 0; i < 16 * 64; i += 64) {
    const int64_t left = bytes - i;
    const __mmask64 m = left >= 64  ? ~(__mmask64)0
                        : left <= 0 ? (__mmask64)0
                                    : (((__mmask64)1 << left) - 1);
    _mm512_store_si512(buf + i, _mm512_maskz_loadu_epi8(m, src + i));
  }
  return buf;
}

/* AMX: blocks of 32 rows x 2 panels (4 C tiles of 16 x 16 int32), per
 * 64-byte k chunk one tdpbssd per C tile (s8 x s8 -> s32, exact products,
 * sums modulo 2^32 like every path). The packed panel is already the B
 * tile (16 quads of 16 columns x 4 k, 64 bytes apart). A is read in place
 * for the whole chunks; its last K mod 64 bytes (and the padding up to 64)
 * come from a zero-padded copy, so neither A nor B is read past its end.
 * M < 32 is configured as M rows (tiles of r0 and r1 rows); for M >= 32
 * the last block starts at M - 32 (its first rows are computed again but
 * not stored: with `accumulate` a second store would add them twice). Tiles
 * configured once per call, released at the end. */
UK_TA void mixrt_uk_s8_amx(const uk_s8_problem *p) {
  const int64_t M = p->M;
  if (M <= 0)
    return;
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  const int64_t kp = (p->K + 3) & ~(int64_t)3;
  const int64_t kend = p->K & ~(int64_t)63;
  const int tail = kp > kend;
  const int rows = M < 32 ? (int)M : 32;
  const int r0 = rows < 16 ? rows : 16, r1 = rows - r0;
  const int64_t lda = p->lda;
  const int8_t *bend = (const int8_t *)(p->colsums + panels * UK_NR);

  uk_amx_config cfg;
  __builtin_memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t)
    cfg.colsb[t] = 64;
  cfg.rows[0] = cfg.rows[1] = cfg.rows[4] = (uint8_t)r0;
  cfg.rows[2] = cfg.rows[3] = cfg.rows[5] = (uint8_t)r1;
  if (r1 == 0)
    cfg.colsb[2] = cfg.colsb[3] = cfg.colsb[5] = 0;
  cfg.rows[6] = cfg.rows[7] = 16;
  _tile_loadconfig(&cfg);

  _Alignas(64) int8_t atail[32 * 64];
  _Alignas(64) int8_t btail[2][16 * 64];
  _Alignas(64) int32_t res[32][2 * UK_NR];
  for (int64_t qb = 0; qb < panels; qb += UK_NCP) {
    const int64_t qe = qb + UK_NCP < panels ? qb + UK_NCP : panels;
    for (int64_t mb = 0; mb < M; mb += 32) {
      const int64_t m0 = mb + 32 <= M ? mb : (M >= 32 ? M - 32 : 0);
      const int8_t *a = p->A + m0 * lda;
      uint32_t terms[32] = {0};
      if (p->b_zero_points)
        for (int r = 0; r < rows; ++r)
          terms[r] = uk_s8_row_term(p, m0 + r);
      if (tail)
        for (int r = 0; r < 32; ++r) {
          const int64_t left = r < rows ? p->K - kend : 0;
          const __mmask64 m =
              left <= 0 ? (__mmask64)0 : (((__mmask64)1 << left) - 1);
          _mm512_store_si512(atail + r * 64,
                             _mm512_maskz_loadu_epi8(m, a + r * lda + kend));
        }
      for (int64_t q = qb; q < qe; q += 2) {
        const int two = q + 1 < qe;
        const int8_t *b0 = p->panels + q * p->panel_bytes;
        const int8_t *b1 = b0 + p->panel_bytes;
        const int8_t *bt0 = NULL, *bt1 = NULL;
        if (tail) {
          bt0 = amxTailB(b0, kend, kp, bend, btail[0]);
          if (two)
            bt1 = amxTailB(b1, kend, kp, bend, btail[1]);
        }
        if (r1 && two)
          UK_AMX_BLOCK(1, 1);
        else if (r1)
          UK_AMX_BLOCK(1, 0);
        else if (two)
          UK_AMX_BLOCK(0, 1);
        else
          UK_AMX_BLOCK(0, 0);
        /* The rows a moved-back last block shares with the block before
         * are not stored again (a K-blocked caller adds to C). */
        finishS8Amx(p, m0, (int)(mb - m0), rows, q, two ? 2 : 1, terms, res);
      }
    }
  }
  _tile_release();
}

/*===----------------------------------------------------------------------===*\
|* Range and quantization of a dynamic int8 quantization                     *|
\*===----------------------------------------------------------------------===*/

/* The range from two integer maxima of the bits, 2 instructions a vector
 * (vpmaxsd, vpmaxud), with 4 independent pairs: the signed maximum of the
 * bits and 0 is the bits of the largest float and +0 when no NaN or Inf is
 * positive (non-negative floats order as their bits, negative ones below
 * every non-negative one, -0 as INT_MIN); the unsigned maximum of the bits
 * and 0 is, when >= 0x80000000, the negative float of the largest
 * magnitude (-0 when every negative is a -0), i.e. the minimum, else there
 * is no negative and the minimum from +0 is +0. Non-finite iff the signed
 * maximum >= 0x7f800000 or the unsigned one >= 0xff800000. */
UK_T uk_range mixrt_uk_range_f32_avx512(const float *x, int64_t n) {
  __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
  __m512i u0 = s0, u1 = s0, u2 = s0, u3 = s0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i b0 = _mm512_loadu_si512(x + i),
                  b1 = _mm512_loadu_si512(x + i + 16),
                  b2 = _mm512_loadu_si512(x + i + 32),
                  b3 = _mm512_loadu_si512(x + i + 48);
    s0 = _mm512_max_epi32(s0, b0);
    u0 = _mm512_max_epu32(u0, b0);
    s1 = _mm512_max_epi32(s1, b1);
    u1 = _mm512_max_epu32(u1, b1);
    s2 = _mm512_max_epi32(s2, b2);
    u2 = _mm512_max_epu32(u2, b2);
    s3 = _mm512_max_epi32(s3, b3);
    u3 = _mm512_max_epu32(u3, b3);
  }
  for (; i < n; i += 16) {
    /* Masked-off lanes load 0, the start of both maxima. */
    const __m512i b = _mm512_maskz_loadu_epi32(colMask(n - i), x + i);
    s0 = _mm512_max_epi32(s0, b);
    u0 = _mm512_max_epu32(u0, b);
  }
  s0 = _mm512_max_epi32(_mm512_max_epi32(s0, s1), _mm512_max_epi32(s2, s3));
  u0 = _mm512_max_epu32(_mm512_max_epu32(u0, u1), _mm512_max_epu32(u2, u3));
  const uint32_t smax = (uint32_t)_mm512_reduce_max_epi32(s0);
  const uint32_t umax = _mm512_reduce_max_epu32(u0);
  const uint32_t lo = umax >= 0x80000000u ? umax : 0u;
  uk_range r;
  __builtin_memcpy(&r.lo, &lo, sizeof lo);
  __builtin_memcpy(&r.hi, &smax, sizeof smax);
  r.negative_zero = umax == 0x80000000u;
  r.non_finite = smax >= 0x7f800000u || umax >= 0xff800000u;
  return r;
}

/* The quantization without vdivps, bit-identical to mixrt_uk_quant_one.
 *
 * 1. The epilogue. With L = qmin - zp and H = 127 - zp (integers in
 * [-255, 255]), clamp(roundeven(q) + zp, qmin, 127) = roundeven(clamp(q,
 * L, H)) + zp, as roundeven is monotonic and fixes integers (the old sum
 * roundeven(q) + zp was exact below 2^24 and on the same side of the
 * bounds above). So: c = min(H, max(L, q)) (vmaxps / vminps return their
 * second operand on a NaN: a NaN q stays NaN), t = vcvtps2dq(c) with
 * embedded round-to-nearest-even (exact, c in [L, H]), t + zp, vpmovdb
 * (truncating). A NaN converts to 0x80000000, whose low byte plus zp is
 * zp: the NaN -> zp rule without a compare. Signs of zeros do not matter.
 *
 * 2. The quotient q without a division, for scales b in [2^-60, 2^60]
 * (chosen once per call; others -- subnormal, tiny, huge, +Inf -- divide
 * and clamp as in 1). y = RN(1/b). x is clamped first instead of q, to
 * [RN(L b), RN(H b)] (vmaxps, vminps with x second: a NaN stays NaN, +-Inf
 * goes to a bound; vrangeps would be one instruction but turns a QNaN into
 * its bound): then |q| <= 256 (no overflow; unclamped, a huge or infinite
 * x gives q0 = Inf and Inf - Inf = NaN in the correction), and the clamp
 * of q is not needed: a clamped x (beyond RN(H b), say) has x / b >
 * RN(H b) / b >= H (1 - 2^-24) > H - 1/2, so the division saturates to H,
 * and the steps give RN(RN(H b) / b) within 255 * 2^-23 < 1/2 of H, which
 * rounds to H (0 stays 0); an x inside keeps its exact quotient, whose
 * roundeven is in [L, H] by monotony. Then a = the clamped x,
 * q0 = RN(a y), r = fma(-q0, b, a), q1 = RN(fma(r, y, q0)).
 * Markstein's theorem (Markstein 1990; Muller et al., Handbook of
 * Floating-Point Arithmetic, division with an FMA): if y is within half
 * an ulp of 1/b and q0 within one ulp of a/b (faithful), with no
 * underflow or overflow, r is exact and q1 = RN(a/b). q0 = RN(a y) is not
 * always faithful (b = 2 - 2^-23, a = 1.5: 1.25 ulps off): a y - a/b =
 * (a/b)(by - 1) and ulp(a/b) > 2^-24 a/b, so q0 is faithful for every a
 * when |1 - by| <= 2^-25 (checked once per call in f64, exact: by has 48
 * bits); otherwise one more step first, q1 = RN(q0 + RN(a - b q0) y),
 * whose error is at most |q0 - a/b| |1 - by| + the rounding of r, below
 * 2^-21 ulp for |q0 - a/b| < 2 ulp, so q1 is faithful and the second step
 * q2 = RN(a/b) by the theorem (no case where one step differs was found:
 * 5000 significands of b x all of a, and the sweep at 2^-7 - 2^-31; the
 * second step, for ~31 % of significands, is the price of the proof).
 * Ranges: |a/b| in [2^-2, 256] with b in
 * [2^-60, 2^60] keeps a, y, q, r (0 or a multiple of ulp(b) ulp(q) >=
 * 2^-109) and r y normal, so the result is exactly the division's; for
 * |a/b| < 2^-2 (tiny or subnormal x) both the division and the steps give
 * |q| < 1/2 (errors of a few ulps plus 2^-149), i.e. roundeven 0. */
#define UK_Q_DIVIDE 0
#define UK_Q_ONE_STEP 1
#define UK_Q_TWO_STEPS 2

typedef struct uk_quant_v {
  __m512 b, y, xlo, xhi, lo, hi;
  __m512i zp;
} uk_quant_v;

/* 16 quantized lanes as int32 whose low bytes are the int8 results. */
UK_INLINE UK_T __m512i quant16(__m512 v, const uk_quant_v *k, const int mode) {
  __m512 c;
  if (mode == UK_Q_DIVIDE) {
    c = _mm512_min_ps(k->hi, _mm512_max_ps(k->lo, _mm512_div_ps(v, k->b)));
  } else {
    /* x clamped to [RN(L b), RN(H b)] (x second: a NaN stays NaN). */
    const __m512 a = _mm512_min_ps(k->xhi, _mm512_max_ps(k->xlo, v));
    c = _mm512_mul_ps(a, k->y);
    if (mode == UK_Q_TWO_STEPS)
      c = _mm512_fmadd_ps(_mm512_fnmadd_ps(c, k->b, a), k->y, c);
    c = _mm512_fmadd_ps(_mm512_fnmadd_ps(c, k->b, a), k->y, c);
  }
  return _mm512_add_epi32(_mm512_cvt_roundps_epi32(
                              c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                          k->zp);
}

/* QNaN | +Inf | -Inf | SNaN (vfpclassps). */
#define UK_NON_FINITE 0x99

UK_INLINE UK_T int64_t quantizeLoop(const float *x, int64_t n,
                                    const uk_quant_v *k, int8_t *out,
                                    const int mode) {
  int64_t first = -1, i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
    const __mmask16 b0 = _mm512_fpclass_ps_mask(v0, UK_NON_FINITE),
                    b1 = _mm512_fpclass_ps_mask(v1, UK_NON_FINITE);
    _mm_storeu_si128((__m128i *)(void *)(out + i),
                     _mm512_cvtepi32_epi8(quant16(v0, k, mode)));
    _mm_storeu_si128((__m128i *)(void *)(out + i + 16),
                     _mm512_cvtepi32_epi8(quant16(v1, k, mode)));
    const uint32_t bad = (uint32_t)b0 | (uint32_t)b1 << 16;
    if (bad != 0 && first < 0)
      first = i + __builtin_ctz(bad);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = colMask(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    const __mmask16 bad = _mm512_mask_fpclass_ps_mask(m, v, UK_NON_FINITE);
    _mm512_mask_cvtepi32_storeu_epi8(out + i, m, quant16(v, k, mode));
    if (bad != 0 && first < 0)
      first = i + __builtin_ctz((uint32_t)bad);
  }
  return first;
}

/* 16 rescaled values from their sums as f64 (lanes 0-7, 8-15): RN32(s *
 * sum) (+ bias), stored (relu) under `m`; returns the lanes that are
 * infinite. */
UK_INLINE UK_T __mmask16 rescale16(__m512d dlo, __m512d dhi, __m512d sv,
                                   __m512 bv, int has_bias, int relu, float *y,
                                   __mmask16 m) {
  const __m256 lo = _mm512_cvtpd_ps(_mm512_mul_pd(sv, dlo));
  const __m256 hi = _mm512_cvtpd_ps(_mm512_mul_pd(sv, dhi));
  __m512 v = _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
  if (has_bias)
    v = _mm512_add_ps(v, bv);
  const __mmask16 bad = _mm512_mask_cmpeq_epi32_mask(
      m,
      _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)),
      _mm512_set1_epi32(0x7f800000));
  _mm512_mask_storeu_ps(y, m, relu ? _mm512_max_ps(v, _mm512_setzero_ps()) : v);
  return bad;
}

/* The row from int32 (accI) or f32 (accF) sums: one of them is NULL, a
 * constant in each caller below. Whole vectors read their two halves
 * directly (no mask, no lane extraction: 27% faster than the masked loop
 * on the AMD EPYC); the tail is masked. */
UK_INLINE UK_T int64_t rescaleRow(const int32_t *accI, const float *accF,
                                  int64_t n, double s, float bias, int has_bias,
                                  int relu, float *y) {
  const __m512d sv = _mm512_set1_pd(s);
  const __m512 bv = _mm512_set1_ps(bias);
  int64_t first = -1, j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512d dlo, dhi;
    if (accF) {
      dlo = _mm512_cvtps_pd(_mm256_loadu_ps(accF + j));
      dhi = _mm512_cvtps_pd(_mm256_loadu_ps(accF + j + 8));
    } else {
      dlo = _mm512_cvtepi32_pd(
          _mm256_loadu_si256((const __m256i *)(const void *)(accI + j)));
      dhi = _mm512_cvtepi32_pd(
          _mm256_loadu_si256((const __m256i *)(const void *)(accI + j + 8)));
    }
    const __mmask16 bad =
        rescale16(dlo, dhi, sv, bv, has_bias, relu, y + j, (__mmask16)0xffff);
    if (bad && first < 0)
      first = j + __builtin_ctz((unsigned)bad);
  }
  if (j < n) {
    const __mmask16 m = colMask(n - j);
    __m512d dlo, dhi;
    if (accF) {
      const __m512 a = _mm512_maskz_loadu_ps(m, accF + j);
      dlo = _mm512_cvtps_pd(_mm512_castps512_ps256(a));
      dhi = _mm512_cvtps_pd(_mm512_extractf32x8_ps(a, 1));
    } else {
      const __m512i a = _mm512_maskz_loadu_epi32(m, accI + j);
      dlo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(a));
      dhi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a, 1));
    }
    const __mmask16 bad = rescale16(dlo, dhi, sv, bv, has_bias, relu, y + j, m);
    if (bad && first < 0)
      first = j + __builtin_ctz((unsigned)bad);
  }
  return first;
}

/* mixrt_ukernel_conv2d_s8_rescale's row (uk_rescale_fn): 16 sums per step,
 * two f64 products of 8, as the AVX2 row; the tail masked (lanes past n
 * read and write nothing). */
UK_T int64_t mixrt_uk_rescale_s32_avx512(const int32_t *acc, int64_t n,
                                         double s, float bias, int has_bias,
                                         int relu, float *y) {
  return rescaleRow(acc, NULL, n, s, bias, has_bias, relu, y);
}

/* mixrt_ukernel_depthwise_s8_rescale's conversion (uk_s8_to_f32_fn): 16
 * int8 per step, sign-extended, minus zp, converted exactly; the tail
 * masked (nothing read or written past n). */
UK_T void mixrt_uk_s8_to_f32_avx512(const int8_t *x, int64_t n, int32_t zp,
                                    float *out) {
  const __m512i z = _mm512_set1_epi32(zp);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i v = _mm512_cvtepi8_epi32(
        _mm_loadu_si128((const __m128i *)(const void *)(x + i)));
    _mm512_storeu_ps(out + i, _mm512_cvtepi32_ps(_mm512_sub_epi32(v, z)));
  }
  if (i < n) {
    const __mmask16 m = colMask(n - i);
    const __m512i v = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, x + i));
    _mm512_mask_storeu_ps(out + i, m,
                          _mm512_cvtepi32_ps(_mm512_sub_epi32(v, z)));
  }
}

/* mixrt_ukernel_depthwise_s8_rescale's row (uk_rescale_f32_fn). */
UK_T int64_t mixrt_uk_rescale_f32_avx512(const float *acc, int64_t n, double s,
                                         float bias, int has_bias, int relu,
                                         float *y) {
  return rescaleRow(NULL, acc, n, s, bias, has_bias, relu, y);
}

UK_T int64_t mixrt_uk_quantize_f32_s8_avx512(const float *x, int64_t n,
                                             const uk_quant *qp, int8_t *out) {
  const int mode = mixrt_uk_quant_mode(qp->scale);
  uk_quant_v k;
  k.b = _mm512_set1_ps(qp->scale);
  k.y = _mm512_set1_ps(1.0f / qp->scale);
  const float lo = (float)(qp->qmin - qp->zero_point),
              hi = (float)(127 - qp->zero_point);
  k.xlo = _mm512_set1_ps(lo * qp->scale); /* used in [2^-60, 2^60] */
  k.xhi = _mm512_set1_ps(hi * qp->scale);
  k.lo = _mm512_set1_ps(lo);
  k.hi = _mm512_set1_ps(hi);
  k.zp = _mm512_set1_epi32(qp->zero_point);
  if (mode == UK_Q_ONE_STEP)
    return quantizeLoop(x, n, &k, out, UK_Q_ONE_STEP);
  if (mode == UK_Q_TWO_STEPS)
    return quantizeLoop(x, n, &k, out, UK_Q_TWO_STEPS);
  return quantizeLoop(x, n, &k, out, UK_Q_DIVIDE);
}

/*===----------------------------------------------------------------------===*\
|* Depthwise convolution                                                      *|
\*===----------------------------------------------------------------------===*/

/* Tap loads of 16 outputs ow0 .. ow0 + 15 (the first `valid`, mask `m`)
 * from row[j * S]: S = 1 a masked load; S = 2 two masked loads of the 2
 * * valid - 1 floats spanned, deinterleaved by vpermt2ps; otherwise (S = 0)
 * a masked gather of index j * stride. Masked lanes read nothing. */
UK_INLINE UK_T __m512 dwLoad(const int S, const float *row, __mmask16 m,
                             int64_t valid, __m512i gather) {
  if (S == 1)
    return _mm512_maskz_loadu_ps(m, row);
  if (S == 2) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
    const int64_t span = 2 * valid - 1;
    const __m512 lo = _mm512_maskz_loadu_ps(colMask(span), row);
    const __m512 hi = _mm512_maskz_loadu_ps(colMask(span - 16), row + 16);
    return _mm512_permutex2var_ps(lo, even, hi);
  }
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, gather, row, 4);
}

/* Lanes [lo, hi) of 16 (both clamped to [0, 16]). */
UK_INLINE UK_T __mmask16 rangeMask(int64_t lo, int64_t hi) {
  return (__mmask16)(colMask(hi) & (__mmask16)~colMask(lo));
}

/* The lanes of a border tap load: lane j (of the first `valid`) reads
 * column col + j * sw of an input row of W columns when it lies in [0, W),
 * and is +0 otherwise. S = 1 and S = 0 (the gather): the lanes `a`; S = 2:
 * the positions of the two span loads, `a` and `b`. No division for S = 1
 * and 2. */
typedef struct dwEdge {
  __mmask16 a, b;
} dwEdge;

UK_INLINE UK_T dwEdge dwEdgeMask(const int S, int64_t col, int64_t W,
                                 int64_t sw, int64_t valid) {
  dwEdge e;
  if (S == 2) {
    /* Positions [0, 2 * valid - 1) of the span; inside: [plo, phi). */
    const int64_t span = 2 * valid - 1;
    const int64_t plo = col >= 0 ? 0 : -col;
    const int64_t phi = W - col < span ? W - col : span;
    e.a = rangeMask(plo, phi);
    e.b = rangeMask(plo - 16, phi - 16);
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
  e.b = 0;
  return e;
}

/* The border tap load of `row` from column `col` with the lanes of `e`:
 * masked-off lanes read nothing (the address is formed as an integer, as
 * it may lie before the row). */
UK_INLINE UK_T __m512 dwLoadEdge(const int S, const float *row, int64_t col,
                                 dwEdge e, __m512i gather) {
  const float *base = (const float *)((uintptr_t)row + (uintptr_t)(col * 4));
  if (S == 2) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
    const __m512 lo = _mm512_maskz_loadu_ps(e.a, base);
    const __m512 hi = _mm512_maskz_loadu_ps(
        e.b, (const float *)((uintptr_t)base + 16 * sizeof(float)));
    return _mm512_permutex2var_ps(lo, even, hi);
  }
  if (S == 1)
    return _mm512_maskz_loadu_ps(e.a, base);
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), e.a, gather, base, 4);
}

/* R output rows from oh0 of one plane, 16 outputs of a row at a time: per
 * tap (kh, kw ascending) one broadcast weight and R vfmadd231ps. A block
 * whose taps all lie inside the input (`rowsIn`: every tap row of the R
 * rows, and columns [owLo, owHi)) loads them directly; any other block
 * loads +0 for the padded taps (whole rows of zeros, masked-off lanes) and
 * still runs every fma, as the loops do. */
UK_INLINE UK_T void dwRows(const int R, const int S, const uk_dw_problem *p,
                           const float *in, const float *w, float *out,
                           int64_t oh0, const float *bias, int rowsIn,
                           int64_t owLo, int64_t owHi) {
  const __m512i gather = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int)p->sw));
  const int64_t rowStep = p->sh * p->W;
  for (int64_t ow0 = 0; ow0 < p->OW; ow0 += 16) {
    const int64_t valid = p->OW - ow0 < 16 ? p->OW - ow0 : 16;
    const __mmask16 m = colMask(valid);
    __m512 acc[4];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      acc[r] = _mm512_setzero_ps();
    if (rowsIn && ow0 >= owLo && ow0 + valid <= owHi) {
      for (int64_t kh = 0; kh < p->KH; ++kh) {
        const float *src = in + (oh0 * p->sh + kh * p->dh - p->pt) * p->W +
                           ow0 * p->sw - p->pl;
        for (int64_t kw = 0; kw < p->KW; ++kw) {
          const __m512 wv = _mm512_set1_ps(w[kh * p->KW + kw]);
          const float *tap = src + kw * p->dw;
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r)
            acc[r] = _mm512_fmadd_ps(
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
          const __m512 wv = _mm512_set1_ps(w[kh * p->KW + kw]);
          const int64_t col = ow0 * p->sw + kw * p->dw - p->pl;
          const dwEdge e =
              cached ? edges[kw] : dwEdgeMask(S, col, p->W, p->sw, valid);
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) {
            const __m512 x = rowOk[r] ? dwLoadEdge(S, rows[r], col, e, gather)
                                      : _mm512_setzero_ps();
            acc[r] = _mm512_fmadd_ps(x, wv, acc[r]);
          }
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512 x = acc[r];
      if (bias)
        x = _mm512_add_ps(x, _mm512_set1_ps(*bias));
      _mm512_mask_storeu_ps(out + (oh0 + r) * p->OW + ow0, m, x);
    }
  }
}

UK_INLINE UK_T void dwPlane(const int S, const uk_dw_problem *p,
                            const float *in, const float *w, float *out,
                            const float *bias, int64_t ohLo, int64_t ohHi,
                            int64_t owLo, int64_t owHi) {
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

/* r[j] lane i becomes r[i] lane j (16 x 16 floats): unpack pairs of rows,
 * then pairs of pairs, then gather the 128-bit lanes of four rows. */
UK_INLINE UK_T void transpose16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  /* r[4i + k], 128-bit lane L: column 4L + k of rows 4i .. 4i + 3. */
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]),
                  b = _mm512_castps_pd(t[4 * i + 1]),
                  c = _mm512_castps_pd(t[4 * i + 2]),
                  d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512 a = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88),
                 b = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xdd),
                 c = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88),
                 d = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xdd);
    t[k] = _mm512_shuffle_f32x4(a, c, 0x88);
    t[8 + k] = _mm512_shuffle_f32x4(a, c, 0xdd);
    t[4 + k] = _mm512_shuffle_f32x4(b, d, 0x88);
    t[12 + k] = _mm512_shuffle_f32x4(b, d, 0xdd);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i)
    r[i] = t[i];
}

/* acc[j] (j < ov; all 16 when `full`) += the taps of the output whose
 * tap 0 is at src[j], ascending. */
UK_INLINE UK_T void dwBatchTaps(const int full, int64_t taps,
                                const uk_dw_batch *b, const float *wbuf,
                                const float *const src[16], int64_t ov,
                                __m512 acc[16]) {
  for (int64_t t = 0; t < taps; ++t) {
    const __m512 wv = _mm512_load_ps(wbuf + t * 16);
    const int64_t off = (int64_t)b->toff[t] * 16;
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      if (full || j < ov)
        acc[j] = _mm512_fmadd_ps(_mm512_load_ps(src[j] + off), wv, acc[j]);
  }
}

/* Small planes, 16 at a time (see uk_dw_batch): lane j of every vector is
 * plane i0 + j. */
static UK_T __attribute__((noinline)) void dwBatched(const uk_dw_problem *p,
                                                     const uk_dw_batch *b) {
  const int64_t hw = p->H * p->W, ohw = p->OH * p->OW, taps = p->KH * p->KW;
  /* The padded planes, 16 floats per position; +0 wherever no input
   * element is staged (the same positions for every group). */
  float staged[UK_DWB_POS * 16] __attribute__((aligned(64)));
  float wbuf[UK_DWB_TAPS * 16] __attribute__((aligned(64)));
  for (int64_t i = 0; i < b->positions; ++i)
    _mm512_store_ps(staged + i * 16, _mm512_setzero_ps());
  /* Lane j's element offset in the input and output (j * hw, j * ohw; at
   * most 16 * UK_DWB_IN). */
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i planeIdx = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)hw));
  const __m512i outIdx = _mm512_mullo_epi32(iota, _mm512_set1_epi32((int)ohw));
  int64_t c = p->c0;
  for (int64_t i0 = 0; i0 < p->planes; i0 += 16) {
    const int64_t n = p->planes - i0 < 16 ? p->planes - i0 : 16;
    const __mmask16 lanes = colMask(n);
    /* Lane j: channel (c0 + i0 + j) mod C. */
    int32_t chan[16];
    for (int j = 0; j < 16; ++j) {
      chan[j] = (int32_t)c;
      if (j < n && ++c == p->C)
        c = 0;
    }
    const __m512i ci = _mm512_loadu_si512(chan);
    const __m512i wi = _mm512_mullo_epi32(ci, _mm512_set1_epi32((int)taps));
    if (taps <= 16 && chan[0] + n <= p->C) {
      /* Consecutive channels: their weight rows, transposed. */
      const float *w0 = p->weight + (int64_t)chan[0] * taps;
      __m512 r[16];
      const __mmask16 m = colMask(taps);
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        r[j] = j < n ? _mm512_maskz_loadu_ps(m, w0 + j * taps)
                     : _mm512_setzero_ps();
      transpose16(r);
#pragma GCC unroll 16
      for (int t = 0; t < 16; ++t)
        if (t < taps)
          _mm512_store_ps(wbuf + t * 16, r[t]);
    } else {
      for (int64_t t = 0; t < taps; ++t)
        _mm512_store_ps(wbuf + t * 16,
                        _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, wi,
                                                 p->weight + t, 4));
    }
    __m512 bv = _mm512_setzero_ps();
    if (p->bias)
      bv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes, ci, p->bias, 4);
    /* Stage: 16 input elements of the 16 planes, transposed. */
    const float *in = p->input + i0 * hw;
    for (int64_t k0 = 0; k0 < hw; k0 += 16) {
      const int64_t kv = hw - k0 < 16 ? hw - k0 : 16;
      const __mmask16 m = colMask(kv);
      if (kv <= 2) {
        /* A short tail (49 = 3 x 16 + 1): a gather per element. */
        for (int64_t k = k0; k < hw; ++k)
          if (b->slot[k] >= 0)
            _mm512_store_ps(staged + (int64_t)b->slot[k] * 16,
                            _mm512_mask_i32gather_ps(_mm512_setzero_ps(), lanes,
                                                     planeIdx, in + k, 4));
        continue;
      }
      __m512 r[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        r[j] = j < n ? _mm512_maskz_loadu_ps(m, in + j * hw + k0)
                     : _mm512_setzero_ps();
      transpose16(r);
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        if (j < kv && b->slot[k0 + j] >= 0)
          _mm512_store_ps(staged + (int64_t)b->slot[k0 + j] * 16, r[j]);
    }
    /* 16 outputs of the flattened plane at a time, one vector each. */
    float *out = p->output + i0 * ohw;
    for (int64_t o0 = 0; o0 < ohw; o0 += 16) {
      const int64_t ov = ohw - o0 < 16 ? ohw - o0 : 16;
      const float *src[16];
      __m512 acc[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) {
        src[j] = staged + (int64_t)b->base[j < ov ? o0 + j : o0] * 16;
        acc[j] = _mm512_setzero_ps();
      }
      if (ov == 16)
        dwBatchTaps(1, taps, b, wbuf, src, ov, acc);
      else
        dwBatchTaps(0, taps, b, wbuf, src, ov, acc);
      if (p->bias) {
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j)
          acc[j] = _mm512_add_ps(acc[j], bv);
      }
      if (ov <= 2) {
        /* A short tail: a scatter per output. */
        for (int j = 0; j < ov; ++j)
          _mm512_mask_i32scatter_ps(out + o0 + j, lanes, outIdx, acc[j], 4);
        continue;
      }
      transpose16(acc);
      const __mmask16 m = colMask(ov);
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j)
        if (j < n)
          _mm512_mask_storeu_ps(out + j * ohw + o0, m, acc[j]);
    }
  }
}

UK_INLINE UK_T void dwPlanes(const int S, const uk_dw_problem *p) {
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
  if (border && p->OW <= 32 && hn * wn <= UK_DW_STAGE) {
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
        /* Columns x0 .. x0 + 16 - 1 of staged row y: input column x - pl
         * of row y - pt where it exists (masked load), +0 elsewhere. */
        const int64_t iy = y - p->pt;
        float *dst = staged + y * wn;
        const int rowIn = iy >= 0 && iy < p->H;
        for (int64_t x0 = 0; x0 < wn; x0 += 16) {
          __m512 v = _mm512_setzero_ps();
          if (rowIn) {
            const float *src = (const float *)((uintptr_t)(in + iy * p->W) +
                                               (uintptr_t)((x0 - p->pl) * 4));
            const __mmask16 m = rangeMask(p->pl - x0, p->pl + p->W - x0);
            v = _mm512_maskz_loadu_ps(m, src);
          }
          _mm512_mask_storeu_ps(dst + x0, colMask(wn - x0), v);
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

/* The end of a block of the stride-2 paths: R x NV accumulators + bias
 * (one f32 add) stored to output rows oh0.. from column ow0, the first
 * `valid` columns of the block. */
UK_INLINE UK_T void dwStoreRows(const int R, const int NV,
                                const uk_dw_problem *p, __m512 acc[4][2],
                                float *out, int64_t oh0, int64_t ow0,
                                int64_t valid, const float *bias) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 x = acc[r][v];
      if (bias)
        x = _mm512_add_ps(x, _mm512_set1_ps(*bias));
      _mm512_mask_storeu_ps(out + (oh0 + r) * p->OW + ow0 + 16 * v,
                            colMask(valid - 16 * v), x);
    }
}

/* Stride-2 planes from deinterleaved rows (see UK_DW_S2): R output rows
 * from oh0, NV vectors of 16 outputs from ow0 (the first `valid` of them
 * stored). rows[t] is padded row oh0 * sh + t: its even padded columns, then
 * at + pitch its odd ones; tap (kh, kw) of output ow reads padded column
 * 2 * ow + kw * dw: half (kw * dw) & 1, element ow + (kw * dw >> 1) -- unit
 * stride, whole vectors (+0 past the padded row); K = 3 or 5: KW = K and
 * dw = 1 (the taps unrolled), else K = 0. Per tap one broadcast
 * weight and R * NV vfmadd231ps, (kh, kw) ascending from +0, then + bias:
 * the chain of the contract, padded taps included (+0 in the rows). */
UK_INLINE UK_T void dwRowsS2(const int K, const int R, const int NV,
                             const uk_dw_problem *p, const float *const *rows,
                             int64_t pitch, const float *w, float *out,
                             int64_t oh0, int64_t ow0, int64_t valid,
                             const float *bias) {
  __m512 acc[4][2];
  const int64_t KW = K ? K : p->KW, dw = K ? 1 : p->dw;
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t kh = 0; kh < p->KH; ++kh) {
    const float *src[4];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      src[r] = rows[r * p->sh + kh * p->dh] + ow0;
#pragma GCC unroll 8
    for (int64_t kw = 0; kw < KW; ++kw) {
      const __m512 wv = _mm512_set1_ps(w[kh * KW + kw]);
      const int64_t col = kw * dw;
      const int64_t off = (col & 1) * pitch + (col >> 1);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
          acc[r][v] = _mm512_fmadd_ps(_mm512_loadu_ps(src[r] + off + 16 * v),
                                      wv, acc[r][v]);
    }
  }
  dwStoreRows(R, NV, p, acc, out, oh0, ow0, valid, bias);
}

/* The loads of a deinterleaving vector: whole, or masked at the ends of
 * the row. */
typedef struct dwFillMask {
  __mmask16 lo, hi;
  int inside;
} dwFillMask;

/* Input row `row` deinterleaved into dst (even padded columns) and dst +
 * pitch (odd ones): the vectors [kLo, kHi) of each half (m[j]: the
 * loads of vector kLo + j), 32 padded columns
 * (two loads, masked at the ends of the row: +0 outside the input) and
 * two vpermt2ps per vector; the other vectors stay +0. */
UK_INLINE UK_T void dwFillS2(const uk_dw_problem *p, const float *row,
                             float *dst, int64_t pitch, int64_t kLo,
                             int64_t kHi, const dwFillMask *m) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                        23, 25, 27, 29, 31);
  for (int64_t k0 = kLo, j = 0; k0 < kHi; k0 += 16, ++j) {
    const int64_t x0 = 2 * k0 - p->pl; /* the input column of the first */
    __m512 lo, hi;
    if (m[j].inside) {
      lo = _mm512_loadu_ps(row + x0);
      hi = _mm512_loadu_ps(row + x0 + 16);
    } else {
      /* Masked-off lanes read nothing: the address is formed as an
       * integer, as it may lie before the row. */
      const float *base = (const float *)((uintptr_t)row + (uintptr_t)(x0 * 4));
      lo = _mm512_maskz_loadu_ps(m[j].lo, base);
      hi = _mm512_maskz_loadu_ps(
          m[j].hi, (const float *)((uintptr_t)base + 16 * sizeof(float)));
    }
    _mm512_storeu_ps(dst + k0, _mm512_permutex2var_ps(lo, even, hi));
    _mm512_storeu_ps(dst + pitch + k0, _mm512_permutex2var_ps(lo, odd, hi));
  }
}

/* The R output rows from oh of a stride-2 plane on their tap rows `rows`:
 * 32 outputs of a row at a time (8 accumulators), 16 for the last ones. */
UK_INLINE UK_T void dwBlockS2(const int K, const int R, const uk_dw_problem *p,
                              const float *const *rows, int64_t pitch,
                              const float *w, float *out, int64_t oh,
                              const float *bias) {
  int64_t ow0 = 0;
  if (R == 4) {
    for (; ow0 + 16 < p->OW; ow0 += 32)
      dwRowsS2(K, 4, 2, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 32 ? p->OW - ow0 : 32, bias);
    if (ow0 < p->OW)
      dwRowsS2(K, 4, 1, p, rows, pitch, w, out, oh, ow0, p->OW - ow0, bias);
  } else if (R == 2) {
    for (; ow0 + 16 < p->OW; ow0 += 32)
      dwRowsS2(K, 2, 2, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 32 ? p->OW - ow0 : 32, bias);
    if (ow0 < p->OW)
      dwRowsS2(K, 2, 1, p, rows, pitch, w, out, oh, ow0, p->OW - ow0, bias);
  } else {
    for (; ow0 < p->OW; ow0 += 16)
      dwRowsS2(K, 1, 1, p, rows, pitch, w, out, oh, ow0,
               p->OW - ow0 < 16 ? p->OW - ow0 : 16, bias);
  }
}

/* The stride-2 planes (sw = 2), when the tap rows of 4 output rows fit
 * UK_DW_S2 with a row of +0: the padded rows are deinterleaved once each
 * into a ring of `nr` slots as the blocks of 4, 2, 1 output rows move down
 * the plane (the padding rows are the row of +0), then the blocks run on
 * them (32 outputs of a row at a time, 8 accumulators; 16 for the last). */
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
  for (int64_t k = 0; k < (nr + 1) * 2 * pitch; k += 16)
    _mm512_storeu_ps(buf + k, _mm512_setzero_ps());
  /* The vectors of a half that hold input columns. */
  int64_t kLo = 0, kHi = 0;
  while (kLo < pitch && 2 * kLo - p->pl + 32 <= 0)
    kLo += 16;
  while (kHi < pitch && 2 * kHi - p->pl < p->W)
    kHi += 16;
  dwFillMask masks[UK_DW_S2 / 80];
  for (int64_t k0 = kLo, j = 0; k0 < kHi; k0 += 16, ++j) {
    const int64_t x0 = 2 * k0 - p->pl;
    masks[j].inside = x0 >= 0 && x0 + 32 <= p->W;
    masks[j].lo = rangeMask(-x0, p->W - x0);
    masks[j].hi = rangeMask(-x0 - 16, p->W - x0 - 16);
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

/* Stride-2 planes with the deinterleave fused into the tap loop (sh = sw
 * = 2, dh = dw = 1, KH = KW = K, 3 or 5): R output rows from oh0, NV
 * vectors of 16 outputs from ow0 (the first `valid` stored). src[t] points
 * at padded column x = 2 * ow0 of padded row 2 * oh0 + t (an input row, or
 * `zero`, a row of +0, for the padding rows), cm[i] the lanes of its load
 * i (columns x + 16 * i + lane inside the input; the others +0). Per
 * padded row (t ascending) 2 * NV + 1 loads, and per vector of 16 outputs
 * the K columns its taps read as registers: even and odd lanes of two
 * loads (vpermt2ps), then K - 2 shifted by one or two lanes into the next
 * vector's (valignd, or vpermt2ps with the last load). Each such row is
 * used by every output row of the block whose taps read it (kh = t - 2r):
 * per output, one broadcast weight and one vfmadd231ps per tap, (kh, kw)
 * ascending from +0, then + bias -- the chain of the contract, padded
 * taps included (+0 lanes). No stores but the outputs'. */
UK_INLINE UK_T void dwRowsS2F(const int K, const int R, const int NV,
                              const uk_dw_problem *p, const float *const *src,
                              const __mmask16 *cm, const float *w, float *out,
                              int64_t oh0, int64_t ow0, int64_t valid,
                              const float *bias) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21,
                                        23, 25, 27, 29, 31);
  /* Lanes s .. 15 of a half, then the next s columns of that half from
   * the last load (column 2 * j + (kw & 1) is its lane). */
  const __m512i next1e =
      _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  const __m512i next1o =
      _mm512_setr_epi32(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17);
  const __m512i next2e =
      _mm512_setr_epi32(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18);
  __m512 acc[4][2];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int t = 0; t < 2 * (R - 1) + K; ++t) {
    __m512 L[5], E[2], O[2];
#pragma GCC unroll 5
    for (int i = 0; i <= 2 * NV; ++i)
      L[i] = _mm512_maskz_loadu_ps(
          cm[i], (const float *)((uintptr_t)src[t] + 64 * (uintptr_t)i));
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      E[v] = _mm512_permutex2var_ps(L[2 * v], even, L[2 * v + 1]);
      O[v] = _mm512_permutex2var_ps(L[2 * v], odd, L[2 * v + 1]);
    }
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 X[5];
      X[0] = E[v];
      X[1] = O[v];
#pragma GCC unroll 3
      for (int kw = 2; kw < K; ++kw) {
        const __m512 half = kw & 1 ? O[v] : E[v];
        if (v + 1 < NV) {
          const __m512 nx = kw & 1 ? O[v + 1] : E[v + 1];
          X[kw] = _mm512_castsi512_ps(
              kw >> 1 == 1 ? _mm512_alignr_epi32(_mm512_castps_si512(nx),
                                                 _mm512_castps_si512(half), 1)
                           : _mm512_alignr_epi32(_mm512_castps_si512(nx),
                                                 _mm512_castps_si512(half), 2));
        } else {
          X[kw] = _mm512_permutex2var_ps(half,
                                         kw == 2   ? next1e
                                         : kw == 3 ? next1o
                                                   : next2e,
                                         L[2 * NV]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const int kh = t - 2 * r;
        if (kh < 0 || kh >= K)
          continue;
#pragma GCC unroll 5
        for (int kw = 0; kw < K; ++kw)
          acc[r][v] =
              _mm512_fmadd_ps(X[kw], _mm512_set1_ps(w[kh * K + kw]), acc[r][v]);
      }
    }
  }
  dwStoreRows(R, NV, p, acc, out, oh0, ow0, valid, bias);
}

/* The R output rows from oh of a fused stride-2 plane: the tap rows'
 * pointers and the loads' lanes per 32 (the last: 16) outputs of a row. */
UK_INLINE UK_T void dwBlockS2F(const int K, const int R, const uk_dw_problem *p,
                               const float *in, const float *w, float *out,
                               int64_t oh, const float *bias,
                               const float *zero) {
  for (int64_t ow0 = 0; ow0 < p->OW; ow0 += 32) {
    const int NV = p->OW - ow0 > 16 ? 2 : 1;
    const int64_t valid = p->OW - ow0 < 32 ? p->OW - ow0 : 32;
    const int64_t x = 2 * ow0 - p->pl;
    __mmask16 cm[5];
    for (int i = 0; i <= 2 * NV; ++i)
      cm[i] = rangeMask(-x - 16 * i, p->W - x - 16 * i);
    cm[2 * NV] &= colMask(K - 2); /* only the columns the shifts take */
    const float *src[2 * 3 + 5];
    for (int t = 0; t < 2 * (R - 1) + K; ++t) {
      const int64_t iy = 2 * oh + t - p->pt;
      /* Input rows as integers: column x may lie before the row (masked
       * off). */
      src[t] = iy >= 0 && iy < p->H
                   ? (const float *)((uintptr_t)(in + iy * p->W) +
                                     (uintptr_t)(x * 4))
                   : zero;
    }
    if (NV == 2)
      dwRowsS2F(K, R, 2, p, src, cm, w, out, oh, ow0, valid, bias);
    else
      dwRowsS2F(K, R, 1, p, src, cm, w, out, oh, ow0, valid, bias);
  }
}

/* The fused stride-2 planes (see dwRowsS2F): blocks of 4, 2, 1 output
 * rows down each plane. The stack: a row of 80 +0 floats. */
UK_INLINE UK_T void dwPlanesS2F(const int K, const uk_dw_problem *p) {
  float zero[80] __attribute__((aligned(64)));
  for (int k = 0; k < 80; k += 16)
    _mm512_store_ps(zero + k, _mm512_setzero_ps());
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * K * K;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    int64_t oh = 0;
    for (; oh + 4 <= p->OH; oh += 4)
      dwBlockS2F(K, 4, p, in, w, out, oh, bias, zero);
    if (oh + 2 <= p->OH) {
      dwBlockS2F(K, 2, p, in, w, out, oh, bias, zero);
      oh += 2;
    }
    if (oh < p->OH)
      dwBlockS2F(K, 1, p, in, w, out, oh, bias, zero);
    if (++c == p->C)
      c = 0;
  }
}

static UK_T __attribute__((noinline)) void
dwPlanesS2F3(const uk_dw_problem *p) {
  dwPlanesS2F(3, p);
}

static UK_T __attribute__((noinline)) void
dwPlanesS2F5(const uk_dw_problem *p) {
  dwPlanesS2F(5, p);
}

/* Stride-1 planes with the tap shifts in registers (sh = sw = 1, dh = dw
 * = 1, KH = KW = K, 3 or 5): R output rows from oh0, NV vectors of 16
 * outputs from ow0 (the first `valid` stored). src[t] points at column x =
 * ow0 - pl of input row oh0 + t - pt (or `zero`, a row of +0, for the
 * padding rows), cm[i] the lanes of its load i (columns x + 16 * i + lane
 * inside the input; the others +0). Per input row (t ascending) NV + 1
 * loads, and per vector of 16 outputs the K columns its taps read as
 * registers: the load, then shifted by kw lanes into the next load
 * (valignd). Each such row is used by every output row of the block whose
 * taps read it (kh = t - r): per output, one vfmadd231ps per tap with the
 * broadcast weight (wv[kh * K + kw] for K = 3, kept in registers), (kh,
 * kw) ascending from +0, then + bias -- the chain of the contract, padded
 * taps included (+0 lanes). No stores but the outputs'. */
UK_INLINE UK_T void dwRowsS1(const int K, const int R, const int NV,
                             const uk_dw_problem *p, const float *const *src,
                             const __mmask16 *cm, const float *w,
                             const __m512 *wv, float *out, int64_t oh0,
                             int64_t ow0, int64_t valid, const float *bias) {
  __m512 acc[6][2];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 16
  for (int t = 0; t < R - 1 + K; ++t) {
    __m512 L[3];
#pragma GCC unroll 3
    for (int i = 0; i <= NV; ++i)
      L[i] = _mm512_maskz_loadu_ps(
          cm[i], (const float *)((uintptr_t)src[t] + 64 * (uintptr_t)i));
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 X[5];
      X[0] = L[v];
#pragma GCC unroll 4
      for (int kw = 1; kw < K; ++kw) {
        const __m512i a = _mm512_castps_si512(L[v + 1]),
                      b = _mm512_castps_si512(L[v]);
        X[kw] = _mm512_castsi512_ps(kw == 1   ? _mm512_alignr_epi32(a, b, 1)
                                    : kw == 2 ? _mm512_alignr_epi32(a, b, 2)
                                    : kw == 3 ? _mm512_alignr_epi32(a, b, 3)
                                              : _mm512_alignr_epi32(a, b, 4));
      }
#pragma GCC unroll 6
      for (int r = 0; r < R; ++r) {
        const int kh = t - r;
        if (kh < 0 || kh >= K)
          continue;
#pragma GCC unroll 5
        for (int kw = 0; kw < K; ++kw)
          acc[r][v] = _mm512_fmadd_ps(
              X[kw], K == 3 ? wv[kh * K + kw] : _mm512_set1_ps(w[kh * K + kw]),
              acc[r][v]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      __m512 x = acc[r][v];
      if (bias)
        x = _mm512_add_ps(x, _mm512_set1_ps(*bias));
      _mm512_mask_storeu_ps(out + (oh0 + r) * p->OW + ow0 + 16 * v,
                            colMask(valid - 16 * v), x);
    }
}

/* The R output rows from oh of a stride-1 plane: the tap rows' pointers
 * and the loads' lanes per 32 (the last: 16) outputs of a row. */
UK_INLINE UK_T void dwBlockS1(const int K, const int R, const uk_dw_problem *p,
                              const float *in, const float *w, const __m512 *wv,
                              float *out, int64_t oh, const float *bias,
                              const float *zero) {
  const float *rows[6 - 1 + 5];
  for (int t = 0; t < R - 1 + K; ++t) {
    const int64_t iy = oh + t - p->pt;
    rows[t] = iy >= 0 && iy < p->H ? in + iy * p->W : NULL;
  }
  for (int64_t ow0 = 0; ow0 < p->OW; ow0 += 32) {
    const int NV = p->OW - ow0 > 16 ? 2 : 1;
    const int64_t valid = p->OW - ow0 < 32 ? p->OW - ow0 : 32;
    const int64_t x = ow0 - p->pl;
    __mmask16 cm[3];
    for (int i = 0; i <= NV; ++i)
      cm[i] = rangeMask(-x - 16 * i, p->W - x - 16 * i);
    cm[NV] &= colMask(K - 1); /* only the columns the shifts take */
    const float *src[6 - 1 + 5];
    for (int t = 0; t < R - 1 + K; ++t)
      /* As integers: column x may lie before the row (masked off). */
      src[t] = rows[t]
                   ? (const float *)((uintptr_t)rows[t] + (uintptr_t)(x * 4))
                   : zero;
    if (NV == 2)
      dwRowsS1(K, R, 2, p, src, cm, w, wv, out, oh, ow0, valid, bias);
    else
      dwRowsS1(K, R, 1, p, src, cm, w, wv, out, oh, ow0, valid, bias);
  }
}

/* The stride-1 planes of dwRowsS1: blocks of DW_S1_ROWS, then 4, 2, 1
 * output rows down each plane. The stack: a row of 48 +0 floats. */
#define DW_S1_ROWS 6
UK_INLINE UK_T void dwPlanesS1(const int K, const uk_dw_problem *p) {
  float zero[48] __attribute__((aligned(64)));
  for (int k = 0; k < 48; k += 16)
    _mm512_store_ps(zero + k, _mm512_setzero_ps());
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * K * K;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    __m512 wv[9];
    if (K == 3)
      for (int k = 0; k < 9; ++k)
        wv[k] = _mm512_set1_ps(w[k]);
    int64_t oh = 0;
    for (; oh + DW_S1_ROWS <= p->OH; oh += DW_S1_ROWS)
      dwBlockS1(K, DW_S1_ROWS, p, in, w, wv, out, oh, bias, zero);
    if (DW_S1_ROWS > 4 && oh + 4 <= p->OH) {
      dwBlockS1(K, 4, p, in, w, wv, out, oh, bias, zero);
      oh += 4;
    }
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

UK_T void mixrt_uk_dw_avx512(const uk_dw_problem *p) {
  uk_dw_batch batch;
  if (mixrt_uk_dw_batch_init(p, &batch))
    dwBatched(p, &batch);
  else if (p->sw == 1 && p->sh == 1 && p->dw == 1 && p->dh == 1 &&
           p->KH == p->KW && (p->KW == 3 || p->KW == 5) && p->H > 0 && p->W > 0)
    p->KW == 3 ? dwPlanesS1K3(p) : dwPlanesS1K5(p);
  else if (p->sw == 1)
    dwPlanes(1, p);
  else if (p->sw == 2 && p->sh == 2 && p->dw == 1 && p->dh == 1 &&
           p->KH == p->KW && (p->KW == 3 || p->KW == 5) && p->H > 0 && p->W > 0)
    p->KW == 3 ? dwPlanesS2F3(p) : dwPlanesS2F5(p);
  else if (p->sw == 2 && dwPlanesS2(p))
    ;
  else if (p->sw == 2)
    dwPlanes(2, p);
  else if (p->sw <= (1 << 26))
    dwPlanes(0, p); /* 15 * stride fits the gather's int32 index */
  else
    mixrt_uk_dw_portable(p);
}

/*===----------------------------------------------------------------------===*\
|* Grouped convolutions: a band's tiles (mixrt_uk_gconv_avx512) and copy      *|
\*===----------------------------------------------------------------------===*/

/* Positions [q0, q0 + 16 * V) (from band position (row, col)) of FR
 * filters: one unaligned load per tap and vector, FR broadcasts per tap,
 * FR x V accumulators; every output the chain fma(w, x, acc) from +0 over
 * (c, kh, kw) ascending, then + bias (one add), then relu (x > 0 or NaN ?
 * x : +0). */
UK_INLINE UK_T void gcTile(const uk_gconv_tile *t, int64_t q0, const int FR,
                           const int V, int64_t row, int64_t col) {
  __m512 acc[UK_GC_FR_AVX512][4];
#pragma GCC unroll 8
  for (int i = 0; i < FR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v)
      acc[i][v] = _mm512_setzero_ps();
  const float *src = t->band + q0;
  const float *w[UK_GC_FR_AVX512];
#pragma GCC unroll 8
  for (int i = 0; i < FR; ++i)
    w[i] = t->w + i * t->ws;
  for (int64_t c = 0, kk = 0; c < t->cg; ++c, src += t->plane)
    for (int64_t k = 0; k < t->taps; ++k, ++kk) {
      const float *x = src + t->toff[k];
      __m512 xv[4];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v)
        xv[v] = _mm512_loadu_ps(x + 16 * v);
#pragma GCC unroll 8
      for (int i = 0; i < FR; ++i) {
        const __m512 wv = _mm512_set1_ps(w[i][kk]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
          acc[i][v] = _mm512_fmadd_ps(wv, xv[v], acc[i][v]);
      }
    }
  const __m512i iota =
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    int l0[16], len[16];
    int64_t at[16];
    const int segs = mixrt_uk_gc_segments(t, row, col, 16, l0, len, at);
    for (col += 16; col >= t->wp; col -= t->wp)
      ++row;
#pragma GCC unroll 8
    for (int i = 0; i < FR; ++i) {
      __m512 x = acc[i][v];
      if (t->bias)
        x = _mm512_add_ps(x, _mm512_set1_ps(t->bias[i]));
      if (t->relu)
        x = _mm512_maskz_mov_ps(
            _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NLE_UQ), x);
      float *out = t->out + i * t->out_plane;
      for (int s = 0; s < segs; ++s) {
        const __m512 y =
            l0[s] == 0
                ? x
                : _mm512_permutexvar_ps(
                      _mm512_add_epi32(iota, _mm512_set1_epi32(l0[s])), x);
        _mm512_mask_storeu_ps(out + at[s], (__mmask16)((1u << len[s]) - 1u), y);
      }
    }
  }
}

/* The 16 band columns from column x of an input row (columns x + l * sw,
 * +0 outside [0, W)): stride 1 one masked load, stride 2 two and a lane
 * permutation, else a masked gather. Masked-off lanes touch no memory. */
UK_INLINE UK_T __m512 gcColumns(uintptr_t src, int64_t x, int64_t sw,
                                int64_t W) {
  if (sw == 1)
    return _mm512_maskz_loadu_ps(colMask(W - x) & ~colMask(-x),
                                 (const void *)(src + (uintptr_t)x * 4));
  if (sw == 2) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                           20, 22, 24, 26, 28, 30);
    const __m512 lo = _mm512_maskz_loadu_ps(
        colMask(W - x) & ~colMask(-x), (const void *)(src + (uintptr_t)x * 4));
    const __m512 hi =
        _mm512_maskz_loadu_ps(colMask(W - x - 16) & ~colMask(-x - 16),
                              (const void *)(src + (uintptr_t)(x + 16) * 4));
    return _mm512_permutex2var_ps(lo, even, hi);
  }
  int64_t lo, hi;
  mixrt_uk_gc_lanes(x, sw, W, 16, &lo, &hi);
  const __m512i idx = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
      _mm512_set1_epi32((int)sw));
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(),
                                  colMask(hi) & ~colMask(lo), idx,
                                  (const void *)(src + (uintptr_t)x * 4), 4);
}

/* The band copy (uk_gconv_fill) in one pass: 16 columns a store, each
 * row's last store running up to 15 floats into the next row (written
 * after it) or into the slack (written last). */
/* Row i of channel c's phase plane (ri, ci), and with `pairs` (stride 2,
 * both column phases: x0[1] = x0[0] + 1) of plane (ri, ci + 1) too, from
 * the same 32 floats per 16 columns (even and odd lanes); pairs store
 * exactly wp floats a row, the other rows whole vectors (running up to 15
 * floats into what is written after them). */
UK_INLINE UK_T void gcFillRow(const uk_gconv_fill *f, int64_t c, int ri, int ci,
                              int64_t i, int pairs) {
  const __m512 zero = _mm512_setzero_ps();
  float *d = f->band + c * f->plane + (ri * f->ncp + ci) * f->ps + i * f->wp;
  /* ih0 < H first: ih0 + i * sh cannot overflow then. */
  const int64_t ih = f->ih0[ri] < f->H ? f->ih0[ri] + i * f->sh : f->H;
  if (ih < 0 || ih >= f->H) {
    for (int64_t j = 0; j < f->wp; j += 16) {
      _mm512_mask_storeu_ps(d + j, colMask(f->wp - j), zero);
      if (pairs)
        _mm512_mask_storeu_ps(d + f->ps + j, colMask(f->wp - j), zero);
    }
    return;
  }
  const uintptr_t src = (uintptr_t)(f->in + (c * f->H + ih) * f->W);
  if (!pairs) {
    for (int64_t j = 0; j < f->wp; j += 16)
      _mm512_storeu_ps(d + j,
                       gcColumns(src, f->x0[ci] + j * f->sw, f->sw, f->W));
    return;
  }
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20,
                                         22, 24, 26, 28, 30),
                odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int64_t j = 0; j < f->wp; j += 16) {
    const __mmask16 m = colMask(f->wp - j);
    const int64_t x = f->x0[ci] + 2 * j;
    const __m512 lo =
        _mm512_maskz_loadu_ps(colMask(f->W - x) & ~colMask(-x),
                              (const void *)(src + (uintptr_t)x * 4));
    const __m512 hi =
        _mm512_maskz_loadu_ps(colMask(f->W - x - 16) & ~colMask(-x - 16),
                              (const void *)(src + (uintptr_t)(x + 16) * 4));
    _mm512_mask_storeu_ps(d + j, m, _mm512_permutex2var_ps(lo, even, hi));
    _mm512_mask_storeu_ps(d + f->ps + j, m,
                          _mm512_permutex2var_ps(lo, odd, hi));
  }
}

/* The band copy (uk_gconv_fill) in one pass, 16 columns a store. Stride 2
 * in both directions (four planes) reads each channel's input rows in
 * order: plane row i of row phase 0, then of row phase 1. */
UK_T void mixrt_uk_gconv_fill_avx512(const uk_gconv_fill *f) {
  if (f->sw == 2 && f->ncp == 2) {
    for (int64_t c = 0; c < f->cg; ++c)
      for (int64_t i = 0; i < f->rows; ++i)
        for (int ri = 0; ri < f->nrp; ++ri)
          gcFillRow(f, c, ri, 0, i, 1);
  } else {
    for (int64_t c = 0; c < f->cg; ++c)
      for (int ri = 0; ri < f->nrp; ++ri)
        for (int ci = 0; ci < f->ncp; ++ci)
          for (int64_t i = 0; i < f->rows; ++i)
            gcFillRow(f, c, ri, ci, i, 0);
  }
  float *slack = f->band + f->cg * f->plane;
  for (int64_t j = 0; j < 16 + f->wp; j += 16)
    _mm512_mask_storeu_ps(slack + j, colMask(16 + f->wp - j),
                          _mm512_setzero_ps());
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

/* A band of at most 4 vectors (a plane of up to 64 padded positions, e.g.
 * 7x7 with 3x3 windows: 63) with at most UK_GC_FR_SMALL filters per tile
 * (the caller's choice) is one tile of 4 vectors: 4 loads and FR <= 6
 * broadcasts per 4 x FR fma, where 3 + 1 vectors would take 20 per 32. */
#define UK_GC_SMALL(FR)                                                        \
  case FR:                                                                     \
    gcTile(t, 0, FR, (int)vectors, 0, 0);                                      \
    break;

UK_T void mixrt_uk_gconv_avx512(const uk_gconv_tile *t) {
  const int64_t vectors = (t->nq + 15) / 16;
  if (vectors == 4 && t->fr <= UK_GC_FR_SMALL) {
    switch (t->fr) {
      UK_GC_SMALL(1)
      UK_GC_SMALL(2)
      UK_GC_SMALL(3)
      UK_GC_SMALL(4)
      UK_GC_SMALL(5)
      UK_GC_SMALL(6)
    default:
      break;
    }
    return;
  }
  int64_t row = 0, col = 0;
  for (int64_t v0 = 0; v0 < vectors; v0 += 3) {
    const int V = vectors - v0 >= 3 ? 3 : (int)(vectors - v0);
    const int64_t q0 = v0 * 16;
    switch (t->fr) {
      UK_GC_TILE(1)
      UK_GC_TILE(2)
      UK_GC_TILE(3)
      UK_GC_TILE(4)
      UK_GC_TILE(5)
      UK_GC_TILE(6)
      UK_GC_TILE(7)
      UK_GC_TILE(8)
    default:
      break;
    }
    for (col += 48; col >= t->wp; col -= t->wp)
      ++row;
  }
}
#undef UK_GC_SMALL
#undef UK_GC_TILE

#else
typedef int mixrt_uk_avx512_unused;
#endif
