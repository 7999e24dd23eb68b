//===- compiled_bench.cpp - code compiled by mixc against BLAS peers ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One dense layer y[M, N] = x[M, K] x w[K, N] (no bias) compiled by the mixc
// driver itself (CompiledNetwork.h: -O2, host CPU, run-time checks on, the
// object it writes loaded in process by ORC and called through
// `_mlir_ciface_mixc_net_d`), so this times exactly what `mixc` emits, at
// M = N = K = 256, 512, 1024 and the batch-1 shape M = 1, N = K = 1024:
//
//   compiled f32         mixc's default: the GEMM calls mixrt's microkernels
//                        with w packed at compile time
//   compiled f32 loops   the same with pipeline.microkernels = false
//                        (`mixc --no-microkernels`): the generated loops
//   compiled f16, bf16   precision(weights = f16 / bf16): f32 activations
//                        and accumulator, w stored and packed narrow
//   compiled int8        precision(int8), dynamic activation scale, weights
//   (and its loops)      per channel: the layer quantizes x (finds its scale,
//                        rounds), runs the exact int8 GEMM and rescales to
//                        f32 -- more work than a bare int8 GEMM
//
// next to peers in the same run, when the build found them (bench-only and
// optional: Debian libopenblas-dev, libdnnl-dev):
//
//   OpenBLAS sgemm, oneDNN sgemm   f32 GEMM, w unpacked (as their APIs take
//                                  it)
//   oneDNN gemm_s8s8s32            the int8 GEMM alone (int8 inputs, int32
//                                  output): no quantization, no rescale
//
// and, not a peer, mixrt's s8s8s32 microkernel alone (the GEMM the compiled
// int8 layer calls, its B packed untimed): the layer's time minus this is
// what its quantization and rescale cost.
//
// Everything runs single-threaded (the compiled code has no threads;
// openblas_set_num_threads(1), omp_set_num_threads(1)); times are the calling
// thread's CPU time per call, so other load on the machine distorts the
// ratios little. Compilation (and the packing of w it does) is outside the
// timed region; its wall time is the compile_s counter.
//
// Before anything is timed the outputs are checked once per shape (a failed
// check skips the benchmark with an error, so wrong code is never timed):
// the microkernels and the loops agree bit for bit (f32, f16, bf16 and
// int8), sampled rows of the float layers equal a std::fmaf reference in
// ascending k bit for bit (the numeric contract of mixrt/ukernel.h, weights
// rounded to f16/bf16 first); the int8 layer equals mixrt doing the same
// work (mixrt_quantize_f32 of x and w, mixrt_gemm_s8_f32) bit for bit, and
// sampled rows are within the worst-case quantization error of an f64
// reference.
//
// w is read from a safetensors file (`mix.weight external "w"`,
// CompileOptions::weightsPath): inline in the model text, its 1M floats at
// 1024 take mixc's parser ~1.4 s per compilation, the file ~0.01 s.
//
// After the run a table of ratios (and one of GOP/s, 2*M*N*K per call) is
// printed: f32 / max(OpenBLAS, oneDNN); f16 and bf16 weights / f32;
// int8 / oneDNN s8s8s32; microkernels / loops for f32 and int8.
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"
#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "mixrt/ukernel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#ifdef MIXC_BENCH_OPENBLAS
#include <cblas.h>
#endif
#ifdef MIXC_BENCH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef MIXC_BENCH_OPENMP
#include <omp.h>
#endif

