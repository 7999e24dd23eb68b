/*===-- ukernel.c - GEMM microkernels: ABI, packing, dispatch, portable ---===*\
|*                                                                            *|
|* The entry points of mixrt/ukernel.h: argument and packed-header checks,   *|
|* packing of B, the run-time choice of a path (cpuid + xgetbv, no libgcc),  *|
|* and the portable path. The x86 paths live in ukernel_avx2.c and           *|
|* ukernel_avx512.c (per-function target attributes: the core still builds  *|
|* for, and runs on, any x86-64; other targets get the portable path only).  *|
|*                                                                            *|
|* Freestanding C11: no heap, no libc (the compiler may emit memcpy/memset).  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "ukernel_internal.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifdef MIXRT_CORE_HOSTED
/* Hosted only: the MIXRT_ISA environment variable (docs/runtime.md), and
 * on Linux the system call that lets the process use AMX tiles (declared
 * here: the core is C11 without the POSIX or GNU extensions). */
char *getenv(const char *name);
long syscall(long number, ...);
#endif

#define UK_MAGIC 0x4b55584du /* "MXUK" */
#define UK_PTRDIFF_MAX ((int64_t)(~(uint64_t)0 >> 1))

/*===----------------------------------------------------------------------===*\
|* The packed header                                                          *|
\*===----------------------------------------------------------------------===*/

typedef struct uk_header {
  uint32_t magic;
  uint32_t version;
  int32_t type;
  int32_t nr;
  int64_t k;
  int64_t n;
  int64_t panel_bytes;
  int64_t panels;
  int64_t reserved[2];
} uk_header;

_Static_assert(sizeof(uk_header) == MIXRT_UKERNEL_HEADER_BYTES,
               "the header is 64 bytes");

static int validType(int32_t type) {
  return type == MIXRT_UKERNEL_F32 || type == MIXRT_UKERNEL_F16 ||
         type == MIXRT_UKERNEL_BF16 || type == MIXRT_UKERNEL_S8 ||
         type == MIXRT_UKERNEL_S8_DEQUANTIZED;
}

static int64_t elemBytes(int32_t type) {
  return type == MIXRT_UKERNEL_F32                                          ? 4
         : type == MIXRT_UKERNEL_S8 || type == MIXRT_UKERNEL_S8_DEQUANTIZED ? 1
                                                                            : 2;
}

/* Panels, bytes per panel and total bytes of a packed K x N `type`; 0 on
 * overflow beyond PTRDIFF_MAX. */
static int packedGeometry(int32_t type, int64_t k, int64_t n,
                          int64_t *out_panels, int64_t *out_panel_bytes,
                          int64_t *out_total) {
  const int64_t panels = n / UK_NR + (n % UK_NR != 0);
  int64_t depth = k;
  if (type == MIXRT_UKERNEL_S8) {
    if (__builtin_add_overflow(k, 3, &depth))
      return 0;
    depth &= ~(int64_t)3;
  }
  int64_t panel_bytes, total, sums = 0;
  if (__builtin_mul_overflow(depth, UK_NR * elemBytes(type), &panel_bytes) ||
      __builtin_mul_overflow(panel_bytes, panels, &total))
    return 0;
  /* int8: the column sums; dequantized int8: the scales and zero points. */
  if ((type == MIXRT_UKERNEL_S8 || type == MIXRT_UKERNEL_S8_DEQUANTIZED) &&
      __builtin_mul_overflow(panels, UK_NR * (type == MIXRT_UKERNEL_S8 ? 4 : 8),
                             &sums))
    return 0;
  if (__builtin_add_overflow(total, sums, &total) ||
      __builtin_add_overflow(total, MIXRT_UKERNEL_HEADER_BYTES, &total))
    return 0;
  *out_panels = panels;
  *out_panel_bytes = panel_bytes;
  *out_total = total;
  return 1;
}

int64_t mixrt_ukernel_packed_size(mixrt_ukernel_type type, int64_t K,
                                  int64_t N) {
  int64_t panels, panel_bytes, total;
  if (!validType((int32_t)type) || K < 0 || N < 0 ||
      !packedGeometry((int32_t)type, K, N, &panels, &panel_bytes, &total))
    return -1;
  return total;
}

/* (rows - 1) * ld + cols elements of `size` bytes fit in PTRDIFF_MAX. */
static int extentFits(int64_t rows, int64_t cols, int64_t ld, int64_t size) {
  if (rows == 0 || cols == 0)
    return 1;
  int64_t e;
  return !__builtin_mul_overflow(rows - 1, ld, &e) &&
         !__builtin_add_overflow(e, cols, &e) &&
         !__builtin_mul_overflow(e, size, &e);
}

/*===----------------------------------------------------------------------===*\
|* Packing                                                                    *|
\*===----------------------------------------------------------------------===*/

mixrt_status_code mixrt_ukernel_pack_b(mixrt_ukernel_type type, int64_t K,
                                       int64_t N, const void *B, int64_t ldb,
                                       void *out) {
  const int32_t t = (int32_t)type;
  int64_t panels, panel_bytes, total;
  if (!validType(t) || t == MIXRT_UKERNEL_S8_DEQUANTIZED || K < 0 || N < 0 ||
      ldb < (N > 1 ? N : 1) || out == NULL || (B == NULL && K > 0 && N > 0) ||
      !extentFits(K, N, ldb, elemBytes(t)) ||
      !packedGeometry(t, K, N, &panels, &panel_bytes, &total))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  unsigned char *o = (unsigned char *)out;
  uk_header h = {UK_MAGIC,    MIXRT_UKERNEL_LAYOUT_VERSION,
                 t,           UK_NR,
                 K,           N,
                 panel_bytes, panels,
                 {0, 0}};
  __builtin_memcpy(o, &h, sizeof h);
  unsigned char *body = o + MIXRT_UKERNEL_HEADER_BYTES;
  for (int64_t p = 0; p < panels; ++p) {
    unsigned char *panel = body + p * panel_bytes;
    const int64_t n0 = p * UK_NR;
    const int64_t cols = N - n0 < UK_NR ? N - n0 : UK_NR;
    if (t == MIXRT_UKERNEL_S8) {
      const int8_t *b = (const int8_t *)B;
      int8_t *dst = (int8_t *)panel;
      const int64_t kp = panel_bytes / UK_NR;
      int32_t sums[UK_NR] = {0};
      for (int64_t k = 0; k < kp; ++k)
        for (int j = 0; j < UK_NR; ++j) {
          const int8_t v = (k < K && j < cols) ? b[k * ldb + n0 + j] : 0;
          dst[(k / 4) * (UK_NR * 4) + j * 4 + (k % 4)] = v;
          sums[j] += v;
        }
      /* |sum| <= 128 K: exact in int32 for K <= 2^24; beyond, modulo 2^32
       * like every int8 sum here (exact whenever the result fits). */
      int32_t *colsums =
          (int32_t *)(void *)(body + panels * panel_bytes) + p * UK_NR;
      __builtin_memcpy(colsums, sums, sizeof sums);
    } else {
      const int64_t es = elemBytes(t);
      const unsigned char *b = (const unsigned char *)B;
      for (int64_t k = 0; k < K; ++k) {
        unsigned char *row = panel + k * UK_NR * es;
        if (cols > 0)
          __builtin_memcpy(row, b + (k * ldb + n0) * es, (size_t)(cols * es));
        if (cols < UK_NR)
          __builtin_memset(row + cols * es, 0, (size_t)((UK_NR - cols) * es));
      }
    }
  }
  return MIXRT_STATUS_OK;
}

mixrt_status_code mixrt_ukernel_pack_b_dequantized(int64_t K, int64_t N,
                                                   const int8_t *B, int64_t ldb,
                                                   const float *scales,
                                                   const int32_t *zero_points,
                                                   void *out) {
  const int32_t t = MIXRT_UKERNEL_S8_DEQUANTIZED;
  int64_t panels, panel_bytes, total;
  const int empty = K == 0 || N == 0;
  if (K < 0 || N < 0 || ldb < (N > 1 ? N : 1) || out == NULL ||
      (B == NULL && !empty) || (scales == NULL && N > 0) ||
      !extentFits(K, N, ldb, 1) ||
      !packedGeometry(t, K, N, &panels, &panel_bytes, &total))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  unsigned char *o = (unsigned char *)out;
  /* reserved[0]: 1 when a zero point is not 0 (the kernels subtract them
   * only then; the result is the same). */
  int64_t zps = 0;
  for (int64_t n = 0; zero_points && n < N; ++n)
    zps |= zero_points[n] != 0;
  uk_header h = {UK_MAGIC,    MIXRT_UKERNEL_LAYOUT_VERSION,
                 t,           UK_NR,
                 K,           N,
                 panel_bytes, panels,
                 {zps, 0}};
  __builtin_memcpy(o, &h, sizeof h);
  unsigned char *body = o + MIXRT_UKERNEL_HEADER_BYTES;
  float *sc = (float *)(void *)(body + panels * panel_bytes);
  int32_t *zp = (int32_t *)(void *)(sc + panels * UK_NR);
  for (int64_t p = 0; p < panels; ++p) {
    int8_t *panel = (int8_t *)(body + p * panel_bytes);
    const int64_t n0 = p * UK_NR;
    const int64_t cols = N - n0 < UK_NR ? N - n0 : UK_NR;
    for (int64_t k = 0; k < K; ++k)
      for (int j = 0; j < UK_NR; ++j)
        panel[k * UK_NR + j] = j < cols ? B[k * ldb + n0 + j] : 0;
    for (int j = 0; j < UK_NR; ++j) {
      sc[n0 + j] = j < cols ? scales[n0 + j] : 0.0f;
      zp[n0 + j] = j < cols && zero_points ? zero_points[n0 + j] : 0;
    }
  }
  return MIXRT_STATUS_OK;
}

/* The header of `packed` describes a K x N buffer of `type` (any float type
 * when type is F32 and `any_float`). */
static int headerMatches(const void *packed, int32_t type, int any_float,
                         int64_t k, int64_t n, uk_header *out) {
  __builtin_memcpy(out, packed, sizeof *out);
  if (out->magic != UK_MAGIC || out->version != MIXRT_UKERNEL_LAYOUT_VERSION ||
      out->nr != UK_NR || out->k != k || out->n != n)
    return 0;
  if (any_float)
    return out->type == MIXRT_UKERNEL_F32 || out->type == MIXRT_UKERNEL_F16 ||
           out->type == MIXRT_UKERNEL_BF16 ||
           out->type == MIXRT_UKERNEL_S8_DEQUANTIZED;
  return out->type == type;
}

/*===----------------------------------------------------------------------===*\
|* Dispatch                                                                   *|
\*===----------------------------------------------------------------------===*/

static mixrt_ukernel_isa detectIsa(void) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return MIXRT_UKERNEL_ISA_PORTABLE;
  const int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1,
            f16c = (c >> 29) & 1;
  if (!(fma && osxsave && avx && f16c))
    return MIXRT_UKERNEL_ISA_PORTABLE;
  unsigned xlo, xhi;
  __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  (void)xhi;
  if ((xlo & 0x6) != 0x6) /* XMM and YMM state saved by the OS */
    return MIXRT_UKERNEL_ISA_PORTABLE;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((b >> 5) & 1))
    return MIXRT_UKERNEL_ISA_PORTABLE;
  const int avx512 = ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 30) & 1) &&
                     ((b >> 31) & 1) && (xlo & 0xe0) == 0xe0;
  if (!avx512)
    return MIXRT_UKERNEL_ISA_AVX2;
  if (!((c >> 11) & 1))
    return MIXRT_UKERNEL_ISA_AVX512;
  /* AMX-TILE and AMX-INT8 with the tile state enabled in XCR0 (bits 17,
   * 18). Using the tiles also needs the process's permission on Linux,
   * asked for only when an int8 GEMM first runs on this path (amxAllowed):
   * the hosted mixrt on Linux only. */
#if defined(MIXRT_CORE_HOSTED) && defined(__linux__)
  if (((d >> 24) & 1) && ((d >> 25) & 1) && (xlo & 0x60000) == 0x60000)
    return MIXRT_UKERNEL_ISA_AMX;
#endif
  return MIXRT_UKERNEL_ISA_AVX512_VNNI;
#else
  return MIXRT_UKERNEL_ISA_PORTABLE;
#endif
}

/* -1 until the first use; then the isa. Relaxed atomics: every thread that
 * initializes computes the same value. */
static int cpuIsa = -1;
static int currentIsa = -1;

mixrt_ukernel_isa mixrt_ukernel_cpu_isa(void) {
  int v = __atomic_load_n(&cpuIsa, __ATOMIC_RELAXED);
  if (v < 0) {
    v = (int)detectIsa();
    __atomic_store_n(&cpuIsa, v, __ATOMIC_RELAXED);
  }
  return (mixrt_ukernel_isa)v;
}

static int streq(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}

static const char *const isaNames[] = {"portable", "avx2", "avx512",
                                       "avx512vnni", "amx"};

const char *mixrt_ukernel_isa_name(mixrt_ukernel_isa isa) {
  const int32_t v = (int32_t)isa;
  return v >= 0 && v <= (int32_t)MIXRT_UKERNEL_ISA_AMX ? isaNames[v]
                                                       : "unknown";
}

