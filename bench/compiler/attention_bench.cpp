//===- attention_bench.cpp - compiled f32 attention against OpenBLAS ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One f32 mix.attention layer (q, k, v and output projections with biases,
// H heads, no mask) compiled by mixc (the driver, loaded in process; the
// weights from a safetensors file) with and without microkernels, against
// the same layer written by hand on OpenBLAS in the same run: four
// cblas_sgemm projections (+ bias loops), per head cblas_sgemm for the
// scores (K transposed by the call, the 1/sqrt(D) scale as its alpha), a
// max-subtracted softmax per row, and cblas_sgemm for the context. Shapes
// B x S x E / H:
//
//   1 x 128 x 256 / 4     1 x 256 x 512 / 8     4 x 64 x 256 / 4
//
// Before timing, the compiled outputs are compared with the OpenBLAS ones:
// both compute in f32 with different summation orders, so they agree to a
// few ulps of the sums; a difference above 1e-4 * max|y| (over 100x that)
// marks the row as an error. Single thread, thread CPU time, medians with
// --benchmark_repetitions; the table at the end prints the ratios.
//
//   bench_attention [--benchmark_min_time=0.3] [--benchmark_repetitions=3]
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"

#include "compiler/CompiledNetwork.h"

#include <benchmark/benchmark.h>

#ifdef MIXC_BENCH_OPENBLAS
#include <cblas.h>
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

struct AttentionShape {
  int64_t b, s, e, h;
  std::string name() const {
    char text[64];
    std::snprintf(text, sizeof(text), "%lldx%lldx%lld/%lld", (long long)b,
                  (long long)s, (long long)e, (long long)h);
    return text;
  }
  /// 2 * multiply-adds: four projections and the two per-head products.
  double ops() const {
    return 2.0 * (4.0 * double(b * s * e * e) + 2.0 * double(b * s * s * e));
  }
};

const AttentionShape kShapes[] = {
    {1, 128, 256, 4}, {1, 256, 512, 8}, {4, 64, 256, 4}};

/// The layer's data: input, weights [E, E] (input features by output
/// features, as mix.dense's), biases [E].
struct Data {
  AttentionShape shape;
  std::vector<float> x, wq, wk, wv, wo, bq, bk, bv, bo;
  std::string weightsPath, error;
  explicit Data(const AttentionShape &s) : shape(s) {
    const size_t ee = size_t(s.e * s.e);
    x = values(size_t(s.b * s.s * s.e), 1);
    wq = values(ee, 2), wk = values(ee, 3), wv = values(ee, 4);
    wo = values(ee, 5);
    // Weights scaled by 1/sqrt(E): activations stay O(1) through the layer.
    const float scale = 1.0f / std::sqrt(float(s.e));
    for (std::vector<float> *w : {&wq, &wk, &wv, &wo})
      for (float &v : *w)
        v *= scale;
    bq = values(size_t(s.e), 6), bk = values(size_t(s.e), 7);
    bv = values(size_t(s.e), 8), bo = values(size_t(s.e), 9);
    weightsPath = mixbench::writeSafetensors({{"wq", {s.e, s.e}, &wq},
                                              {"wk", {s.e, s.e}, &wk},
                                              {"wv", {s.e, s.e}, &wv},
                                              {"wo", {s.e, s.e}, &wo},
                                              {"bq", {s.e}, &bq},
                                              {"bk", {s.e}, &bk},
                                              {"bv", {s.e}, &bv},
                                              {"bo", {s.e}, &bo}},
                                             "bench-attention", error);
  }
};

std::string modelText(const AttentionShape &s) {
  const std::string e = std::to_string(s.e);
  const std::string x = "tensor<" + std::to_string(s.b) + "x" +
                        std::to_string(s.s) + "x" + e + "xf32>";
  const std::string w = "tensor<" + e + "x" + e + "xf32>",
                    b = "tensor<" + e + "xf32>";
  std::string text =
      "mix.network @att precision(f32) (%x: " + x + ") -> " + x + " {\n";
  for (const char *name : {"wq", "wk", "wv", "wo"})
    text += std::string("  %") + name + " = mix.weight external \"" + name +
            "\" : " + w + "\n";
  for (const char *name : {"bq", "bk", "bv", "bo"})
    text += std::string("  %") + name + " = mix.weight external \"" + name +
            "\" : " + b + "\n";
  text += "  %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) bk(%bk) "
          "bv(%bv) bo(%bo) {num_heads = " +
          std::to_string(s.h) + " : i64} : (" + x + ", " + w + ", " + w + ", " +
          w + ", " + w + ", " + b + ", " + b + ", " + b + ", " + b + ") -> " +
          x + "\n  mix.return %y : " + x + "\n}\n";
  return text;
}

