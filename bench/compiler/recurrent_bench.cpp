//===- recurrent_bench.cpp - compiled f32 lstm and gru against OpenBLAS ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One f32 mix.lstm or mix.gru layer (forward, time first, biases, zero
// initial state; the weights from a safetensors file) compiled by mixc
// (the driver, loaded in process) with and without microkernels, against
// the same layer written by hand on OpenBLAS in the same run: the input
// GEMM of every step as one cblas_sgemm (W transposed by the call) plus the
// biases, then per step cblas_sgemm of h_{t-1} and R^T added into the
// step's gates (beta = 1; the gru's candidate rows after r * h_{t-1}, as
// ONNX's default linear_before_reset = 0), and a loop over the gates; and
// the same code with oneDNN's dnnl_sgemm for the GEMMs when the build found
// oneDNN (bench-only, optional; its OpenMP pinned to one thread). The
// result is y_h. Shapes S (steps) x B (batch) x I (input) x H (hidden):
//
//   lstm 16 x 1 x 256 x 256   lstm 32 x 8 x 512 x 512   lstm 64 x 1 x 128 x 128
//   gru  16 x 1 x 256 x 256
//
// Before timing, the compiled y_h is compared with the OpenBLAS one: both
// compute in f32 with different summation orders, so they agree to a few
// ulps per step; a difference above 1e-4 * max|y_h| (over 100x that) skips
// the benchmark with an error. Single thread, thread CPU time; the table
// at the end prints GOP/s (2 * S * B * G * (I + H) per call, G = 4H or 3H)
// and the ratios.
//
//   bench_recurrent [--benchmark_min_time=0.3] [--benchmark_repetitions=3]
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"

#include "compiler/CompiledNetwork.h"

#include <benchmark/benchmark.h>

#ifdef MIXC_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef MIXC_BENCH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef MIXC_BENCH_OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using mixbench::add;
using mixbench::ratio;
using mixbench::values;

struct RecurrentShape {
  bool gru;
  int64_t s, b, i, h;
  int64_t gates() const { return (gru ? 3 : 4) * h; }
  std::string name() const {
    char text[64];
    std::snprintf(text, sizeof(text), "%s:%lldx%lldx%lldx%lld",
                  gru ? "gru" : "lstm", (long long)s, (long long)b,
                  (long long)i, (long long)h);
    return text;
  }
  /// 2 * multiply-adds of the input and recurrent GEMMs.
  double ops() const { return 2.0 * double(s * b * gates() * (i + h)); }
};

const RecurrentShape kShapes[] = {{false, 16, 1, 256, 256},
                                  {false, 32, 8, 512, 512},
                                  {false, 64, 1, 128, 128},
                                  {true, 16, 1, 256, 256}};

/// The layer's data: x [S, B, I], w [G, I], r [G, H], b [2G] (ONNX's
/// layouts, one direction).
struct Data {
  RecurrentShape shape;
  std::vector<float> x, w, r, b;
  std::string weightsPath, error;
  explicit Data(const RecurrentShape &s) : shape(s) {
    const int64_t g = s.gates();
    x = values(size_t(s.s * s.b * s.i), 11);
    w = values(size_t(g * s.i), 12);
    r = values(size_t(g * s.h), 13);
    b = values(size_t(2 * g), 14);
    // Weights scaled by 2/sqrt(K): the gates stay O(1), not saturated.
    for (float &v : w)
      v *= 2.0f / std::sqrt(float(s.i));
    for (float &v : r)
      v *= 2.0f / std::sqrt(float(s.h));
    weightsPath = mixbench::writeSafetensors(
        {{"w", {1, g, s.i}, &w}, {"r", {1, g, s.h}, &r}, {"b", {1, 2 * g}, &b}},
        "bench-recurrent", error);
  }
};