mixrt_ukernel_isa mixrt_ukernel_get_isa(void) {
  int v = __atomic_load_n(&currentIsa, __ATOMIC_RELAXED);
  if (v < 0) {
    v = (int)mixrt_ukernel_cpu_isa();
#ifdef MIXRT_CORE_HOSTED
    const char *env = getenv("MIXRT_ISA");
    if (env != NULL)
      for (int i = 0; i <= (int)MIXRT_UKERNEL_ISA_AMX; ++i)
        if (streq(env, isaNames[i]) && i < v)
          v = i;
#else
    (void)streq;
#endif
    /* A concurrent set_isa wins over the default. */
    int expected = -1;
    if (!__atomic_compare_exchange_n(&currentIsa, &expected, v, 0,
                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      v = expected;
  }
  return (mixrt_ukernel_isa)v;
}

mixrt_status_code mixrt_ukernel_set_isa(mixrt_ukernel_isa isa) {
  const int32_t v = (int32_t)isa;
  if (v < 0 || v > (int32_t)MIXRT_UKERNEL_ISA_AMX)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (v > (int32_t)mixrt_ukernel_cpu_isa())
    return MIXRT_STATUS_UNIMPLEMENTED;
  __atomic_store_n(&currentIsa, (int)v, __ATOMIC_RELAXED);
  return MIXRT_STATUS_OK;
}

static uk_f32_fn selectF32(void) {
#if defined(__x86_64__)
  switch (mixrt_ukernel_get_isa()) {
  case MIXRT_UKERNEL_ISA_AMX:
  case MIXRT_UKERNEL_ISA_AVX512_VNNI:
  case MIXRT_UKERNEL_ISA_AVX512:
    return mixrt_uk_f32_avx512;
  case MIXRT_UKERNEL_ISA_AVX2:
    return mixrt_uk_f32_avx2;
  default:
    break;
  }
#endif
  return mixrt_uk_f32_portable;
}

#if defined(__x86_64__)
/* 1 when the process may use AMX tiles: Linux's arch_prctl
 * ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, asked for once, at the first
 * int8 GEMM on the amx path (without the permission the first tile
 * instruction raises SIGILL). Granted, it is process-wide, and Linux then
 * refuses alternate signal stacks below AT_MINSIGSTKSZ (about 12 KB):
 * hence not at detection, nor for float kernels or a lower MIXRT_ISA.
 * Refused, the int8 GEMMs run the avx512vnni path. */
static int amxPermission = -1;

static int amxAllowed(void) {
  int v = __atomic_load_n(&amxPermission, __ATOMIC_RELAXED);
  if (v < 0) {
#if defined(MIXRT_CORE_HOSTED) && defined(__linux__)
    v = syscall(158 /* SYS_arch_prctl */, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                18 /* XFEATURE_XTILEDATA */) == 0;
#else
    v = 0;
#endif
    __atomic_store_n(&amxPermission, v, __ATOMIC_RELAXED);
  }
  return v;
}
#endif

static uk_s8_fn selectS8(void) {
#if defined(__x86_64__)
  switch (mixrt_ukernel_get_isa()) {
  case MIXRT_UKERNEL_ISA_AMX:
    if (amxAllowed())
      return mixrt_uk_s8_amx;
    return mixrt_uk_s8_avx512vnni;
  case MIXRT_UKERNEL_ISA_AVX512_VNNI:
    return mixrt_uk_s8_avx512vnni;
  case MIXRT_UKERNEL_ISA_AVX512:
    return mixrt_uk_s8_avx512;
  case MIXRT_UKERNEL_ISA_AVX2:
    return mixrt_uk_s8_avx2;
  default:
    break;
  }
#endif
  return mixrt_uk_s8_portable;
}

static uk_dw_fn selectDw(void) {
#if defined(__x86_64__)
  switch (mixrt_ukernel_get_isa()) {
  case MIXRT_UKERNEL_ISA_AMX:
  case MIXRT_UKERNEL_ISA_AVX512_VNNI:
  case MIXRT_UKERNEL_ISA_AVX512:
    return mixrt_uk_dw_avx512;
  case MIXRT_UKERNEL_ISA_AVX2:
    return mixrt_uk_dw_avx2;
  default:
    break;
  }
#endif
  return mixrt_uk_dw_portable;
}

/*===----------------------------------------------------------------------===*\
|* Threads                                                                    *|
\*===----------------------------------------------------------------------===*/

static mixrt_parallel_for parallelFor;
static void *parallelPool;
static int32_t parallelThreads = 1;

void mixrt_ukernel_set_parallel(mixrt_parallel_for parallel_for, void *pool,
                                int32_t threads) {
  if (parallel_for == NULL || threads < 2) {
    parallel_for = NULL;
    pool = NULL;
    threads = 1;
  }
  __atomic_store_n(&parallelFor, parallel_for, __ATOMIC_RELAXED);
  __atomic_store_n(&parallelPool, pool, __ATOMIC_RELAXED);
  __atomic_store_n(&parallelThreads, threads, __ATOMIC_RELEASE);
}

/* How a GEMM is split: `parts` parts of `per` rows (by_rows) or `per`
 * panels of 16 columns. parts <= 1: not split. */
typedef struct uk_split {
  int64_t parts, per;
  int by_rows;
} uk_split;

static uk_split splitOf(int64_t m, int64_t n, int64_t k) {
  uk_split s = {1, 0, 1};
#if UINTPTR_MAX <= 0xffffffffu
  /* 32-bit targets (microcontrollers): one thread, and no 64-bit division
   * or conversion helpers pulled from the compiler's runtime library. */
  (void)m, (void)n, (void)k;
  return s;
#else
  const int32_t threads = __atomic_load_n(&parallelThreads, __ATOMIC_ACQUIRE);
  if (threads < 2 || __atomic_load_n(&parallelFor, __ATOMIC_RELAXED) == NULL)
    return s;
  /* Below 2^20 multiply-adds the hand-off costs more than it saves. */
  if ((double)m * (double)n * (double)k < 1048576.0)
    return s;
  if (m >= 32) {
    /* Rows per part: a multiple of 8 (the kernels' row tiles). */
    s.per = ((m + threads - 1) / threads + 7) / 8 * 8;
    s.parts = (m + s.per - 1) / s.per;
    return s;
  }
  const int64_t panels = (n + UK_NR - 1) / UK_NR;
  s.by_rows = 0;
  s.per = (panels + threads - 1) / threads;
  s.parts = (panels + s.per - 1) / s.per;
  return s;
#endif
}

/* Part i of a split: rows [*begin, *end) of C (by rows, extent M) or
 * columns [*begin, *end) (by panels, extent N). */
static void partOf(const uk_split *s, int64_t i, int64_t extent, int64_t *begin,
                   int64_t *end) {
  const int64_t unit = s->by_rows ? 1 : UK_NR;
  *begin = i * s->per * unit;
  *end = *begin + s->per * unit < extent ? *begin + s->per * unit : extent;
}

typedef struct uk_f32_job {
  const uk_f32_problem *p;
  uk_f32_fn fn;
  uk_split split;
} uk_f32_job;

static void f32Part(void *context, int64_t begin, int64_t end) {
  const uk_f32_job *job = (const uk_f32_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    uk_f32_problem sub = *job->p;
    int64_t b, e;
    partOf(&job->split, i, job->split.by_rows ? sub.M : sub.N, &b, &e);
    if (job->split.by_rows) {
      sub.M = e - b;
      sub.A += b * sub.lda;
      sub.C += b * sub.ldc;
    } else {
      sub.N = e - b;
      sub.panels += b / UK_NR * sub.panel_bytes;
      sub.C += b;
      if (sub.bias)
        sub.bias += b;
      if (sub.w_scales)
        sub.w_scales += b;
      if (sub.w_zero_points)
        sub.w_zero_points += b;
    }
    job->fn(&sub);
  }
}

static void runF32(const uk_f32_problem *p) {
  const uk_f32_job job = {p, selectF32(), splitOf(p->M, p->N, p->K)};
  if (job.split.parts <= 1) {
    job.fn(p);
    return;
  }
  __atomic_load_n(&parallelFor, __ATOMIC_RELAXED)(
      __atomic_load_n(&parallelPool, __ATOMIC_RELAXED), job.split.parts,
      f32Part, (void *)&job);
}

typedef struct uk_s8_job {
  const uk_s8_problem *p;
  uk_s8_fn fn;
  uk_split split;
} uk_s8_job;

static void s8Part(void *context, int64_t begin, int64_t end) {
  const uk_s8_job *job = (const uk_s8_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    uk_s8_problem sub = *job->p;
    int64_t b, e;
    partOf(&job->split, i, job->split.by_rows ? sub.M : sub.N, &b, &e);
    /* C moves by b rows or b columns. */
    const int64_t cOffset = job->split.by_rows ? b * sub.ldc : b;
    if (sub.Ci)
      sub.Ci += cOffset;
    if (sub.Cf)
      sub.Cf += cOffset;
    if (job->split.by_rows) {
      sub.M = e - b;
      sub.A += b * sub.lda;
      if (sub.a_per_row && sub.a_zero_points)
        sub.a_zero_points += b;
      if (sub.a_per_row && sub.a_scales)
        sub.a_scales += b;
    } else {
      sub.N = e - b;
      sub.panels += b / UK_NR * sub.panel_bytes;
      sub.colsums += b;
      if (sub.b_zero_points)
        sub.b_zero_points += b;
      if (sub.b_scales)
        sub.b_scales += b;
      if (sub.bias)
        sub.bias += b;
    }
    job->fn(&sub);
  }
}

static void runS8(const uk_s8_problem *p) {
  const uk_s8_job job = {p, selectS8(), splitOf(p->M, p->N, p->K)};
  if (job.split.parts <= 1) {
    job.fn(p);
    return;
  }
  __atomic_load_n(&parallelFor, __ATOMIC_RELAXED)(
      __atomic_load_n(&parallelPool, __ATOMIC_RELAXED), job.split.parts, s8Part,
      (void *)&job);
}

/* `fn` on the planes of `p`; with relu, on chunks of planes small enough to
 * stay in cache (16 planes of at most 4096 outputs, which keeps whole
 * groups of the 8- and 16-plane small-plane paths, or one larger plane),
 * each followed by relu as arith.maximumf(x, +0) on its outputs. */
static void dwCall(uk_dw_fn fn, const uk_dw_problem *p) {
  if (!p->relu) {
    fn(p);
    return;
  }
  const int64_t plane = p->OH * p->OW, per = plane <= 4096 ? 16 : 1;
  int64_t c0 = p->c0; /* the channel of plane b (no 64-bit division on
                         32-bit targets) */
  for (int64_t b = 0; b < p->planes; b += per) {
    uk_dw_problem sub = *p;
    sub.planes = b + per < p->planes ? per : p->planes - b;
    sub.c0 = c0;
    sub.input += b * p->H * p->W;
    sub.output += b * plane;
    fn(&sub);
    for (c0 += per; c0 >= p->C;)
      c0 -= p->C;
    float *out = sub.output;
    for (int64_t i = 0, e = sub.planes * plane; i < e; ++i)
      out[i] = uk_relu(out[i]);
  }
}

#if UINTPTR_MAX > 0xffffffffu
typedef struct uk_dw_job {
  const uk_dw_problem *p;
  uk_dw_fn fn;
  int64_t per; /* planes per part */
} uk_dw_job;

static void dwPart(void *context, int64_t begin, int64_t end) {
  const uk_dw_job *job = (const uk_dw_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    uk_dw_problem sub = *job->p;
    const int64_t b = i * job->per;
    sub.planes = b + job->per < sub.planes ? job->per : sub.planes - b;
    sub.c0 = (sub.c0 + b) % sub.C;
    sub.input += b * sub.H * sub.W;
    sub.output += b * sub.OH * sub.OW;
    dwCall(job->fn, &sub);
  }
}
#endif

/* Split by whole planes (each computed by one part with the same kernel),
 * from 2^20 multiply-adds, as the GEMMs; 32-bit targets: one thread (no
 * 64-bit division helpers). */
static void runDw(const uk_dw_problem *p) {
  const uk_dw_fn fn = selectDw();
#if UINTPTR_MAX > 0xffffffffu
  const int32_t threads = __atomic_load_n(&parallelThreads, __ATOMIC_ACQUIRE);
  const mixrt_parallel_for pf = __atomic_load_n(&parallelFor, __ATOMIC_RELAXED);
  if (threads >= 2 && pf != NULL && p->planes >= 2 &&
      (double)p->planes * (double)(p->OH * p->OW) * (double)(p->KH * p->KW) >=
          1048576.0) {
    uk_dw_job job = {p, fn, (p->planes + threads - 1) / threads};
    const int64_t parts = (p->planes + job.per - 1) / job.per;
    pf(__atomic_load_n(&parallelPool, __ATOMIC_RELAXED), parts, dwPart,
       (void *)&job);
    return;
  }
#endif
  dwCall(fn, p);
}

/*===----------------------------------------------------------------------===*\
|* Convolutions as GEMMs (mixrt_ukernel_conv2d_f32)                           *|
\*===----------------------------------------------------------------------===*/

/* The portable packing (uk_conv_pack_fn). */
static void convPack(const uk_conv_problem *p, const float *in,
                     const uk_conv_run *runs, int nruns, int panels, int64_t k0,
                     int64_t kb, float *buf) {
  int64_t c, kh, kw;
  mixrt_uk_conv_tap_of(p, k0, &c, &kh, &kw);
  const int tail = runs[nruns - 1].j0 + runs[nruns - 1].len;
  for (int64_t kk = 0; kk < kb; ++kk) {
    const float *plane = in + c * p->H * p->W;
    for (int i = 0; i < nruns; ++i) {
      const uk_conv_run *u = &runs[i];
      float *d = buf + u->panel * kb * UK_NR + kk * UK_NR + u->j0;
      const int64_t ih = u->oh * p->sh + kh * p->dh - p->pt;
      if (ih < 0 || ih >= p->H) {
        for (int j = 0; j < u->len; ++j)
          d[j] = 0.0f;
        continue;
      }
      const float *row = plane + ih * p->W;
      int64_t iw = u->ow0 * p->sw + kw * p->dw - p->pl;
      if (p->sw == 1 && iw >= 0 && iw + u->len <= p->W) {
        for (int j = 0; j < u->len; ++j)
          d[j] = row[iw + j];
        continue;
      }
      for (int j = 0; j < u->len; ++j, iw += p->sw)
        d[j] = iw >= 0 && iw < p->W ? row[iw] : 0.0f;
    }
    /* The columns of the last panel past the block. */
    float *d = buf + (panels - 1) * kb * UK_NR + kk * UK_NR;
    for (int j = tail; j < UK_NR; ++j)
      d[j] = 0.0f;
    if (++kw == p->KW) {
      kw = 0;
      if (++kh == p->KH) {
        kh = 0;
        ++c;
      }
    }
  }
}

/* Blocks [begin, end) of the N x ceil(OH*OW / UK_CONV_NB) blocks: pack,
 * multiply by the weight with the GEMM path (partial sums between k blocks), +
 * bias. */
static void convBlocks(const uk_conv_problem *p, uk_f32_fn fn,
                       uk_conv_pack_fn pack, int64_t begin, int64_t end) {
  float buf[UK_CONV_KB * UK_CONV_NB] __attribute__((aligned(64)));
  const int64_t positions = p->OH * p->OW, K = p->C * p->KH * p->KW;
  const int in_place = p->KH == 1 && p->KW == 1 && p->sh == 1 && p->sw == 1 &&
                       p->pt == 0 && p->pl == 0 && p->OH == p->H &&
                       p->OW == p->W;
  const int64_t blocks = (positions + UK_CONV_NB - 1) / UK_CONV_NB;
  for (int64_t item = begin; item < end; ++item) {
    int64_t image, block, oh, ow;
    mixrt_uk_divmod(item, blocks, &image, &block);
    const int64_t p0 = block * UK_CONV_NB;
    const int nb =
        positions - p0 < UK_CONV_NB ? (int)(positions - p0) : UK_CONV_NB;
    mixrt_uk_divmod(p0, p->OW, &oh, &ow);
    uk_conv_run runs[UK_CONV_NB];
    int nruns = 0;
    for (int i = 0; i < nb; ++i) {
      if (i == 0 || i % UK_NR == 0 || ow == 0)
        runs[nruns++] = (uk_conv_run){i / UK_NR, i % UK_NR, 0, oh, ow};
      ++runs[nruns - 1].len;
      if (++ow == p->OW) {
        ow = 0;
        ++oh;
      }
    }
    const int panels = (nb + UK_NR - 1) / UK_NR;
    const float *in = p->input + image * p->C * p->H * p->W;
    float *out = p->output + image * p->F * positions + p0;
    /* The patches of a 1x1, stride-1 window without padding are the input's
     * rows: whole panels are read in place (row k of panel q at
     * in[(k0 + k) * H * W + p0 + 16 q]), no copy. A block with a partial
     * panel (the last one, when 16 does not divide OH * OW) is packed. */
    const int direct = in_place && nb % UK_NR == 0;
    for (int64_t k0 = 0; k0 < K; k0 += UK_CONV_KB) {
      const int64_t kb = K - k0 < UK_CONV_KB ? K - k0 : UK_CONV_KB;
      if (!direct)
        pack(p, in, runs, nruns, panels, k0, kb, buf);
      const uk_f32_problem sub = {
          p->F,
          nb,
          kb,
          p->weight + k0,
          K,
          direct ? (const unsigned char *)(in + k0 * positions + p0)
                 : (const unsigned char *)buf,
          direct ? UK_NR * 4 : kb * UK_NR * 4,
          direct ? positions * 4 : UK_NR * 4,
          MIXRT_UKERNEL_F32,
          out,
          positions,
          NULL,
          0,
          k0 > 0,
          1,
          NULL,
          NULL};
      fn(&sub);
    }
    if (K == 0)
      for (int64_t f = 0; f < p->F; ++f)
        for (int j = 0; j < nb; ++j)
          out[f * positions + j] = 0.0f;
    /* The epilogue on the block while it is in cache: + bias (one f32
     * add), then relu as arith.maximumf(x, +0): NaN kept, -0 to +0. */
    if (p->bias && !p->relu)
      for (int64_t f = 0; f < p->F; ++f) {
        const float b = p->bias[f];
        for (int j = 0; j < nb; ++j)
          out[f * positions + j] = out[f * positions + j] + b;
      }
    else if (p->relu)
      for (int64_t f = 0; f < p->F; ++f) {
        const float b = p->bias ? p->bias[f] : 0.0f;
        float *row = out + f * positions;
        for (int j = 0; j < nb; ++j) {
          const float v = p->bias ? row[j] + b : row[j];
          row[j] = uk_relu(v);
        }
      }
  }
}

/* Items [begin, end) of a block-split convolution (runBlocks). */
typedef void (*uk_blocks_fn)(const void *context, int64_t begin, int64_t end);

#if UINTPTR_MAX > 0xffffffffu
typedef struct uk_blocks_job {
  uk_blocks_fn fn;
  const void *context;
  int64_t per, items; /* blocks per part, all blocks */
} uk_blocks_job;

static void blocksPart(void *context, int64_t begin, int64_t end) {
  const uk_blocks_job *job = (const uk_blocks_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t b = i * job->per;
    job->fn(job->context, b,
            b + job->per < job->items ? b + job->per : job->items);
  }
}
#endif

/* fn over blocks [0, items), split by whole blocks (each computed by one
 * part the same way) from 2^20 multiply-adds (`macs`), as the GEMMs;
 * 32-bit targets: one thread. */
static void runBlocks(int64_t items, double macs, uk_blocks_fn fn,
                      const void *context) {
#if UINTPTR_MAX > 0xffffffffu
  const int32_t threads = __atomic_load_n(&parallelThreads, __ATOMIC_ACQUIRE);
  const mixrt_parallel_for pf = __atomic_load_n(&parallelFor, __ATOMIC_RELAXED);
  if (threads >= 2 && pf != NULL && items >= 2 && macs >= 1048576.0) {
    uk_blocks_job job = {fn, context, (items + threads - 1) / threads, items};
    const int64_t parts = (items + job.per - 1) / job.per;
    pf(__atomic_load_n(&parallelPool, __ATOMIC_RELAXED), parts, blocksPart,
       (void *)&job);
    return;
  }
#else
  (void)macs;
#endif
  fn(context, 0, items);
}

typedef struct uk_conv_call {
  const uk_conv_problem *p;
  uk_f32_fn fn;
  uk_conv_pack_fn pack;
} uk_conv_call;

static void convCall(const void *context, int64_t begin, int64_t end) {
  const uk_conv_call *c = (const uk_conv_call *)context;
  convBlocks(c->p, c->fn, c->pack, begin, end);
}

static void runConv(const uk_conv_problem *p) {
  const uk_f32_fn fn = selectF32();
  uk_conv_pack_fn pack = convPack;
#if defined(__x86_64__)
  if (p->sw == 1 && fn == mixrt_uk_f32_avx512)
    pack = mixrt_uk_conv_pack_avx512;
  else if (p->sw == 1 && fn == mixrt_uk_f32_avx2)
    pack = mixrt_uk_conv_pack_avx2;
#endif
  int64_t blocks, rest;
  mixrt_uk_divmod(p->OH * p->OW + UK_CONV_NB - 1, UK_CONV_NB, &blocks, &rest);
  const uk_conv_call call = {p, fn, pack};
  runBlocks(p->N * blocks,
            (double)p->N * (double)(p->OH * p->OW) * (double)p->F *
                (double)(p->C * p->KH * p->KW),
            convCall, &call);
}

/*===----------------------------------------------------------------------===*\
|* Grouped convolutions (mixrt_ukernel_conv2d_grouped_f32)                    *|
\*===----------------------------------------------------------------------===*/

/* A one-group problem whose every output reads the input at its own
 * position (1x1, stride 1, no padding) as one row. */
static void convAsRow(uk_conv_problem *p) {
  if (p->KH == 1 && p->KW == 1 && p->sh == 1 && p->sw == 1 && p->pt == 0 &&
      p->pl == 0 && p->OH == p->H && p->OW == p->W) {
    p->W = p->OW = p->OH * p->OW;
    p->H = p->OH = 1;
  }
}

typedef void (*uk_gconv_fn)(const uk_gconv_tile *t);
typedef void (*uk_gconv_fill_fn)(const uk_gconv_fill *f);

/* The path with one-tile small bands (AVX-512), or NULL. */
static uk_gconv_fn gconvSmallFn(void) {
#if defined(__x86_64__)
  return mixrt_uk_gconv_avx512;
#else
  return NULL;
#endif
}
static void gconvPortable(const uk_gconv_tile *t);

/* The portable band copy (uk_gconv_fill). */
static void gconvFill(const uk_gconv_fill *f) {
  for (int64_t c = 0; c < f->cg; ++c)
    for (int ri = 0; ri < f->nrp; ++ri)
      for (int ci = 0; ci < f->ncp; ++ci) {
        float *d0 = f->band + c * f->plane + (ri * f->ncp + ci) * f->ps;
        int64_t lo, hi;
        mixrt_uk_gc_lanes(f->x0[ci], f->sw, f->W, f->wp, &lo, &hi);
        for (int64_t i = 0; i < f->rows; ++i) {
          float *d = d0 + i * f->wp;
          /* ih0 < H first: ih0 + i * sh cannot overflow then. */
          const int64_t ih = f->ih0[ri] < f->H ? f->ih0[ri] + i * f->sh : f->H;
          int64_t j = 0;
          if (ih >= 0 && ih < f->H) {
            const float *src = f->in + (c * f->H + ih) * f->W;
            for (; j < lo; ++j)
              d[j] = 0.0f;
            for (; j < hi; ++j)
              d[j] = src[f->x0[ci] + j * f->sw];
          }
          for (; j < f->wp; ++j)
            d[j] = 0.0f;
        }
      }
  float *slack = f->band + f->cg * f->plane;
  for (int64_t j = 0; j < 16 + f->wp; ++j)
    slack[j] = 0.0f;
}

/* A grouped convolution on the direct path: items (image, group, band of
 * `rows` output rows), N * groups * bands of them; each band's copy holds
 * rows + halo rows per phase plane, nrp x ncp planes (row phases rp[],
 * column phases cp[]) of ps floats per channel. */
typedef struct uk_gconv_problem {
  const uk_conv_problem *p;
  uk_gconv_fn fn;
  uk_gconv_fill_fn fill;
  int fr; /* filters per tile */
  int nrp, ncp;
  int rp[UK_GC_PHASES], cp[UK_GC_PHASES];
  int64_t groups, cg, fg, taps, wp, halo, ps, rows, bands;
  int32_t toff[UK_GC_TAPS];
} uk_gconv_problem;

/* Items [begin, end): the band's +0-padded input rows copied to the stack,
 * then per tile of filters their weights interleaved and the tile path. */
static void gconvItems(const void *context, int64_t begin, int64_t end) {
  const uk_gconv_problem *g = (const uk_gconv_problem *)context;
  const uk_conv_problem *p = g->p;
  float band[UK_GC_BAND] __attribute__((aligned(64)));
  const int64_t wp = g->wp, plane = g->nrp * g->ncp * g->ps;
  for (int64_t item = begin; item < end; ++item) {
    int64_t image, group, b;
    mixrt_uk_divmod(item, g->bands, &image, &b);
    mixrt_uk_divmod(image, g->groups, &image, &group);
    const int64_t oh0 = b * g->rows;
    const int64_t rows = p->OH - oh0 < g->rows ? p->OH - oh0 : g->rows;
    /* Every band copies rows + halo rows per plane (the last one too, so
     * that the planes stay ps apart as toff[] assumes). */
    uk_gconv_fill fill = {
        band,  plane,  g->ps,
        wp,    g->cg,  g->rows + g->halo,
        p->H,  p->W,   p->sh,
        p->sw, g->nrp, g->ncp,
        {0},   {0},    p->input + (image * p->C + group * g->cg) * p->H * p->W};
    for (int i = 0; i < g->nrp; ++i)
      fill.ih0[i] = oh0 * p->sh + g->rp[i] - p->pt;
    for (int i = 0; i < g->ncp; ++i)
      fill.x0[i] = g->cp[i] - p->pl;
    g->fill(&fill);
    const int64_t f0g = group * g->fg;
    float *out = p->output + ((image * p->F + f0g) * p->OH + oh0) * p->OW;
    /* Tiles of at most fr filters, balanced (sizes differ by at most 1):
     * the AVX-512 path takes a band of 49 to 64 positions as one tile of
     * 4 vectors of at most UK_GC_FR_SMALL filters. */
    const int frMax =
        g->fn == gconvSmallFn() && rows * wp > 48 && rows * wp <= 64
            ? UK_GC_FR_SMALL
            : g->fr;
    int64_t tiles, rest;
    mixrt_uk_divmod(g->fg + frMax - 1, frMax, &tiles, &rest);
    int64_t base, extra;
    mixrt_uk_divmod(g->fg, tiles > 0 ? tiles : 1, &base, &extra);
    for (int64_t f0 = 0, i = 0; f0 < g->fg; ++i) {
      const int fr = (int)(base + (i < extra ? 1 : 0));
      const uk_gconv_tile t = {band,
                               plane,
                               wp,
                               p->OW,
                               rows * wp,
                               g->cg,
                               g->taps,
                               g->toff,
                               p->weight + (f0g + f0) * g->cg * g->taps,
                               g->cg * g->taps,
                               fr,
                               p->bias ? p->bias + f0g + f0 : NULL,
                               p->relu,
                               out + f0 * p->OH * p->OW,
                               p->OH * p->OW};
      g->fn(&t);
      f0 += fr;
    }
  }
}

/* `groups` groups of `p` (C and F all of them): the direct path for
 * strides up to UK_GC_PHASES when a band of at least one output row fits
 * the stack buffer, else per image and group the GEMMs of
 * mixrt_ukernel_conv2d_f32. */
static void runGroupedConv(const uk_conv_problem *p, int64_t groups) {
  uk_gconv_problem g;
  int64_t rest;
  g.p = p;
  g.groups = groups;
  mixrt_uk_divmod(p->C, groups, &g.cg, &rest);
  mixrt_uk_divmod(p->F, groups, &g.fg, &rest);
  g.taps = p->KH * p->KW;
  g.fn = gconvPortable;
  g.fill = gconvFill;
  g.fr = UK_GC_FR_AVX512;
#if defined(__x86_64__)
  switch (mixrt_ukernel_get_isa()) {
  case MIXRT_UKERNEL_ISA_AMX:
  case MIXRT_UKERNEL_ISA_AVX512_VNNI:
  case MIXRT_UKERNEL_ISA_AVX512:
    g.fn = mixrt_uk_gconv_avx512;
    g.fill = mixrt_uk_gconv_fill_avx512;
    break;
  case MIXRT_UKERNEL_ISA_AVX2:
    g.fn = mixrt_uk_gconv_avx2;
    g.fill = mixrt_uk_gconv_fill_avx2;
    g.fr = UK_GC_FR_AVX2;
    break;
  default:
    break;
  }
#endif
  /* A 1x1 window of stride 1 without padding reads each group's input in
   * place as the GEMM's right-hand side (no copy): with more than one
   * channel per group the GEMMs beat the direct path there (which ran at
   * 0.48-0.71 of their speed on ShuffleNet-like layers, docs/compiler.md).
   * Bounded first, so that the products below cannot overflow. */
  const int inPlace = p->KH == 1 && p->KW == 1 && p->sh == 1 && p->sw == 1 &&
                      p->pt == 0 && p->pl == 0 && p->OH == p->H &&
                      p->OW == p->W;
  int direct = !(inPlace && g.cg > 1) && p->sh <= UK_GC_PHASES &&
               p->sw <= UK_GC_PHASES && g.taps <= UK_GC_TAPS &&
               g.cg <= UK_GC_BAND && p->KH <= UK_GC_BAND &&
               p->dh <= UK_GC_BAND && p->KW <= UK_GC_BAND &&
               p->dw <= UK_GC_BAND && p->OW <= UK_GC_BAND;
  /* Output rows per band: (rows + halo) * wp floats per phase plane and
   * channel, then 16 + wp of slack. */
  int64_t rows = p->OH;
  int ri[UK_GC_PHASES] = {0}, ci[UK_GC_PHASES] = {0};
  if (direct) {
    /* The phases the taps use, numbered in increasing order (divisions
     * by mixrt_uk_divmod: no division helper on 32-bit targets; kh * dh
     * and kw * dw stay below 2^28 here). */
    int usedR[UK_GC_PHASES] = {0}, usedC[UK_GC_PHASES] = {0};
    int64_t quot, phase;
    for (int64_t kh = 0; kh < p->KH; ++kh) {
      mixrt_uk_divmod(kh * p->dh, p->sh, &quot, &phase);
      usedR[phase] = 1;
    }
    for (int64_t kw = 0; kw < p->KW; ++kw) {
      mixrt_uk_divmod(kw * p->dw, p->sw, &quot, &phase);
      usedC[phase] = 1;
    }
    g.nrp = g.ncp = 0;
    for (int i = 0; i < UK_GC_PHASES; ++i) {
      if (usedR[i]) {
        ri[i] = g.nrp;
        g.rp[g.nrp++] = i;
      }
      if (usedC[i]) {
        ci[i] = g.ncp;
        g.cp[g.ncp++] = i;
      }
    }
    mixrt_uk_divmod((p->KW - 1) * p->dw, p->sw, &quot, &phase);
    g.wp = p->OW + quot;
    mixrt_uk_divmod((p->KH - 1) * p->dh, p->sh, &g.halo, &phase);
    const int64_t room = UK_GC_BAND - 16 - g.wp;
    if (room < 0)
      direct = 0;
    else if (g.cg > 0) {
      mixrt_uk_divmod(room, g.wp * g.cg * g.nrp * g.ncp, &rows, &rest);
      rows -= g.halo;
      if (rows > p->OH)
        rows = p->OH;
      direct = rows >= 1;
    }
  }
  if (!direct) {
    const int64_t cgTaps = g.cg * g.taps;
    for (int64_t image = 0; image < p->N; ++image)
      for (int64_t group = 0; group < groups; ++group) {
        uk_conv_problem sub = *p;
        sub.N = 1;
        sub.C = g.cg;
        sub.F = g.fg;
        sub.input = p->input + (image * p->C + group * g.cg) * p->H * p->W;
        sub.weight = p->weight + group * g.fg * cgTaps;
        sub.bias = p->bias ? p->bias + group * g.fg : NULL;
        sub.output = p->output + (image * p->F + group * g.fg) * p->OH * p->OW;
        convAsRow(&sub);
        runConv(&sub);
      }
    return;
  }
  /* Bands of equal height (but the last). */
  int64_t bands;
  mixrt_uk_divmod(p->OH + rows - 1, rows, &bands, &rest);
  mixrt_uk_divmod(p->OH + bands - 1, bands, &rows, &rest);
  g.rows = rows;
  g.bands = bands;
  /* A band's copy: (rows + halo) * wp * cg * nrp * ncp <= room floats
   * (nothing to copy when cg = 0, where rows may be any OH). */
  g.ps = g.cg > 0 ? (rows + g.halo) * g.wp : 0;
  for (int64_t kh = 0, t = 0; kh < p->KH; ++kh)
    for (int64_t kw = 0; kw < p->KW; ++kw, ++t) {
      int64_t yq, yr, xq, xr;
      mixrt_uk_divmod(kh * p->dh, p->sh, &yq, &yr);
      mixrt_uk_divmod(kw * p->dw, p->sw, &xq, &xr);
      g.toff[t] = (int32_t)((ri[yr] * g.ncp + ci[xr]) * g.ps + yq * g.wp + xq);
    }
  runBlocks(p->N * groups * bands,
            (double)p->N * (double)(p->OH * p->OW) * (double)p->F *
                (double)(g.cg * g.taps),
            gconvItems, &g);
}

/*===----------------------------------------------------------------------===*\
|* int8 convolutions as GEMMs (mixrt_ukernel_conv2d_s8s8s32)                  *|
\*===----------------------------------------------------------------------===*/

/* Copies n bytes of a staged row, 16 at a time. The writes may pass the
 * n bytes by up to 15 (into what the row's later writes, which go in
 * increasing order, overwrite, or into its 16 bytes of slack); the reads
 * stay inside [s, s + n) when n >= 16 (the last chunk overlaps the one
 * before) and before `end` otherwise. */
static inline void convCopyS8(int8_t *d, const int8_t *s, int64_t n,
                              const int8_t *end) {
  /* Nothing to read: s may then lie before the input (a segment whose taps
   * are all left padding). */
  if (n <= 0)
    return;
  if (n >= 16) {
    int64_t i = 0;
    for (; i + 16 < n; i += 16)
      __builtin_memcpy(d + i, s + i, 16);
    __builtin_memcpy(d + n - 16, s + n - 16, 16);
  } else if (end - s >= 16) {
    __builtin_memcpy(d, s, 16);
  } else {
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i];
  }
}

/* Fills n bytes of a staged row with v, 16 at a time (the writes may pass
 * the n bytes by up to 15, as convCopyS8's). */
static inline void convFillS8(int8_t *d, int8_t v, int64_t n) {
  int8_t chunk[16];
  for (int j = 0; j < 16; ++j)
    chunk[j] = v;
  for (int64_t i = 0; i < n; i += 16)
    __builtin_memcpy(d + i, chunk, 16);
}

/* Copies bytes 0, sw, .., (n - 1) * sw of s to d[0 .. n) (n > 0). Stride
 * 2 on x86-64: the even bytes of 32 (masked to 16 bits, packed) where the
 * 32 bytes lie before `end`; the writes may pass n as convCopyS8's do. */
static inline void convCopyStridedS8(int8_t *d, const int8_t *s, int n,
                                     int64_t sw, const int8_t *end) {
  int j = 0;
#if defined(__x86_64__)
  if (sw == 2)
    for (; j < n && end - (s + 2 * j) >= 32; j += 16) {
      const __m128i lo8 = _mm_set1_epi16(0x00ff);
      const __m128i a =
          _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * j));
      const __m128i b =
          _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * j + 16));
      _mm_storeu_si128(
          (__m128i *)(void *)(d + j),
          _mm_packus_epi16(_mm_and_si128(a, lo8), _mm_and_si128(b, lo8)));
    }
