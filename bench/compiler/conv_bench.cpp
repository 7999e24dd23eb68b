//===- conv_bench.cpp - convolutions compiled by mixc against oneDNN ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One conv2d layer (no bias, one group, batch 1, NCHW in and out, FCHW
// weight from a safetensors file: `mix.weight external "w"`) compiled by the
// mixc driver itself (compiler/CompiledNetwork.h: -O2, host CPU, run-time
// checks on, the object it writes loaded in process), on ResNet-50-shaped
// layers (3x3 padded by 1, so the output is the input's size):
//
//   a  3x3   64 ->   64 at 56x56      d  3x3  256 ->  256 at 14x14
//   b  1x1  256 ->   64 at 56x56      e  1x1  512 -> 2048 at  7x7
//   c  3x3  128 ->  128 at 28x28
//
// and MobileNet-V2-shaped depthwise 3x3 layers (groups = C = F, padded by
// 1): dw1 32 channels at 112x112, dw2 96 at 56x56 stride 2, dw3 144 at
// 56x56, dw4 960 at 7x7 -- compiled f32 (one call of
// mixrt_ukernel_depthwise_f32 on the unpadded input, the kernel pads) and
// f32 loops only, with oneDNN's f32 depthwise convolution (goihw weights,
// NCHW and blocked activations) as the peer;
//
// each as
//
//   compiled f32         mixc's default: banded im2col GEMMs calling mixrt's
//                        f32 microkernel, w packed at compile time
//   compiled f32 loops   pipeline.microkernels = false (`--no-microkernels`)
//   compiled int8        precision(int8) on the conv: dynamic per-tensor
//                        activation scale, per-channel weights, checks on;
//                        the layer finds the scale of x, quantizes it, runs
//                        the exact int8 GEMMs and rescales to f32
//
// and a small whole CNN, 1x3x112x112 -> conv3x3 3->32 /2, relu, conv3x3
// 32->64, relu, conv3x3 64->64 /2, relu, conv3x3 64->128, relu, conv3x3
// 128->128 /2, relu, global_avg_pool, dense 128->10, compiled f32, f32 loops
// and int8 (precision(int8) on every conv and the dense; relu and the pool
// stay f32, so each int8 layer quantizes its input dynamically).
//
// Peers in the same run, when the build found oneDNN (Debian libdnnl-dev,
// 2.x C API: dnnl_convolution_forward_desc_init, forward_inference, no
// bias, no post-ops; bench-only and optional):
//
//   onednn f32 nchw   dnnl_convolution_auto, f32 src and dst in dnnl_nchw
//                     (the layout mixc reads and writes), weights
//                     format_tag_any: oneDNN's chosen layout, reordered from
//                     OIHW outside the timed region
//   onednn f32 any    the same with src and dst format_tag_any too (oneDNN's
//                     blocked layouts, nChw16c on AVX-512): its best case;
//                     the reorders of src (before) and dst (after, for the
//                     check) are not timed -- a network in that layout would
//                     not pay them per layer
//   onednn s8         dnnl_convolution_direct, s8 src, s8 weights, s32 dst,
//                     all format_tag_any (NHWC-like blocked), reorders
//                     outside the timed region: the int8 convolution alone,
//                     no quantization of src and no rescale of dst (as
//                     bench_compiled says of gemm_s8s8s32)
//
// The implementation oneDNN chose is the label of its benchmark. Not peers:
// mixrt's f32 and s8s8s32 microkernels alone on the band GEMMs the compiled
// layers call (random data, B packed untimed): the layer's time minus
// theirs is what its im2col copies, epilogue and quantize cost.
//
// Everything runs single-threaded (the compiled code has no threads;
// oneDNN's OpenMP is pinned to one thread), times are the calling thread's
// CPU time per call; compilation is outside the timed region (its wall time
// is the compile_s counter).
//
// Before anything is timed the outputs are checked once per layer, and a
// failed check skips the benchmark with an error:
//
// - compiled f32 microkernels and loops agree bit for bit (documented);
// - every output of the compiled f32 layer, and of oneDNN's f32 (both
//   layouts), is within gamma_K * sum_k |x_k w_k| of an f64 reference, with
//   K = C*KH*KW and gamma_K = K*u / (1 - K*u), u = 2^-24: the worst-case
//   error of any order of summation of K products in f32 (with or without
//   FMA); so compiled and oneDNN differ by at most twice that, which is
//   checked too (a Winograd kernel could exceed it and would fail here);
// - every output of the compiled int8 layer is within the worst-case error of
//   symmetric round-to-nearest quantization (x per tensor, w per output
//   channel) of the f64 reference, as bench_compiled bounds it;
// - oneDNN's s8 convolution is compared with an exact integer reference (on
//   its own int8 data). Without VNNI (AVX2) oneDNN multiplies with
//   vpmaddubsw, whose int16 pair sums saturate, so some sums differ: it is
//   timed all the same, as the AVX2 goal asks (exact int8 against
//   oneDNN's saturating path), its label says how many sums differ, and its
//   ratios in the table carry a `*`.
// - the whole CNN: f32 microkernels and loops bit for bit; f32 within
//   1e-4 * max|y| and int8 within 0.1 * max|y| of an f64 forward pass (loose
//   sanity bounds: errors compound through 6 layers; they catch a wrong
//   layout or scale, the per-layer checks bound the rounding). The measured
//   errors are the rel_err counters.
//
// The err_bound counters give the largest |error| / bound of those checks
// (f32: of gamma_K * sum|x w|; int8: of the quantization bound).
//
// After the run a table of ratios (and one of GOP/s, 2*F*OH*OW*C*KH*KW per
// call, summed over the layers for the CNN) is printed.
//
//   ninja -C build bench_conv
//   build/bench/compiler/bench_conv --benchmark_min_time=0.3 \
//       --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// (about 1.5 minutes; Debian's Google Benchmark 1.7 takes the minimum time as
// a plain number of seconds, not "0.3s"). The tables give the best GOP/s of
// all the runs of a benchmark, the repetitions included.
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"
#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "mixrt/ukernel.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#ifdef MIXC_BENCH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef MIXC_BENCH_OPENMP
#include <omp.h>
#endif

