/*===-- ukernel_internal.h - shared definitions of the GEMM ukernels ------===*\
|*                                                                            *|
|* The problem records the entry points of ukernel.c validate and hand to    *|
|* one path (portable in ukernel.c, AVX2 in ukernel_avx2.c, AVX-512 and      *|
|* VNNI in ukernel_avx512.c), and scalar helpers every path shares, so the   *|
|* epilogues are one definition. Freestanding C11.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MIXRT_CORE_UKERNEL_INTERNAL_H
#define MIXRT_CORE_UKERNEL_INTERNAL_H

#include "mixrt/ukernel.h"

#define UK_HIDDEN __attribute__((visibility("hidden")))
#define UK_NR MIXRT_UKERNEL_NR
#define UK_CANONICAL_NAN_BITS 0x7fc00000u

/* A float GEMM: f32 activations, f32/f16/bf16 packed weights. */
typedef struct uk_f32_problem {
  int64_t M, N, K;
  const float *A;
  int64_t lda;
  /* Panel p starts at panels + p * panel_bytes; its row k (16 elements) at
   * + k * row_bytes. A packed buffer has row_bytes = 16 elements; a 1x1
   * convolution reads its input in place (row_bytes = a plane's bytes). */
  const unsigned char *panels;
  int64_t panel_bytes;
  int64_t row_bytes;
  mixrt_ukernel_type type;
  float *C;
  int64_t ldc;
  const float *bias;
  int relu;
  /* Blocked over K by a caller (mixrt_ukernel_conv2d_f32): `accumulate`
   * continues from the f32 sums stored in C instead of +0; `partial`
   * stores the raw sums (no bias, relu or NaN canonicalization). */
  int accumulate, partial;
  /* MIXRT_UKERNEL_S8_DEQUANTIZED: the scale and zero point of every column
   * (padded to whole panels); w_zero_points NULL when all are 0. */
  const float *w_scales;
  const int32_t *w_zero_points;
} uk_f32_problem;

/* An int8 GEMM into int32 (Cf == NULL) or with the rescale (Cf != NULL). */
typedef struct uk_s8_problem {
  int64_t M, N, K;
  const int8_t *A;
  int64_t lda;
  /* Panel p at panels + p * panel_bytes (Kp * 16 bytes, Kp = K rounded up
   * to 4); colsums[n] = sum_k B[k][n] (16 per panel, padding 0). */
  const int8_t *panels;
  int64_t panel_bytes;
  const int32_t *colsums;
  const int32_t *a_zero_points; /* NULL, one, or M (a_per_row) */
  const float *a_scales;        /* f32 output: one, or M (a_per_row) */
  int a_per_row;
  const int32_t *b_zero_points; /* NULL or N */
  const float *b_scales;        /* f32 output: N */
  int32_t *Ci;
  float *Cf;
  int64_t ldc;
  const float *bias;
  int relu;
  /* Blocked over K by a caller (mixrt_ukernel_conv2d_s8s8s32; int32 output
   * only): the sums of this call are added to those stored in Ci (modulo
   * 2^32, so the blocks' sum is the whole K's exactly). */
  int accumulate;
} uk_s8_problem;

/* A depthwise f32 convolution over planes [0, planes) of an N*C stack:
 * plane i reads input + i * H * W (unpadded: the tap of output (oh, ow) at
 * (kh, kw) reads row oh * sh + kh * dh - pt, column ow * sw + kw * dw - pl,
 * +0 outside), weight + (i % C) * KH * KW (and bias[i % C]), writes
 * output + i * OH * OW. `c0` is the channel of plane 0 (a part of a split
 * starts mid-stack). */
typedef struct uk_dw_problem {
  int64_t planes, C, c0, H, W, KH, KW, sh, sw, dh, dw, OH, OW, pt, pl;
  const float *input, *weight, *bias;
  float *output;
  /* MIXRT_UKERNEL_RELU: applied by the caller of the paths (dwCall), which
   * ignore it. */
  int relu;
} uk_dw_problem;

/* Output positions and k of one packed block of a convolution's patches
 * (64 KiB of floats on the stack). */
#define UK_CONV_NB 128
#define UK_CONV_KB 128