#else
  (void)end;
#endif
  for (; j < n; ++j)
    d[j] = s[j * sw];
}

/* The positions of a block that lie in one output row: from column i of
 * the block, len of them; their first tap reads input row oh * sh - pt
 * (+ kh * dh) and column ow * sw - pl (+ kw * dw). */
typedef struct uk_conv_s8_seg {
  int32_t i, len;
  int64_t row, col;
} uk_conv_s8_seg;

/* The segments of the block of nb positions from output (oh, ow). */
static int convSegmentsS8(const uk_conv_s8_problem *p, int64_t oh, int64_t ow,
                          int nb, uk_conv_s8_seg *segs) {
  int n = 0;
  for (int i = 0; i < nb; ++n) {
    const int len = p->OW - ow < nb - i ? (int)(p->OW - ow) : nb - i;
    segs[n] = (uk_conv_s8_seg){i, len, oh * p->sh - p->pt, ow * p->sw - p->pl};
    i += len;
    ow = 0;
    ++oh;
  }
  return n;
}

/* Stages rows k0 .. k0 + kb - 1 of the patches of a block (`segs`, nb
 * positions) of image `in` into `t`: row kk holds the input element each
 * position reads at k0 + kk (the zero point for a padded tap), columns
 * nb .. cols - 1 are 0 (the packed panels' padding). */