std::string modelText(const RecurrentShape &s) {
  auto t = [](std::vector<int64_t> dims) {
    std::string text = "tensor<";
    for (int64_t d : dims)
      text += std::to_string(d) + "x";
    return text + "f32>";
  };
  const int64_t g = s.gates();
  const std::string x = t({s.s, s.b, s.i}), w = t({1, g, s.i}),
                    r = t({1, g, s.h}), b = t({1, 2 * g}),
                    y = t({s.s, 1, s.b, s.h}), h = t({1, s.b, s.h});
  std::string text =
      "mix.network @rnn precision(f32) (%x: " + x + ") -> " + h + " {\n";
  text += "  %w = mix.weight external \"w\" : " + w + "\n";
  text += "  %r = mix.weight external \"r\" : " + r + "\n";
  text += "  %b = mix.weight external \"b\" : " + b + "\n";
  if (s.gru)
    text += "  %y:2 = mix.gru %x, %w, %r b(%b) : (" + x + ", " + w + ", " + r +
            ", " + b + ") -> (" + y + ", " + h + ")\n";
  else
    text += "  %y:3 = mix.lstm %x, %w, %r b(%b) : (" + x + ", " + w + ", " + r +
            ", " + b + ") -> (" + y + ", " + h + ", " + h + ")\n";
  return text + "  mix.return %y#1 : " + h + "\n}\n";
}

template <class Fn>
void timed(benchmark::State &state, const RecurrentShape &s,
           const std::string &kernel, Fn fn) {
  mixbench::timeCalls(state, s.name(), s.ops(), kernel, fn);
}

Data &dataFor(int shape) {
  static std::map<int, std::unique_ptr<Data>> cache;
  std::unique_ptr<Data> &d = cache[shape];
  if (!d)
    d = std::make_unique<Data>(kShapes[shape]);
  return *d;
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

#if defined(MIXC_BENCH_OPENBLAS) || defined(MIXC_BENCH_DNNL)
/// Row-major C = alpha * A x B^T + beta * C (B given [N, K]).
using GemmNT = void (*)(int64_t m, int64_t n, int64_t k, const float *a,
                        int64_t lda, const float *b, int64_t ldb, float beta,
                        float *c, int64_t ldc);
#endif
#ifdef MIXC_BENCH_OPENBLAS
void blasNT(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
            const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, lda, b,
              ldb, beta, c, ldc);
}
#endif
#ifdef MIXC_BENCH_DNNL
void dnnlNT(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
            const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  (void)dnnl_sgemm('N', 'T', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}
#endif

#if defined(MIXC_BENCH_OPENBLAS) || defined(MIXC_BENCH_DNNL)
/// The layer on a library's sgemm; `h` is y_h (scratch: xw [S*B, G], the step's
/// recurrent sums g [B, G], c and r * h [B, H]).
struct BlasRecurrent {
  const Data &d;
  GemmNT gemm;
  std::vector<float> xw, g, h, c, rh;
  BlasRecurrent(const Data &data, GemmNT gemm) : d(data), gemm(gemm) {
    const RecurrentShape &s = d.shape;
    xw.resize(size_t(s.s * s.b * s.gates()));
    g.resize(size_t(s.b * s.gates()));
    h.resize(size_t(s.b * s.h)), c.resize(h.size()), rh.resize(h.size());
  }
  void run() {
    const RecurrentShape &s = d.shape;
    const int64_t G = s.gates(), H = s.h, B = s.b;
    gemm(s.s * B, G, s.i, d.x.data(), s.i, d.w.data(), s.i, 0.0f, xw.data(), G);
    for (int64_t row = 0; row < s.s * B; ++row)
      for (int64_t j = 0; j < G; ++j) {
        // The gru's candidate keeps its recurrent bias out (added to the
        // product of r * h below).
        const float rb = s.gru && j >= 2 * H ? 0.0f : d.b[size_t(G + j)];
        xw[size_t(row * G + j)] += d.b[size_t(j)] + rb;
      }
    std::fill(h.begin(), h.end(), 0.0f);
    std::fill(c.begin(), c.end(), 0.0f);
    for (int64_t t = 0; t < s.s; ++t) {
      const float *xt = xw.data() + t * B * G;
      if (!s.gru) {
        std::copy(xt, xt + B * G, g.begin());
        gemm(B, G, H, h.data(), H, d.r.data(), H, 1.0f, g.data(), G);
        for (int64_t n = 0; n < B; ++n)
          for (int64_t j = 0; j < H; ++j) {
            const float *gn = g.data() + n * G;
            const float i = sigmoid(gn[j]), o = sigmoid(gn[H + j]),
                        f = sigmoid(gn[2 * H + j]),
                        cand = std::tanh(gn[3 * H + j]);
            float &cv = c[size_t(n * H + j)];
            cv = f * cv + i * cand;
            h[size_t(n * H + j)] = o * std::tanh(cv);
          }
        continue;
      }
      // gru: z and r rows, then the candidate's on r * h_{t-1}.
      std::fill(g.begin(), g.end(), 0.0f);
      gemm(B, 2 * H, H, h.data(), H, d.r.data(), H, 0.0f, g.data(), G);
      for (int64_t n = 0; n < B; ++n)
        for (int64_t j = 0; j < H; ++j)
          rh[size_t(n * H + j)] =
              sigmoid(xt[n * G + H + j] + g[size_t(n * G + H + j)]) *
              h[size_t(n * H + j)];
      for (int64_t n = 0; n < B; ++n)
        for (int64_t j = 0; j < H; ++j)
          g[size_t(n * G + 2 * H + j)] = d.b[size_t(G + 2 * H + j)];
      gemm(B, H, H, rh.data(), H, d.r.data() + 2 * H * H, H, 1.0f,
           g.data() + 2 * H, G);
      for (int64_t n = 0; n < B; ++n)
        for (int64_t j = 0; j < H; ++j) {
          const float z = sigmoid(xt[n * G + j] + g[size_t(n * G + j)]);
          const float cand =
              std::tanh(xt[n * G + 2 * H + j] + g[size_t(n * G + 2 * H + j)]);
          float &hv = h[size_t(n * H + j)];
          hv = (1.0f - z) * cand + z * hv;
        }
    }
  }
};

void BM_Library(benchmark::State &state, int shape, GemmNT gemm,
                const char *kernel) {
  const Data &d = dataFor(shape);
  BlasRecurrent blas(d, gemm);
  timed(state, d.shape, kernel, [&] {
    blas.run();
    benchmark::ClobberMemory();
  });
}
#endif

void BM_Compiled(benchmark::State &state, int shape, bool microkernels) {
  Data &d = dataFor(shape);
  if (!d.error.empty()) {
    state.SkipWithError(d.error.c_str());
    return;
  }
  mixbench::CompiledModel model(modelText(d.shape), "rnn", d.weightsPath,
                                microkernels, "bench-recurrent");
  if (!model.error.empty()) {
    state.SkipWithError(model.error.c_str());
    return;
  }
  std::vector<float> y(size_t(d.shape.b * d.shape.h));
  auto call = model.net->prepare({d.x.data(), y.data()}, 1, model.ws);
  call();
#ifdef MIXC_BENCH_OPENBLAS
  BlasRecurrent blas(d, blasNT);
  blas.run();
  if (!mixbench::agrees(state, y, blas.h, 1e-4f, "y_h"))
    return;
#endif
  timed(state, d.shape, microkernels ? "compiled" : "compiled_loops", [&] {
    call();
    benchmark::ClobberMemory();
  });
  state.counters["compile_s"] = model.net->compileSeconds();
}

double get(const std::string &kernel, const RecurrentShape &s) {
  return mixbench::bestOf(kernel, s.name());
}

} // namespace