/* A one-group convolution (mixrt_ukernel_conv2d_f32). */
typedef struct uk_conv_problem {
  int64_t N, C, H, W, F, KH, KW, sh, sw, dh, dw, pt, pl, OH, OW;
  const float *input, *weight, *bias;
  float *output;
  int relu; /* mixrt_ukernel_conv2d_f32's MIXRT_UKERNEL_RELU */
} uk_conv_problem;

/* The direct path of a grouped convolution (mixrt_ukernel_conv2d_grouped_f32,
 * strides up to UK_GC_PHASES): one band of output rows of one image and
 * group is computed from a +0-padded copy of the group's input rows
 * (UK_GC_BAND floats of stack), split by stride phase so that every tap of
 * consecutive outputs reads consecutive floats. Channel c's copy is at band
 * + c * plane: one phase plane (ps floats apart) per row phase ph (of kh *
 * dh mod sh) and column phase pw (of kw * dw mod sw) that a tap uses; plane
 * row i of row phase ph holds input row (oh0 + i) * sh + ph - pt, column j
 * of column phase pw input column j * sw + pw - pl (+0 outside), rows wp =
 * OW + (KW - 1) * dw / sw floats wide. Position q = row * wp + col of the
 * band reads tap t at q + toff[t] (toff[t] = its phase plane's offset + kh
 * * dh / sh * wp + kw * dw / sw; stride 1: one plane, the padded rows, and
 * toff[t] = kh * dh * wp + kw * dw), so a vector of 16 consecutive q is one
 * unaligned load per tap; the lanes with col >= OW or q >= nq are computed
 * and dropped at the store; each tap's fr weights are broadcast from the
 * weight as it is (fr rows of cg * taps). */
#define UK_GC_PHASES 8   /* the largest stride of the direct path */
#define UK_GC_BAND 12288 /* 48 KiB */
#define UK_GC_TAPS 1024
/* Filters per tile: AVX-512 (and the portable path), AVX2; AVX-512 on a
 * band of 49 to 64 positions (one tile of 4 vectors). */
#define UK_GC_FR_AVX512 8
#define UK_GC_FR_AVX2 4
#define UK_GC_FR_SMALL 6

typedef struct uk_gconv_tile {
  const float *band;
  int64_t plane, wp, ow, nq; /* nq = band rows * wp */
  int64_t cg, taps;
  const int32_t *toff;
  /* Filter i's weights (cg x taps, the group's KH x KW windows) at w + i
   * * ws. */
  const float *w;
  int64_t ws;
  int fr;
  const float *bias; /* the tile's fr biases, or NULL */
  int relu;
  /* Filter i's output row 0 of the band at out + i * out_plane (rows OW
   * apart). */
  float *out;
  int64_t out_plane;
} uk_gconv_tile;

/* The padded rows of a grouped convolution's band (the layout above): for
 * each of `cg` channels (input planes H x W apart from `in`, rows W apart)
 * and each of its nrp x ncp phase planes (row phase index ri major, at band
 * + c * plane + (ri * ncp + ci) * ps), plane row i < rows (at + i * wp) is
 * input row ih0[ri] + i * sh and its column j < wp input column x0[ci] + j
 * * sw, +0 outside the input; then 16 + wp floats of +0 after the last
 * channel. */
typedef struct uk_gconv_fill {
  float *band;
  int64_t plane, ps, wp, cg, rows, H, W, sh, sw;
  int nrp, ncp;
  int64_t ih0[UK_GC_PHASES], x0[UK_GC_PHASES];
  const float *in;
} uk_gconv_fill;

/* The output segments of the vector of `lanes` positions from band
 * position (row, col): lanes [l0[i], l0[i] + len[i]) go to output elements
 * from at[i] (row * OW + col, consecutive within the segment; lanes of
 * columns >= OW or rows past the band are dropped). Segments that continue
 * each other in the output (wp == OW) are merged. Returns their count. */
static inline int mixrt_uk_gc_segments(const uk_gconv_tile *t, int64_t row,
                                       int64_t col, int lanes, int *l0,
                                       int *len, int64_t *at) {
  if (col + lanes <= t->ow && row * t->wp < t->nq) {
    /* Inside one row (most vectors of rows wider than a vector). */
    l0[0] = 0;
    len[0] = lanes;
    at[0] = row * t->ow + col;
    return 1;
  }
  int n = 0;
  for (int l = 0; l < lanes && row * t->wp < t->nq;) {
    int64_t step = lanes - l;
    if (col < t->ow) {
      if (t->ow - col < step)
        step = t->ow - col;
      const int64_t o = row * t->ow + col;
      if (n > 0 && l0[n - 1] + len[n - 1] == l && at[n - 1] + len[n - 1] == o)
        len[n - 1] += (int)step;
      else {
        l0[n] = l;
        len[n] = (int)step;
        at[n++] = o;
      }
    } else if (t->wp - col < step)
      step = t->wp - col;
    l += (int)step;
    if ((col += step) == t->wp) {
      col = 0;
      ++row;
    }
  }
  return n;
}