static void convStageS8(const uk_conv_s8_problem *p, const int8_t *in,
                        const uk_conv_s8_seg *segs, int nsegs, int nb, int cols,
                        int64_t k0, int64_t kb, int8_t *t) {
  int64_t c, kh, kw, tap;
  mixrt_uk_divmod(k0, p->KH * p->KW, &c, &tap);
  mixrt_uk_divmod(tap, p->KW, &kh, &kw);
  const int8_t *const end = p->input + p->N * p->C * p->H * p->W;
  const int8_t zx = (int8_t)p->zx;
  const int64_t H = p->H, W = p->W;
  for (int64_t kk = 0; kk < kb; ++kk) {
    int8_t *row = t + kk * (p->nb + 16);
    const int8_t *plane = in + c * H * W;
    const int64_t dy = kh * p->dh, dx = kw * p->dw;
    for (int g = 0; g < nsegs; ++g) {
      const uk_conv_s8_seg *u = &segs[g];
      const int64_t ih = u->row + dy, iw0 = u->col + dx;
      int8_t *d = row + u->i;
      const int len = u->len;
      if (ih < 0 || ih >= H) {
        convFillS8(d, zx, len);
        continue;
      }
      const int8_t *src = plane + ih * W;
      if (p->sw == 1) {
        if (iw0 >= 0 && iw0 + len <= W) {
          convCopyS8(d, src + iw0, len, end);
          continue;
        }
        /* Positions [lo, hi) read inside the row. */
        int64_t lo = iw0 < 0 ? -iw0 : 0, hi = W - iw0;
        lo = lo > len ? len : lo;
        hi = hi > len ? len : hi < lo ? lo : hi;
        convFillS8(d, zx, lo);
        /* Only a non-empty range forms its pointer (src + iw0 may lie
         * before the input, which may be NULL when W is 0). */
        if (hi > lo)
          convCopyS8(d + lo, src + (iw0 + lo), hi - lo, end);
        convFillS8(d + hi, zx, len - hi);
      } else {
        /* Positions [lo, hi) read inside the row (column iw0 + j * sw):
         * a few at each border. */
        const int64_t sw = p->sw;
        int lo = 0, hi = len;
        while (lo < len && iw0 + lo * sw < 0)
          ++lo;
        while (hi > lo && iw0 + (hi - 1) * sw >= W)
          --hi;
        convFillS8(d, zx, lo);
        if (hi > lo)
          convCopyStridedS8(d + lo, src + (iw0 + lo * sw), hi - lo, sw, end);
        convFillS8(d + hi, zx, len - hi);
      }
    }
    convFillS8(row + nb, 0, cols - nb);
    if (++kw == p->KW) {
      kw = 0;
      if (++kh == p->KH) {
        kh = 0;
        ++c;
      }
    }
  }
}

/* The portable interleave (uk_conv_s8_interleave_fn). */
static void convInterleaveS8(const int8_t *t, int64_t pitch, int64_t rows,
                             int panels, int64_t panel_bytes, int8_t *out,
                             int32_t *sums, int add) {
  for (int q = 0; q < panels; ++q) {
    int8_t *panel = out + q * panel_bytes;
    int32_t *cs = sums + q * UK_NR;
    if (!add)
      for (int j = 0; j < UK_NR; ++j)
        cs[j] = 0;
    for (int64_t k = 0; k < rows; ++k) {
      const int8_t *src = t + k * pitch + q * UK_NR;
      int8_t *d = panel + (k / 4) * (UK_NR * 4) + k % 4;
      for (int j = 0; j < UK_NR; ++j) {
        d[j * 4] = src[j];
        cs[j] += src[j];
      }
    }
  }
}

static int64_t quantizePart(const float *x, int64_t n, const uk_quant *q,
                            int8_t *out, mixrt_ukernel_isa isa);

/* The portable rescale row (uk_rescale_fn). In place (y == (float *)acc)
 * each element is read before it is written, at the same index. */
/* The portable rescale row on int32 (accI) or f32 (accF) sums: one of
 * them is NULL, a constant in each caller. */
static inline int64_t rescaleRow(const int32_t *accI, const float *accF,
                                 int64_t n, double s, float bias, int has_bias,
                                 int relu, float *y) {
  int64_t first = -1;
  for (int64_t j = 0; j < n; ++j) {
    float v = (float)(s * (accF ? (double)accF[j] : (double)accI[j]));
    if (has_bias)
      v = v + bias;
    if (first < 0 && !(v - v == 0.0f)) /* +-Inf - +-Inf: NaN */
      first = j;
    y[j] = relu ? uk_relu(v) : v;
  }
  return first;
}

static int64_t rescaleRowPortable(const int32_t *acc, int64_t n, double s,
                                  float bias, int has_bias, int relu,
                                  float *y) {
  return rescaleRow(acc, NULL, n, s, bias, has_bias, relu, y);
}

static int64_t rescaleRowF32Portable(const float *acc, int64_t n, double s,
                                     float bias, int has_bias, int relu,
                                     float *y) {
  return rescaleRow(NULL, acc, n, s, bias, has_bias, relu, y);
}

/* *first = min(*first, index) over blocks and threads (-1: none yet);
 * atomic on 64-bit targets (the only ones that run threads). */