namespace {

using mixbench::add;
using mixbench::ratio;
using mixbench::threadSeconds;
using mixbench::values;

struct Shape {
  int64_t m, n, k;
};

const Shape kShapes[] = {
    {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {1, 1024, 1024}};

std::string shapeName(const Shape &s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
         std::to_string(s.k);
}

/// Best GOP/s per (kernel, shape), for the tables after the run.
std::map<std::string, double> &results() {
  static std::map<std::string, double> r;
  return r;
}

void record(const std::string &kernel, const Shape &s, double gops) {
  double &best = results()[kernel + " " + shapeName(s)];
  best = std::max(best, gops);
}

double get(const std::string &kernel, const Shape &s) {
  auto it = results().find(kernel + " " + shapeName(s));
  return it == results().end() ? 0.0 : it->second;
}

/// Runs `fn` once untimed (first-call setup: oneDNN generates its kernels),
/// then under the benchmark loop with manual (thread CPU) time, and sets the
/// GOPS counter.
template <class Fn>
void timed(benchmark::State &state, const Shape &s, const std::string &kernel,
           Fn fn) {
  fn();
  double seconds = 0.0;
  for (auto _ : state) {
    const double start = threadSeconds();
    fn();
    const double t = threadSeconds() - start;
    seconds += t;
    state.SetIterationTime(t);
  }
  const double gops = 2.0 * static_cast<double>(s.m) *
                      static_cast<double>(s.n) * static_cast<double>(s.k) *
                      static_cast<double>(state.iterations()) / seconds / 1e9;
  state.counters["GOPS"] = gops;
  record(kernel, s, gops);
}

//===----------------------------------------------------------------------===//
// The layers compiled by mixc
//===----------------------------------------------------------------------===//

/// The compiled variants of the layer. The f16/bf16 loops are compiled only
/// to check the microkernels against them (not timed).
enum Variant { F32, F32Loops, F16, F16Loops, BF16, BF16Loops, Int8, Int8Loops };

struct VariantInfo {
  const char *name;      ///< in the benchmark name and the tables
  const char *precision; ///< the dense's precision clause ("" for none)
  bool microkernels;
};

const VariantInfo kVariants[] = {
    {"f32", "", true},
    {"f32_loops", "", false},
    {"f16", "weights = f16", true},
    {"f16_loops", "weights = f16", false},
    {"bf16", "weights = bf16", true},
    {"bf16_loops", "weights = bf16", false},
    {"int8", "int8", true},
    {"int8_loops", "int8", false},
};

/// The inputs of one shape: x, w, and w in a safetensors file the models
/// reference (`mix.weight external "w"`).
struct ShapeData {
  Shape shape;
  std::vector<float> x, w;
  std::string weightsPath; ///< empty if it could not be written
  std::string error;

  explicit ShapeData(const Shape &s)
      : shape(s), x(values(s.m * s.k, 1)), w(values(s.k * s.n, 2)) {
    weightsPath = mixbench::writeSafetensors({{"w", {s.k, s.n}, &w}},
                                             "bench-dense", error);
  }
  ~ShapeData() {
    if (!weightsPath.empty())
      llvm::sys::fs::remove(weightsPath);
  }
};

/// The layer compiled by the mixc driver for this machine, loaded from the
/// object it wrote, with its workspace and output; `error` if it failed.
struct CompiledDense {
  std::unique_ptr<mix::CompiledNetwork> net;
  std::vector<uint8_t> workspace;
  void *ws = nullptr;
  std::vector<float> y;
  std::string error;

  CompiledDense(const ShapeData &data, const VariantInfo &variant) {
    const Shape &s = data.shape;
    if (!data.error.empty()) {
      error = data.error;
      return;
    }
    auto type = [](int64_t a, int64_t b) {
      return "tensor<" + std::to_string(a) + "x" + std::to_string(b) + "xf32>";
    };
    std::string x = type(s.m, s.k), w = type(s.k, s.n), y = type(s.m, s.n);
    std::string clause = *variant.precision ? std::string(" precision(") +
                                                  variant.precision + ")"
                                            : std::string();
    std::string source = "mix.network @d precision(f32) (%x: " + x + ") -> " +
                         y + " {\n  %w = mix.weight external \"w\" : " + w +
                         "\n  %y = mix.dense %x, %w" + clause + " : (" + x +
                         ", " + w + ") -> " + y + "\n  mix.return %y : " + y +
                         "\n}\n";
    mixbench::CompiledModel model(source, "d", data.weightsPath,
                                  variant.microkernels, "bench-dense");
    if (!model.error.empty()) {
      error = model.error;
      return;
    }
    net = std::move(model.net);
    workspace = std::move(model.workspace);
    ws = model.ws;
    this->y.assign(static_cast<size_t>(s.m * s.n), 0.0f);
  }

  mix::CompiledNetwork::Call prepare(const ShapeData &data) {
    void *buffers[] = {const_cast<float *>(data.x.data()), y.data()};
    return net->prepare(buffers, 1, ws);
  }

  /// Runs the layer once (into y).
  void run(const ShapeData &data) { prepare(data)(); }
};

std::map<int, std::unique_ptr<ShapeData>> &shapeData() {
  static std::map<int, std::unique_ptr<ShapeData>> m;
  return m;
}

std::map<std::pair<int, int>, std::unique_ptr<CompiledDense>> &compiled() {
  static std::map<std::pair<int, int>, std::unique_ptr<CompiledDense>> m;
  return m;
}

ShapeData &dataFor(int shape) {
  std::unique_ptr<ShapeData> &d = shapeData()[shape];
  if (!d)
    d = std::make_unique<ShapeData>(kShapes[shape]);
  return *d;
}

/// Compiled once per (shape, variant), kept for the whole run.
CompiledDense &compiledFor(int shape, Variant variant) {
  std::unique_ptr<CompiledDense> &c = compiled()[{shape, variant}];
  if (!c)
    c = std::make_unique<CompiledDense>(dataFor(shape), kVariants[variant]);
  return *c;
}

//===----------------------------------------------------------------------===//
// The checks
//===----------------------------------------------------------------------===//

/// Rows checked against a reference (the full outputs of the microkernels
/// and the loops are compared with each other).
std::vector<int64_t> sampledRows(const Shape &s) {
  std::vector<int64_t> rows = {0, s.m / 3, (2 * s.m) / 3, s.m - 1};
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

std::string where(const Shape &s, size_t index) {
  return "[" + std::to_string(index / s.n) + ", " +
         std::to_string(index % s.n) + "]";
}

/// Empty if `a` and `b` (both variants run once) are equal bit for bit.
std::string compareBits(const Shape &s, const CompiledDense &a,
                        const CompiledDense &b, const char *what) {
  for (size_t i = 0; i < a.y.size(); ++i)
    if (std::memcmp(&a.y[i], &b.y[i], sizeof(float)) != 0) {
      char text[200];
      std::snprintf(text, sizeof(text),
                    "%s differ at %s: %.9g (microkernels) vs %.9g (loops)",
                    what, where(s, i).c_str(), a.y[i], b.y[i]);
      return text;
    }
  return "";
}

/// Sampled rows of a float layer against acc = fmaf(x, (float)w, acc) in
/// ascending k from +0, `round` giving the weight as the layer stores it.
template <class Round>
std::string compareFmaReference(const ShapeData &data, const CompiledDense &c,
                                Round round, const char *what) {
  const Shape &s = data.shape;
  std::vector<float> w(data.w.size());
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = round(data.w[i]);
  for (int64_t m : sampledRows(s))
    for (int64_t n = 0; n < s.n; ++n) {
      float acc = 0.0f;
      for (int64_t k = 0; k < s.k; ++k)
        acc = std::fmaf(data.x[m * s.k + k], w[k * s.n + n], acc);
      float got = c.y[m * s.n + n];
      if (std::memcmp(&acc, &got, sizeof(float)) != 0) {
        char text[200];
        std::snprintf(text, sizeof(text),
                      "%s differs from the fmaf reference at %s: %.9g vs %.9g",
                      what, where(s, m * s.n + n).c_str(), got, acc);
        return text;
      }
    }
  return "";
}

/// Sampled rows of the int8 layer against an f64 reference, within the
/// worst-case error of symmetric round-to-nearest quantization (x per
/// tensor, w per column) plus float rounding.
std::string compareInt8Reference(const ShapeData &data,
                                 const CompiledDense &c) {
  const Shape &s = data.shape;
  double xMax = 0;
  for (float v : data.x)
    xMax = std::max(xMax, std::fabs(static_cast<double>(v)));
  const double sa = xMax / 127.0;
  std::vector<double> sb(s.n, 0.0);
  for (int64_t k = 0; k < s.k; ++k)
    for (int64_t n = 0; n < s.n; ++n)
      sb[n] = std::max(
          sb[n], std::fabs(static_cast<double>(data.w[k * s.n + n])) / 127.0);
  for (int64_t m : sampledRows(s))
    for (int64_t n = 0; n < s.n; ++n) {
      double exact = 0, bound = 0, magnitude = 0;
      for (int64_t k = 0; k < s.k; ++k) {
        const double a = data.x[m * s.k + k], b = data.w[k * s.n + n];
        exact += a * b;
        magnitude += std::fabs(a * b);
        // |ab - a'b'| <= |a| |b - b'| + |a - a'| |b'|
        bound += std::fabs(a) * sb[n] / 2 + sa / 2 * (std::fabs(b) + sb[n] / 2);
      }
      bound = 1.01 * bound + 1e-5 * magnitude;
      const double got = c.y[m * s.n + n];
      if (!(std::fabs(got - exact) <= bound)) {
        char text[200];
        std::snprintf(text, sizeof(text),
                      "int8 at %s is %.9g, the exact product %.9g: off by "
                      "more than the quantization bound %.3g",
                      where(s, m * s.n + n).c_str(), got, exact, bound);
        return text;
      }
    }
  return "";
}

/// The whole int8 layer against mixrt doing the same work, bit for bit:
/// mixrt_quantize_f32 of x (symmetric, per tensor) and of w (symmetric, per
/// column), then mixrt_gemm_s8_f32 (the rescale in the same order).
std::string compareInt8Mixrt(const ShapeData &data, const CompiledDense &c) {
  const Shape &s = data.shape;
  mixrt_qtensor *qx = nullptr, *qw = nullptr;
  const int64_t xShape[2] = {s.m, s.k}, wShape[2] = {s.k, s.n};
  std::string error;
  std::vector<float> ref(static_cast<size_t>(s.m * s.n));
  if (mixrt_quantize_f32(data.x.data(), xShape, 2, MIXRT_QSCHEME_SYMMETRIC,
                         MIXRT_PER_TENSOR, &qx) != MIXRT_STATUS_OK ||
      mixrt_quantize_f32(data.w.data(), wShape, 2, MIXRT_QSCHEME_SYMMETRIC, 1,
                         &qw) != MIXRT_STATUS_OK) {
    error = "mixrt_quantize_f32 failed";
  } else {
    const mixrt_gemm_s8_operand a = {mixrt_qtensor_data(qx), s.k, 0,
                                     mixrt_qtensor_scales(qx), nullptr};
    const mixrt_gemm_s8_operand b = {mixrt_qtensor_data(qw), s.n, 1,
                                     mixrt_qtensor_scales(qw), nullptr};
    if (mixrt_gemm_s8_f32(s.m, s.n, s.k, &a, &b, ref.data(), s.n) !=
        MIXRT_STATUS_OK)
      error = "mixrt_gemm_s8_f32 failed";
  }
  mixrt_qtensor_destroy(qx);
  mixrt_qtensor_destroy(qw);
  if (!error.empty())
    return error;
  for (size_t i = 0; i < ref.size(); ++i)
    if (std::memcmp(&ref[i], &c.y[i], sizeof(float)) != 0) {
      char text[200];
      std::snprintf(text, sizeof(text),
                    "int8 differs from mixrt's quantize + gemm_s8_f32 at %s: "
                    "%.9g vs %.9g",
                    where(s, i).c_str(), c.y[i], ref[i]);
      return text;
    }
  return "";
}

/// The check of a variant's group (its microkernels and its loops), run
/// once per shape; empty if the outputs are right.
const std::string &checkFor(int shape, Variant variant) {
  static std::map<std::pair<int, int>, std::string> done;
  const Variant kernels = static_cast<Variant>(variant & ~1);
  auto it = done.find({shape, kernels});
  if (it != done.end())
    return it->second;
  std::string &error = done[{shape, kernels}];
  const ShapeData &data = dataFor(shape);
  CompiledDense &uk = compiledFor(shape, kernels);
  CompiledDense &loops = compiledFor(shape, static_cast<Variant>(kernels + 1));
  for (CompiledDense *c : {&uk, &loops})
    if (error.empty() && !c->error.empty())
      error = c->error;
  if (!error.empty())
    return error;
  uk.run(data);
  loops.run(data);
  const char *name = kVariants[kernels].name;
  error = compareBits(data.shape, uk, loops, name);
  if (!error.empty())
    return error;
  switch (kernels) {
  case F32:
    error = compareFmaReference(data, uk, [](float v) { return v; }, name);
    break;
  case F16:
    error = compareFmaReference(
        data, uk, [](float v) { return mixrt_f16_to_f32(mixrt_f32_to_f16(v)); },
        name);
    break;
  case BF16:
    error = compareFmaReference(
        data, uk,
        [](float v) { return mixrt_bf16_to_f32(mixrt_f32_to_bf16(v)); }, name);
    break;
  default:
    error = compareInt8Mixrt(data, uk);
    if (error.empty())
      error = compareInt8Reference(data, uk);
    break;
  }
  return error;
}

void BM_Compiled(benchmark::State &state, int shape, Variant variant) {
  const std::string &error = checkFor(shape, variant);
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  const ShapeData &data = dataFor(shape);
  CompiledDense &c = compiledFor(shape, variant);
  mix::CompiledNetwork::Call call = c.prepare(data);
  timed(state, data.shape, std::string("compiled ") + kVariants[variant].name,
        [&] {
          call();
          benchmark::ClobberMemory();
        });
  state.counters["compile_s"] = c.net->compileSeconds();
}

//===----------------------------------------------------------------------===//
// The peers
//===----------------------------------------------------------------------===//

std::vector<int8_t> randomS8(size_t n, uint64_t seed) {
  std::vector<float> v = values(n, seed);
  std::vector<int8_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<int8_t>(std::lround(v[i] * 254.0f));
  return out;
}

/// Not a peer: the microkernel the compiled int8 layer calls
/// (mixrt_ukernel_gemm_s8s8s32, B packed untimed), alone, on the same data
/// as oneDNN's s8s8s32: what the layer's quantization and rescale add.
void BM_MixrtS8s8s32(benchmark::State &state, int shape) {
  const Shape &s = kShapes[shape];
  const std::vector<int8_t> a = randomS8(s.m * s.k, 1),
                            b = randomS8(s.k * s.n, 2);
  std::vector<unsigned char> packed(static_cast<size_t>(
      mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8, s.k, s.n)));
  if (mixrt_ukernel_pack_b(MIXRT_UKERNEL_S8, s.k, s.n, b.data(), s.n,
                           packed.data()) != MIXRT_STATUS_OK) {
    state.SkipWithError("mixrt_ukernel_pack_b failed");
    return;
  }
  std::vector<int32_t> c(s.m * s.n);
  timed(state, s, "mixrt s8s8s32", [&] {
    benchmark::DoNotOptimize(
        mixrt_ukernel_gemm_s8s8s32(s.m, s.n, s.k, a.data(), s.k, nullptr,
                                   packed.data(), nullptr, c.data(), s.n, 0));
    benchmark::ClobberMemory();
  });
}

#ifdef MIXC_BENCH_OPENBLAS
void BM_OpenBlasSgemm(benchmark::State &state, int shape) {
  const ShapeData &data = dataFor(shape);
  const Shape &s = data.shape;
  std::vector<float> c(s.m * s.n);
  timed(state, s, "openblas sgemm", [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, s.n, s.k, 1.0f,
                data.x.data(), s.k, data.w.data(), s.n, 0.0f, c.data(), s.n);
    benchmark::ClobberMemory();
  });
}
#endif

#ifdef MIXC_BENCH_DNNL
void BM_DnnlSgemm(benchmark::State &state, int shape) {
  const ShapeData &data = dataFor(shape);
  const Shape &s = data.shape;
  std::vector<float> c(s.m * s.n);
  timed(state, s, "onednn sgemm", [&] {
    benchmark::DoNotOptimize(dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f,
                                        data.x.data(), s.k, data.w.data(), s.n,
                                        0.0f, c.data(), s.n));
    benchmark::ClobberMemory();
  });
}