/* A run of consecutive positions of a block that lie in one output row and
 * one 16-column panel: panel column j0 of panel `panel`, `len` positions
 * from output (oh, ow0). */
typedef struct uk_conv_run {
  int32_t panel, j0, len;
  int64_t oh, ow0;
} uk_conv_run;

/* Packs k in [k0, k0 + kb) of the patches of a block's positions (`runs`,
 * in column order, over `panels` panels) of image `in` into `buf` (panels
 * of kb x 16 floats, pack_b's layout, +0 for padded taps and for the
 * columns after the last run). A 1x1, stride-1 window without padding is
 * passed as one row (OH = H = 1, OW = W = OH * OW). */
typedef void (*uk_conv_pack_fn)(const uk_conv_problem *p, const float *in,
                                const uk_conv_run *runs, int nruns, int panels,
                                int64_t k0, int64_t kb, float *buf);

/* The vector packings: what a run reads at tap (kh, kw) -- lanes `m` of
 * the 16 from input element `off` (relative to the channel's plane, may be
 * negative: lane j reads off + j), m == 0 when the tap's input row is
 * padding; stride 1 only. */
typedef struct uk_conv_ent {
  int64_t off;
  uint32_t m;
} uk_conv_ent;

/* k of one packed block of an int8 convolution's patches (KB x NB bytes in
 * the packed layout and their column sums, 34 KiB of stack), staged
 * UK_CONV_S8_ROWS rows at a time (a multiple of 4: the interleave's quads),
 * so that the staged rows are read back from L1. */
#define UK_CONV_S8_KB 256
#define UK_CONV_S8_ROWS 16
_Static_assert(UK_CONV_S8_ROWS % 4 == 0 && UK_CONV_S8_KB % UK_CONV_S8_ROWS == 0,
               "the staged rows are whole quads of the k block");
/* Positions of a block of an int8 convolution whose K is small. */
#define UK_CONV_S8_NBMAX 512

/* An int8 convolution (mixrt_ukernel_conv2d_s8s8s32). */
typedef struct uk_conv_s8_problem {
  int64_t N, C, H, W, F, KH, KW, sh, sw, dh, dw, pt, pl, OH, OW;
  const int8_t *input, *weight;
  int32_t zx;        /* the input's zero point (padded taps) */
  const int32_t *zw; /* NULL, one, or F (zw_per_row) */
  int zw_per_row;
  int32_t *output;
  /* Positions per block: UK_CONV_NB, or up to UK_CONV_S8_NBMAX when K is
   * small (the blocks' staged and packed bytes stay within the buffers). */
  int nb;
  /* The epilogue of mixrt_ukernel_conv2d_s8_rescale, run on each block's
   * sums (NULL: none, the sums are the output). */
  struct uk_conv_s8_epilogue *epilogue;
} uk_conv_s8_problem;

/* Rows [0, rows) of the patches `t` (row k at t + k * pitch, columns [0,
 * panels * 16); rows a multiple of 4) into pack_b's s8 layout: panel q's
 * rows at out + q * panel_bytes (16 bytes per row, in quads of 16 columns
 * x 4 rows); their column sums (16 per panel, at sums + q * 16) are stored,
 * or added to those there when `add`. */
typedef void (*uk_conv_s8_interleave_fn)(const int8_t *t, int64_t pitch,
                                         int64_t rows, int panels,
                                         int64_t panel_bytes, int8_t *out,
                                         int32_t *sums, int add);

/* Table entries (taps x runs of a block) kept on the stack (16 KiB). */
#define UK_CONV_TAB 1024