static void keepFirst(int64_t *first, int64_t index) {
#if UINTPTR_MAX > 0xffffffffu
  int64_t seen = __atomic_load_n(first, __ATOMIC_RELAXED);
  while ((seen < 0 || index < seen) &&
         !__atomic_compare_exchange_n(first, &seen, index, 0, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
#else
  if (*first < 0 || index < *first)
    *first = index;
#endif
}

/* The epilogue of mixrt_ukernel_conv2d_s8_rescale on the nb sums of each
 * filter of a block (positions p0 .. p0 + nb - 1 of image `image`). Not
 * inlined: its row buffer (2 KiB of stack) is only on this call's path,
 * not on mixrt_ukernel_conv2d_s8s8s32's. */
static __attribute__((noinline)) void
convEpilogueS8(const uk_conv_s8_problem *p, int64_t image, int64_t p0, int nb) {
  uk_conv_s8_epilogue *e = p->epilogue;
  const int64_t positions = p->OH * p->OW;
  float row[UK_CONV_S8_NBMAX] __attribute__((aligned(64)));
  int64_t first = -1;
  for (int64_t f = 0; f < p->F; ++f) {
    const int64_t at = (image * p->F + f) * positions + p0;
    const double s = e->xscale * (double)e->wscales[f];
    const float b = e->bias ? e->bias[f] : 0.0f;
    float *y = e->outf ? e->outf + at : row;
    const int64_t bad =
        e->rescale(p->output + at, nb, s, b, e->bias != NULL, e->relu, y);
    if (bad >= 0 && first < 0)
      first = at + bad;
    if (e->outq)
      (void)quantizePart(row, nb, &e->q, e->outq + at, e->isa);
  }
  /* The smallest index over the blocks (and threads, as runBlocks). */
  if (first >= 0)
    keepFirst(&e->first, first);
}

/* Blocks [begin, end) of the N x ceil(OH*OW / UK_CONV_NB) blocks: per k
 * block, stage and pack the patches, then the GEMM path with the weight as
 * A (the block's sums added to the previous k blocks' in the output). */
static void convBlocksS8(const uk_conv_s8_problem *p, uk_s8_fn fn,
                         uk_conv_s8_interleave_fn interleave, int64_t begin,
                         int64_t end) {
  int8_t staged[UK_CONV_S8_ROWS * (UK_CONV_S8_NBMAX + 16)]
      __attribute__((aligned(64)));
  int8_t packed[UK_CONV_S8_KB * UK_CONV_NB + UK_CONV_S8_NBMAX * 4]
      __attribute__((aligned(64)));
  int32_t zb[UK_CONV_S8_NBMAX];
  const int NB = p->nb;
  const int64_t pitch = NB + 16;
  for (int j = 0; j < NB; ++j)
    zb[j] = p->zx;
  const int64_t positions = p->OH * p->OW, K = p->C * p->KH * p->KW;
  /* A 1x1 window of stride 1 without padding: the patch row of k = c is
   * plane c of the image itself (position i reads element i), so the
   * interleave reads the planes in place -- for k blocks of whole quads and
   * blocks of whole panels, as it reads kbp rows of panels * UK_NR bytes;
   * the others are staged. */
  const int inPlace = p->KH == 1 && p->KW == 1 && p->sh == 1 && p->sw == 1 &&
                      p->pt == 0 && p->pl == 0 && p->OH == p->H &&
                      p->OW == p->W;
  int64_t blocks, rest;
  mixrt_uk_divmod(positions + NB - 1, NB, &blocks, &rest);
  for (int64_t item = begin; item < end; ++item) {
    int64_t image, block, oh, ow;
    mixrt_uk_divmod(item, blocks, &image, &block);
    const int64_t p0 = block * NB;
    const int nb = positions - p0 < NB ? (int)(positions - p0) : NB;
    const int panels = (nb + UK_NR - 1) / UK_NR;
    mixrt_uk_divmod(p0, p->OW, &oh, &ow);
    const int8_t *in = p->input + image * p->C * p->H * p->W;
    int32_t *out = p->output + image * p->F * positions + p0;
    uk_conv_s8_seg segs[UK_CONV_S8_NBMAX];
    const int nsegs = convSegmentsS8(p, oh, ow, nb, segs);
    if (K == 0)
      for (int64_t f = 0; f < p->F; ++f)
        for (int j = 0; j < nb; ++j)
          out[f * positions + j] = 0;
    for (int64_t k0 = 0; k0 < K; k0 += UK_CONV_S8_KB) {
      const int64_t kb = K - k0 < UK_CONV_S8_KB ? K - k0 : UK_CONV_S8_KB;
      const int64_t kbp = (kb + 3) & ~(int64_t)3;
      int32_t *const colsums =
          (int32_t *)(void *)(packed + panels * kbp * UK_NR);
      if (inPlace && kb == kbp && nb == panels * UK_NR) {
        interleave(in + k0 * positions + p0, positions, kbp, panels,
                   kbp * UK_NR, packed, colsums, 0);
      } else {
        /* UK_CONV_S8_ROWS rows at a time (kc < kb, as kc <= kbp - 4
         * < kb), those past kb 0. */
        for (int64_t kc = 0; kc < kbp; kc += UK_CONV_S8_ROWS) {
          const int64_t rows =
              kbp - kc < UK_CONV_S8_ROWS ? kbp - kc : UK_CONV_S8_ROWS;
          const int64_t real = kb - kc < rows ? kb - kc : rows;
          convStageS8(p, in, segs, nsegs, nb, panels * UK_NR, k0 + kc, real,
                      staged);
          for (int64_t kk = real; kk < rows; ++kk)
            convFillS8(staged + kk * pitch, 0, panels * UK_NR);
          interleave(staged, pitch, rows, panels, kbp * UK_NR,
                     packed + kc * UK_NR, colsums, kc > 0);
        }
      }
      uk_s8_problem sub = {0};
      sub.M = p->F, sub.N = nb, sub.K = kb;
      sub.A = p->weight + k0, sub.lda = K;
      sub.panels = packed, sub.panel_bytes = kbp * UK_NR;
      sub.colsums = colsums;
      sub.a_zero_points = p->zw, sub.a_per_row = p->zw_per_row;
      sub.b_zero_points = p->zx ? zb : NULL;
      sub.Ci = out, sub.ldc = positions;
      sub.accumulate = k0 > 0;
      fn(&sub);
    }
    if (p->epilogue)
      convEpilogueS8(p, image, p0, nb);
  }
}

typedef struct uk_conv_s8_call {
  const uk_conv_s8_problem *p;
  uk_s8_fn fn;
  uk_conv_s8_interleave_fn interleave;
} uk_conv_s8_call;

static void convCallS8(const void *context, int64_t begin, int64_t end) {
  const uk_conv_s8_call *c = (const uk_conv_s8_call *)context;
  convBlocksS8(c->p, c->fn, c->interleave, begin, end);
}

static void runConvS8(uk_conv_s8_problem *p) {
  const uk_s8_fn fn = selectS8();
  uk_conv_s8_interleave_fn interleave = convInterleaveS8;
#if defined(__x86_64__)
  if (fn != mixrt_uk_s8_portable)
    interleave = mixrt_uk_conv_s8_interleave_avx2;
#endif
  /* A small K (a first layer of 3 channels: 27) leaves the GEMM calls
   * little work per position: blocks of more positions (a multiple of 32,
   * AMX's column block, at most UK_CONV_S8_NBMAX) in the same bytes. */
  const int64_t K = p->C * p->KH * p->KW;
  const int64_t kcap = ((K < UK_CONV_S8_KB ? K : UK_CONV_S8_KB) + 3) & ~3;
  int64_t fit = UK_CONV_NB, unused;
  if (kcap > 0)
    mixrt_uk_divmod(UK_CONV_S8_KB * UK_CONV_NB, kcap, &fit, &unused);
  fit &= ~(int64_t)31;
  p->nb = fit < UK_CONV_NB         ? UK_CONV_NB
          : fit > UK_CONV_S8_NBMAX ? UK_CONV_S8_NBMAX
                                   : (int)fit;
  int64_t blocks, rest;
  mixrt_uk_divmod(p->OH * p->OW + p->nb - 1, p->nb, &blocks, &rest);
  const uk_conv_s8_call call = {p, fn, interleave};
  runBlocks(p->N * blocks,
            (double)p->N * (double)(p->OH * p->OW) * (double)p->F * (double)K,
            convCallS8, &call);
}

/*===----------------------------------------------------------------------===*\
|* Entry points                                                               *|
\*===----------------------------------------------------------------------===*/

/* Shapes, leading dimensions and extents of A (M x K, elements of a_size
 * bytes) and C (M x N, c_size bytes). */
static int shapesValid(int64_t m, int64_t n, int64_t k, int64_t lda,
                       int64_t a_size, int64_t ldc, int64_t c_size) {
  return m >= 0 && n >= 0 && k >= 0 && lda >= (k > 1 ? k : 1) &&
         ldc >= (n > 1 ? n : 1) && extentFits(m, k, lda, a_size) &&
         extentFits(m, n, ldc, c_size);
}

mixrt_status_code mixrt_ukernel_gemm_f32(int64_t M, int64_t N, int64_t K,
                                         const float *A, int64_t lda,
                                         const void *packed_b, float *C,
                                         int64_t ldc, const float *bias,
                                         uint32_t flags) {
  if (!shapesValid(M, N, K, lda, 4, ldc, 4) ||
      (flags & ~(MIXRT_UKERNEL_RELU | MIXRT_UKERNEL_ACCUMULATE)))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (M == 0 || N == 0)
    return MIXRT_STATUS_OK;
  if (C == NULL || packed_b == NULL || (A == NULL && K > 0))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  uk_header h;
  if (!headerMatches(packed_b, MIXRT_UKERNEL_F32, 1, K, N, &h))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  uk_f32_problem p = {M,
                      N,
                      K,
                      A,
                      lda,
                      (const unsigned char *)packed_b +
                          MIXRT_UKERNEL_HEADER_BYTES,
                      h.panel_bytes,
                      UK_NR * elemBytes(h.type),
                      (mixrt_ukernel_type)h.type,
                      C,
                      ldc,
                      bias,
                      (flags & MIXRT_UKERNEL_RELU) != 0,
                      (flags & MIXRT_UKERNEL_ACCUMULATE) != 0,
                      0,
                      NULL,
                      NULL};
  if (h.type == MIXRT_UKERNEL_S8_DEQUANTIZED) {
    const unsigned char *params = p.panels + h.panels * h.panel_bytes;
    p.w_scales = (const float *)(const void *)params;
    if (h.reserved[0])
      p.w_zero_points =
          (const int32_t *)(const void *)(params + h.panels * UK_NR * 4);
  }
  runF32(&p);
  return MIXRT_STATUS_OK;
}

static int zeroPointsValid(const int32_t *zp, int64_t count) {
  if (zp == NULL)
    return 1;
  for (int64_t i = 0; i < count; ++i)
    if (zp[i] < -128 || zp[i] > 127)
      return 0;
  return 1;
}

static int scalesValid(const float *s, int64_t count) {
  if (s == NULL)
    return 0;
  for (int64_t i = 0; i < count; ++i)
    /* Positive and finite; NaN fails the first comparison. */
    if (!(s[i] > 0.0f) || !(s[i] <= 3.40282347e38f))
      return 0;
  return 1;
}

static mixrt_status_code gemmS8(const uk_s8_problem *in, int f32_out,
                                uint32_t flags, const void *packed_b) {
  uk_s8_problem p = *in;
  const uint32_t allowed =
      MIXRT_UKERNEL_A_PER_ROW | (f32_out ? MIXRT_UKERNEL_RELU : 0u);
  if (!shapesValid(p.M, p.N, p.K, p.lda, 1, p.ldc, 4) || (flags & ~allowed))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  p.a_per_row = (flags & MIXRT_UKERNEL_A_PER_ROW) != 0;
  p.relu = (flags & MIXRT_UKERNEL_RELU) != 0;
  const int64_t a_params = p.a_per_row ? p.M : 1;
  if (!zeroPointsValid(p.a_zero_points, a_params))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (f32_out && !scalesValid(p.a_scales, a_params))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (p.M == 0 || p.N == 0)
    return MIXRT_STATUS_OK;
  if (!zeroPointsValid(p.b_zero_points, p.N) ||
      (f32_out && !scalesValid(p.b_scales, p.N)))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if ((f32_out ? (void *)p.Cf : (void *)p.Ci) == NULL || packed_b == NULL ||
      (p.A == NULL && p.K > 0))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  uk_header h;
  if (!headerMatches(packed_b, MIXRT_UKERNEL_S8, 0, p.K, p.N, &h))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  p.panels = (const int8_t *)packed_b + MIXRT_UKERNEL_HEADER_BYTES;
  p.panel_bytes = h.panel_bytes;
  p.colsums =
      (const int32_t *)(const void *)(p.panels + h.panels * h.panel_bytes);
  runS8(&p);
  return MIXRT_STATUS_OK;
}

mixrt_status_code
mixrt_ukernel_gemm_s8s8s32(int64_t M, int64_t N, int64_t K, const int8_t *A,
                           int64_t lda, const int32_t *a_zero_points,
                           const void *packed_b, const int32_t *b_zero_points,
                           int32_t *C, int64_t ldc, uint32_t flags) {
  uk_s8_problem p = {0};
  p.M = M, p.N = N, p.K = K, p.A = A, p.lda = lda;
  p.a_zero_points = a_zero_points, p.b_zero_points = b_zero_points;
  p.Ci = C, p.ldc = ldc;
  return gemmS8(&p, 0, flags, packed_b);
}

mixrt_status_code mixrt_ukernel_gemm_s8s8f32(
    int64_t M, int64_t N, int64_t K, const int8_t *A, int64_t lda,
    const float *a_scales, const int32_t *a_zero_points, const void *packed_b,
    const float *b_scales, const int32_t *b_zero_points, float *C, int64_t ldc,
    const float *bias, uint32_t flags) {
  uk_s8_problem p = {0};
  p.M = M, p.N = N, p.K = K, p.A = A, p.lda = lda;
  p.a_scales = a_scales, p.a_zero_points = a_zero_points;
  p.b_scales = b_scales, p.b_zero_points = b_zero_points;
  p.Cf = C, p.ldc = ldc, p.bias = bias;
  return gemmS8(&p, 1, flags, packed_b);
}

/* a * b (both >= 0) into *out, 0 on overflow beyond PTRDIFF_MAX. */
static int mulFits(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}

/* The window checks of the convolutions: sizes, paddings, strides and
 * dilations, and an input that covers every tap of the padded image.
 * 0: invalid; 1: valid. */
static int windowValid(int64_t H, int64_t W, int64_t KH, int64_t KW,
                       int64_t stride_h, int64_t stride_w, int64_t dilation_h,
                       int64_t dilation_w, int64_t pad_top, int64_t pad_left,
                       int64_t pad_bottom, int64_t pad_right, int64_t OH,
                       int64_t OW) {
  if (H < 0 || W < 0 || OH < 0 || OW < 0 || KH < 1 || KW < 1 || stride_h < 1 ||
      stride_w < 1 || dilation_h < 1 || dilation_w < 1 || pad_top < 0 ||
      pad_left < 0 || pad_bottom < 0 || pad_right < 0)
    return 0;
  int64_t paddedH, paddedW;
  if (__builtin_add_overflow(H, pad_top, &paddedH) ||
      __builtin_add_overflow(paddedH, pad_bottom, &paddedH) ||
      __builtin_add_overflow(W, pad_left, &paddedW) ||
      __builtin_add_overflow(paddedW, pad_right, &paddedW))
    return 0;
  if (OH == 0 || OW == 0)
    return 1;
  /* The last tap of the last output, in both directions, lies inside the
   * padded input. */
  int64_t lastH, lastW, t;
  return !(
      !mulFits(OH - 1, stride_h, &lastH) || !mulFits(KH - 1, dilation_h, &t) ||
      __builtin_add_overflow(lastH, t, &lastH) || lastH >= paddedH ||
      !mulFits(OW - 1, stride_w, &lastW) || !mulFits(KW - 1, dilation_w, &t) ||
      __builtin_add_overflow(lastW, t, &lastW) || lastW >= paddedW);
}

mixrt_status_code mixrt_ukernel_depthwise_f32(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t KH,
    int64_t KW, const float *weight, int64_t stride_h, int64_t stride_w,
    int64_t dilation_h, int64_t dilation_w, int64_t pad_top, int64_t pad_left,
    int64_t pad_bottom, int64_t pad_right, int64_t OH, int64_t OW,
    float *output, const float *bias, uint32_t flags) {
  if (N < 0 || C < 0 || (flags & ~(uint32_t)MIXRT_UKERNEL_RELU) ||
      !windowValid(H, W, KH, KW, stride_h, stride_w, dilation_h, dilation_w,
                   pad_top, pad_left, pad_bottom, pad_right, OH, OW))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  int64_t planes, inPlane, outPlane, taps, e;
  if (!mulFits(N, C, &planes) || !mulFits(H, W, &inPlane) ||
      !mulFits(OH, OW, &outPlane) || !mulFits(KH, KW, &taps) ||
      !mulFits(planes, inPlane, &e) || !mulFits(e, 4, &e) ||
      !mulFits(planes, outPlane, &e) || !mulFits(e, 4, &e) ||
      !mulFits(C, taps, &e) || !mulFits(e, 4, &e))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (planes == 0 || outPlane == 0)
    return MIXRT_STATUS_OK;
  if ((inPlane != 0 && input == NULL) || weight == NULL || output == NULL)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  const uk_dw_problem p = {
      planes,   C,          0,          H,
      W,        KH,         KW,         stride_h,
      stride_w, dilation_h, dilation_w, OH,
      OW,       pad_top,    pad_left,   input,
      weight,   bias,       output,     (flags & MIXRT_UKERNEL_RELU) != 0};
  runDw(&p);
  return MIXRT_STATUS_OK;
}

/* The checks and the problem of the f32 convolutions (`groups` groups:
 * C and F multiples of it, the weight F x C / groups x KH x KW):
 * INVALID_ARGUMENT, or OK with *empty set when there is nothing to
 * compute. */
static mixrt_status_code
convF32Problem(int64_t N, int64_t C, int64_t H, int64_t W, const float *input,
               int64_t F, int64_t groups, int64_t KH, int64_t KW,
               const float *weight, int64_t stride_h, int64_t stride_w,
               int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
               int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
               int64_t OH, int64_t OW, float *output, const float *bias,
               uint32_t flags, uk_conv_problem *p, int *empty) {
  *empty = 0;
  if (N < 0 || C < 0 || F < 0 || groups < 1 ||
      (flags & ~(uint32_t)MIXRT_UKERNEL_RELU) ||
      !windowValid(H, W, KH, KW, stride_h, stride_w, dilation_h, dilation_w,
                   pad_top, pad_left, pad_bottom, pad_right, OH, OW))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  int64_t cg, fg, rest;
  mixrt_uk_divmod(C, groups, &cg, &rest);
  if (rest != 0)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  mixrt_uk_divmod(F, groups, &fg, &rest);
  if (rest != 0)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  int64_t inPlane, outPlane, taps, k, e;
  if (!mulFits(H, W, &inPlane) || !mulFits(OH, OW, &outPlane) ||
      !mulFits(KH, KW, &taps) || !mulFits(cg, taps, &k) || !mulFits(N, C, &e) ||
      !mulFits(e, inPlane, &e) || !mulFits(e, 4, &e) || !mulFits(N, F, &e) ||
      !mulFits(e, outPlane, &e) || !mulFits(e, 4, &e) || !mulFits(F, k, &e) ||
      !mulFits(e, 4, &e))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (N == 0 || F == 0 || outPlane == 0) {
    *empty = 1;
    return MIXRT_STATUS_OK;
  }
  if ((inPlane != 0 && C != 0 && input == NULL) || (k != 0 && weight == NULL) ||
      output == NULL)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  const uk_conv_problem q = {
      N,        C,          H,          W,
      F,        KH,         KW,         stride_h,
      stride_w, dilation_h, dilation_w, pad_top,
      pad_left, OH,         OW,         input,
      weight,   bias,       output,     (flags & MIXRT_UKERNEL_RELU) != 0};
  *p = q;
  return MIXRT_STATUS_OK;
}

mixrt_status_code mixrt_ukernel_conv2d_f32(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t F,
    int64_t KH, int64_t KW, const float *weight, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
    int64_t pad_left, int64_t pad_bottom, int64_t pad_right, int64_t OH,
    int64_t OW, float *output, const float *bias, uint32_t flags) {
  uk_conv_problem p;
  int empty;
  const mixrt_status_code status = convF32Problem(
      N, C, H, W, input, F, 1, KH, KW, weight, stride_h, stride_w, dilation_h,
      dilation_w, pad_top, pad_left, pad_bottom, pad_right, OH, OW, output,
      bias, flags, &p, &empty);
  if (status != MIXRT_STATUS_OK || empty)
    return status;
  convAsRow(&p);
  runConv(&p);
  return MIXRT_STATUS_OK;
}

mixrt_status_code mixrt_ukernel_conv2d_grouped_f32(
    int64_t N, int64_t C, int64_t H, int64_t W, const float *input, int64_t F,
    int64_t groups, int64_t KH, int64_t KW, const float *weight,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t OH, int64_t OW, float *output, const float *bias, uint32_t flags) {
  uk_conv_problem p;
  int empty;
  const mixrt_status_code status = convF32Problem(
      N, C, H, W, input, F, groups, KH, KW, weight, stride_h, stride_w,
      dilation_h, dilation_w, pad_top, pad_left, pad_bottom, pad_right, OH, OW,
      output, bias, flags, &p, &empty);
  if (status != MIXRT_STATUS_OK || empty)
    return status;
  runGroupedConv(&p, groups);
  return MIXRT_STATUS_OK;
}

/* The checks and the problem of the int8 convolutions: INVALID_ARGUMENT,
 * or OK with *empty set when there is nothing to compute. */
static mixrt_status_code
convS8Problem(int64_t N, int64_t C, int64_t H, int64_t W, const int8_t *input,
              int32_t input_zero_point, int64_t F, int64_t KH, int64_t KW,
              const int8_t *weight, const int32_t *weight_zero_points,
              int64_t stride_h, int64_t stride_w, int64_t dilation_h,
              int64_t dilation_w, int64_t pad_top, int64_t pad_left,
              int64_t pad_bottom, int64_t pad_right, int64_t OH, int64_t OW,
              int32_t *output, int per_row, uk_conv_s8_problem *p, int *empty) {
  *empty = 0;
  if (N < 0 || C < 0 || F < 0 || input_zero_point < -128 ||
      input_zero_point > 127 ||
      !windowValid(H, W, KH, KW, stride_h, stride_w, dilation_h, dilation_w,
                   pad_top, pad_left, pad_bottom, pad_right, OH, OW))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  int64_t inPlane, outPlane, taps, k, e;
  if (!mulFits(H, W, &inPlane) || !mulFits(OH, OW, &outPlane) ||
      !mulFits(KH, KW, &taps) || !mulFits(C, taps, &k) || !mulFits(N, C, &e) ||
      !mulFits(e, inPlane, &e) || !mulFits(N, F, &e) ||
      !mulFits(e, outPlane, &e) || !mulFits(e, 4, &e) || !mulFits(F, k, &e))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (!zeroPointsValid(weight_zero_points, per_row ? F : 1))
    return MIXRT_STATUS_INVALID_ARGUMENT;
  if (N == 0 || F == 0 || outPlane == 0) {
    *empty = 1;
    return MIXRT_STATUS_OK;
  }
  if ((inPlane != 0 && C != 0 && input == NULL) || (k != 0 && weight == NULL) ||
      output == NULL)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  const uk_conv_s8_problem q = {N,
                                C,
                                H,
                                W,
                                F,
                                KH,
                                KW,
                                stride_h,
                                stride_w,
                                dilation_h,
                                dilation_w,
                                pad_top,
                                pad_left,
                                OH,
                                OW,
                                input,
                                weight,
                                input_zero_point,
                                weight_zero_points,
                                per_row,
                                output,
                                UK_CONV_NB,
                                NULL};
  *p = q;
  return MIXRT_STATUS_OK;
}

mixrt_status_code mixrt_ukernel_conv2d_s8s8s32(
    int64_t N, int64_t C, int64_t H, int64_t W, const int8_t *input,
    int32_t input_zero_point, int64_t F, int64_t KH, int64_t KW,
    const int8_t *weight, const int32_t *weight_zero_points, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
    int64_t pad_left, int64_t pad_bottom, int64_t pad_right, int64_t OH,
    int64_t OW, int32_t *output, uint32_t flags) {
  if (flags & ~(uint32_t)MIXRT_UKERNEL_A_PER_ROW)
    return MIXRT_STATUS_INVALID_ARGUMENT;
  uk_conv_s8_problem p;
  int empty;
  const mixrt_status_code status = convS8Problem(
      N, C, H, W, input, input_zero_point, F, KH, KW, weight,
      weight_zero_points, stride_h, stride_w, dilation_h, dilation_w, pad_top,
      pad_left, pad_bottom, pad_right, OH, OW, output,
      (flags & MIXRT_UKERNEL_A_PER_ROW) != 0, &p, &empty);
  if (status != MIXRT_STATUS_OK || empty)
    return status;
  runConvS8(&p);
  return MIXRT_STATUS_OK;
}

/* Whether v is finite (and positive when `positive`). */
static int finiteScale(float v, int positive) {
  return v - v == 0.0f && (!positive || v > 0.0f);
}

int64_t mixrt_ukernel_conv2d_s8_rescale(
    int64_t N, int64_t C, int64_t H, int64_t W, const int8_t *input,
    int32_t input_zero_point, int64_t F, int64_t KH, int64_t KW,
    const int8_t *weight, const int32_t *weight_zero_points, int64_t stride_h,
    int64_t stride_w, int64_t dilation_h, int64_t dilation_w, int64_t pad_top,
    int64_t pad_left, int64_t pad_bottom, int64_t pad_right, int64_t OH,
    int64_t OW, int32_t *sums, float input_scale, const float *weight_scales,
    const float *bias, float output_scale, int32_t output_zero_point,
    int32_t output_qmin, void *output, uint32_t flags) {
  const uint32_t known =
      MIXRT_UKERNEL_A_PER_ROW | MIXRT_UKERNEL_RELU | MIXRT_UKERNEL_OUT_S8;
  const int outS8 = (flags & MIXRT_UKERNEL_OUT_S8) != 0;
  if ((flags & ~known) || !finiteScale(input_scale, 1) ||
      (outS8 && (!(output_scale > 0.0f) || output_zero_point < -128 ||
                 output_zero_point > 127 ||
                 (output_qmin != -128 && output_qmin != -127))))
    return -2;
  uk_conv_s8_problem p;
  int empty;
  if (convS8Problem(N, C, H, W, input, input_zero_point, F, KH, KW, weight,
                    weight_zero_points, stride_h, stride_w, dilation_h,
                    dilation_w, pad_top, pad_left, pad_bottom, pad_right, OH,
                    OW, sums, (flags & MIXRT_UKERNEL_A_PER_ROW) != 0, &p,
                    &empty) != MIXRT_STATUS_OK)
    return -2;
  if (empty)
    return -1;
  /* An int8 output in the sums' bytes would overwrite sums of blocks not
   * read yet. */
  const uintptr_t out0 = (uintptr_t)output, sums0 = (uintptr_t)sums;
  const uintptr_t outputs = (uintptr_t)(p.N * p.F * p.OH * p.OW);
  if (output == NULL || weight_scales == NULL ||
      (outS8 && out0 < sums0 + 4 * outputs && sums0 < out0 + outputs))
    return -2;
  for (int64_t f = 0; f < F; ++f)
    if (!finiteScale(weight_scales[f], 1) ||
        (bias != NULL && !finiteScale(bias[f], 0)))
      return -2;
  const mixrt_ukernel_isa isa = mixrt_ukernel_get_isa();
  uk_conv_s8_epilogue e;
  e.xscale = (double)input_scale;
  e.wscales = weight_scales;
  e.bias = bias;
  e.relu = (flags & MIXRT_UKERNEL_RELU) != 0;
  e.rescale = rescaleRowPortable;
#if defined(__x86_64__)
  if (isa >= MIXRT_UKERNEL_ISA_AVX512)
    e.rescale = mixrt_uk_rescale_s32_avx512;
  else if (isa >= MIXRT_UKERNEL_ISA_AVX2)
    e.rescale = mixrt_uk_rescale_s32_avx2;
#endif
  e.isa = isa;
  e.q.scale = output_scale;
  e.q.zero_point = output_zero_point;
  e.q.qmin = output_qmin;
  e.outf = outS8 ? NULL : (float *)output;
  e.outq = outS8 ? (int8_t *)output : NULL;
  e.first = -1;
  p.epilogue = &e;
  runConvS8(&p);
  return e.first;
}

/*===----------------------------------------------------------------------===*\
|* int8 depthwise with the rescale (mixrt_ukernel_depthwise_s8_rescale)       *|
\*===----------------------------------------------------------------------===*/

/* Floats of converted input per chunk: 32 KiB of stack. */
#define UK_DW_S8_BUF 8192

typedef struct uk_dw_s8 {
  uk_dw_problem p; /* the whole problem, input NULL: each chunk's */
  const int8_t *input;
  int32_t zp;
  double xscale;
  const float *wscales, *bias;
  int relu;
  uk_dw_fn fn;
  uk_rescale_f32_fn rescale;
  uk_s8_to_f32_fn convert;
  int64_t first; /* the smallest non-finite index, -1 while none */
} uk_dw_s8;

/* (float)(x - zp) of n int8 values (uk_s8_to_f32_fn, portable). */
static void dwS8Convert(const int8_t *x, int64_t n, int32_t zp, float *out) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = (float)((int32_t)x[i] - zp);
}

/* The rescale of the n outputs at `at` (plane `q`, channel q mod C) in
 * place; their first non-finite index into *first. */
static void dwS8Rescale(const uk_dw_s8 *e, int64_t q, int64_t at, int64_t n,
                        int64_t *first) {
  int64_t unused, c;
  mixrt_uk_divmod(q, e->p.C, &unused, &c);
  float *y = e->p.output + at;
  const int64_t bad =
      e->rescale(y, n, e->xscale * (double)e->wscales[c],
                 e->bias ? e->bias[c] : 0.0f, e->bias != NULL, e->relu, y);
  if (bad >= 0 && *first < 0)
    *first = at + bad;
}

/* Planes [b0, b1) (plane q: image q / C, channel q mod C): per chunk of
 * whole planes whose input fits the buffer (else per band of output rows
 * of one plane), convert the input, run the f32 path on the buffer, then
 * rescale the chunk's outputs while they are in cache. Every output is the
 * same fma chain wherever the chunk starts (padded taps +0 either way).
 * Not inlined: its buffer is only on this path's stack. */
static __attribute__((noinline)) void dwS8Planes(uk_dw_s8 *e, int64_t b0,
                                                 int64_t b1) {
  float buf[UK_DW_S8_BUF] __attribute__((aligned(64)));
  const uk_dw_problem *p = &e->p;
  const int64_t inPlane = p->H * p->W, outPlane = p->OH * p->OW;
  int64_t first = -1, unused, c0;
  if (inPlane <= UK_DW_S8_BUF) {
    int64_t per = b1 - b0;
    if (inPlane > 0)
      mixrt_uk_divmod(UK_DW_S8_BUF, inPlane, &per, &unused);
    for (int64_t b = b0; b < b1; b += per) {
      const int64_t count = b1 - b < per ? b1 - b : per;
      if (inPlane > 0) /* (else the input may be NULL) */
        e->convert(e->input + b * inPlane, count * inPlane, e->zp, buf);
      uk_dw_problem sub = *p;
      mixrt_uk_divmod(b, p->C, &unused, &c0);
      sub.planes = count;
      sub.c0 = c0;
      sub.input = buf;
      sub.output = p->output + b * outPlane;
      e->fn(&sub);
      for (int64_t q = b; q < b + count; ++q)
        dwS8Rescale(e, q, q * outPlane, outPlane, &first);
    }
  } else {
    /* Bands of `rows` output rows: their input rows (at most the buffer's)
     * converted, the rows above and below the image padding as before. */
    const int64_t span = (p->KH - 1) * p->dh + 1;
    int64_t fit, rows;
    mixrt_uk_divmod(UK_DW_S8_BUF, p->W, &fit, &unused);
    mixrt_uk_divmod(fit - span, p->sh, &rows, &unused);
    rows += 1; /* >= 1: W * span <= UK_DW_S8_BUF was checked */
    for (int64_t q = b0; q < b1; ++q) {
      mixrt_uk_divmod(q, p->C, &unused, &c0);
      for (int64_t o0 = 0; o0 < p->OH; o0 += rows) {
        const int64_t o1 = o0 + rows < p->OH ? o0 + rows : p->OH;
        const int64_t r0 = o0 * p->sh - p->pt,
                      r1 = (o1 - 1) * p->sh - p->pt + span;
        const int64_t a = r0 > 0 ? r0 : 0, z = r1 < p->H ? r1 : p->H;
        const int64_t have = z > a ? z - a : 0;
        if (have > 0)
          e->convert(e->input + q * inPlane + a * p->W, have * p->W, e->zp,
                     buf);
        uk_dw_problem sub = *p;
        sub.planes = 1;
        sub.c0 = c0;
        sub.H = have;
        sub.pt = a - r0;
        sub.OH = o1 - o0;
        sub.input = buf;
        sub.output = p->output + q * outPlane + o0 * p->OW;
        e->fn(&sub);
        dwS8Rescale(e, q, q * outPlane + o0 * p->OW, (o1 - o0) * p->OW, &first);
      }
    }
  }
  if (first >= 0)
    keepFirst(&e->first, first);
}

#if UINTPTR_MAX > 0xffffffffu
typedef struct uk_dw_s8_job {
  uk_dw_s8 *e;
  int64_t per; /* planes per part */
} uk_dw_s8_job;

static void dwS8Part(void *context, int64_t begin, int64_t end) {
  const uk_dw_s8_job *job = (const uk_dw_s8_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t b = i * job->per;
    const int64_t planes = job->e->p.planes;
    dwS8Planes(job->e, b, b + job->per < planes ? b + job->per : planes);
  }
}
#endif

int64_t mixrt_ukernel_depthwise_s8_rescale(
    int64_t N, int64_t C, int64_t H, int64_t W, const int8_t *input,
    int32_t input_zero_point, int64_t KH, int64_t KW, const float *weight,
    int64_t stride_h, int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
    int64_t pad_top, int64_t pad_left, int64_t pad_bottom, int64_t pad_right,
    int64_t OH, int64_t OW, float input_scale, const float *weight_scales,
    const float *bias, float *output, uint32_t flags) {
  if (N < 0 || C < 0 || (flags & ~(uint32_t)MIXRT_UKERNEL_RELU) ||
      input_zero_point < -128 || input_zero_point > 127 ||
      !finiteScale(input_scale, 1) ||
      !windowValid(H, W, KH, KW, stride_h, stride_w, dilation_h, dilation_w,
                   pad_top, pad_left, pad_bottom, pad_right, OH, OW))
    return -2;
  int64_t planes, inPlane, outPlane, taps, e;
  if (!mulFits(N, C, &planes) || !mulFits(H, W, &inPlane) ||
      !mulFits(OH, OW, &outPlane) || !mulFits(KH, KW, &taps) ||
      !mulFits(planes, inPlane, &e) || !mulFits(planes, outPlane, &e) ||
      !mulFits(e, 4, &e) || !mulFits(C, taps, &e) || !mulFits(e, 4, &e))
    return -2;
  if (planes == 0 || outPlane == 0)
    return -1;
  /* A plane the buffer does not hold is cut in bands of output rows: one
   * row's window must fit (W x ((KH - 1) x dilation_h + 1) floats; with an
   * output, windowValid bounds (KH - 1) x dilation_h by the padded H). */
  int64_t spanRows, spanFloats;
  if (inPlane > UK_DW_S8_BUF &&
      (!mulFits(KH - 1, dilation_h, &spanRows) || spanRows >= UK_DW_S8_BUF ||
       !mulFits(W, spanRows + 1, &spanFloats) || spanFloats > UK_DW_S8_BUF))
    return -2;
  if ((inPlane != 0 && input == NULL) || weight == NULL || output == NULL ||
      weight_scales == NULL)
    return -2;
  /* |w| <= 2^16 keeps every sum finite (|x - zp| <= 255), so y is never
   * NaN; the scales and the bias as mixrt_ukernel_conv2d_s8_rescale's. */
  for (int64_t i = 0, n = C * taps; i < n; ++i)
    if (!(weight[i] >= -65536.0f && weight[i] <= 65536.0f))
      return -2;
  for (int64_t c = 0; c < C; ++c)
    if (!finiteScale(weight_scales[c], 1) ||
        (bias != NULL && !finiteScale(bias[c], 0)))
      return -2;
  uk_dw_s8 d;
  const uk_dw_problem p = {planes,     C,      0,        H,        W,
                           KH,         KW,     stride_h, stride_w, dilation_h,
                           dilation_w, OH,     OW,       pad_top,  pad_left,
                           NULL,       weight, NULL,     output,   0};
  d.p = p;
  d.input = input;
  d.zp = input_zero_point;
  d.xscale = (double)input_scale;
  d.wscales = weight_scales;
  d.bias = bias;
  d.relu = (flags & MIXRT_UKERNEL_RELU) != 0;
  d.fn = selectDw();
  d.rescale = rescaleRowF32Portable;
  d.convert = dwS8Convert;
#if defined(__x86_64__)
  if (d.fn == mixrt_uk_dw_avx512) {
    d.rescale = mixrt_uk_rescale_f32_avx512;
    d.convert = mixrt_uk_s8_to_f32_avx512;
  } else if (d.fn == mixrt_uk_dw_avx2) {
    d.rescale = mixrt_uk_rescale_f32_avx2;
    d.convert = mixrt_uk_s8_to_f32_avx2;
  }
#endif
  d.first = -1;
#if UINTPTR_MAX > 0xffffffffu
  const int32_t threads = __atomic_load_n(&parallelThreads, __ATOMIC_ACQUIRE);
  const mixrt_parallel_for pf = __atomic_load_n(&parallelFor, __ATOMIC_RELAXED);
  if (threads >= 2 && pf != NULL && planes >= 2 &&
      (double)planes * (double)outPlane * (double)taps >= 1048576.0) {
    uk_dw_s8_job job = {&d, (planes + threads - 1) / threads};
    pf(__atomic_load_n(&parallelPool, __ATOMIC_RELAXED),
       (planes + job.per - 1) / job.per, dwS8Part, (void *)&job);
    return d.first;
  }
#endif
  dwS8Planes(&d, 0, planes);
  return d.first;
}

static inline uint32_t ukBits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}