void BM_DnnlS8s8s32(benchmark::State &state, int shape) {
  const Shape &s = kShapes[shape];
  const std::vector<int8_t> a = randomS8(s.m * s.k, 1),
                            b = randomS8(s.k * s.n, 2);
  std::vector<int32_t> c(s.m * s.n);
  const int32_t co = 0;
  timed(state, s, "onednn s8s8s32", [&] {
    benchmark::DoNotOptimize(
        dnnl_gemm_s8s8s32('N', 'N', 'F', s.m, s.n, s.k, 1.0f, a.data(), s.k, 0,
                          b.data(), s.n, 0, 0.0f, c.data(), s.n, &co));
    benchmark::ClobberMemory();
  });
}
#endif

//===----------------------------------------------------------------------===//
// Registration and the tables
//===----------------------------------------------------------------------===//

void registerAll() {
  for (int i = 0; i < static_cast<int>(std::size(kShapes)); ++i) {
    const std::string shape = "/" + shapeName(kShapes[i]);
    for (Variant v : {F32, F32Loops, F16, BF16, Int8, Int8Loops})
      add(std::string("BM_Compiled_") + kVariants[v].name + shape, BM_Compiled,
          i, v);
    add("BM_mixrt_ukernel_s8s8s32" + shape, BM_MixrtS8s8s32, i);
#ifdef MIXC_BENCH_OPENBLAS
    add("BM_OpenBLAS_sgemm" + shape, BM_OpenBlasSgemm, i);
#endif
#ifdef MIXC_BENCH_DNNL
    add("BM_oneDNN_sgemm" + shape, BM_DnnlSgemm, i);
    add("BM_oneDNN_s8s8s32" + shape, BM_DnnlS8s8s32, i);
#endif
  }
}