static inline uk_conv_ent mixrt_uk_conv_entry(const uk_conv_problem *p,
                                              const uk_conv_run *u, int64_t kh,
                                              int64_t kw) {
  uk_conv_ent e = {0, 0};
  const int64_t ih = u->oh * p->sh + kh * p->dh - p->pt;
  if (ih < 0 || ih >= p->H)
    return e;
  /* Lane j (of the run's) reads input column iw0 + j. */
  const int64_t iw0 = u->ow0 + kw * p->dw - p->pl - u->j0;
  const int64_t lo = u->j0 > -iw0 ? u->j0 : -iw0;
  const int64_t hi = u->j0 + u->len < p->W - iw0 ? u->j0 + u->len : p->W - iw0;
  if (lo >= hi)
    return e;
  e.off = ih * p->W + iw0;
  e.m = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
  return e;
}

/* The walk of a vector packing over k: (c, kh, kw) and the tap kh*KW + kw
 * of the current k, the first run of each panel, and whether `tab` holds
 * every (tap, run)'s entry (at tab[tap * nruns + run]). */
typedef struct uk_conv_pack_state {
  int64_t c, kh, kw, tap;
  int first[UK_CONV_NB / UK_NR + 1];
  int tabled;
} uk_conv_pack_state;

/* a / b and a % b for 0 <= a, 0 < b: shift and subtract on 32-bit targets
 * (the freestanding core links no 64-bit division helper). */
static inline void mixrt_uk_divmod(int64_t a, int64_t b, int64_t *q,
                                   int64_t *r) {
#if UINTPTR_MAX > 0xffffffffu
  *q = a / b;
  *r = a % b;
#else
  uint64_t quot = 0, rem = 0, ua = (uint64_t)a, ub = (uint64_t)b;
  for (int i = 63; i >= 0; --i) {
    rem = (rem << 1) | ((ua >> i) & 1u);
    if (rem >= ub) {
      rem -= ub;
      quot |= (uint64_t)1 << i;
    }
  }
  *q = (int64_t)quot;
  *r = (int64_t)rem;
#endif
}

/* The lanes [*lo, *hi) of `n` (clamped to [0, n]) whose column x + l * sw
 * (sw >= 1) lies in [0, W): x > -2^63, W - x < 2^63 (a grouped band's
 * column; the window checks bound both). */
static inline void mixrt_uk_gc_lanes(int64_t x, int64_t sw, int64_t W,
                                     int64_t n, int64_t *lo, int64_t *hi) {
  int64_t a = 0, b = 0, r;
  if (sw == 1) {
    a = x < 0 ? -x : 0;
    b = W - x;
  } else {
    if (x < 0) {
      mixrt_uk_divmod(-x, sw, &a, &r);
      a += r != 0;
    }
    if (W - x > 0) {
      mixrt_uk_divmod(W - x, sw, &b, &r);
      b += r != 0;
    }
  }
  *lo = a < n ? a : n;
  *hi = b < n ? b : n;
  if (*hi < *lo)
    *hi = *lo;
}

/* (c, kh, kw) of the patch row k0: every packing starts its walk here. */
static inline void mixrt_uk_conv_tap_of(const uk_conv_problem *p, int64_t k0,
                                        int64_t *c, int64_t *kh, int64_t *kw) {
  int64_t tap;
  mixrt_uk_divmod(k0, p->KH * p->KW, c, &tap);
  mixrt_uk_divmod(tap, p->KW, kh, kw);
}

static inline void mixrt_uk_conv_pack_begin(uk_conv_pack_state *st,
                                            const uk_conv_problem *p,
                                            const uk_conv_run *runs, int nruns,
                                            int panels, int64_t k0,
                                            uk_conv_ent *tab) {
  const int64_t taps = p->KH * p->KW;
  mixrt_uk_conv_tap_of(p, k0, &st->c, &st->kh, &st->kw);
  st->tap = st->kh * p->KW + st->kw;
  for (int i = nruns - 1; i >= 0; --i)
    st->first[runs[i].panel] = i;
  st->first[panels] = nruns;
  /* Computed once per call when they fit (a 7x7 window over a block of 8
   * rows: 392 entries). */
  st->tabled = taps * nruns <= UK_CONV_TAB;
  if (st->tabled)
    for (int64_t y = 0, e = 0; y < p->KH; ++y)
      for (int64_t x = 0; x < p->KW; ++x)
        for (int i = 0; i < nruns; ++i, ++e)
          tab[e] = mixrt_uk_conv_entry(p, &runs[i], y, x);
}