static inline float ukFromBits(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

/* One pass, any values: the exact IEEE minimum/maximum from +0 and the
 * first non-finite index. */
static int64_t rangeExact(const float *x, int64_t n, float *lo, float *hi) {
  float mn = 0.0f, mx = 0.0f;
  int nan = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const uint32_t b = ukBits(v);
    if ((b & 0x7f800000u) == 0x7f800000u) {
      if (first < 0)
        first = i;
      if (b & 0x007fffffu) {
        nan = 1;
        continue;
      }
    }
    if (v < mn || (v == mn && (b >> 31)))
      mn = v;
    if (v > mx)
      mx = v; /* +0 from the start wins over -0 */
  }
  if (nan)
    mn = mx = ukFromBits(UK_CANONICAL_NAN_BITS);
  *lo = mn;
  *hi = mx;
  return first;
}

/* One part of a range (or the whole): the exact result, by the fastest
 * path of `isa` (finite values: vector maxima / minima, the sign of a zero
 * from the path's flag), else the exact scalar pass. */
static int64_t rangePart(const float *x, int64_t n, float *lo, float *hi,
                         mixrt_ukernel_isa isa) {
#if defined(__x86_64__)
  if (isa >= MIXRT_UKERNEL_ISA_AVX2) {
    const uk_range r = isa >= MIXRT_UKERNEL_ISA_AVX512
                           ? mixrt_uk_range_f32_avx512(x, n)
                           : mixrt_uk_range_f32_avx2(x, n);
    if (!r.non_finite) {
      /* Finite: the bounds from the maxima of the bits are exact, the sign
       * of a zero included (kept explicit for any path that is not). */
      *lo = r.lo == 0.0f ? (r.negative_zero ? -0.0f : 0.0f) : r.lo;
      *hi = r.hi == 0.0f ? 0.0f : r.hi;
      return -1;
    }
  }
#else
  (void)isa;
#endif
  return rangeExact(x, n, lo, hi);
}