namespace {

using mixbench::add;
using mixbench::threadSeconds;
using mixbench::values;

//===----------------------------------------------------------------------===//
// Shapes and results
//===----------------------------------------------------------------------===//

struct ConvShape {
  const char *name;
  int64_t c, f, h, w, k, stride, pad;
  int64_t groups = 1; ///< c (= f): depthwise
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  /// Input channels per group.
  int64_t cpg() const { return c / groups; }
  /// Taps per output (the K of the sums).
  int64_t depth() const { return cpg() * k * k; }
  double ops() const {
    return 2.0 * static_cast<double>(f * oh() * ow() * depth());
  }
};

const ConvShape kLayers[] = {
    {"a:3x3_64-64_56", 64, 64, 56, 56, 3, 1, 1},
    {"b:1x1_256-64_56", 256, 64, 56, 56, 1, 1, 0},
    {"c:3x3_128-128_28", 128, 128, 28, 28, 3, 1, 1},
    {"d:3x3_256-256_14", 256, 256, 14, 14, 3, 1, 1},
    {"e:1x1_512-2048_7", 512, 2048, 7, 7, 1, 1, 0},
    // MobileNet-V2-shaped depthwise 3x3 (groups = C = F).
    {"dw1:3x3dw_32_112", 32, 32, 112, 112, 3, 1, 1, 32},
    {"dw2:3x3dw_96_56/2", 96, 96, 56, 56, 3, 2, 1, 96},
    {"dw3:3x3dw_144_56", 144, 144, 56, 56, 3, 1, 1, 144},
    {"dw4:3x3dw_960_7", 960, 960, 7, 7, 3, 1, 1, 960},
    // Grouped 3x3: ResNeXt-50's (32 groups of 8 channels at 28x28, and of
    // 32 at 7x7; the stride-2 one that opens its third stage, 56x56 ->
    // 28x28) and a RegNet-like one (8 groups of 16 at 56x56); one call of
    // mixrt_ukernel_conv2d_grouped_f32.
    {"g1:3x3g32_256_28", 256, 256, 28, 28, 3, 1, 1, 32},
    {"g2:3x3g8_128_56", 128, 128, 56, 56, 3, 1, 1, 8},
    {"g3:3x3g32_1024_7", 1024, 1024, 7, 7, 3, 1, 1, 32},
    {"g4:3x3g32_256_56/2", 256, 256, 56, 56, 3, 2, 1, 32},
};

/// The whole CNN's convolutions, in order, then global_avg_pool and a dense
/// 128 -> 10.
const ConvShape kCnn[] = {
    {"conv1", 3, 32, 112, 112, 3, 2, 1},  {"conv2", 32, 64, 56, 56, 3, 1, 1},
    {"conv3", 64, 64, 56, 56, 3, 2, 1},   {"conv4", 64, 128, 28, 28, 3, 1, 1},
    {"conv5", 128, 128, 28, 28, 3, 2, 1},
};
constexpr int64_t kClasses = 10;
const char *const kCnnName = "cnn_112";

double cnnOps() {
  double ops = 2.0 * 128 * kClasses;
  for (const ConvShape &s : kCnn)
    ops += s.ops();
  return ops;
}

double get(const std::string &kernel, const std::string &shape) {
  return mixbench::bestOf(kernel, shape);
}

template <class Fn>
void timed(benchmark::State &state, const std::string &shape, double ops,
           const std::string &kernel, Fn fn) {
  mixbench::timeCalls(state, shape, ops, kernel, fn);
}

std::string format(const char *fmt, double a, double b = 0, double c = 0,
                   double d = 0) {
  char text[256];
  std::snprintf(text, sizeof(text), fmt, a, b, c, d);
  return text;
}

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

/// Per output of a convolution (NCHW, batch 1, FCHW weight) over its valid
/// taps: the f64 sum of products and of |products|, sum |x|, sum |w| and the
/// count of taps; `T` is double, or int64_t for the exact integer sums
/// (then only `sum` is filled).
template <class T, class X, class W> struct ConvSums {
  std::vector<T> sum;
  std::vector<double> absProducts, absX, absW, taps;

  ConvSums(const ConvShape &s, const X *x, const W *w, bool all) {
    const int64_t oh = s.oh(), ow = s.ow(), plane = oh * ow;
    const size_t n = static_cast<size_t>(s.f * plane);
    sum.assign(n, T(0));
    if (all) {
      absProducts.assign(n, 0.0);
      absX.assign(n, 0.0);
      absW.assign(n, 0.0);
      taps.assign(n, 0.0);
    }
    const int64_t cpg = s.cpg(), fpg = s.f / s.groups;
    for (int64_t f = 0; f < s.f; ++f)
      for (int64_t ci = 0; ci < cpg; ++ci)
        for (int64_t kh = 0; kh < s.k; ++kh)
          for (int64_t kw = 0; kw < s.k; ++kw) {
            // The input channel of the group's ci-th.
            const int64_t c = f / fpg * cpg + ci;
            const T wv =
                static_cast<T>(w[((f * cpg + ci) * s.k + kh) * s.k + kw]);
            const double wa = std::fabs(static_cast<double>(wv));
            for (int64_t y = 0; y < oh; ++y) {
              const int64_t iy = y * s.stride - s.pad + kh;
              if (iy < 0 || iy >= s.h)
                continue;
              for (int64_t xo = 0; xo < ow; ++xo) {
                const int64_t ix = xo * s.stride - s.pad + kw;
                if (ix < 0 || ix >= s.w)
                  continue;
                const T xv = static_cast<T>(x[(c * s.h + iy) * s.w + ix]);
                const size_t o = static_cast<size_t>(f * plane + y * ow + xo);
                sum[o] += xv * wv;
                if (all) {
                  const double xa = std::fabs(static_cast<double>(xv));
                  absProducts[o] += xa * wa;
                  absX[o] += xa;
                  absW[o] += wa;
                  taps[o] += 1.0;
                }
              }
            }
          }
  }
};

std::string where(const ConvShape &s, size_t i) {
  const int64_t plane = s.oh() * s.ow();
  const int64_t f = static_cast<int64_t>(i) / plane,
                p = static_cast<int64_t>(i) % plane;
  return "[0, " + std::to_string(f) + ", " + std::to_string(p / s.ow()) + ", " +
         std::to_string(p % s.ow()) + "]";
}

/// gamma_K = K u / (1 - K u), u = 2^-24.
double gammaK(int64_t k) {
  const double u = std::ldexp(1.0, -24), ku = static_cast<double>(k) * u;
  return ku / (1.0 - ku);
}

/// Every output of `y` within `factor` * gamma_K * sum|x w| of the exact sum;
/// `worst`: the largest |error| / that bound.
std::string compareF32(const ConvShape &s,
                       const ConvSums<double, float, float> &ref,
                       const std::vector<float> &y, double factor,
                       const char *what, double &worst) {
  const double g = factor * gammaK(s.depth());
  worst = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double bound = g * ref.absProducts[i],
                 e = std::fabs(static_cast<double>(y[i]) - ref.sum[i]);
    if (bound > 0)
      worst = std::max(worst, e / bound);
    if (!(e <= bound))
      return std::string(what) + " at " + where(s, i) + " is " +
             format("%.9g, the exact sum %.9g: off by more than "
                    "gamma_K * sum|x w| = %.3g",
                    y[i], ref.sum[i], bound);
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The layers compiled by mixc
//===----------------------------------------------------------------------===//

enum Variant { F32, F32Loops, Int8, Int8Loops };

struct VariantInfo {
  const char *name;      ///< in the benchmark name and the tables
  const char *precision; ///< the clause on the conv (and dense), or ""
  bool microkernels;
};

const VariantInfo kVariants[] = {
    {"f32", "", true},
    {"f32_loops", "", false},
    {"int8", " precision(int8)", true},
    {"int8_loops", " precision(int8)", false},
};

std::string tensorType(std::initializer_list<int64_t> dims) {
  std::string t = "tensor<";
  for (int64_t d : dims)
    t += std::to_string(d) + "x";
  return t + "f32>";
}

std::string convText(const ConvShape &s, const std::string &x,
                     const std::string &w, const std::string &y,
                     const char *precision) {
  const std::string xt = tensorType({1, s.c, s.h, s.w}),
                    wt = tensorType({s.f, s.cpg(), s.k, s.k}),
                    yt = tensorType({1, s.f, s.oh(), s.ow()});
  const std::string st = std::to_string(s.stride), p = std::to_string(s.pad);
  return "  %" + w + " = mix.weight external \"" + w + "\" : " + wt + "\n  %" +
         y + " = mix.conv2d %" + x + ", %" + w + precision +
         " {strides = array<i64: " + st + ", " + st +
         ">, padding = array<i64: " + p + ", " + p + ", " + p + ", " + p + ">" +
         (s.groups > 1 ? ", groups = " + std::to_string(s.groups) + " : i64"
                       : std::string()) +
         "} : (" + xt + ", " + wt + ") -> " + yt + "\n";
}

/// The inputs of one layer: x, w, and w in a safetensors file.
struct LayerData {
  ConvShape shape;
  mixbench::AlignedFloats x; ///< 64-byte aligned, as workspace buffers are
  std::vector<float> w;
  std::string weightsPath, error;

  explicit LayerData(const ConvShape &s)
      : shape(s), w(values(s.f * s.depth(), 2)) {
    std::vector<float> v = values(s.c * s.h * s.w, 1);
    x.assign(v.begin(), v.end());
    weightsPath = mixbench::writeSafetensors(
        {{"w", {s.f, s.cpg(), s.k, s.k}, &w}}, "bench-conv", error);
  }
  ~LayerData() {
    if (!weightsPath.empty())
      llvm::sys::fs::remove(weightsPath);
  }
};

/// The inputs of the whole CNN: the image, the conv weights (scaled by
/// sqrt(24 / K), He-like, so activations stay near 1) and the dense weight.
struct CnnData {
  mixbench::AlignedFloats x; ///< 64-byte aligned, as workspace buffers are
  std::vector<std::vector<float>> w; ///< the convs', then the dense's
  std::string weightsPath, error;

  CnnData() {
    std::vector<float> image = values(3 * 112 * 112, 1);
    x.assign(image.begin(), image.end());
    std::vector<mixbench::NamedTensor> tensors;
    uint64_t seed = 10;
    for (const ConvShape &s : kCnn) {
      w.push_back(values(s.f * s.depth(), seed++));
      for (float &v : w.back())
        v *= static_cast<float>(std::sqrt(24.0 / s.depth()));
    }
    w.push_back(values(128 * kClasses, seed));
    for (float &v : w.back())
      v *= static_cast<float>(std::sqrt(24.0 / 128));
    for (size_t i = 0; i < std::size(kCnn); ++i)
      tensors.push_back({"w" + std::to_string(i + 1),
                         {kCnn[i].f, kCnn[i].c, kCnn[i].k, kCnn[i].k},
                         &w[i]});
    tensors.push_back({"wd", {128, kClasses}, &w.back()});
    weightsPath = mixbench::writeSafetensors(tensors, "bench-cnn", error);
  }
  ~CnnData() {
    if (!weightsPath.empty())
      llvm::sys::fs::remove(weightsPath);
  }
};

/// A compiled model with its input and output buffers.
struct Compiled {
  std::unique_ptr<mixbench::CompiledModel> model;
  const float *x = nullptr;
  std::vector<float> y;
  std::string error;

  Compiled(const std::string &source, const std::string &weightsPath,
           const std::string &dataError, const VariantInfo &v,
           const mixbench::AlignedFloats &input, size_t outputs)
      : x(input.data()), y(outputs, 0.0f) {
    if (!dataError.empty()) {
      error = dataError;
      return;
    }
    model = std::make_unique<mixbench::CompiledModel>(
        source, "n", weightsPath, v.microkernels, "bench-conv");
    error = model->error;
  }

  mix::CompiledNetwork::Call prepare() {
    void *buffers[] = {const_cast<float *>(x), y.data()};
    return model->net->prepare(buffers, 1, model->ws);
  }
  void run() { prepare()(); }
};

std::map<int, std::unique_ptr<LayerData>> &layerData() {
  static std::map<int, std::unique_ptr<LayerData>> m;
  return m;
}

LayerData &dataFor(int layer) {
  std::unique_ptr<LayerData> &d = layerData()[layer];
  if (!d)
    d = std::make_unique<LayerData>(kLayers[layer]);
  return *d;
}

std::unique_ptr<CnnData> &cnnDataPtr() {
  static std::unique_ptr<CnnData> d;
  return d;
}

CnnData &cnnData() {
  if (!cnnDataPtr())
    cnnDataPtr() = std::make_unique<CnnData>();
  return *cnnDataPtr();
}

/// Layer index -1 is the whole CNN.
std::map<std::pair<int, int>, std::unique_ptr<Compiled>> &compiled() {
  static std::map<std::pair<int, int>, std::unique_ptr<Compiled>> m;
  return m;
}

Compiled &compiledFor(int layer, Variant variant) {
  std::unique_ptr<Compiled> &c = compiled()[{layer, variant}];
  if (c)
    return *c;
  const VariantInfo &v = kVariants[variant];
  if (layer >= 0) {
    const LayerData &d = dataFor(layer);
    const ConvShape &s = d.shape;
    const std::string xt = tensorType({1, s.c, s.h, s.w}),
                      yt = tensorType({1, s.f, s.oh(), s.ow()});
    const std::string source = "mix.network @n precision(f32) (%x: " + xt +
                               ") -> " + yt + " {\n" +
                               convText(s, "x", "w", "y", v.precision) +
                               "  mix.return %y : " + yt + "\n}\n";
    c = std::make_unique<Compiled>(source, d.weightsPath, d.error, v, d.x,
                                   static_cast<size_t>(s.f * s.oh() * s.ow()));
    return *c;
  }
  const CnnData &d = cnnData();
  const std::string out = tensorType({1, kClasses});
  std::string source =
      "mix.network @n precision(f32) (%x: " + tensorType({1, 3, 112, 112}) +
      ") -> " + out + " {\n";
  std::string in = "x";
  for (size_t i = 0; i < std::size(kCnn); ++i) {
    const ConvShape &s = kCnn[i];
    const std::string n = std::to_string(i + 1),
                      yt = tensorType({1, s.f, s.oh(), s.ow()});
    source += convText(s, in, "w" + n, "c" + n, v.precision);
    source +=
        "  %r" + n + " = mix.relu %c" + n + " : (" + yt + ") -> " + yt + "\n";
    in = "r" + n;
  }
  const ConvShape &last = kCnn[std::size(kCnn) - 1];
  const std::string lt = tensorType({1, last.f, last.oh(), last.ow()}),
                    gt = tensorType({1, 128}), wt = tensorType({128, kClasses});
  source += "  %g = mix.global_avg_pool %" + in + " : (" + lt + ") -> " + gt +
            "\n  %wd = mix.weight external \"wd\" : " + wt +
            "\n  %y = mix.dense %g, %wd" + v.precision + " : (" + gt + ", " +
            wt + ") -> " + out + "\n  mix.return %y : " + out + "\n}\n";
  c = std::make_unique<Compiled>(source, d.weightsPath, d.error, v, d.x,
                                 static_cast<size_t>(kClasses));
  return *c;
}

std::string compareBits(const std::vector<float> &a,
                        const std::vector<float> &b, const char *what) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0)
      return std::string(what) + " microkernels and loops differ at " +
             std::to_string(i) + format(": %.9g vs %.9g", a[i], b[i]);
  return "";
}