static inline void mixrt_uk_conv_pack_next(uk_conv_pack_state *st,
                                           const uk_conv_problem *p) {
  ++st->tap;
  if (++st->kw == p->KW) {
    st->kw = 0;
    if (++st->kh == p->KH) {
      st->kh = 0;
      st->tap = 0;
      ++st->c;
    }
  }
}

/* The vector paths' internal type code of MIXRT_UKERNEL_S8_DEQUANTIZED
 * without zero points (no subtraction in the tile). */
#define UK_TYPE_S8_DEQUANTIZED_SYM 5

typedef void (*uk_f32_fn)(const uk_f32_problem *p);
typedef void (*uk_dw_fn)(const uk_dw_problem *p);
typedef void (*uk_s8_fn)(const uk_s8_problem *p);

/* Paths (the portable ones always exist). */
UK_HIDDEN void mixrt_uk_f32_portable(const uk_f32_problem *p);
UK_HIDDEN void mixrt_uk_s8_portable(const uk_s8_problem *p);
UK_HIDDEN void mixrt_uk_dw_portable(const uk_dw_problem *p);
/* Floats of the stack buffer into which the vector paths stage a small
 * padded plane (8 KiB). */
#define UK_DW_STAGE 2048
/* Floats of the stack buffer into which the vector paths deinterleave the
 * tap rows of 4 output rows of a stride-2 plane (16 KiB): per padded row
 * its even columns, then its odd ones, +0 for the padding, so that every
 * tap is a unit-stride vector load. */
#define UK_DW_S2 4096
/* Outputs whose every tap lies inside the input, per direction: rows
 * [lo, hi) (lo <= hi <= OH) of an extent `out`, for padding `pad` before,
 * stride s, dilation d, kernel extent k, input extent `in`. */
static inline void mixrt_uk_dw_inside(int64_t out, int64_t in, int64_t k,
                                      int64_t s, int64_t d, int64_t pad,
                                      int64_t *lo, int64_t *hi) {
  /* Counted, not divided: 32-bit targets would call a 64-bit division
   * helper (the freestanding core links none). Both conditions are
   * monotonic in the output index. */
  int64_t l = 0;
  while (l < out && l * s < pad)
    ++l;
  int64_t h = l;
  while (h < out && h * s + (k - 1) * d - pad <= in - 1)
    ++h;
  *lo = l;
  *hi = h;
}
/* The channel-batched small-plane path of the vector paths (AVX2: 8
 * planes, AVX-512: 16 planes per group). A plane whose rows fit in one
 * vector wastes most lanes and pays its staging per plane; instead a group
 * of V consecutive planes is transposed into a +0-padded stack buffer
 * holding, per padded position (hn x wn, pitch wn), the V planes' values
 * side by side, and V consecutive outputs of the flattened OH x OW plane
 * are computed at once, one vector per output with one lane per plane:
 * lane j runs plane j's own chain (fma from +0 over (kh, kw) ascending, +0
 * for padded taps, then + bias), so every output has the bits of the
 * contract. The V accumulators are transposed back into V plane rows.
 * Limits: rows of at most 16 outputs, hn * wn and OH * OW at most
 * UK_DWB_POS, H * W at most UK_DWB_IN, KH * KW at most UK_DWB_TAPS, weight
 * indices C * KH * KW in int32 (the gather). */
#define UK_DWB_POS                                                             \
  324 /* 18 x 18: 5x5 stride 2 from 14x14 to 7x7 is 17 x 17                    \
       */
#define UK_DWB_IN 1024
#define UK_DWB_TAPS 49

/* Positions in the padded buffer: of input element k (H x W, row-major) or
 * -1 when no tap reads it, of tap 0 of output o (OH x OW, row-major), and
 * of tap t (KH x KW) relative to it. */
typedef struct uk_dw_batch {
  int64_t positions; /* hn * wn */
  int32_t slot[UK_DWB_IN];
  int32_t base[UK_DWB_POS];
  int32_t toff[UK_DWB_TAPS];
} uk_dw_batch;