int main(int argc, char **argv) {
#ifdef MIXC_BENCH_OPENBLAS
  openblas_set_num_threads(1);
#endif
#ifdef MIXC_BENCH_OPENMP
  omp_set_num_threads(1);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  for (int i = 0; i < static_cast<int>(std::size(kShapes)); ++i) {
    const std::string shape = "/" + kShapes[i].name();
    add("BM_Recurrent_compiled" + shape, BM_Compiled, i, true);
    add("BM_Recurrent_compiled_loops" + shape, BM_Compiled, i, false);
#ifdef MIXC_BENCH_OPENBLAS
    add("BM_Recurrent_OpenBLAS" + shape, BM_Library, i, blasNT, "openblas");
#endif
#ifdef MIXC_BENCH_DNNL
    add("BM_Recurrent_oneDNN" + shape, BM_Library, i, dnnlNT, "onednn");
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\nGOP/s and ratios (single thread; '-': not measured):\n");
  std::printf("%-22s %9s %9s %9s %9s %10s %10s %11s\n", "layer S x B x I x H",
              "compiled", "loops", "openblas", "onednn", "comp/blas",
              "comp/dnnl", "comp/loops");
  for (const RecurrentShape &s : kShapes) {
    const double c = get("compiled", s), l = get("compiled_loops", s),
                 o = get("openblas", s), n = get("onednn", s);
    std::printf("%-22s %9.2f %9.2f %9.2f %9.2f %10s %10s %11s\n",
                s.name().c_str(), c, l, o, n, ratio(c, o).c_str(),
                ratio(c, n).c_str(), ratio(c, l).c_str());
  }
  return 0;
}