//===----------------------------------------------------------------------===//
// oneDNN
//===----------------------------------------------------------------------===//

#ifdef MIXC_BENCH_DNNL
enum DnnlKind { DnnlF32Nchw, DnnlF32Any, DnnlS8 };
const char *const kDnnlNames[] = {"onednn f32 nchw", "onednn f32 any",
                                  "onednn s8"};

dnnl_engine_t dnnlEngine() {
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success)
      e = nullptr;
    return e;
  }();
  return engine;
}

dnnl_stream_t dnnlStream() {
  static dnnl_stream_t stream = [] {
    dnnl_stream_t s = nullptr;
    if (!dnnlEngine() ||
        dnnl_stream_create(&s, dnnlEngine(), dnnl_stream_default_flags) !=
            dnnl_success)
      s = nullptr;
    return s;
  }();
  return stream;
}

#define DNNL_TRY(call)                                                         \
  do {                                                                         \
    if ((call) != dnnl_success) {                                              \
      error = std::string(#call) + " failed";                                  \
      return;                                                                  \
    }                                                                          \
  } while (0)

/// One oneDNN convolution primitive with its memories; the user's plain
/// (NCHW / OIHW) data is reordered into the layouts it chose at
/// construction, outside any timed region.
struct DnnlConv {
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t conv = nullptr;
  dnnl_memory_t src = nullptr, wei = nullptr, dst = nullptr;
  std::vector<dnnl_memory_t> owned;
  std::string impl, error;
  dnnl_memory_desc_t userDstMd;

  /// Copies the user buffer `data` (plain layout `userMd`) into `to`.
  void reorder(const dnnl_memory_desc_t &fromMd, void *fromData,
               const dnnl_memory_desc_t &toMd, void *toData) {
    dnnl_memory_t from = nullptr, to = nullptr;
    dnnl_primitive_desc_t rpd = nullptr;
    dnnl_primitive_t r = nullptr;
    if (dnnl_memory_create(&from, &fromMd, dnnlEngine(), fromData) ==
            dnnl_success &&
        dnnl_memory_create(&to, &toMd, dnnlEngine(), toData) == dnnl_success &&
        dnnl_reorder_primitive_desc_create(&rpd, &fromMd, dnnlEngine(), &toMd,
                                           dnnlEngine(),
                                           nullptr) == dnnl_success &&
        dnnl_primitive_create(&r, rpd) == dnnl_success) {
      dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
      if (dnnl_primitive_execute(r, dnnlStream(), 2, args) != dnnl_success ||
          dnnl_stream_wait(dnnlStream()) != dnnl_success)
        error = "oneDNN reorder failed";
    } else {
      error = "oneDNN reorder could not be created";
    }
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(from);
    dnnl_memory_destroy(to);
  }

  dnnl_memory_t allocate(const dnnl_memory_desc_t *md) {
    dnnl_memory_t m = nullptr;
    if (dnnl_memory_create(&m, md, dnnlEngine(), DNNL_MEMORY_ALLOCATE) !=
        dnnl_success)
      return nullptr;
    owned.push_back(m);
    return m;
  }

  DnnlConv(const ConvShape &s, DnnlKind kind, void *userSrc, void *userWei) {
    if (!dnnlStream()) {
      error = "no oneDNN CPU engine or stream";
      return;
    }
    const bool int8 = kind == DnnlS8;
    const dnnl_data_type_t dt = int8 ? dnnl_s8 : dnnl_f32,
                           dstDt = int8 ? dnnl_s32 : dnnl_f32;
    const dnnl_format_tag_t act =
        kind == DnnlF32Nchw ? dnnl_nchw : dnnl_format_tag_any;
    // Grouped: weights [G, F/G, C/G, KH, KW] (goihw).
    const bool grouped = s.groups > 1;
    const int weiRank = grouped ? 5 : 4;
    const dnnl_dims_t srcDims = {1, s.c, s.h, s.w},
                      weiDims = {s.f, s.c, s.k, s.k},
                      gWeiDims = {s.groups, s.f / s.groups, s.cpg(), s.k, s.k},
                      dstDims = {1, s.f, s.oh(), s.ow()},
                      strides = {s.stride, s.stride}, pad = {s.pad, s.pad};
    dnnl_memory_desc_t srcMd, weiMd, dstMd, userSrcMd, userWeiMd;
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&srcMd, 4, srcDims, dt, act));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&weiMd, weiRank,
                                          grouped ? gWeiDims : weiDims, dt,
                                          dnnl_format_tag_any));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&dstMd, 4, dstDims, dstDt, act));
    DNNL_TRY(
        dnnl_memory_desc_init_by_tag(&userSrcMd, 4, srcDims, dt, dnnl_nchw));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&userWeiMd, weiRank,
                                          grouped ? gWeiDims : weiDims, dt,
                                          grouped ? dnnl_goihw : dnnl_oihw));
    DNNL_TRY(
        dnnl_memory_desc_init_by_tag(&userDstMd, 4, dstDims, dstDt, dnnl_nchw));
    dnnl_convolution_desc_t cd;
    DNNL_TRY(dnnl_convolution_forward_desc_init(
        &cd, dnnl_forward_inference,
        int8 ? dnnl_convolution_direct : dnnl_convolution_auto, &srcMd, &weiMd,
        nullptr, &dstMd, strides, pad, pad));
    DNNL_TRY(
        dnnl_primitive_desc_create(&pd, &cd, nullptr, dnnlEngine(), nullptr));
    const char *name = nullptr;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) ==
            dnnl_success &&
        name)
      impl = name;
    const dnnl_memory_desc_t *srcPd =
        dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *weiPd =
        dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *dstPd =
        dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    src = allocate(srcPd);
    wei = allocate(weiPd);
    dst = allocate(dstPd);
    if (!src || !wei || !dst) {
      error = "oneDNN memory allocation failed";
      return;
    }
    void *srcData = nullptr, *weiData = nullptr;
    DNNL_TRY(dnnl_memory_get_data_handle(src, &srcData));
    DNNL_TRY(dnnl_memory_get_data_handle(wei, &weiData));
    reorder(userSrcMd, userSrc, *srcPd, srcData);
    if (error.empty())
      reorder(userWeiMd, userWei, *weiPd, weiData);
    if (!error.empty())
      return;
    DNNL_TRY(dnnl_primitive_create(&conv, pd));
  }

  ~DnnlConv() {
    dnnl_primitive_destroy(conv);
    dnnl_primitive_desc_destroy(pd);
    for (dnnl_memory_t m : owned)
      dnnl_memory_destroy(m);
  }

  bool run() {
    dnnl_exec_arg_t args[] = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    return dnnl_primitive_execute(conv, dnnlStream(), 3, args) ==
               dnnl_success &&
           dnnl_stream_wait(dnnlStream()) == dnnl_success;
  }

  /// dst reordered to NCHW into `out` (4-byte elements).
  void readDst(void *out) {
    void *data = nullptr;
    if (dnnl_memory_get_data_handle(dst, &data) != dnnl_success) {
      error = "dnnl_memory_get_data_handle failed";
      return;
    }
    reorder(*dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), data,
            userDstMd, out);
  }
};