template <class Fn>
void timed(benchmark::State &state, const AttentionShape &s,
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

#ifdef MIXC_BENCH_OPENBLAS
/// The layer on OpenBLAS into `y` (scratch: q, k, v, ctx [B*S, E], p [S, S]).
struct BlasAttention {
  const Data &d;
  std::vector<float> q, k, v, ctx, p, y;
  explicit BlasAttention(const Data &data) : d(data) {
    const size_t n = size_t(d.shape.b * d.shape.s * d.shape.e);
    q.resize(n), k.resize(n), v.resize(n), ctx.resize(n), y.resize(n);
    p.resize(size_t(d.shape.s * d.shape.s));
  }
  void project(const float *in, const std::vector<float> &w,
               const std::vector<float> &bias, float *out) {
    const int64_t m = d.shape.b * d.shape.s, e = d.shape.e;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, e, e, 1.0f, in, e,
                w.data(), e, 0.0f, out, e);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < e; ++c)
        out[r * e + c] += bias[size_t(c)];
  }
  void run() {
    const int64_t S = d.shape.s, E = d.shape.e, H = d.shape.h, D = E / H;
    project(d.x.data(), d.wq, d.bq, q.data());
    project(d.x.data(), d.wk, d.bk, k.data());
    project(d.x.data(), d.wv, d.bv, v.data());
    const float scale = 1.0f / std::sqrt(float(D));
    for (int64_t b = 0; b < d.shape.b; ++b)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t at = b * S * E + h * D;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, S, S, D, scale,
                    q.data() + at, E, k.data() + at, E, 0.0f, p.data(), S);
        for (int64_t i = 0; i < S; ++i) {
          float *row = p.data() + i * S;
          const float mx = *std::max_element(row, row + S);
          float sum = 0.0f;
          for (int64_t j = 0; j < S; ++j)
            sum += row[j] = std::exp(row[j] - mx);
          for (int64_t j = 0; j < S; ++j)
            row[j] /= sum;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, D, S, 1.0f,
                    p.data(), S, v.data() + at, E, 0.0f, ctx.data() + at, E);
      }
    project(ctx.data(), d.wo, d.bo, y.data());
  }
};

void BM_OpenBlas(benchmark::State &state, int shape) {
  const Data &d = dataFor(shape);
  BlasAttention blas(d);
  timed(state, d.shape, "openblas", [&] {
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
  mixbench::CompiledModel model(modelText(d.shape), "att", d.weightsPath,
                                microkernels, "bench-attention");
  if (!model.error.empty()) {
    state.SkipWithError(model.error.c_str());
    return;
  }
  std::vector<float> y(d.x.size());
  auto call = model.net->prepare({d.x.data(), y.data()}, 1, model.ws);
  call();
#ifdef MIXC_BENCH_OPENBLAS
  BlasAttention blas(d);
  blas.run();
  if (!mixbench::agrees(state, y, blas.y, 1e-4f, "y"))
    return;
#endif
  timed(state, d.shape, microkernels ? "compiled" : "compiled_loops", [&] {
    call();
    benchmark::ClobberMemory();
  });
  state.counters["compile_s"] = model.net->compileSeconds();
}

double get(const std::string &kernel, const AttentionShape &s) {
  return mixbench::bestOf(kernel, s.name());
}

} // namespace

int main(int argc, char **argv) {
#ifdef MIXC_BENCH_OPENBLAS
  openblas_set_num_threads(1);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  for (int i = 0; i < static_cast<int>(std::size(kShapes)); ++i) {
    const std::string shape = "/" + kShapes[i].name();
    add("BM_Attention_compiled" + shape, BM_Compiled, i, true);
    add("BM_Attention_compiled_loops" + shape, BM_Compiled, i, false);
#ifdef MIXC_BENCH_OPENBLAS
    add("BM_Attention_OpenBLAS" + shape, BM_OpenBlas, i);
#endif
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\nGOP/s and ratios (single thread; '-': not measured):\n");
  std::printf("%-16s %9s %9s %9s %12s %12s\n", "B x S x E / H", "compiled",
              "loops", "openblas", "comp/blas", "comp/loops");
  for (const AttentionShape &s : kShapes) {
    const double c = get("compiled", s), l = get("compiled_loops", s),
                 o = get("openblas", s);
    std::printf("%-16s %9.1f %9.1f %9.1f %12s %12s\n", s.name().c_str(), c, l,
                o, ratio(c, o).c_str(), ratio(c, l).c_str());
  }
  return 0;
}