/* Whether the problem takes the batched path, and if so its tables. */
static inline int mixrt_uk_dw_batch_init(const uk_dw_problem *p,
                                         uk_dw_batch *b) {
  const int64_t hn = (p->OH - 1) * p->sh + (p->KH - 1) * p->dh + 1;
  const int64_t wn = (p->OW - 1) * p->sw + (p->KW - 1) * p->dw + 1;
  if (p->OW > 16 || hn > UK_DWB_POS || wn > UK_DWB_POS ||
      hn * wn > UK_DWB_POS || p->H > UK_DWB_IN || p->W > UK_DWB_IN ||
      p->H * p->W > UK_DWB_IN || p->KH * p->KW > UK_DWB_TAPS ||
      p->C > 0x7fffffff / (p->KH * p->KW))
    return 0;
  b->positions = hn * wn;
  int64_t k = 0;
  for (int64_t y = 0; y < p->H; ++y)
    for (int64_t x = 0; x < p->W; ++x, ++k)
      b->slot[k] = y + p->pt < hn && x + p->pl < wn
                       ? (int32_t)((y + p->pt) * wn + x + p->pl)
                       : -1;
  int64_t o = 0;
  for (int64_t y = 0; y < p->OH; ++y)
    for (int64_t x = 0; x < p->OW; ++x, ++o)
      b->base[o] = (int32_t)(y * p->sh * wn + x * p->sw);
  int64_t t = 0;
  for (int64_t y = 0; y < p->KH; ++y)
    for (int64_t x = 0; x < p->KW; ++x, ++t)
      b->toff[t] = (int32_t)(y * p->dh * wn + x * p->dw);
  return 1;
}

/* The finite-input fast path of mixrt_ukernel_range_f32 on x[0..n): min
 * and max of +0 and x (exact when non_finite is 0), and whether a -0 or a
 * non-finite value occurs. */
typedef struct uk_range {
  float lo, hi;
  int negative_zero, non_finite;
} uk_range;
/* The per-tensor int8 quantization of mixrt_ukernel_quantize_f32_s8 on
 * x[0..n) (arguments already checked): writes out[0..n), returns the index
 * of the first non-finite x[i] or -1. */
typedef struct uk_quant {
  float scale;
  int32_t zero_point, qmin;
} uk_quant;

/* One row of the rescale of mixrt_ukernel_conv2d_s8_rescale: y[j] =
 * (float)(s * (double)acc[j]) (+ bias, one f32 add, when has_bias), relu'd
 * (x > 0 ? x : +0) when `relu`; returns the first j whose value before the
 * relu is not finite, or -1. y may be (float *)acc: each element is read
 * before it is written. */
typedef int64_t (*uk_rescale_fn)(const int32_t *acc, int64_t n, double s,
                                 float bias, int has_bias, int relu, float *y);
/* The same on f32 sums (mixrt_ukernel_depthwise_s8_rescale): y[j] =
 * (float)(s * (double)acc[j]) ... */
typedef int64_t (*uk_rescale_f32_fn)(const float *acc, int64_t n, double s,
                                     float bias, int has_bias, int relu,
                                     float *y);
/* (float)(x[i] - zp) for i < n (mixrt_ukernel_depthwise_s8_rescale). */
typedef void (*uk_s8_to_f32_fn)(const int8_t *x, int64_t n, int32_t zp,
                                float *out);

/* The whole epilogue: the rescale of every filter f (s = (double)xscale *
 * (double)wscales[f]), the output f32 (outf) or quantized (outq, q), and
 * the first non-finite index found (the smallest over every block, updated
 * atomically; -1 while none). */
typedef struct uk_conv_s8_epilogue {
  double xscale;
  const float *wscales, *bias;
  int relu;
  uk_rescale_fn rescale;
  mixrt_ukernel_isa isa; /* the quantize's path */
  uk_quant q;
  float *outf;
  int8_t *outq;
  int64_t first;
} uk_conv_s8_epilogue;

/* roundeven(v) in f32 without libm (C99 arithmetic only, round to nearest
 * even as the FPU's default mode): for |v| < 2^23, (|v| + 2^23) - 2^23
 * rounds |v| to an integer, ties to even, exactly (the sum lies in [2^23,
 * 2^24), where the f32 spacing is 1); |v| >= 2^23 (already an integer),
 * infinities and NaN are returned as they are; the sign is v's (so -0.4
 * gives -0, as roundevenf). */