std::vector<int8_t> randomS8(size_t n, uint64_t seed) {
  std::vector<float> v = values(n, seed);
  std::vector<int8_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<int8_t>(std::lround(v[i] * 254.0f));
  return out;
}

/// The peer of one (layer, kind), built and checked once; the int8 data it
/// reads lives here.
struct Peer {
  std::vector<int8_t> xs8, ws8;
  std::vector<float> wCopy;
  std::unique_ptr<DnnlConv> conv;
  std::string error;
  /// s8: "" when every sum is exact, else how many differ and the first.
  std::string inexact;
};

/// The layers whose oneDNN s8 sums were not all exact (the table's `*`).
std::set<std::string> &inexactS8() {
  static std::set<std::string> layers;
  return layers;
}

std::map<std::pair<int, int>, std::unique_ptr<Peer>> &peers() {
  static std::map<std::pair<int, int>, std::unique_ptr<Peer>> m;
  return m;
}
#endif

//===----------------------------------------------------------------------===//
// The checks, once per layer
//===----------------------------------------------------------------------===//

struct LayerCheck {
  std::string f32;  ///< compiled f32 and f32 loops
  std::string int8; ///< compiled int8
  /// The largest |error| / bound of the check (the err_bound counters).
  double f32Worst = 0, int8Worst = 0;
#ifdef MIXC_BENCH_DNNL
  std::string dnnl[2]; ///< onednn f32 nchw, any
  double dnnlWorst[2] = {0, 0};
#endif
};