/* The scalar quantization (the portable path). */
static int64_t quantizePortable(const float *x, int64_t n, const uk_quant *q,
                                int8_t *out) {
  int64_t first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (first < 0 && (ukBits(x[i]) & 0x7f800000u) == 0x7f800000u)
      first = i;
    out[i] = mixrt_uk_quant_one(x[i], q);
  }
  return first;
}

static int64_t quantizePart(const float *x, int64_t n, const uk_quant *q,
                            int8_t *out, mixrt_ukernel_isa isa) {
#if defined(__x86_64__)
  if (isa >= MIXRT_UKERNEL_ISA_AVX512)
    return mixrt_uk_quantize_f32_s8_avx512(x, n, q, out);
  if (isa >= MIXRT_UKERNEL_ISA_AVX2)
    return mixrt_uk_quantize_f32_s8_avx2(x, n, q, out);
#else
  (void)isa;
#endif
  return quantizePortable(x, n, q, out);
}

/* Elementwise passes (range, quantize) split into contiguous parts of a
 * multiple of 64 elements from a size where a second thread pays for the
 * hand-off to the pool (a condition-variable wake-up, ~10-20 us measured)
 * and for leaving the caller's L2: measured on a 2-core AMD EPYC (Zen 4,
 * 1 MB L2 per core), best of many runs of 1 vs 2 threads, the AVX-512
 * range (28 elements/ns from L2) first gains at 2^21 elements (124 -> 103
 * us; at 2^20 2 threads are slower, 48 -> 59 us), the AVX-512 quantize
 * (13 elements/ns) at 2^20 (98 -> 73 us; 2^19: 40 -> 43 us), AVX2 the
 * same sizes (quantize at 6.7 elements/ns already gains at 2^19); the
 * portable path (1 and 0.3 elements/ns) gains from 2^18 (the quantize
 * thresholds are from before the vector paths lost the division and the
 * compare: ~22 and ~9.6 elements/ns at 64K now, not re-measured). Each
 * part's
 * result is exact, and the combination is: a NaN anywhere makes both
 * bounds NaN, else IEEE minimum / maximum with -0 < +0, and the first
 * non-finite index is the smallest of the parts'. */
#define UK_ELT_SPLIT_RANGE ((int64_t)1 << 21)
#define UK_ELT_SPLIT_QUANTIZE ((int64_t)1 << 20)
#define UK_ELT_SPLIT_PORTABLE ((int64_t)1 << 18)
#define UK_ELT_MAX_PARTS 64