std::string rate(double gops) {
  if (gops <= 0)
    return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", gops);
  return text;
}

void printTables() {
  std::printf(
      "\nRatios (single thread, thread CPU time; mixrt microkernel path %s; "
      "'-': not measured):\n",
      mixrt_ukernel_isa_name(mixrt_ukernel_get_isa()));
  std::printf("%-16s %9s %9s %9s %12s %11s %11s\n", "shape", "f32/peer",
              "f16/f32", "bf16/f32", "int8/dnn_s8", "f32 uk/loop",
              "int8 uk/loop");
  for (const Shape &s : kShapes) {
    const double f32 = get("compiled f32", s);
    const double peer =
        std::max(get("openblas sgemm", s), get("onednn sgemm", s));
    const double int8 = get("compiled int8", s);
    std::printf("%-16s %9s %9s %9s %12s %11s %11s\n", shapeName(s).c_str(),
                ratio(f32, peer).c_str(),
                ratio(get("compiled f16", s), f32).c_str(),
                ratio(get("compiled bf16", s), f32).c_str(),
                ratio(int8, get("onednn s8s8s32", s)).c_str(),
                ratio(f32, get("compiled f32_loops", s)).c_str(),
                ratio(int8, get("compiled int8_loops", s)).c_str());
  }
  std::printf("(f32/peer: compiled f32 / max(OpenBLAS, oneDNN) sgemm; "
              "int8/dnn_s8: the compiled int8 layer (quantize x + int8 GEMM + "
              "rescale) / oneDNN gemm_s8s8s32 (the GEMM alone); uk/loop: "
              "microkernels / --no-microkernels)\n");

  std::printf("\nGOP/s (2*M*N*K per call):\n");
  std::printf("%-16s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s\n", "shape", "f32",
              "f32_lp", "f16", "bf16", "int8", "int8_lp", "uk_s8", "openblas",
              "onednn", "dnn_s8");
  for (const Shape &s : kShapes)
    std::printf("%-16s %7s %7s %7s %7s %7s %7s %7s %8s %7s %7s\n",
                shapeName(s).c_str(), rate(get("compiled f32", s)).c_str(),
                rate(get("compiled f32_loops", s)).c_str(),
                rate(get("compiled f16", s)).c_str(),
                rate(get("compiled bf16", s)).c_str(),
                rate(get("compiled int8", s)).c_str(),
                rate(get("compiled int8_loops", s)).c_str(),
                rate(get("mixrt s8s8s32", s)).c_str(),
                rate(get("openblas sgemm", s)).c_str(),
                rate(get("onednn sgemm", s)).c_str(),
                rate(get("onednn s8s8s32", s)).c_str());
  std::printf("(_lp: --no-microkernels; uk_s8: mixrt's s8s8s32 microkernel "
              "alone, the GEMM the compiled int8 layer calls)\n");
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
  registerAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printTables();
  // The JITs and the temporary weights files, before static destruction.
  compiled().clear();
  shapeData().clear();
  return 0;
}