static inline float mixrt_uk_roundeven(float v) {
  uint32_t b;
  __builtin_memcpy(&b, &v, sizeof b);
  const uint32_t sign = b & 0x80000000u;
  if ((b & 0x7fffffffu) >= 0x4b000000u) /* 2^23, Inf, NaN */
    return v;
  uint32_t ab = b & 0x7fffffffu;
  float a;
  __builtin_memcpy(&a, &ab, sizeof a);
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0
  volatile float t = a + 8388608.0f; /* x87: round the sum to f32 */
#else
  const float t = a + 8388608.0f;
#endif
  float r = t - 8388608.0f;
  uint32_t rb;
  __builtin_memcpy(&rb, &r, sizeof rb);
  rb |= sign;
  __builtin_memcpy(&r, &rb, sizeof r);
  return r;
}

/* One element of the quantization (the portable path and the vector
 * paths' tails). */
static inline int8_t mixrt_uk_quant_one(float x, const uk_quant *q) {
  const float zp = (float)q->zero_point;
  float r = mixrt_uk_roundeven(x / q->scale) + zp;
  if (r != r)
    return (int8_t)q->zero_point;
  r = r < (float)q->qmin ? (float)q->qmin : r;
  r = r > 127.0f ? 127.0f : r;
  return (int8_t)(int32_t)r;
}

/* How the vector paths get x / scale (mixrt_uk_quantize_f32_s8_avx512
 * explains): 0 divide (scale outside [2^-60, 2^60]: subnormal, tiny, huge,
 * +Inf), 1 one Markstein step after x * RN(1/scale) (when |1 - scale *
 * RN(1/scale)| <= 2^-25: the first quotient is then faithful), else 2
 * (two steps). 1 - scale * y is exact in f64 (a 48-bit product near 1). */
static inline int mixrt_uk_quant_mode(float scale) {
  if (!(scale >= 0x1p-60f && scale <= 0x1p60f))
    return 0;
  const float y = 1.0f / scale;
  const double e = 1.0 - (double)scale * (double)y;
  return e <= 0x1p-25 && e >= -0x1p-25 ? 1 : 2;
}

#if defined(__x86_64__)
UK_HIDDEN uk_range mixrt_uk_range_f32_avx2(const float *x, int64_t n);
UK_HIDDEN uk_range mixrt_uk_range_f32_avx512(const float *x, int64_t n);
UK_HIDDEN int64_t mixrt_uk_quantize_f32_s8_avx2(const float *x, int64_t n,
                                                const uk_quant *q, int8_t *out);
UK_HIDDEN int64_t mixrt_uk_quantize_f32_s8_avx512(const float *x, int64_t n,
                                                  const uk_quant *q,
                                                  int8_t *out);
UK_HIDDEN int64_t mixrt_uk_rescale_s32_avx2(const int32_t *acc, int64_t n,
                                            double s, float bias, int has_bias,
                                            int relu, float *y);
UK_HIDDEN int64_t mixrt_uk_rescale_s32_avx512(const int32_t *acc, int64_t n,
                                              double s, float bias,
                                              int has_bias, int relu, float *y);
UK_HIDDEN void mixrt_uk_s8_to_f32_avx2(const int8_t *x, int64_t n, int32_t zp,
                                       float *out);
UK_HIDDEN void mixrt_uk_s8_to_f32_avx512(const int8_t *x, int64_t n, int32_t zp,
                                         float *out);
UK_HIDDEN int64_t mixrt_uk_rescale_f32_avx2(const float *acc, int64_t n,
                                            double s, float bias, int has_bias,
                                            int relu, float *y);
UK_HIDDEN int64_t mixrt_uk_rescale_f32_avx512(const float *acc, int64_t n,
                                              double s, float bias,
                                              int has_bias, int relu, float *y);
UK_HIDDEN void mixrt_uk_f32_avx2(const uk_f32_problem *p);
UK_HIDDEN void mixrt_uk_s8_avx2(const uk_s8_problem *p);
UK_HIDDEN void mixrt_uk_f32_avx512(const uk_f32_problem *p);
/* Stride 1 only: each panel row is one 16-lane vector (two 8-lane ones)
 * built by masked loads (one per run of the panel). */
UK_HIDDEN void mixrt_uk_conv_pack_avx2(const uk_conv_problem *p,
                                       const float *in, const uk_conv_run *runs,
                                       int nruns, int panels, int64_t k0,
                                       int64_t kb, float *buf);