#ifdef MIXC_BENCH_DNNL
Peer &peerFor(int layer, DnnlKind kind);
#endif

const LayerCheck &checkFor(int layer) {
  static std::map<int, LayerCheck> done;
  auto it = done.find(layer);
  if (it != done.end())
    return it->second;
  LayerCheck &check = done[layer];
  const LayerData &d = dataFor(layer);
  const ConvShape &s = d.shape;
  const ConvSums<double, float, float> ref(s, d.x.data(), d.w.data(), true);

  Compiled &uk = compiledFor(layer, F32);
  Compiled &loops = compiledFor(layer, F32Loops);
  check.f32 = !uk.error.empty() ? uk.error : loops.error;
  if (check.f32.empty()) {
    uk.run();
    loops.run();
    check.f32 = compareBits(uk.y, loops.y, "f32");
  }
  if (check.f32.empty())
    check.f32 = compareF32(s, ref, uk.y, 1.0, "compiled f32", check.f32Worst);

  Compiled &q = compiledFor(layer, Int8);
  check.int8 = q.error;
  if (check.int8.empty()) {
    q.run();
    double xMax = 0;
    for (float v : d.x)
      xMax = std::max(xMax, std::fabs(static_cast<double>(v)));
    const double sa = xMax / 127.0;
    const int64_t plane = s.oh() * s.ow();
    for (int64_t f = 0; f < s.f && check.int8.empty(); ++f) {
      double wMax = 0;
      for (int64_t k = 0; k < s.depth(); ++k)
        wMax = std::max(wMax,
                        std::fabs(static_cast<double>(d.w[f * s.depth() + k])));
      const double sb = wMax / 127.0;
      for (int64_t p = 0; p < plane; ++p) {
        const size_t i = static_cast<size_t>(f * plane + p);
        // |ab - a'b'| <= |a| |b - b'| + |a - a'| |b'|, summed over the taps.
        const double bound =
            1.01 * (sb / 2 * ref.absX[i] + sa / 2 * ref.absW[i] +
                    sa * sb / 4 * ref.taps[i]) +
            1e-5 * ref.absProducts[i];
        const double e = std::fabs(q.y[i] - ref.sum[i]);
        if (bound > 0)
          check.int8Worst = std::max(check.int8Worst, e / bound);
        if (!(e <= bound)) {
          check.int8 = "int8 at " + where(s, i) +
                       format(" is %.9g, the exact sum %.9g: off by more "
                              "than the quantization bound %.3g",
                              q.y[i], ref.sum[i], bound);
          break;
        }
      }
    }
  }
  // Several groups: the f32 kernels' sums against the i32 loops', bit for
  // bit (qconv2d's lowerAsExactF32).
  if (check.int8.empty() && s.groups > 1) {
    Compiled &ql = compiledFor(layer, Int8Loops);
    check.int8 = ql.error;
    if (check.int8.empty()) {
      ql.run();
      check.int8 = compareBits(q.y, ql.y, "int8");
    }
  }

#ifdef MIXC_BENCH_DNNL
  for (DnnlKind kind : {DnnlF32Nchw, DnnlF32Any}) {
    std::string &error = check.dnnl[kind];
    Peer &peer = peerFor(layer, kind);
    error = peer.error;
    if (!error.empty())
      continue;
    std::vector<float> y(static_cast<size_t>(s.f * s.oh() * s.ow()));
    if (!peer.conv->run()) {
      error = "oneDNN convolution failed";
      continue;
    }
    peer.conv->readDst(y.data());
    error = peer.conv->error;
    if (error.empty())
      error =
          compareF32(s, ref, y, 1.0, kDnnlNames[kind], check.dnnlWorst[kind]);
    // Implied by the two checks above; checked as the bound it states.
    if (error.empty() && check.f32.empty())
      for (size_t i = 0; i < y.size(); ++i)
        if (!(std::fabs(static_cast<double>(y[i]) - uk.y[i]) <=
              2 * gammaK(s.depth()) * ref.absProducts[i])) {
          error = std::string("compiled f32 and ") + kDnnlNames[kind] +
                  " differ by more than 2 gamma_K sum|x w| at " + where(s, i);
          break;
        }
  }
#endif
  return check;
}