typedef struct uk_elt_job {
  const float *x;
  int64_t n, per;
  mixrt_ukernel_isa isa;
  const uk_quant *q; /* NULL: range */
  int8_t *out;
  int64_t first[UK_ELT_MAX_PARTS];
  float lo[UK_ELT_MAX_PARTS], hi[UK_ELT_MAX_PARTS];
} uk_elt_job;

#if UINTPTR_MAX > 0xffffffffu
static void eltPart(void *context, int64_t begin, int64_t end) {
  uk_elt_job *job = (uk_elt_job *)context;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t b = i * job->per;
    const int64_t e = b + job->per < job->n ? b + job->per : job->n;
    job->first[i] =
        job->q
            ? quantizePart(job->x + b, e - b, job->q, job->out + b, job->isa)
            : rangePart(job->x + b, e - b, &job->lo[i], &job->hi[i], job->isa);
    if (job->first[i] >= 0)
      job->first[i] += b;
  }
}
#endif

/* Runs the pass split (and combines into *lo, *hi for a range) when
 * threads are set and n is large enough; returns 0 if it did not. */
static int eltSplit(uk_elt_job *job, int64_t *first, float *lo, float *hi) {
#if UINTPTR_MAX > 0xffffffffu
  const int32_t threads = __atomic_load_n(&parallelThreads, __ATOMIC_ACQUIRE);
  const mixrt_parallel_for pf = __atomic_load_n(&parallelFor, __ATOMIC_RELAXED);
  const int64_t minimum = job->isa == MIXRT_UKERNEL_ISA_PORTABLE
                              ? UK_ELT_SPLIT_PORTABLE
                          : job->q ? UK_ELT_SPLIT_QUANTIZE
                                   : UK_ELT_SPLIT_RANGE;
  if (threads < 2 || pf == NULL || job->n < minimum)
    return 0;
  /* 4 parts per thread (at least 2^16 elements each): the pool hands them
   * out one by one, so a worker that wakes late (a busy core) takes fewer
   * and the caller does not wait on a half of the work at the end. */
  const int64_t parts0 =
      threads < UK_ELT_MAX_PARTS / 4 ? 4 * (int64_t)threads : UK_ELT_MAX_PARTS;
  job->per = ((job->n + parts0 - 1) / parts0 + 63) & ~(int64_t)63;
  if (job->per < ((int64_t)1 << 16))
    job->per = (int64_t)1 << 16;
  const int64_t parts = (job->n + job->per - 1) / job->per;
  pf(__atomic_load_n(&parallelPool, __ATOMIC_RELAXED), parts, eltPart,
     (void *)job);
  int64_t f = -1;
  float mn = 0.0f, mx = 0.0f;
  int nan = 0;
  for (int64_t i = 0; i < parts; ++i) {
    if (job->first[i] >= 0 && (f < 0 || job->first[i] < f))
      f = job->first[i];
    if (job->q)
      continue;
    const float l = job->lo[i], h = job->hi[i];
    if (l != l) {
      nan = 1;
      continue;
    }
    if (l < mn || (l == mn && (ukBits(l) >> 31)))
      mn = l;
    if (h > mx)
      mx = h; /* h is never -0 */
  }
  if (nan)
    mn = mx = ukFromBits(UK_CANONICAL_NAN_BITS);
  *first = f;
  if (!job->q) {
    *lo = mn;
    *hi = mx;
  }
  return 1;
#else
  (void)job, (void)first, (void)lo, (void)hi;
  return 0;
#endif
}

int64_t mixrt_ukernel_range_f32(const float *x, int64_t n, float *lo,
                                float *hi) {
  if (n < 0 || lo == NULL || hi == NULL || (x == NULL && n > 0))
    return -2;
  const mixrt_ukernel_isa isa = mixrt_ukernel_get_isa();
  uk_elt_job job;
  job.x = x;
  job.n = n;
  job.isa = isa;
  job.q = NULL;
  job.out = NULL;
  int64_t first;
  if (eltSplit(&job, &first, lo, hi))
    return first;
  return rangePart(x, n, lo, hi, isa);
}

int64_t mixrt_ukernel_quantize_f32_s8(const float *x, int64_t n, float scale,
                                      int32_t zero_point, int32_t qmin,
                                      int8_t *out) {
  if (n < 0 || ((x == NULL || out == NULL) && n > 0) || !(scale > 0.0f) ||
      zero_point < -128 || zero_point > 127 || (qmin != -128 && qmin != -127))
    return -2;
  const uk_quant q = {scale, zero_point, qmin};
  const mixrt_ukernel_isa isa = mixrt_ukernel_get_isa();
  uk_elt_job job;
  job.x = x;
  job.n = n;
  job.isa = isa;
  job.q = &q;
  job.out = out;
  int64_t first;
  if (eltSplit(&job, &first, NULL, NULL))
    return first;
  return quantizePart(x, n, &q, out, isa);
}

/*===----------------------------------------------------------------------===*\
|* The portable path                                                          *|
\*===----------------------------------------------------------------------===*/

/* fmaf: the instruction where the target has one, else exact in software
 * (a call to libm's fmaf is not available in the core). */
static inline float ukFmaf(float a, float b, float c) {
#if defined(__FP_FAST_FMAF)
  return __builtin_fmaf(a, b, c);
#else
  /* a * b is exact in double (24 + 24 bits); the sum is rounded to double
   * and then made round-to-odd (TwoSum error), so the final rounding to
   * float is the correctly rounded fma (53 >= 2 * 24 + 2). */
  const double p = (double)a * (double)b, z = (double)c;
  double s = p + z;
  uint64_t bits;
  __builtin_memcpy(&bits, &s, sizeof bits);
  if (((bits >> 52) & 0x7ff) != 0x7ff && (bits & 1) == 0) {
    const double bb = s - p;
    const double err = (p - (s - bb)) + (z - bb);
    if (err != 0.0) {
      bits += (err > 0.0) == (s > 0.0) ? 1 : (uint64_t)-1;
      __builtin_memcpy(&s, &bits, sizeof s);
    }
  }
  return (float)s;
#endif
}

/* IEEE binary16 -> float, exact. */
static inline float ukF16ToF32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu, bits;
  if (e == 0x1f)
    bits = sign | 0x7f800000u | (m << 13);
  else if (e != 0)
    bits = sign | ((e + 112) << 23) | (m << 13);
  else if (m == 0)
    bits = sign;
  else {
    uint32_t exp = 113;
    while (!(m & 0x400u)) {
      m <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((m & 0x3ffu) << 13);
  }
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

static inline float ukBF16ToF32(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

/* Weight idx of a panel row; a dequantized int8 one with the column's
 * scale and zero point (zp NULL: 0). */
static inline float ukWeight(const unsigned char *panel, mixrt_ukernel_type t,
                             int64_t idx, const float *sc, const int32_t *zp) {
  if (t == MIXRT_UKERNEL_S8_DEQUANTIZED) {
    const int32_t q = (int8_t)panel[idx];
    /* The difference modulo 2^32 (arith.subi), then sitofp and one mulf. */
    const int32_t d = (int32_t)((uint32_t)q - (uint32_t)(zp ? zp[idx] : 0));
    return sc[idx] * (float)d;
  }
  if (t == MIXRT_UKERNEL_F32) {
    float f;
    __builtin_memcpy(&f, panel + idx * 4, sizeof f);
    return f;
  }
  uint16_t h;
  __builtin_memcpy(&h, panel + idx * 2, sizeof h);
  return t == MIXRT_UKERNEL_F16 ? ukF16ToF32(h) : ukBF16ToF32(h);
}

void mixrt_uk_f32_portable(const uk_f32_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  for (int64_t m = 0; m < p->M; ++m) {
    const float *a = p->A + m * p->lda;
    float *c = p->C + m * p->ldc;
    for (int64_t q = 0; q < panels; ++q) {
      const unsigned char *panel = p->panels + q * p->panel_bytes;
      const int64_t n0 = q * UK_NR;
      const int cols = p->N - n0 < UK_NR ? (int)(p->N - n0) : UK_NR;
      float acc[UK_NR] = {0};
      if (p->accumulate)
        for (int j = 0; j < cols; ++j)
          acc[j] = c[n0 + j];
      for (int64_t k = 0; k < p->K; ++k) {
        const float av = a[k];
        const unsigned char *row = panel + k * p->row_bytes;
        for (int j = 0; j < cols; ++j)
          acc[j] = ukFmaf(
              av,
              ukWeight(row, p->type, j, p->w_scales ? p->w_scales + n0 : NULL,
                       p->w_zero_points ? p->w_zero_points + n0 : NULL),
              acc[j]);
      }
      if (p->partial) {
        for (int j = 0; j < cols; ++j)
          c[n0 + j] = acc[j];
        continue;
      }
      for (int j = 0; j < cols; ++j) {
        float v = acc[j];
        if (p->bias)
          v = v + p->bias[n0 + j];
        c[n0 + j] = uk_relu_canon(v, p->relu);
      }
    }
  }
}

void mixrt_uk_s8_portable(const uk_s8_problem *p) {
  const int64_t panels = p->N / UK_NR + (p->N % UK_NR != 0);
  for (int64_t m = 0; m < p->M; ++m) {
    const int8_t *a = p->A + m * p->lda;
    const uint32_t za = (uint32_t)uk_a_zero_point(p, m);
    const uint32_t row = p->b_zero_points ? uk_s8_row_term(p, m) : 0;
    for (int64_t q = 0; q < panels; ++q) {
      const int8_t *panel = p->panels + q * p->panel_bytes;
      const int64_t n0 = q * UK_NR;
      const int cols = p->N - n0 < UK_NR ? (int)(p->N - n0) : UK_NR;
      uint32_t acc[UK_NR] = {0};
      for (int64_t k = 0; k < p->K; ++k) {
        const int32_t av = a[k];
        const int8_t *g = panel + (k / 4) * (UK_NR * 4) + (k % 4);
        for (int j = 0; j < cols; ++j)
          acc[j] += (uint32_t)(av * (int32_t)g[j * 4]);
      }
      for (int j = 0; j < cols; ++j) {
        const int32_t v = uk_s8_finish(p, acc[j], n0 + j, za, row);
        if (p->Cf)
          p->Cf[m * p->ldc + n0 + j] = uk_s8_rescale(p, v, m, n0 + j);
        else if (p->accumulate)
          p->Ci[m * p->ldc + n0 + j] =
              (int32_t)((uint32_t)p->Ci[m * p->ldc + n0 + j] + (uint32_t)v);
        else
          p->Ci[m * p->ldc + n0 + j] = v;
      }
    }
  }
}

/* The chain of one output (the loops' own: fma from +0 over (kh, kw)
 * ascending, an +0 input outside the image), + bias when not NULL. */
static float dwOne(const uk_dw_problem *p, const float *in, const float *w,
                   const float *bias, int64_t oh, int64_t ow) {
  float acc = 0.0f;
  for (int64_t kh = 0; kh < p->KH; ++kh) {
    const int64_t ih = oh * p->sh + kh * p->dh - p->pt;
    const int rowIn = ih >= 0 && ih < p->H;
    for (int64_t kw = 0; kw < p->KW; ++kw) {
      const int64_t iw = ow * p->sw + kw * p->dw - p->pl;
      /* A padded tap is still an fma, of +0: fma(0, Inf, acc) is NaN and
       * -0 + 0 * w is +0, as in the loops over a zero-padded copy. */
      const float x = rowIn && iw >= 0 && iw < p->W ? in[ih * p->W + iw] : 0.0f;
      acc = ukFmaf(x, w[kh * p->KW + kw], acc);
    }
  }
  if (bias)
    acc = acc + *bias;
  return acc;
}

void mixrt_uk_dw_portable(const uk_dw_problem *p) {
  int64_t c = p->c0;
  for (int64_t i = 0; i < p->planes; ++i) {
    const float *in = p->input + i * p->H * p->W;
    const float *w = p->weight + c * p->KH * p->KW;
    const float *bias = p->bias ? p->bias + c : NULL;
    float *out = p->output + i * p->OH * p->OW;
    int64_t ohLo, ohHi, owLo, owHi;
    mixrt_uk_dw_inside(p->OH, p->H, p->KH, p->sh, p->dh, p->pt, &ohLo, &ohHi);
    mixrt_uk_dw_inside(p->OW, p->W, p->KW, p->sw, p->dw, p->pl, &owLo, &owHi);
    for (int64_t oh = 0; oh < p->OH; ++oh) {
      const int rowIn = oh >= ohLo && oh < ohHi;
      for (int64_t ow = 0; ow < p->OW; ++ow) {
        if (!rowIn || ow < owLo || ow >= owHi) {
          out[oh * p->OW + ow] = dwOne(p, in, w, bias, oh, ow);
          continue;
        }
        /* Every tap inside: no bounds checks. */
        float acc = 0.0f;
        for (int64_t kh = 0; kh < p->KH; ++kh) {
          const float *row = in + (oh * p->sh + kh * p->dh - p->pt) * p->W +
                             ow * p->sw - p->pl;
          for (int64_t kw = 0; kw < p->KW; ++kw)
            acc = ukFmaf(row[kw * p->dw], w[kh * p->KW + kw], acc);
        }
        if (bias)
          acc = acc + *bias;
        out[oh * p->OW + ow] = acc;
      }
    }
    if (++c == p->C)
      c = 0;
  }
}

/* The portable tile of a grouped convolution's band: per position the fr
 * filters' chains side by side (independent fmas, each tap read once). */
static void gconvPortable(const uk_gconv_tile *t) {
  int64_t row = 0;
  for (int64_t base = 0; base < t->nq; base += t->wp, ++row)
    for (int64_t col = 0; col < t->ow; ++col) {
      float acc[UK_GC_FR_AVX512] = {0.0f};
      const float *src = t->band + base + col;
      for (int64_t c = 0; c < t->cg; ++c, src += t->plane)
        for (int64_t k = 0; k < t->taps; ++k) {
          const float v = src[t->toff[k]];
          const float *w = t->w + c * t->taps + k;
          for (int i = 0; i < t->fr; ++i)
            acc[i] = ukFmaf(w[i * t->ws], v, acc[i]);
        }
      for (int i = 0; i < t->fr; ++i) {
        float y = acc[i];
        if (t->bias)
          y = y + t->bias[i];
        if (t->relu)
          y = uk_relu(y);
        t->out[i * t->out_plane + row * t->ow + col] = y;
      }
    }
}