UK_HIDDEN void mixrt_uk_conv_pack_avx512(const uk_conv_problem *p,
                                         const float *in,
                                         const uk_conv_run *runs, int nruns,
                                         int panels, int64_t k0, int64_t kb,
                                         float *buf);
/* A tile of a grouped convolution's band (fr <= UK_GC_FR_AVX512 or
 * UK_GC_FR_AVX2): every position of [0, nq), every output the chain of the
 * contract. */
UK_HIDDEN void mixrt_uk_gconv_avx2(const uk_gconv_tile *t);
UK_HIDDEN void mixrt_uk_gconv_fill_avx2(const uk_gconv_fill *f);
UK_HIDDEN void mixrt_uk_gconv_fill_avx512(const uk_gconv_fill *f);
UK_HIDDEN void mixrt_uk_gconv_avx512(const uk_gconv_tile *t);
UK_HIDDEN void mixrt_uk_dw_avx2(const uk_dw_problem *p);
UK_HIDDEN void mixrt_uk_dw_avx512(const uk_dw_problem *p);
UK_HIDDEN void mixrt_uk_s8_avx512(const uk_s8_problem *p);
UK_HIDDEN void mixrt_uk_s8_avx512vnni(const uk_s8_problem *p);
UK_HIDDEN void mixrt_uk_s8_amx(const uk_s8_problem *p);
UK_HIDDEN void mixrt_uk_conv_s8_interleave_avx2(const int8_t *t, int64_t pitch,
                                                int64_t rows, int panels,
                                                int64_t panel_bytes,
                                                int8_t *out, int32_t *sums,
                                                int add);
#endif

/*===----------------------------------------------------------------------===*\
|* Scalar helpers shared by the paths                                         *|
\*===----------------------------------------------------------------------===*/

static inline int32_t uk_a_zero_point(const uk_s8_problem *p, int64_t m) {
  return p->a_zero_points ? p->a_zero_points[p->a_per_row ? m : 0] : 0;
}

static inline float uk_a_scale(const uk_s8_problem *p, int64_t m) {
  return p->a_scales[p->a_per_row ? m : 0];
}

/* sum_k (A[m][k] - za) modulo 2^32 (the zb correction's row term). */
static inline uint32_t uk_s8_row_term(const uk_s8_problem *p, int64_t m) {
  const int8_t *a = p->A + m * p->lda;
  uint32_t s = 0;
  for (int64_t k = 0; k < p->K; ++k)
    s += (uint32_t)(int32_t)a[k];
  return s - (uint32_t)p->K * (uint32_t)uk_a_zero_point(p, m);
}

/* The int32 result of column n of row m from the raw sum `raw` = sum_k
 * (A[m][k] + offset) * B[k][n] (offset 128 for vpdpbusd, else 0), modulo
 * 2^32: raw - (offset + za) * colsum[n] - zb[n] * row_term. */
static inline int32_t uk_s8_finish(const uk_s8_problem *p, uint32_t raw,
                                   int64_t n, uint32_t offset_plus_za,
                                   uint32_t row_term) {
  uint32_t v = raw - offset_plus_za * (uint32_t)p->colsums[n];
  if (p->b_zero_points)
    v -= (uint32_t)p->b_zero_points[n] * row_term;
  return (int32_t)v;
}

/* relu as the compiler's arith.maximumf(x, +0) computes it: x <= 0 (-0
 * included) gives +0, anything else -- a NaN too -- is kept. */
static inline float uk_relu(float x) { return x <= 0.0f ? 0.0f : x; }

/* relu (x > 0 or NaN ? x : +0.0), then a NaN becomes the canonical one. */
static inline float uk_relu_canon(float x, int relu) {
  if (x != x) {
    uint32_t bits = UK_CANONICAL_NAN_BITS;
    __builtin_memcpy(&x, &bits, sizeof x);
    return x;
  }
  return relu && !(x > 0.0f) ? 0.0f : x;
}

/* The rescale epilogue of one int8 output. */
static inline float uk_s8_rescale(const uk_s8_problem *p, int32_t acc,
                                  int64_t m, int64_t n) {
  const double s = (double)uk_a_scale(p, m) * (double)p->b_scales[n];
  float v = (float)(s * (double)acc);
  if (p->bias)
    v = v + p->bias[n];
  return uk_relu_canon(v, p->relu);
}

#endif /* MIXRT_CORE_UKERNEL_INTERNAL_H */