void BM_Compiled(benchmark::State &state, int layer, Variant variant) {
  const LayerCheck &check = checkFor(layer);
  const bool int8 = variant == Int8 || variant == Int8Loops;
  const std::string &error = int8 ? check.int8 : check.f32;
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  Compiled &c = compiledFor(layer, variant);
  mix::CompiledNetwork::Call call = c.prepare();
  const ConvShape &s = kLayers[layer];
  timed(state, s.name, s.ops(),
        std::string("compiled ") + kVariants[variant].name, [&] {
          call();
          benchmark::ClobberMemory();
        });
  state.counters["compile_s"] = c.model->net->compileSeconds();
  state.counters["err_bound"] = int8 ? check.int8Worst : check.f32Worst;
}

//===----------------------------------------------------------------------===//
// The whole CNN
//===----------------------------------------------------------------------===//

/// The CNN in f64 (relu after every conv, mean over the last feature map,
/// dense).
std::vector<double> cnnReference(const CnnData &d) {
  std::vector<double> act(d.x.begin(), d.x.end());
  for (size_t i = 0; i < std::size(kCnn); ++i) {
    const std::vector<double> w(d.w[i].begin(), d.w[i].end());
    ConvSums<double, double, double> sums(kCnn[i], act.data(), w.data(), false);
    act = std::move(sums.sum);
    for (double &v : act)
      v = std::max(v, 0.0);
  }
  const ConvShape &last = kCnn[std::size(kCnn) - 1];
  const int64_t plane = last.oh() * last.ow();
  std::vector<double> pooled(static_cast<size_t>(last.f), 0.0);
  for (int64_t c = 0; c < last.f; ++c) {
    for (int64_t p = 0; p < plane; ++p)
      pooled[c] += act[c * plane + p];
    pooled[c] /= static_cast<double>(plane);
  }
  std::vector<double> y(kClasses, 0.0);
  for (int64_t k = 0; k < last.f; ++k)
    for (int64_t n = 0; n < kClasses; ++n)
      y[n] += pooled[k] * d.w.back()[k * kClasses + n];
  return y;
}

struct CnnCheck {
  std::string f32, int8;
  double f32Err = 0, int8Err = 0; ///< max |y - ref| / max |ref|
};

const CnnCheck &cnnCheck() {
  static std::unique_ptr<CnnCheck> done;
  if (done)
    return *done;
  done = std::make_unique<CnnCheck>();
  CnnCheck &check = *done;
  const std::vector<double> ref = cnnReference(cnnData());
  double scale = 0;
  for (double v : ref)
    scale = std::max(scale, std::fabs(v));
  auto relErr = [&](const std::vector<float> &y) {
    double e = 0;
    for (size_t i = 0; i < y.size(); ++i)
      e = std::max(e, std::fabs(y[i] - ref[i]));
    return e / scale;
  };
  Compiled &uk = compiledFor(-1, F32);
  Compiled &loops = compiledFor(-1, F32Loops);
  check.f32 = !uk.error.empty() ? uk.error : loops.error;
  if (check.f32.empty()) {
    uk.run();
    loops.run();
    check.f32 = compareBits(uk.y, loops.y, "CNN f32");
    check.f32Err = relErr(uk.y);
    if (check.f32.empty() && !(check.f32Err <= 1e-4))
      check.f32 = format("CNN f32 is off the f64 reference by %.3g of max|y| "
                         "(bound 1e-4)",
                         check.f32Err);
  }
  Compiled &q = compiledFor(-1, Int8);
  check.int8 = q.error;
  if (check.int8.empty()) {
    q.run();
    check.int8Err = relErr(q.y);
    if (!(check.int8Err <= 0.1))
      check.int8 = format("CNN int8 is off the f64 reference by %.3g of "
                          "max|y| (bound 0.1)",
                          check.int8Err);
  }
  return check;
}

void BM_Cnn(benchmark::State &state, Variant variant) {
  const CnnCheck &check = cnnCheck();
  const std::string &error = variant == Int8 ? check.int8 : check.f32;
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  Compiled &c = compiledFor(-1, variant);
  mix::CompiledNetwork::Call call = c.prepare();
  timed(state, kCnnName, cnnOps(),
        std::string("compiled ") + kVariants[variant].name, [&] {
          call();
          benchmark::ClobberMemory();
        });
  state.counters["compile_s"] = c.model->net->compileSeconds();
  state.counters["rel_err"] = variant == Int8 ? check.int8Err : check.f32Err;
}

//===----------------------------------------------------------------------===//
// Not peers: the microkernel calls alone
//===----------------------------------------------------------------------===//

/// The GEMMs the compiled layer calls, alone, as its lowering bands them
/// (MixToLinalgConvolutions.cpp: the most output rows, a divisor of OH,
/// whose patches fit in 512 KiB): one band of patches [rows*OW, K] (random,
/// reused for every band, as the compiled code reuses its scratch) times
/// the packed weight [K, F] into the band's rows of [OH*OW, F]. The layer's
/// time minus this is its im2col copies, epilogue (transpose to NCHW; int8:
/// rescale) and, for int8, the dynamic range and quantize of x.
void BM_MixrtGemm(benchmark::State &state, int layer, bool s8) {
  const ConvShape &s = kLayers[layer];
  const int64_t k = s.depth(), oh = s.oh(), ow = s.ow();
  const int64_t bytes = s8 ? 1 : 4;
  int64_t rows = 1;
  for (int64_t r = oh; r >= 1; --r)
    if (oh % r == 0 && r * ow * k * bytes <= 512 * 1024) {
      rows = r;
      break;
    }
  const int64_t m = rows * ow;
  const mixrt_ukernel_type type = s8 ? MIXRT_UKERNEL_S8 : MIXRT_UKERNEL_F32;
  std::vector<unsigned char> packed(
      static_cast<size_t>(mixrt_ukernel_packed_size(type, k, s.f)) + 64);
  void *pb = reinterpret_cast<void *>(
      (reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t(63));
  const std::vector<float> af = values(m * k, 1), bf = values(k * s.f, 2);
  std::vector<int8_t> as8(af.size()), bs8(bf.size());
  for (size_t i = 0; i < af.size(); ++i)
    as8[i] = static_cast<int8_t>(std::lround(af[i] * 254.0f));
  for (size_t i = 0; i < bf.size(); ++i)
    bs8[i] = static_cast<int8_t>(std::lround(bf[i] * 254.0f));
  if (mixrt_ukernel_pack_b(type, k, s.f,
                           s8 ? static_cast<const void *>(bs8.data())
                              : static_cast<const void *>(bf.data()),
                           s.f, pb) != MIXRT_STATUS_OK) {
    state.SkipWithError("mixrt_ukernel_pack_b failed");
    return;
  }
  std::vector<float> cf(s8 ? 0 : static_cast<size_t>(oh * ow * s.f));
  std::vector<int32_t> cs8(s8 ? static_cast<size_t>(oh * ow * s.f) : 0);
  bool ok = true;
  timed(state, s.name, s.ops(), s8 ? "mixrt s8" : "mixrt f32", [&] {
    for (int64_t band = 0; band < oh / rows; ++band) {
      const int64_t row = band * m * s.f;
      ok = (s8 ? mixrt_ukernel_gemm_s8s8s32(m, s.f, k, as8.data(), k, nullptr,
                                            pb, nullptr, cs8.data() + row, s.f,
                                            0)
               : mixrt_ukernel_gemm_f32(m, s.f, k, af.data(), k, pb,
                                        cf.data() + row, s.f, nullptr, 0)) ==
               MIXRT_STATUS_OK &&
           ok;
    }
    benchmark::ClobberMemory();
  });
  if (!ok)
    state.SkipWithError("the mixrt microkernel failed");
  state.counters["band_rows"] = static_cast<double>(m);
}

/// mixrt_ukernel_conv2d_f32 alone on the layer's input and weight: what
/// the compiled f32 layer calls (patches packed per block inside the call,
/// NCHW out, no bias).
void BM_MixrtConv(benchmark::State &state, int layer) {
  const ConvShape &s = kLayers[layer];
  const LayerData &d = dataFor(layer);
  std::vector<float> y(static_cast<size_t>(s.f * s.oh() * s.ow()));
  bool ok = true;
  timed(state, s.name, s.ops(), "mixrt conv f32", [&] {
    ok = mixrt_ukernel_conv2d_f32(1, s.c, s.h, s.w, d.x.data(), s.f, s.k, s.k,
                                  d.w.data(), s.stride, s.stride, 1, 1, s.pad,
                                  s.pad, s.pad, s.pad, s.oh(), s.ow(), y.data(),
                                  nullptr, 0) == MIXRT_STATUS_OK &&
         ok;
    benchmark::ClobberMemory();
  });
  if (!ok)
    state.SkipWithError("mixrt_ukernel_conv2d_f32 failed");
}

//===----------------------------------------------------------------------===//
// The peers
//===----------------------------------------------------------------------===//

#ifdef MIXC_BENCH_DNNL
Peer &peerFor(int layer, DnnlKind kind) {
  std::unique_ptr<Peer> &p = peers()[{layer, kind}];
  if (p)
    return *p;
  p = std::make_unique<Peer>();
  const ConvShape &s = kLayers[layer];
  if (kind == DnnlS8) {
    p->xs8 = randomS8(s.c * s.h * s.w, 1);
    p->ws8 = randomS8(s.f * s.depth(), 2);
    p->conv = std::make_unique<DnnlConv>(s, kind, p->xs8.data(), p->ws8.data());
  } else {
    const LayerData &d = dataFor(layer);
    p->wCopy = d.w;
    p->conv = std::make_unique<DnnlConv>(
        s, kind, const_cast<float *>(d.x.data()), p->wCopy.data());
  }
  p->error = p->conv->error;
  if (p->error.empty() && kind == DnnlS8) {
    // Exact: s8 x s8 products summed in int32 (|sum| < 2^31 here).
    std::vector<int32_t> y(static_cast<size_t>(s.f * s.oh() * s.ow()));
    if (!p->conv->run())
      p->error = "oneDNN convolution failed";
    else
      p->conv->readDst(y.data());
    if (p->error.empty())
      p->error = p->conv->error;
    if (p->error.empty()) {
      ConvSums<int64_t, int8_t, int8_t> exact(s, p->xs8.data(), p->ws8.data(),
                                              false);
      size_t wrong = 0;
      for (size_t i = 0; i < y.size(); ++i)
        if (y[i] != exact.sum[i] && wrong++ == 0)
          p->inexact = "at " + where(s, i) + " " + std::to_string(y[i]) +
                       " for the exact " + std::to_string(exact.sum[i]);
      if (wrong) {
        p->inexact = "INEXACT (saturating): " + std::to_string(wrong) + " of " +
                     std::to_string(y.size()) + " sums differ, " + p->inexact;
        inexactS8().insert(s.name);
      }
    }
  }
  return *p;
}

void BM_Dnnl(benchmark::State &state, int layer, DnnlKind kind) {
  const std::string &error =
      kind == DnnlS8 ? peerFor(layer, kind).error : checkFor(layer).dnnl[kind];
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  Peer &p = peerFor(layer, kind);
  state.SetLabel(p.inexact.empty() ? p.conv->impl
                                   : p.conv->impl + " " + p.inexact);
  if (kind != DnnlS8)
    state.counters["err_bound"] = checkFor(layer).dnnlWorst[kind];
  const ConvShape &s = kLayers[layer];
  bool ok = true;
  timed(state, s.name, s.ops(), kDnnlNames[kind], [&] {
    ok = p.conv->run() && ok;
    benchmark::ClobberMemory();
  });
  if (!ok)
    state.SkipWithError("oneDNN convolution failed");
}
#endif

//===----------------------------------------------------------------------===//
// Registration and the tables
//===----------------------------------------------------------------------===//

void registerAll() {
  for (int i = 0; i < static_cast<int>(std::size(kLayers)); ++i) {
    const std::string shape = std::string("/") + kLayers[i].name;
    if (kLayers[i].groups > 1) {
      // Depthwise and grouped: f32 (mixrt_ukernel_depthwise_f32, or
      // mixrt_ukernel_conv2d_f32 per group) and loops against oneDNN's f32
      // grouped convolution; int8 (exact sums by the same f32 kernels) and
      // its loops.
      for (Variant v : {F32, F32Loops, Int8, Int8Loops})
        add(std::string("BM_Conv_compiled_") + kVariants[v].name + shape,
            BM_Compiled, i, v);
#ifdef MIXC_BENCH_DNNL
      add("BM_Conv_oneDNN_f32_nchw" + shape, BM_Dnnl, i, DnnlF32Nchw);
      add("BM_Conv_oneDNN_f32_any" + shape, BM_Dnnl, i, DnnlF32Any);
#endif
      continue;
    }
    for (Variant v : {F32, F32Loops, Int8})
      add(std::string("BM_Conv_compiled_") + kVariants[v].name + shape,
          BM_Compiled, i, v);
    add("BM_Conv_mixrt_ukernel_f32" + shape, BM_MixrtGemm, i, false);
    add("BM_Conv_mixrt_ukernel_s8s8s32" + shape, BM_MixrtGemm, i, true);
    add("BM_Conv_mixrt_conv2d_f32" + shape, BM_MixrtConv, i);
#ifdef MIXC_BENCH_DNNL
    add("BM_Conv_oneDNN_f32_nchw" + shape, BM_Dnnl, i, DnnlF32Nchw);
    add("BM_Conv_oneDNN_f32_any" + shape, BM_Dnnl, i, DnnlF32Any);
    add("BM_Conv_oneDNN_s8s8s32" + shape, BM_Dnnl, i, DnnlS8);
#endif
  }
  for (Variant v : {F32, F32Loops, Int8})
    add(std::string("BM_CNN_compiled_") + kVariants[v].name + "/" + kCnnName,
        BM_Cnn, v);
}

/// "a/b" with two decimals (then `mark`), "-" if either was not measured.
std::string ratio(double a, double b, const std::string &mark = "") {
  std::string r = mixbench::ratio(a, b);
  return r == "-" ? r : r + mark;
}

std::string rate(double gops) {
  if (gops <= 0)
    return "-";
  return format("%.1f", gops);
}

void printTables() {
  std::printf(
      "\nRatios (single thread, thread CPU time; mixrt microkernel path %s; "
      "'-': not measured):\n",
      mixrt_ukernel_isa_name(mixrt_ukernel_get_isa()));
  std::printf("%-18s %10s %10s %10s %10s %10s %9s %10s\n", "layer",
              "f32/dnnchw", "f32/dnnany", "int8/dnns8", "f32uk/loop",
              "i8uk/loop", "int8/f32", "dnns8/f32");
  std::vector<std::string> shapes;
  for (const ConvShape &s : kLayers)
    shapes.push_back(s.name);
  shapes.push_back(kCnnName);
  for (const std::string &s : shapes) {
    const double f32 = get("compiled f32", s);
#ifdef MIXC_BENCH_DNNL
    const std::string star = inexactS8().count(s) ? "*" : "";
#else
    const std::string star;
#endif
    std::printf(
        "%-18s %10s %10s %10s %10s %10s %9s %10s\n", s.c_str(),
        ratio(f32, get("onednn f32 nchw", s)).c_str(),
        ratio(f32, get("onednn f32 any", s)).c_str(),
        ratio(get("compiled int8", s), get("onednn s8", s), star).c_str(),
        ratio(f32, get("compiled f32_loops", s)).c_str(),
        ratio(get("compiled int8", s), get("compiled int8_loops", s)).c_str(),
        ratio(get("compiled int8", s), f32).c_str(),
        ratio(get("onednn s8", s),
              std::max(get("onednn f32 nchw", s), get("onednn f32 any", s)),
              star)
            .c_str());
  }
  std::printf(
      "(speed ratios, >1: the first is faster. f32/dnnchw: compiled f32 / "
      "oneDNN f32 with NCHW src/dst (mixc's layout); f32/dnnany: / oneDNN f32 "
      "in its own blocked layouts; int8/dnns8: the compiled int8 layer "
      "(quantize x + int8 GEMMs + rescale) / oneDNN's s8s8s32 convolution "
      "alone; f32uk/loop, i8uk/loop: microkernels / --no-microkernels "
      "(int8: several groups only); int8/f32: "
      "compiled int8 / compiled f32; dnns8/f32: oneDNN s8 / its best f32; "
      "*: oneDNN's s8 sums were not exact (its saturating vpmaddubsw path "
      "without VNNI), the compiled int8 sums are)\n");

  std::printf("\nGOP/s (2*F*OH*OW*C*KH*KW per call; the CNN: summed over its "
              "layers):\n");
  std::printf("%-18s %7s %7s %7s %7s %7s %7s %7s %9s %9s %7s\n", "layer", "f32",
              "f32_lp", "int8", "int8_lp", "uk_f32", "uk_cv", "uk_s8",
              "dnn_nchw", "dnn_any", "dnn_s8");
  for (const std::string &s : shapes)
    std::printf("%-18s %7s %7s %7s %7s %7s %7s %7s %9s %9s %7s\n", s.c_str(),
                rate(get("compiled f32", s)).c_str(),
                rate(get("compiled f32_loops", s)).c_str(),
                rate(get("compiled int8", s)).c_str(),
                rate(get("compiled int8_loops", s)).c_str(),
                rate(get("mixrt f32", s)).c_str(),
                rate(get("mixrt conv f32", s)).c_str(),
                rate(get("mixrt s8", s)).c_str(),
                rate(get("onednn f32 nchw", s)).c_str(),
                rate(get("onednn f32 any", s)).c_str(),
                rate(get("onednn s8", s)).c_str());
  std::printf("(_lp: --no-microkernels; uk_f32, uk_s8: mixrt's GEMM "
              "microkernels alone on band GEMMs of the layer, without im2col, "
              "epilogue or quantize; uk_cv: mixrt_ukernel_conv2d_f32 alone, "
              "what the compiled f32 layer calls)\n");
}

} // namespace

int main(int argc, char **argv) {
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
  // The JITs, the oneDNN primitives and the temporary weights files, before
  // static destruction.
  compiled().clear();
#ifdef MIXC_BENCH_DNNL
  peers().clear();
#endif
  layerData().clear();
  cnnDataPtr().reset();
  return 0;
}
