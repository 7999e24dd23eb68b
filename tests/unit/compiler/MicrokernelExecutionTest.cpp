//===- MicrokernelExecutionTest.cpp - microkernel calls vs the loops ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mix-use-microkernels replaces the GEMM loops of dense layers by calls of
// mixrt's microkernels. The numeric contract says nothing changes: every
// output of a compiled dense layer must have the same bits with and without
// the microkernels, on every kernel path this CPU has (portable, AVX2,
// AVX-512, AVX-512 VNNI, forced one after the other), for f32, f16 and bf16
// weights, with and without a bias, with int8 (exact sums), and on shapes
// with odd tails (M, N, K of 1, 3, 17, ...). The one exception allowed by
// the contract: a NaN output is a NaN on both sides (the microkernel
// canonicalizes its payload).
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "mixrt/mixrt.h"
#include "mixrt/ukernel.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

struct GemmCase {
  int64_t rows;  // leading dimension(s) of the input, flattened
  int64_t batch; // > 0: a rank-3 input [batch, rows, K]
  int64_t k, n;
  std::string precision; // the dense layer's precision clause
  bool bias;
  bool specials;          // inf, -0, subnormals, huge values in the input
  bool nan;               // a NaN in the input
  std::string after = ""; // an elementwise layer after the dense ("relu")
  // A unary layer before the dense ("neg"): it then reads the workspace, so
  // its output may be the caller's (a caller's output may overlap the
  // caller's input, never the workspace).
  std::string before = "";
};

/// A dense value list "[[a, b], [c, d]]" of `rows` x `cols` values n / 64.
std::string matrixText(std::mt19937 &rng, int64_t rows, int64_t cols) {
  std::uniform_int_distribution<int> dist(-160, 160);
  std::string text = "[";
  for (int64_t r = 0; r < rows; ++r) {
    text += r ? ", [" : "[";
    for (int64_t c = 0; c < cols; ++c)
      text += (c ? ", " : "") + std::to_string(dist(rng) / 64.0);
    text += "]";
  }
  return text + "]";
}

std::string vectorText(std::mt19937 &rng, int64_t n) {
  std::string m = matrixText(rng, 1, n);
  return m.substr(1, m.size() - 2);
}

std::string modelText(const GemmCase &c, std::mt19937 &rng) {
  std::string in =
      c.batch ? llvm::formatv("{0}x{1}x{2}", c.batch, c.rows, c.k).str()
              : llvm::formatv("{0}x{1}", c.rows, c.k).str();
  std::string out =
      c.batch ? llvm::formatv("{0}x{1}x{2}", c.batch, c.rows, c.n).str()
              : llvm::formatv("{0}x{1}", c.rows, c.n).str();
  std::string text =
      llvm::formatv("mix.network @d precision(f32) (%x: tensor<{0}xf32>) -> "
                    "tensor<{1}xf32> {\n"
                    "  %w = mix.weight dense<{2}> : tensor<{3}x{4}xf32>\n",
                    in, out, matrixText(rng, c.k, c.n), c.k, c.n);
  if (c.bias)
    text += llvm::formatv("  %b = mix.weight dense<{0}> : tensor<{1}xf32>\n",
                          vectorText(rng, c.n), c.n);
  std::string x = "%x";
  if (!c.before.empty()) {
    text += llvm::formatv("  %x1 = mix.{0} %x : (tensor<{1}xf32>) -> "
                          "tensor<{1}xf32>\n",
                          c.before, in);
    x = "%x1";
  }
  text += llvm::formatv("  %y = mix.dense {7}, %w{0} {1} : (tensor<{2}xf32>, "
                        "tensor<{3}x{4}xf32>{5}) -> tensor<{6}xf32>\n",
                        c.bias ? ", %b" : "", c.precision, in, c.k, c.n,
                        c.bias ? llvm::formatv(", tensor<{0}xf32>", c.n).str()
                               : std::string(),
                        out, x);
  if (!c.after.empty()) {
    text += llvm::formatv("  %r = mix.{0} %y : (tensor<{1}xf32>) -> "
                          "tensor<{1}xf32>\n",
                          c.after, out);
    return text + "  mix.return %r : tensor<" + out + "xf32>\n}\n";
  }
  return text + "  mix.return %y : tensor<" + out + "xf32>\n}\n";
}

std::vector<float> inputData(const GemmCase &c, int64_t count,
                             std::mt19937 &rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> x(count);
  for (float &v : x)
    v = dist(rng);
  if (c.specials && count >= 8) {
    x[1] = INFINITY;
    x[2] = -0.0f;
    x[3] = 1e-40f;          // subnormal
    x[count - 1] = 3e38f;   // overflows in the sums
    x[count / 2] = -1e-45f; // the smallest subnormal
  }
  if (c.nan)
    x[count / 3] = NAN;
  return x;
}

/// The calls of `callee` in a lowered module.
int countCalls(ModuleOp module, llvm::StringRef callee) {
  int n = 0;
  module.walk([&](LLVM::CallOp call) {
    if (call.getCallee() && *call.getCallee() == callee)
      ++n;
  });
  return n;
}

using Entry = void (*)(void *, void *);

/// A descriptor of `data` with `shape` (rank N).
template <int N>
StridedMemRefType<float, N> viewOf(float *data,
                                   const std::vector<int64_t> &shape) {
  std::array<int64_t, N> dims;
  std::copy_n(shape.begin(), N, dims.begin());
  return view<float, N>(data, dims);
}

/// Runs the compiled `fn` on x (rank 2, 3 or 4 descriptors, each side its
/// own rank).
std::vector<float> run(void *fn, const std::vector<int64_t> &inShape,
                       const std::vector<int64_t> &outShape,
                       std::vector<float> x) {
  int64_t count = 1;
  for (int64_t d : outShape)
    count *= d;
  std::vector<float> y(count, -7.0f);
  mixrt_check_reset();
  auto withOutput = [&](auto in) {
    auto call = [&](auto out) { reinterpret_cast<Entry>(fn)(&in, &out); };
    switch (outShape.size()) {
    case 2:
      return call(viewOf<2>(y.data(), outShape));
    case 3:
      return call(viewOf<3>(y.data(), outShape));
    default:
      return call(viewOf<4>(y.data(), outShape));
    }
  };
  switch (inShape.size()) {
  case 2:
    withOutput(viewOf<2>(x.data(), inShape));
    break;
  case 3:
    withOutput(viewOf<3>(x.data(), inShape));
    break;
  default:
    withOutput(viewOf<4>(x.data(), inShape));
  }
  return y;
}

/// Every kernel path this CPU can run, the portable one first.
std::vector<mixrt_ukernel_isa> availablePaths() {
  std::vector<mixrt_ukernel_isa> paths;
  for (mixrt_ukernel_isa isa :
       {MIXRT_UKERNEL_ISA_PORTABLE, MIXRT_UKERNEL_ISA_AVX2,
        MIXRT_UKERNEL_ISA_AVX512, MIXRT_UKERNEL_ISA_AVX512_VNNI,
        MIXRT_UKERNEL_ISA_AMX})
    if (isa <= mixrt_ukernel_cpu_isa())
      paths.push_back(isa);
  return paths;
}

/// Network @d of `text` compiled with the default options (the "kernel"
/// build) and with the options `configure` sets (the "loop" build), and the
/// same bits on input `x` on every microkernel path. `notVacuous` checks
/// that the two compiled modules differ as intended.
void compareBuilds(
    const std::string &text, const std::vector<int64_t> &inShape,
    const std::vector<int64_t> &outShape,
    llvm::function_ref<void(MixPipelineOptions &)> configure,
    llvm::function_ref<void(ModuleOp kernels, ModuleOp loops)> notVacuous,
    const std::vector<float> &x, bool checked = true,
    llvm::function_ref<void(MixPipelineOptions &)> both = nullptr) {
  Jit jit;
  INFO(text);
  OwningOpRef<ModuleOp> withKernels =
      parseSourceString<ModuleOp>(text, &jit.context);
  OwningOpRef<ModuleOp> withLoops =
      parseSourceString<ModuleOp>(text, &jit.context);
  REQUIRE(withKernels);
  REQUIRE(withLoops);
  MixPipelineOptions kernels, loops;
  kernels.checkedCasts = checked;
  loops.checkedCasts = checked;
  if (both) {
    both(kernels);
    both(loops);
  }
  configure(loops);
  auto kernelEngine = compile(*withKernels, kernels);
  auto loopEngine = compile(*withLoops, loops);
  notVacuous(*withKernels, *withLoops);
  auto kernelFn = kernelEngine->lookup("_mlir_ciface_d");
  auto loopFn = loopEngine->lookup("_mlir_ciface_d");
  REQUIRE(bool(kernelFn));
  REQUIRE(bool(loopFn));

  std::vector<float> expected = run(*loopFn, inShape, outShape, x);
  mixrt_status_code loopStatus = mixrt_check_status();
  // The first failed check (index, value) and the count, as reported.
  const int64_t loopFailures = mixrt_check_failure_count();
  const mixrt_check_record *loopFirst = mixrt_check_first_failure();
  const int64_t loopIndex = loopFirst ? loopFirst->index : -1;
  const double loopValue = loopFirst ? loopFirst->value : 0.0;
  // Finite inputs must give some finite output, or the comparison below
  // would compare NaNs only (say, every output of a dynamic int8
  // quantization of an input with an inf).
  if (llvm::all_of(x, [](float v) { return std::isfinite(v); }))
    REQUIRE(llvm::any_of(expected, [](float v) { return std::isfinite(v); }));
  const mixrt_ukernel_isa original = mixrt_ukernel_get_isa();
  for (mixrt_ukernel_isa isa : availablePaths()) {
    REQUIRE(mixrt_ukernel_set_isa(isa) == MIXRT_STATUS_OK);
    INFO("kernel path " << mixrt_ukernel_isa_name(isa));
    std::vector<float> got = run(*kernelFn, inShape, outShape, x);
    CHECK(mixrt_check_status() == loopStatus);
    CHECK(mixrt_check_failure_count() == loopFailures);
    if (const mixrt_check_record *first = mixrt_check_first_failure()) {
      CHECK(first->index == loopIndex);
      CHECK((first->value == loopValue ||
             (std::isnan(first->value) && std::isnan(loopValue))));
    } else {
      CHECK(loopIndex == -1);
    }
    int mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      bool same = bits(got[i]) == bits(expected[i]) ||
                  (std::isnan(got[i]) && std::isnan(expected[i]));
      if (!same && ++mismatches <= 5)
        UNSCOPED_INFO("y[" << i << "] = " << got[i] << " (0x"
                           << llvm::utohexstr(bits(got[i]))
                           << "), loops: " << expected[i] << " (0x"
                           << llvm::utohexstr(bits(expected[i])) << ")");
    }
    CHECK(mismatches == 0);
  }
  REQUIRE(mixrt_ukernel_set_isa(original) == MIXRT_STATUS_OK);
}

/// Network @d of `text` compiled with and without microkernels: one call of
/// `callee` against none, and the same bits on input `x` on every path.
void checkModel(const std::string &text, const std::vector<int64_t> &inShape,
                const std::vector<int64_t> &outShape, const char *callee,
                const std::vector<float> &x, bool checked = true) {
  compareBuilds(
      text, inShape, outShape,
      [](MixPipelineOptions &o) { o.microkernels = false; },
      [&](ModuleOp kernels, ModuleOp loops) {
        REQUIRE(countCalls(kernels, callee) == 1);
        REQUIRE(countCalls(loops, callee) == 0);
      },
      x, checked);
}

/// Definitions of outlined layer functions in a compiled module.
int countLayerFunctions(ModuleOp module) {
  int n = 0;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (!f.isExternal() && f.getName().starts_with("mixc_layer_"))
      ++n;
  });
  return n;
}

void checkCase(const GemmCase &c, const char *callee, unsigned seed,
               bool checked = true) {
  std::mt19937 rng(seed);
  std::string text = modelText(c, rng);
  std::vector<int64_t> in = {c.rows, c.k}, out = {c.rows, c.n};
  if (c.batch) {
    in.insert(in.begin(), c.batch);
    out.insert(out.begin(), c.batch);
  }
  int64_t m = (c.batch ? c.batch : 1) * c.rows;
  checkModel(text, in, out, callee, inputData(c, m * c.k, rng), checked);
}

struct ConvCase {
  int64_t n, c, h, w, f, kh, kw;
  int64_t stride, pad, dilation;
  std::string precision;
  bool bias;
  int64_t groups = 1;
  bool relu = false; ///< a mix.relu after the convolution
};

void checkMarkedLoop(const std::string &text,
                     const std::vector<int64_t> &inShape,
                     const std::vector<int64_t> &outShape,
                     const std::vector<float> &x,
                     StringRef wantKind = "depthwise_f32",
                     const char *callee = "mixrt_ukernel_depthwise_f32");

/// A dense [F, C, KH, KW] weight of values n / 64; filter `zeroFilter` (if
/// any) all zero.
std::string convWeightText(std::mt19937 &rng, int64_t f, int64_t c, int64_t kh,
                           int64_t kw, int64_t zeroFilter = -1) {
  std::string text = "[";
  for (int64_t fi = 0; fi < f; ++fi) {
    text += fi ? ", [" : "[";
    for (int64_t ci = 0; ci < c; ++ci) {
      std::string m = matrixText(rng, kh, kw);
      if (fi == zeroFilter) {
        m = "[";
        for (int64_t i = 0; i < kh; ++i) {
          m += i ? ", [" : "[";
          for (int64_t j = 0; j < kw; ++j)
            m += j ? ", 0.0" : "0.0";
          m += "]";
        }
        m += "]";
      }
      text += (ci ? ", " : "") + m;
    }
    text += "]";
  }
  return text + "]";
}

/// `callee` null: the f32 rule -- mixrt_ukernel_conv2d_f32 for at least 64
/// output positions (f16/bf16 weights widened first), else the im2col GEMMs.
void checkConv(const ConvCase &c, unsigned seed, const char *callee = nullptr,
               bool checked = true) {
  std::mt19937 rng(seed);
  int64_t oh = (c.h + 2 * c.pad - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
  int64_t ow = (c.w + 2 * c.pad - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
  if (!callee)
    callee =
        oh * ow >= 64 ? "mixrt_ukernel_conv2d_f32" : "mixrt_ukernel_gemm_f32";
  std::string in = llvm::formatv("{0}x{1}x{2}x{3}", c.n, c.c, c.h, c.w);
  std::string out = llvm::formatv("{0}x{1}x{2}x{3}", c.n, c.f, oh, ow);
  const int64_t perGroup = c.c / c.groups;
  std::string wt = llvm::formatv("{0}x{1}x{2}x{3}", c.f, perGroup, c.kh, c.kw);
  std::string weightText = convWeightText(rng, c.f, perGroup, c.kh, c.kw);
  std::string text =
      llvm::formatv("mix.network @d precision(f32) (%x: tensor<{0}xf32>) -> "
                    "tensor<{1}xf32> {\n"
                    "  %w = mix.weight dense<{2}> : tensor<{3}xf32>\n",
                    in, out, weightText, wt);
  if (c.bias)
    text += llvm::formatv("  %b = mix.weight dense<{0}> : tensor<{1}xf32>\n",
                          vectorText(rng, c.f), c.f);
  text += llvm::formatv(
      "  %y = mix.conv2d %x, %w{0} {4} {{strides = array<i64: {1}, {1}>, "
      "padding = array<i64: {2}, {2}, {2}, {2}>, dilations = array<i64: {3}, "
      "{3}>, groups = {9} : i64} : (tensor<{5}xf32>, tensor<{6}xf32>{7}) -> "
      "tensor<{8}xf32>\n",
      c.bias ? ", %b" : "", c.stride, c.pad, c.dilation, c.precision, in, wt,
      c.bias ? llvm::formatv(", tensor<{0}xf32>", c.f).str() : std::string(),
      out, c.groups);
  if (c.relu)
    text += llvm::formatv("  %r = mix.relu %y : (tensor<{0}xf32>) -> "
                          "tensor<{0}xf32>\n  mix.return %r : tensor<{0}xf32>"
                          "\n}\n",
                          out);
  else
    text += "  mix.return %y : tensor<" + out + "xf32>\n}\n";
  // The special values (inf, 3e38) for f32 only: one non-finite input of a
  // dynamic int8 quantization makes every output NaN, and the comparison
  // would compare nothing else.
  bool int8 = StringRef(c.precision).contains("int8");
  GemmCase inputs{1, 0, 1, 1, "", false, /*specials=*/!int8, false};
  std::vector<float> x = inputData(inputs, c.n * c.c * c.h * c.w, rng);
  if (int8)
    REQUIRE(llvm::all_of(x, [](float v) { return std::isfinite(v); }));
  checkModel(text, {c.n, c.c, c.h, c.w}, {c.n, c.f, oh, ow}, callee, x,
             checked);
  if (StringRef(callee) == "mixrt_ukernel_conv2d_f32" ||
      StringRef(callee) == "mixrt_ukernel_conv2d_grouped_f32")
    checkMarkedLoop(text, {c.n, c.c, c.h, c.w}, {c.n, c.f, oh, ow}, x,
                    "conv2d_f32", callee);
  else if (StringRef(callee) == "mixrt_ukernel_depthwise_f32")
    checkMarkedLoop(text, {c.n, c.c, c.h, c.w}, {c.n, c.f, oh, ow}, x,
                    "depthwise_f32", callee);
}

/// The loop the lowering marks for a convolution microkernel (`wantKind`
/// "depthwise_f32" or "conv2d_f32", replaced by a call of `callee`),
/// compiled with the rewrite off (mix-use-microkernels{enabled=false}: it
/// reads the unpadded input in its body), against the plain loops over a
/// padded copy (microkernels = false): the same bits, and no call in either.
void checkMarkedLoop(const std::string &text,
                     const std::vector<int64_t> &inShape,
                     const std::vector<int64_t> &outShape,
                     const std::vector<float> &x, StringRef wantKind,
                     const char *callee) {
  Jit jit;
  INFO(text);
  OwningOpRef<ModuleOp> marked =
      parseSourceString<ModuleOp>(text, &jit.context);
  REQUIRE(marked);
  MixPipelineOptions toLinalg;
  toLinalg.stopAfter = MixPhase::linalg;
  PassManager pm(&jit.context);
  REQUIRE(succeeded(buildMixPipeline(pm, toLinalg)));
  REQUIRE(succeeded(pm.run(*marked)));
  int markedLoops = 0;
  marked->walk([&](Operation *op) {
    if (auto kind = op->getAttrOfType<StringAttr>("mix.ukernel"))
      markedLoops += kind.getValue() == wantKind;
  });
  REQUIRE(markedLoops == 1);
  MixPipelineOptions rest;
  rest.startAt = MixPhase::llvm;
  rest.microkernels = false;
  auto markedEngine = compile(*marked, rest);
  REQUIRE(countCalls(*marked, callee) == 0);
  MixPipelineOptions loops;
  loops.microkernels = false;
  auto loopEngine = compile(jit.context, text, loops);
  auto markedFn = markedEngine->lookup("_mlir_ciface_d");
  auto loopFn = loopEngine->lookup("_mlir_ciface_d");
  REQUIRE(bool(markedFn));
  REQUIRE(bool(loopFn));
  std::vector<float> want = run(*loopFn, inShape, outShape, x);
  std::vector<float> got = run(*markedFn, inShape, outShape, x);
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (bits(got[i]) != bits(want[i]) &&
        !(std::isnan(got[i]) && std::isnan(want[i])) && ++mismatches <= 5)
      UNSCOPED_INFO("marked loop y[" << i << "] = " << got[i]
                                     << ", loops: " << want[i]);
  CHECK(mismatches == 0);
}

/// Padding [top, left, bottom, right].
using Padding = std::array<int64_t, 4>;

/// A depthwise conv2d (groups == C == F, weight [C, 1, KH, KW]) against the
/// loops; `specials`: an infinite weight in the corner of channel 0 (it
/// reads the zero padding: NaN in the loops) and a NaN weight in channel 1.
/// `padding` (default: c.pad on every side) may be asymmetric. Also the
/// marked loop without the rewrite against the loops.
void checkDepthwise(const ConvCase &c, bool specials, unsigned seed,
                    std::optional<Padding> padding = std::nullopt) {
  std::mt19937 rng(seed);
  Padding pad = padding.value_or(Padding{c.pad, c.pad, c.pad, c.pad});
  int64_t oh =
      (c.h + pad[0] + pad[2] - c.dilation * (c.kh - 1) - 1) / c.stride + 1;
  int64_t ow =
      (c.w + pad[1] + pad[3] - c.dilation * (c.kw - 1) - 1) / c.stride + 1;
  std::string in = llvm::formatv("{0}x{1}x{2}x{3}", c.n, c.c, c.h, c.w);
  std::string out = llvm::formatv("{0}x{1}x{2}x{3}", c.n, c.c, oh, ow);
  std::string wt = llvm::formatv("{0}x1x{1}x{2}", c.c, c.kh, c.kw);
  std::uniform_int_distribution<int> dist(-160, 160);
  std::string weightText = "[";
  for (int64_t ci = 0; ci < c.c; ++ci) {
    weightText += ci ? ", [[" : "[[";
    for (int64_t i = 0; i < c.kh; ++i) {
      weightText += i ? ", [" : "[";
      for (int64_t j = 0; j < c.kw; ++j) {
        std::string v = std::to_string(dist(rng) / 64.0);
        if (specials && ci == 0 && i == 0 && j == 0)
          v = "0x7F800000"; // +inf
        if (specials && ci == 1 && i == c.kh - 1 && j == 0)
          v = "0x7FC00000"; // NaN
        weightText += (j ? ", " : "") + v;
      }
      weightText += "]";
    }
    weightText += "]]";
  }
  weightText += "]";
  std::string text =
      llvm::formatv("mix.network @d precision(f32) (%x: tensor<{0}xf32>) -> "
                    "tensor<{1}xf32> {\n"
                    "  %w = mix.weight dense<{2}> : tensor<{3}xf32>\n",
                    in, out, weightText, wt);
  if (c.bias)
    text += llvm::formatv("  %b = mix.weight dense<{0}> : tensor<{1}xf32>\n",
                          vectorText(rng, c.c), c.c);
  text += llvm::formatv(
      "  %y = mix.conv2d %x, %w{0} {4} {{strides = array<i64: {1}, {1}>, "
      "padding = array<i64: {2}>, dilations = array<i64: {3}, "
      "{3}>, groups = {9} : i64} : (tensor<{5}xf32>, tensor<{6}xf32>{7}) -> "
      "tensor<{8}xf32>\n",
      c.bias ? ", %b" : "", c.stride,
      llvm::formatv("{0}, {1}, {2}, {3}", pad[0], pad[1], pad[2], pad[3]).str(),
      c.dilation, c.precision, in, wt,
      c.bias ? llvm::formatv(", tensor<{0}xf32>", c.c).str() : std::string(),
      out, c.c);
  text += "  mix.return %y : tensor<" + out + "xf32>\n}\n";
  GemmCase inputs{1, 0, 1, 1, "", false, true, false};
  std::vector<float> x = inputData(inputs, c.n * c.c * c.h * c.w, rng);
  checkModel(text, {c.n, c.c, c.h, c.w}, {c.n, c.c, oh, ow},
             "mixrt_ukernel_depthwise_f32", x);
  checkMarkedLoop(text, {c.n, c.c, c.h, c.w}, {c.n, c.c, oh, ow}, x);
}

} // namespace

TEST_CASE("compiled f32 dense: microkernel calls equal the loops bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 1;
  for (const char *precision :
       {"", "precision(weights = f16)", "precision(weights = bf16)"}) {
    for (GemmCase c : {
             GemmCase{1, 0, 1, 1, precision, false, false, false},
             GemmCase{3, 0, 17, 5, precision, true, false, false},
             GemmCase{5, 0, 67, 33, precision, true, true, false},
             GemmCase{17, 0, 3, 16, precision, false, true, false},
             GemmCase{3, 2, 40, 47, precision, true, false, false},
             GemmCase{4, 0, 9, 20, precision, true, false, true},
         }) {
      DYNAMIC_SECTION(
          "rows " << c.rows << " batch " << c.batch << " K " << c.k << " N "
                  << c.n << " " << precision << (c.bias ? " bias" : "")
                  << (c.specials ? " specials" : "") << (c.nan ? " NaN" : "")) {
        checkCase(c, "mixrt_ukernel_gemm_f32", seed);
      }
      ++seed;
    }
  }
}

// A relu after an f32 dense (with or without its bias) runs in the call's
// epilogue (MIXRT_UKERNEL_RELU), which writes the relu's output (here the
// caller's: the dense reads the workspace, after a neg).
TEST_CASE("compiled f32 dense then relu: one call with the relu in its "
          "epilogue equals the loops bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 50;
  for (const char *precision : {"", "precision(weights = bf16)"}) {
    for (GemmCase c : {
             GemmCase{3, 0, 17, 5, precision, true, false, false},
             GemmCase{5, 0, 67, 33, precision, false, true, false},
             GemmCase{3, 2, 40, 47, precision, true, false, false},
             GemmCase{4, 0, 9, 20, precision, true, false, true},
         }) {
      c.after = "relu";
      c.before = "neg";
      DYNAMIC_SECTION(
          "rows " << c.rows << " batch " << c.batch << " K " << c.k << " N "
                  << c.n << " " << precision << (c.bias ? " bias" : "")
                  << (c.specials ? " specials" : "") << (c.nan ? " NaN" : "")) {
        checkCase(c, "mixrt_ukernel_gemm_f32", seed);
      }
      ++seed;
    }
  }
}

TEST_CASE("compiled int8 dense: microkernel calls equal the loops bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 100;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)",
        "precision(activations = int8<asymmetric>, weights = int8)"}) {
    for (GemmCase c : {
             GemmCase{1, 0, 1, 1, precision, false, false, false},
             GemmCase{3, 0, 17, 5, precision, true, false, false},
             GemmCase{5, 0, 67, 33, precision, true, false, false},
             GemmCase{3, 2, 40, 47, precision, true, false, false},
             // Non-finite inputs: an infinite or NaN activation scale, which
             // the fused call refuses; the i32 GEMM and the checked rescale
             // loop run instead (same bits, same reported status).
             GemmCase{3, 0, 17, 5, precision, true, true, false},
             GemmCase{5, 0, 67, 33, precision, false, false, true},
         }) {
      DYNAMIC_SECTION(
          "rows " << c.rows << " batch " << c.batch << " K " << c.k << " N "
                  << c.n << " " << precision << (c.bias ? " bias" : "")
                  << (c.specials ? " specials" : "") << (c.nan ? " NaN" : "")) {
        // The GEMM and its rescale epilogue are one call.
        checkCase(c, "mixrt_ukernel_gemm_s8s8f32", seed);
      }
      ++seed;
    }
  }
}

TEST_CASE("compiled int8 dense without checks: the quantize and GEMM calls "
          "equal the loops bit for bit",
          "[exec][ukernel][int8]") {
  // Unchecked, the calls run first and the loops only when a call refuses
  // a NaN activation scale (a NaN input); an infinite input gives an
  // infinite scale, which both calls take.
  unsigned seed = 200;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (GemmCase c : {
             GemmCase{3, 0, 17, 5, precision, true, false, false},
             GemmCase{3, 2, 40, 47, precision, false, false, false},
             GemmCase{3, 0, 17, 5, precision, true, true, false},
             GemmCase{5, 0, 67, 33, precision, true, false, true},
         }) {
      DYNAMIC_SECTION("rows " << c.rows << " batch " << c.batch << " K " << c.k
                              << " N " << c.n << " " << precision
                              << (c.specials ? " specials" : "")
                              << (c.nan ? " NaN" : "")) {
        checkCase(c, "mixrt_ukernel_quantize_f32_s8", seed, /*checked=*/false);
        checkCase(c, "mixrt_ukernel_gemm_s8s8f32", seed, /*checked=*/false);
      }
      ++seed;
    }
  }
}

// A relu after an int8 dense runs in the epilogue of the one
// mixrt_ukernel_gemm_s8s8f32 call, which writes the relu's output; any other
// elementwise layer (gelu) stays a loop after the call, with or without
// checks. Non-finite inputs: the call refuses the scale, and the i32 GEMM,
// the rescale loop and the relu loop run instead.
TEST_CASE("compiled int8 dense then relu or gelu: one GEMM call with the "
          "rescale (and the relu) in its epilogue equals the loops bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 300;
  for (bool checked : {true, false}) {
    for (const char *after : {"relu", "gelu"}) {
      for (GemmCase c : {
               GemmCase{3, 0, 17, 5, "precision(int8)", true, false, false},
               GemmCase{5, 0, 67, 33, "precision(int8<asymmetric>)", false,
                        false, false},
               GemmCase{3, 2, 40, 47, "precision(int8)", true, false, false},
               GemmCase{3, 0, 17, 5, "precision(int8)", true, true, false},
               GemmCase{5, 0, 67, 33, "precision(int8)", true, false, true},
           }) {
        c.after = after;
        DYNAMIC_SECTION((checked ? "checked " : "unchecked ")
                        << after << " rows " << c.rows << " batch " << c.batch
                        << " K " << c.k << " N " << c.n << " " << c.precision
                        << (c.bias ? " bias" : "")
                        << (c.specials ? " specials" : "")
                        << (c.nan ? " NaN" : "")) {
          checkCase(c, "mixrt_ukernel_gemm_s8s8f32", seed, checked);
        }
        ++seed;
      }
    }
  }
}

// f32 weights and at least 64 output positions: one call of
// mixrt_ukernel_conv2d_f32 (the loop over the unpadded input); f16 weights
// or fewer positions: im2col GEMMs calling mixrt_ukernel_gemm_f32 on the
// weight packed in f16 or f32.
TEST_CASE("compiled f32 conv2d: the microkernel calls equal the loops bit "
          "for bit",
          "[exec][ukernel]") {
  unsigned seed = 200;
  for (const char *precision : {"", "precision(weights = f16)"}) {
    for (ConvCase c : {
             ConvCase{1, 3, 8, 8, 16, 3, 3, 1, 1, 1, precision, true},
             ConvCase{2, 5, 9, 7, 17, 3, 3, 2, 1, 1, precision, true},
             ConvCase{1, 4, 10, 10, 6, 3, 3, 1, 2, 2, precision, false},
             ConvCase{2, 8, 5, 5, 33, 1, 1, 1, 0, 1, precision, true},
             // Patches beyond one band (512 KiB): 2 images x 2 bands of 16
             // rows; 31 bands of one row (31 is prime). For the conv call:
             // output planes of 1024 and 899 positions (blocks of 128).
             ConvCase{2, 16, 32, 32, 8, 3, 3, 1, 1, 1, precision, true},
             ConvCase{1, 24, 31, 29, 5, 3, 3, 1, 1, 1, precision, false},
             // K = 576 (k blocks of 128, the partial sums kept in the
             // output) and a 1x1 layer of K = 300 (the one-row copy).
             ConvCase{1, 64, 9, 11, 20, 3, 3, 1, 1, 1, precision, true},
             ConvCase{2, 300, 9, 8, 9, 1, 1, 1, 0, 1, precision, true},
         }) {
      DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                           << " F " << c.f << " " << c.kh << "x" << c.kw
                           << " stride " << c.stride << " pad " << c.pad
                           << " dilation " << c.dilation << " " << precision
                           << (c.bias ? " bias" : "")) {
        checkConv(c, seed);
      }
      ++seed;
    }
  }
}

/// Each convolution with the kernel its build must call (checkConv), one
/// section each, seeds counted on from `seed`.
static void
checkConvCalls(std::initializer_list<std::pair<ConvCase, const char *>> cases,
               unsigned &seed) {
  for (const auto &[c, callee] : cases) {
    DYNAMIC_SECTION("conv2d N " << c.n << " C " << c.c << " " << c.h << "x"
                                << c.w << " F " << c.f << " stride " << c.stride
                                << " groups " << c.groups << " "
                                << c.precision) {
      checkConv(c, seed, callee);
    }
    ++seed;
  }
}

// f16 and bf16 layers (activations, weights and output; f32 accumulator):
// the input is widened exactly to f32 once, then the f32 kernels run as for
// f32 layers, and the epilogue rounds to f16/bf16. The loops convert each
// operand before its fma: the same bits, on every kernel path (specials
// include inputs beyond f16, which the checked cast reports in both builds).
TEST_CASE("compiled f16 and bf16 dense and conv2d: the widened input through "
          "the f32 microkernels equals the loops bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 900;
  for (const char *precision : {"precision(f16)", "precision(bf16)"}) {
    for (GemmCase c : {
             GemmCase{3, 0, 17, 5, precision, true, false, false},
             GemmCase{5, 2, 67, 33, precision, true, true, false},
             GemmCase{4, 0, 9, 20, precision, false, false, true},
         }) {
      DYNAMIC_SECTION("dense rows " << c.rows << " batch " << c.batch << " K "
                                    << c.k << " N " << c.n << " " << precision
                                    << (c.specials ? " specials" : "")
                                    << (c.nan ? " NaN" : "")) {
        checkCase(c, "mixrt_ukernel_gemm_f32", seed);
      }
      ++seed;
    }
    // At least 64 positions, several groups or depthwise: the convolution
    // kernels on the unpadded input (the weight widened too); fewer (5x4):
    // the im2col GEMMs.
    checkConvCalls(
        {
            std::pair<ConvCase, const char *>{
                {1, 3, 8, 8, 16, 3, 3, 1, 1, 1, precision, true},
                "mixrt_ukernel_conv2d_f32"},
            {{2, 5, 9, 7, 17, 3, 3, 2, 1, 1, precision, false},
             "mixrt_ukernel_gemm_f32"},
            {{2, 8, 9, 9, 6, 3, 3, 1, 1, 1, precision, true, 2},
             "mixrt_ukernel_conv2d_grouped_f32"},
            {{1, 6, 10, 12, 6, 3, 3, 1, 1, 1, precision, true, 6},
             "mixrt_ukernel_depthwise_f32"},
            {{2, 4, 9, 9, 4, 3, 3, 2, 1, 1, precision, false, 4},
             "mixrt_ukernel_depthwise_f32"},
        },
        seed);
  }
}

// A checked f32 -> f16/bf16 cast (an f16 or bf16 block's input) runs its
// checked loop only when mixrt_ukernel_range_f32 finds a value at or beyond
// the overflow threshold (f16 65520, bf16 0x7F7F8000), or a NaN; otherwise
// a copy without the check. Same outputs and the same reports (status,
// count, first index and value) as the checked loop alone, at and just
// below each threshold, for NaN and infinities.
TEST_CASE("compiled checked f32 -> f16/bf16 casts: the range guard keeps "
          "every report of the checked loop",
          "[exec][ukernel]") {
  for (const char *type : {"f16", "bf16"}) {
    const float limit = std::string(type) == "f16"
                            ? 65520.0f
                            : llvm::bit_cast<float>(uint32_t{0x7F7F8000u});
    const float below = std::nextafter(limit, 0.0f);
    std::string text = llvm::formatv(
        "mix.network @d precision(f32) (%x: tensor<4x50xf32>) -> "
        "tensor<4x50xf32> {{\n"
        "  %h = mix.block @narrow precision({0}) (%in = %x) : "
        "(tensor<4x50xf32>) -> tensor<4x50xf32> {{\n"
        "    %r = mix.relu %in : (tensor<4x50xf32>) -> tensor<4x50xf32>\n"
        "    mix.yield %r : tensor<4x50xf32>\n"
        "  }\n"
        "  mix.return %h : tensor<4x50xf32>\n}\n",
        type);
    std::mt19937 rng(77);
    std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
    std::vector<float> base(200);
    for (float &v : base)
      v = dist(rng);
    struct Case {
      const char *name;
      std::vector<std::pair<int, float>> set;
    };
    const float inf = std::numeric_limits<float>::infinity();
    for (const Case &c : std::vector<Case>{
             {"in range", {}},
             {"at the threshold", {{37, limit}}},
             {"just below it (rounds to the largest finite)",
              {{37, below}, {38, -below}}},
             {"two overflows, the first reported",
              {{5, -limit}, {9, 2 * limit}}},
             {"NaN (not an overflow)", {{11, std::nanf("")}}},
             {"infinities (not overflows)", {{3, inf}, {4, -inf}}},
             {"an infinity and an overflow", {{3, inf}, {150, limit}}},
         }) {
      DYNAMIC_SECTION(type << ": " << c.name) {
        std::vector<float> x = base;
        for (auto [i, v] : c.set)
          x[i] = v;
        checkModel(text, {4, 50}, {4, 50}, "mixrt_ukernel_range_f32", x);
      }
    }
  }
}

// Weight-only int8 dense layers (f32 or f16 activations): up to 32 rows
// the int8 weight is packed with its scales and zero points and
// mixrt_ukernel_gemm_f32 dequantizes it in registers (mix.dequantize's
// arithmetic); from 33 rows the weight is dequantized on every call and a
// [M, K] input times it is the product of two activations, one call of
// mixrt_ukernel_conv2d_f32 as a 1x1 convolution. Both are the loops' chain
// (from +0, one fma per k), so the bits are the loops'.
TEST_CASE("compiled weight-only int8 dense and conv2d: the dequantized "
          "weight through the GEMM and convolution kernels equals the loops "
          "bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 950;
  for (const char *precision :
       {"precision(weights = int8)", "precision(f16, weights = int8)",
        "precision(weights = int8<asymmetric>)"}) {
    for (auto [c, callee] : {
             std::pair{GemmCase{1, 0, 1, 1, precision, false, false, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{3, 0, 17, 5, precision, true, false, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{5, 0, 67, 33, precision, true, true, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{4, 0, 9, 20, precision, false, false, true},
                       "mixrt_ukernel_gemm_f32"},
             // 13 rows: the AVX-512 int8 tile (12) and a tail; K over two
             // k blocks; 32 rows, the last through the kernel.
             std::pair{GemmCase{13, 0, 300, 40, precision, true, false, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{32, 0, 20, 17, precision, false, true, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{33, 0, 20, 17, precision, true, false, false},
                       "mixrt_ukernel_conv2d_f32"},
             // Rank-3 inputs [batch, rows, K]: 6 and 40 rows, both through
             // the kernel (the product of two activations is rank 2 only).
             std::pair{GemmCase{3, 2, 21, 18, precision, true, false, false},
                       "mixrt_ukernel_gemm_f32"},
             std::pair{GemmCase{10, 4, 19, 20, precision, false, true, false},
                       "mixrt_ukernel_gemm_f32"},
         }) {
      DYNAMIC_SECTION("rows " << c.rows << " K " << c.k << " N " << c.n << " "
                              << precision << (c.bias ? " bias" : "")
                              << (c.specials ? " specials" : "")
                              << (c.nan ? " NaN" : "")) {
        checkCase(c, callee, seed);
      }
      ++seed;
    }
    // Convolutions: the dequantized weight is computed at run time, so one
    // group takes mixrt_ukernel_conv2d_f32 at any plane size, grouped ones
    // mixrt_ukernel_conv2d_grouped_f32; depthwise ones
    // mixrt_ukernel_depthwise_f32 (per-channel scales along axis 0, the
    // filters).
    checkConvCalls(
        {
            std::pair<ConvCase, const char *>{
                {1, 3, 8, 8, 16, 3, 3, 1, 1, 1, precision, true},
                "mixrt_ukernel_conv2d_f32"},
            {{2, 5, 5, 4, 7, 3, 3, 2, 1, 1, precision, false},
             "mixrt_ukernel_conv2d_f32"},
            {{2, 8, 9, 9, 6, 3, 3, 1, 1, 1, precision, true, 2},
             "mixrt_ukernel_conv2d_grouped_f32"},
            {{1, 6, 10, 12, 6, 3, 3, 1, 1, 1, precision, true, 6},
             "mixrt_ukernel_depthwise_f32"},
        },
        seed);
  }
}

// Per-tensor weight scales (mixc --per-tensor-weights): the packed weight
// repeats the one scale and zero point for every column.
TEST_CASE("compiled weight-only int8 dense with per-tensor scales: the "
          "kernel's dequantized weight equals the loops bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 990;
  for (const char *precision :
       {"precision(weights = int8)", "precision(weights = int8<asymmetric>)"}) {
    for (GemmCase c : {GemmCase{2, 0, 33, 19, precision, true, false, false},
                       GemmCase{6, 0, 70, 48, precision, false, true, false}}) {
      DYNAMIC_SECTION("rows " << c.rows << " K " << c.k << " N " << c.n << " "
                              << precision) {
        std::mt19937 rng(seed);
        std::string text = modelText(c, rng);
        compareBuilds(
            text, {c.rows, c.k}, {c.rows, c.n},
            [](MixPipelineOptions &o) { o.microkernels = false; },
            [&](ModuleOp kernels, ModuleOp loops) {
              REQUIRE(countCalls(kernels, "mixrt_ukernel_gemm_f32") == 1);
              REQUIRE(countCalls(loops, "mixrt_ukernel_gemm_f32") == 0);
            },
            inputData(c, c.rows * c.k, rng), /*checked=*/true,
            [](MixPipelineOptions &o) {
              o.weightGranularity = WeightGranularity::tensor;
            });
      }
      ++seed;
    }
  }
}

// Grouped convolutions (1 < groups < C), f32 weights, any plane: one call
// of mixrt_ukernel_conv2d_grouped_f32 (the direct path for stride 1, the
// GEMMs per image and group for stride 2). Two images, so both offsets
// count; groups of one input channel but several
// filters (not depthwise); a 1x1 grouped layer (ShuffleNet's); K per group
// across the 128-k block; ResNeXt's 32 groups of 4.
TEST_CASE("compiled grouped f32 conv2d: the grouped microkernel call equals "
          "the loops bit for bit",
          "[exec][ukernel]") {
  unsigned seed = 300;
  for (ConvCase c : {
           ConvCase{2, 8, 9, 9, 6, 3, 3, 1, 1, 1, "", true, 2},
           ConvCase{2, 4, 8, 8, 8, 3, 3, 1, 1, 1, "", false, 4},
           ConvCase{1, 12, 10, 12, 9, 1, 1, 1, 0, 1, "", true, 3},
           ConvCase{1, 30, 17, 17, 10, 3, 3, 2, 1, 1, "", true, 2},
           ConvCase{2, 64, 8, 8, 64, 3, 3, 1, 1, 1, "", false, 32},
           // Below 64 output positions (7x7, 5x5): still the grouped call
           // (the im2col GEMMs are one group only).
           ConvCase{2, 16, 7, 7, 8, 3, 3, 1, 1, 1, "", true, 4},
           ConvCase{1, 6, 5, 5, 6, 1, 1, 1, 0, 1, "", false, 2},
           // f16 and bf16 weights: widened exactly first.
           ConvCase{2, 8, 9, 9, 6, 3, 3, 1, 1, 1, "precision(weights = f16)",
                    true, 2},
           ConvCase{1, 12, 7, 7, 9, 3, 3, 2, 1, 1, "precision(weights = bf16)",
                    false, 3},
       }) {
    DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                         << " F " << c.f << " " << c.kh << "x" << c.kw
                         << " stride " << c.stride << " groups " << c.groups
                         << " " << c.precision << (c.bias ? " bias" : "")) {
      checkConv(c, seed, "mixrt_ukernel_conv2d_grouped_f32");
    }
    ++seed;
  }
}

// f32 attention (2 images of 6 positions, E = 16, 2 heads, biases, causal):
// the four projections call mixrt_ukernel_gemm_f32 (f32 weights, or packed
// in f16 with precision(weights = f16)), and the two per-head products
// mixrt_ukernel_conv2d_f32 in a loop over images x heads; the loops give the
// same bits.
TEST_CASE("compiled f32 attention: projection and per-head product calls "
          "equal the loops bit for bit",
          "[exec][ukernel][attention]") {
  std::mt19937 rng(400);
  // f16/bf16 activations (f32 accumulator): each projection's input is
  // widened exactly first, then the same calls; int8 weights: packed int8,
  // dequantized in the call.
  for (const char *precision :
       {"", "precision(weights = f16)", "precision(f16)", "precision(bf16)",
        "precision(f16, weights = int8)", "precision(weights = int8)"}) {
    std::string weights, biases;
    for (const char *name : {"wq", "wk", "wv", "wo"})
      weights += llvm::formatv("  %{0} = mix.weight dense<{1}> : "
                               "tensor<16x16xf32>\n",
                               name, matrixText(rng, 16, 16));
    for (const char *name : {"bq", "bk", "bv", "bo"})
      biases += llvm::formatv("  %{0} = mix.weight dense<{1}> : "
                              "tensor<16xf32>\n",
                              name, vectorText(rng, 16));
    std::string t = "tensor<2x6x16xf32>", w = "tensor<16x16xf32>",
                b = "tensor<16xf32>";
    std::string text =
        "mix.network @d precision(f32) (%x: " + t + ") -> " + t + " {\n" +
        weights + biases +
        llvm::formatv("  %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) "
                      "bk(%bk) bv(%bv) bo(%bo) {0} {{causal = true, num_heads "
                      "= 2 : i64} : ({1}, {2}, {2}, {2}, {2}, {3}, {3}, {3}, "
                      "{3}) -> {1}\n",
                      precision, t, w, b)
            .str() +
        "  mix.return %y : " + t + "\n}\n";
    DYNAMIC_SECTION("attention " << (*precision ? precision : "f32")) {
      // Finite inputs (an infinity would make every output of its image
      // NaN, and NaNs compare equal: the comparison would prove nothing).
      GemmCase inputs{1, 0, 1, 1, "", false, false, false};
      compareBuilds(
          text, {2, 6, 16}, {2, 6, 16},
          [](MixPipelineOptions &o) { o.microkernels = false; },
          [](ModuleOp kernels, ModuleOp loops) {
            CHECK(countCalls(kernels, "mixrt_ukernel_gemm_f32") == 4);
            CHECK(countCalls(kernels, "mixrt_ukernel_conv2d_f32") == 2);
            CHECK(countCalls(loops, "mixrt_ukernel_gemm_f32") == 0);
            CHECK(countCalls(loops, "mixrt_ukernel_conv2d_f32") == 0);
          },
          inputData(inputs, 2 * 6 * 16, rng));
    }
  }
}

// One-group int8 convolutions: one call of mixrt_ukernel_conv2d_s8s8s32 on
// the unpadded quantized input (padded taps read the input zero point:
// asymmetric, not 0), its NCHW i32 sums rescaled in order.
TEST_CASE("compiled int8 conv2d: the int8 convolution kernel call equals the "
          "loops bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 300;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (ConvCase c : {
             ConvCase{1, 3, 8, 8, 16, 3, 3, 1, 1, 1, precision, true},
             ConvCase{2, 5, 9, 7, 17, 3, 3, 2, 1, 1, precision, true},
             // Padding reads the input zero point (asymmetric: not 0).
             ConvCase{1, 4, 10, 10, 6, 3, 3, 1, 2, 2, precision, false},
             ConvCase{2, 8, 5, 5, 33, 1, 1, 1, 0, 1, precision, true},
             // Several blocks of 128 positions and of 256 k (K = 576).
             ConvCase{2, 64, 40, 40, 8, 3, 3, 1, 1, 1, precision, true},
         }) {
      DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                           << " F " << c.f << " " << c.kh << "x" << c.kw
                           << " stride " << c.stride << " pad " << c.pad
                           << " dilation " << c.dilation << " " << precision
                           << (c.bias ? " bias" : "")) {
        checkConv(c, seed, "mixrt_ukernel_conv2d_s8s8s32");
      }
      ++seed;
    }
  }
}

// The rescale of an int8 convolution's sums computes the relu after it in
// its own loop (mix-use-microkernels), checked (the guarded loop and its
// copy without checks) and unchecked: the same bits as the loops without
// microkernels -- 17, 40 and 8 channels, strides 1 and 2, depthwise.
TEST_CASE("compiled int8 conv2d then relu: the relu in the rescale loop "
          "equals the loops bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 900;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (ConvCase c : {
             ConvCase{1, 3, 8, 8, 17, 3, 3, 1, 1, 1, precision, true, 1, true},
             ConvCase{2, 6, 20, 20, 40, 1, 1, 1, 0, 1, precision, false, 1,
                      true},
             ConvCase{1, 5, 9, 7, 8, 3, 3, 2, 1, 1, precision, true, 1, true},
             // Depthwise: the rescale of the f32 kernel's sums.
             ConvCase{1, 8, 9, 9, 8, 3, 3, 1, 1, 1, precision, true, 8, true},
         }) {
      DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                           << " F " << c.f << " " << c.kh << "x" << c.kw
                           << " stride " << c.stride << " groups " << c.groups
                           << " " << precision << (c.bias ? " bias" : "")) {
        // Checked (the guarded loop's copy) and unchecked (the loop itself).
        for (bool checked : {true, false})
          checkConv(c, seed,
                    c.groups == 1 ? "mixrt_ukernel_conv2d_s8s8s32"
                                  : "mixrt_ukernel_depthwise_f32",
                    checked);
      }
      ++seed;
    }
  }
}

// A chain of two int8 convolutions with calibrated (static) activation
// scales: the first one's rescale, bias and relu and the second one's
// quantize run in one call of mixrt_ukernel_conv2d_s8_rescale (int8 out),
// the second one's rescale (and relu) in another (f32 out, the caller's
// buffer); the loops and the separate calls stay behind each as its
// fallback. The same bits as the loops without microkernels, checked and
// unchecked, symmetric and asymmetric, on every path. With activations so
// large that rescaled sums overflow f32 (checked), the
// call returns the first such index, the checked loops behind it run again
// and report what the loops report.
TEST_CASE("compiled int8 conv2d chains: the rescale, relu and next quantize "
          "in the convolution's call equal the loops bit for bit",
          "[exec][ukernel][int8]") {
  struct ChainCase {
    int64_t c, h, f0, f1, stride;
    bool bias, relu1, overflow;
  };
  unsigned seed = 1400;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (ChainCase k : {
             ChainCase{3, 12, 8, 17, 1, true, true, false},
             ChainCase{5, 19, 33, 6, 2, false, false, false},
             // Blocks of 128 positions, two k blocks in the second layer.
             ChainCase{4, 24, 40, 9, 1, true, false, false},
             ChainCase{3, 12, 8, 5, 1, false, true, true},
         }) {
      const int64_t oh0 = (k.h + 2 - 3) / k.stride + 1;
      const int64_t oh1 = oh0; // stride 1, padding 1
      DYNAMIC_SECTION(
          "C " << k.c << " " << k.h << "x" << k.h << " F " << k.f0 << ", "
               << k.f1 << " stride " << k.stride << (k.bias ? " bias" : "")
               << (k.relu1 ? " relu" : "") << (k.overflow ? " overflow" : "")
               << " " << precision) {
        std::mt19937 rng(seed);
        std::string in = llvm::formatv("1x{0}x{1}x{1}", k.c, k.h);
        std::string mid = llvm::formatv("1x{0}x{1}x{1}", k.f0, oh0);
        std::string out = llvm::formatv("1x{0}x{1}x{1}", k.f1, oh1);
        std::string w0 = llvm::formatv("{0}x{1}x3x3", k.f0, k.c);
        std::string w1 = llvm::formatv("{0}x{1}x3x3", k.f1, k.f0);
        std::string text = llvm::formatv(
            "mix.network @d precision(f32) (%x: tensor<{0}xf32>) -> "
            "tensor<{1}xf32> {\n"
            "  %w0 = mix.weight dense<{2}> : tensor<{3}xf32>\n"
            "  %w1 = mix.weight dense<{4}> : tensor<{5}xf32>\n",
            in, out, convWeightText(rng, k.f0, k.c, 3, 3), w0,
            convWeightText(rng, k.f1, k.f0, 3, 3), w1);
        std::string b0, b1;
        if (k.bias) {
          text += llvm::formatv(
              "  %b0 = mix.weight dense<{0}> : tensor<{1}xf32>\n"
              "  %b1 = mix.weight dense<{2}> : tensor<{3}xf32>\n",
              vectorText(rng, k.f0), k.f0, vectorText(rng, k.f1), k.f1);
          b0 = llvm::formatv(", tensor<{0}xf32>", k.f0);
          b1 = llvm::formatv(", tensor<{0}xf32>", k.f1);
        }
        text += llvm::formatv(
            "  %c0 = mix.conv2d %x, %w0{0} {1} {{strides = array<i64: {2}, "
            "{2}>, padding = array<i64: 1, 1, 1, 1>} : (tensor<{3}xf32>, "
            "tensor<{4}xf32>{5}) -> tensor<{6}xf32>\n"
            "  %r0 = mix.relu %c0 : (tensor<{6}xf32>) -> tensor<{6}xf32>\n"
            "  %c1 = mix.conv2d %r0, %w1{7} {1} {{padding = array<i64: 1, 1, "
            "1, 1>} : (tensor<{6}xf32>, tensor<{8}xf32>{9}) -> "
            "tensor<{10}xf32>\n",
            k.bias ? ", %b0" : "", precision, k.stride, in, w0, b0, mid,
            k.bias ? ", %b1" : "", w1, b1, out);
        if (k.relu1)
          text += llvm::formatv("  %r1 = mix.relu %c1 : (tensor<{0}xf32>) -> "
                                "tensor<{0}xf32>\n  mix.return %r1 : "
                                "tensor<{0}xf32>\n}\n",
                                out);
        else
          text += "  mix.return %c1 : tensor<" + out + "xf32>\n}\n";
        // Normal inputs (times 3e37 for the overflow: finite, so only the
        // rescale can overflow), the calibrated ranges narrower than the
        // values (some saturate).
        const float big = k.overflow ? 3e37f : 1.0f;
        GemmCase inputs{1, 0, 1, 1, "", false, false, false};
        std::vector<float> x = inputData(inputs, k.c * k.h * k.h, rng);
        for (float &v : x)
          v *= big;
        REQUIRE(llvm::all_of(x, [](float v) { return std::isfinite(v); }));
        std::filesystem::path calibration =
            std::filesystem::temp_directory_path() /
            ("mixc_chain_" + std::to_string(seed) + ".calib");
        {
          std::ofstream file(calibration);
          file << "{\"format\": \"mixc-calibration\", \"version\": 1, "
                  "\"method\": \"minmax\", \"samples\": 1, \"ranges\": {"
               << "\"d/conv2d#0/input\": {\"min\": " << -1.8 * big
               << ", \"max\": " << 1.6 * big << ", \"count\": 1}, "
               << "\"d/conv2d#1/input\": {\"min\": 0.0, \"max\": "
               << (k.overflow ? 3e38 : 2.0) << ", \"count\": 1}}}\n";
        }
        for (bool checked : {true, false}) {
          INFO((checked ? "checked" : "unchecked"));
          compareBuilds(
              text, {1, k.c, k.h, k.h}, {1, k.f1, oh1, oh1},
              [](MixPipelineOptions &o) { o.microkernels = false; },
              [&](ModuleOp kernels, ModuleOp loops) {
                CHECK(countCalls(kernels, "mixrt_ukernel_conv2d_s8_rescale") ==
                      2);
                CHECK(countCalls(kernels, "mixrt_ukernel_conv2d_s8s8s32") == 2);
                CHECK(countCalls(loops, "mixrt_ukernel_conv2d_s8_rescale") ==
                      0);
              },
              x, checked,
              [&](MixPipelineOptions &o) {
                o.calibrationPath = calibration.string();
                o.verifyPolicy = false;
              });
          // The status of the last run (the kernels' on the last path,
          // the loops' status checked equal): the overflow is reported
          // when checked.
          CHECK((mixrt_check_status() != MIXRT_STATUS_OK) ==
                (k.overflow && checked));
        }
        std::filesystem::remove(calibration);
      }
      ++seed;
    }
  }
}

// A dynamic input scale (computed at run time from the input's range) in
// front of a fused rescale and static quantize: the scale's buffer must
// still hold it when the checked loops behind the call run again (the
// memory plan keeps it live through the epilogue; the rewrite refuses an
// output that overlaps it). Inputs large enough for rescaled sums to
// overflow: the loops report, with the same first index and value, on
// every path; batch 2.
TEST_CASE("compiled int8 conv2d chain with a dynamic input scale: the loops "
          "behind the call report as the loops do",
          "[exec][ukernel][int8]") {
  const std::string text =
      "mix.network @d precision(f32) (%x: tensor<2x2x6x6xf32>) -> "
      "tensor<2x3x6x6xf32> {\n"
      "  %q, %s, %z = mix.quantize %x asymmetric checked : "
      "tensor<2x2x6x6xf32> -> tensor<2x2x6x6xi8>, tensor<f32>, tensor<i32>\n"
      "  %w0 = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]], [[-1, "
      "2, -3], [4, -5, 6], [-7, 8, -9]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]], "
      "[[-3, 1, 0], [0, 1, -3], [5, 5, 5]]], [[[0, 0, 1], [0, 1, 0], [1, 0, "
      "0]], [[9, -9, 9], [-9, 9, -9], [9, -9, 9]]], [[[4, 3, 2], [1, 0, -1], "
      "[-2, -3, -4]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]]]]> : "
      "tensor<4x2x3x3xi8>\n"
      "  %ws0 = mix.weight dense<[0.25, 0.5, 0.125, 0.0625]> : "
      "tensor<4xf32>\n"
      "  %wz0 = mix.weight dense<0> : tensor<4xi32>\n"
      "  %y0 = mix.qconv2d %q, %s, %z, %w0, %ws0, %wz0 {padding = array<i64: "
      "1, 1, 1, 1>} : (tensor<2x2x6x6xi8>, tensor<f32>, tensor<i32>, "
      "tensor<4x2x3x3xi8>, tensor<4xf32>, tensor<4xi32>) -> "
      "tensor<2x4x6x6xf32>\n"
      "  %r0 = mix.relu %y0 : (tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>\n"
      "  %q1, %s1, %z1 = mix.quantize %r0 asymmetric static(scale = 1.0e36, "
      "zero_point = -3) checked : tensor<2x4x6x6xf32> -> "
      "tensor<2x4x6x6xi8>, tensor<f32>, tensor<i32>\n"
      "  %w1 = mix.weight dense<1> : tensor<3x4x3x3xi8>\n"
      "  %ws1 = mix.weight dense<0.03125> : tensor<3xf32>\n"
      "  %wz1 = mix.weight dense<[0, 1, -1]> : tensor<3xi32>\n"
      "  %y1 = mix.qconv2d %q1, %s1, %z1, %w1, %ws1, %wz1 {padding = "
      "array<i64: 1, 1, 1, 1>} : (tensor<2x4x6x6xi8>, tensor<f32>, "
      "tensor<i32>, tensor<3x4x3x3xi8>, tensor<3xf32>, tensor<3xi32>) -> "
      "tensor<2x3x6x6xf32>\n"
      "  mix.return %y1 : tensor<2x3x6x6xf32>\n"
      "}\n";
  for (float big : {1.0f, 1e38f}) {
    INFO("inputs x " << big);
    std::mt19937 rng(1500);
    GemmCase inputs{1, 0, 1, 1, "", false, false, false};
    std::vector<float> x = inputData(inputs, 2 * 2 * 6 * 6, rng);
    for (float &v : x)
      v = std::clamp(v, -3.0f, 3.0f) * big;
    compareBuilds(
        text, {2, 2, 6, 6}, {2, 3, 6, 6},
        [](MixPipelineOptions &o) { o.microkernels = false; },
        [&](ModuleOp kernels, ModuleOp loops) {
          CHECK(countCalls(kernels, "mixrt_ukernel_conv2d_s8_rescale") == 2);
          CHECK(countCalls(loops, "mixrt_ukernel_conv2d_s8_rescale") == 0);
        },
        x, /*checked=*/true,
        [](MixPipelineOptions &o) { o.verifyPolicy = false; });
    CHECK((mixrt_check_status() != MIXRT_STATUS_OK) == (big > 1.0f));
  }
}

// int8 grouped and depthwise convolutions (several groups: the im2col GEMMs
// are one group only): the exact integer sums by mixrt's f32 convolution
// kernels, which hold them exactly (every partial sum an integer below
// 2^24, proven at compile time from the weights); the same bits as the i32
// loops, symmetric and asymmetric (padding reads the zero point: a - za =
// +0 in f32), with and without a bias, strides, dilation, a channel
// multiplier, planes below 64 positions.
TEST_CASE("compiled int8 grouped and depthwise conv2d: the f32 convolution "
          "kernels give the i32 loops' sums bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 900;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (ConvCase c : {
             ConvCase{2, 8, 9, 9, 6, 3, 3, 1, 1, 1, precision, true, 2},
             ConvCase{1, 64, 8, 8, 64, 3, 3, 1, 1, 1, precision, false, 32},
             ConvCase{1, 12, 7, 7, 9, 1, 1, 1, 0, 1, precision, true, 3},
             // A channel multiplier of 2 (groups = C < F): grouped.
             ConvCase{1, 4, 10, 10, 8, 3, 3, 2, 1, 1, precision, true, 4},
             // Depthwise: stride 1 and 2, dilation 2, a 7x7 plane, 5x5.
             ConvCase{2, 16, 12, 12, 16, 3, 3, 1, 1, 1, precision, true, 16},
             ConvCase{1, 24, 14, 14, 24, 3, 3, 2, 1, 1, precision, false, 24},
             ConvCase{1, 8, 11, 11, 8, 3, 3, 1, 2, 2, precision, true, 8},
             ConvCase{1, 32, 7, 7, 32, 5, 5, 1, 2, 1, precision, true, 32},
         }) {
      const bool depthwise = c.groups == c.c && c.f == c.c;
      DYNAMIC_SECTION(
          "N " << c.n << " C " << c.c << " " << c.h << "x" << c.w << " F "
               << c.f << " " << c.kh << "x" << c.kw << " stride " << c.stride
               << " pad " << c.pad << " dilation " << c.dilation << " groups "
               << c.groups << " " << precision << (c.bias ? " bias" : "")) {
        checkConv(c, seed,
                  depthwise ? "mixrt_ukernel_depthwise_f32"
                            : "mixrt_ukernel_conv2d_grouped_f32");
      }
      ++seed;
    }
  }
}

// int8 depthwise convolutions: the input's conversion (x - zp), the sums,
// the rescale, the bias and the relu in one call of
// mixrt_ukernel_depthwise_s8_rescale (the loops, with their
// mixrt_ukernel_depthwise_f32 call, behind it): the same bits as the loops
// on every path, checked and unchecked, symmetric and asymmetric; 3x3 of
// stride 1 and 2, dilation 2, 5x5 on 7x7 planes, two images, 100x100
// planes (more than the kernel's 8192-float chunk: bands of rows).
TEST_CASE("compiled int8 depthwise conv2d: the conversion, rescale, bias and "
          "relu in one call equal the loops bit for bit",
          "[exec][ukernel][int8]") {
  unsigned seed = 1600;
  for (const char *precision :
       {"precision(int8)", "precision(int8<asymmetric>)"}) {
    for (ConvCase c : {
             ConvCase{1, 8, 9, 9, 8, 3, 3, 1, 1, 1, precision, true, 8, true},
             ConvCase{2, 16, 12, 12, 16, 3, 3, 2, 1, 1, precision, false, 16,
                      true},
             ConvCase{1, 8, 11, 11, 8, 3, 3, 1, 2, 2, precision, true, 8},
             ConvCase{1, 32, 7, 7, 32, 5, 5, 1, 2, 1, precision, true, 32,
                      true},
             ConvCase{1, 3, 100, 100, 3, 3, 3, 1, 1, 1, precision, false, 3,
                      true},
         }) {
      DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                           << " " << c.kh << "x" << c.kw << " stride "
                           << c.stride << " dilation " << c.dilation << " "
                           << precision << (c.bias ? " bias" : "")
                           << (c.relu ? " relu" : "")) {
        for (bool checked : {true, false}) {
          INFO((checked ? "checked" : "unchecked"));
          checkConv(c, seed, "mixrt_ukernel_depthwise_s8_rescale", checked);
        }
      }
      ++seed;
    }
  }
}

// The int8 depthwise call writing a workspace buffer (a relu that an add
// reads) while it reads the int8 input a dynamic quantize wrote into the
// workspace: mix-plan-memory keeps that input live through the relu (else
// the relu's output takes its bytes and the call would not be made). Bit
// for bit the loops' on every path, batch 2.
TEST_CASE("compiled int8 depthwise conv2d into the workspace: the call reads "
          "its int8 input while it writes the relu's buffer",
          "[exec][ukernel][int8]") {
  const std::string text =
      "mix.network @d precision(f32) (%x: tensor<2x4x9x9xf32>) -> "
      "tensor<2x4x9x9xf32> {\n"
      "  %q, %s, %z = mix.quantize %x asymmetric checked : "
      "tensor<2x4x9x9xf32> -> tensor<2x4x9x9xi8>, tensor<f32>, tensor<i32>\n"
      "  %w = mix.weight dense<[[[[1, -2, 3], [4, 5, -6], [7, 8, 9]]], [[[2, "
      "2, 2], [2, 2, 2], [2, 2, 2]]], [[[0, 0, 1], [0, 1, 0], [1, 0, 0]]], "
      "[[[4, 3, 2], [1, 0, -1], [-2, -3, -4]]]]> : tensor<4x1x3x3xi8>\n"
      "  %ws = mix.weight dense<[0.25, 0.5, 0.125, 0.0625]> : tensor<4xf32>\n"
      "  %wz = mix.weight dense<0> : tensor<4xi32>\n"
      "  %b = mix.weight dense<[0.5, -0.25, 1.0, 0.0]> : tensor<4xf32>\n"
      "  %y = mix.qconv2d %q, %s, %z, %w, %ws, %wz, %b {groups = 4 : i64, "
      "padding = array<i64: 1, 1, 1, 1>} : (tensor<2x4x9x9xi8>, tensor<f32>, "
      "tensor<i32>, tensor<4x1x3x3xi8>, tensor<4xf32>, tensor<4xi32>, "
      "tensor<4xf32>) -> tensor<2x4x9x9xf32>\n"
      "  %r = mix.relu %y : (tensor<2x4x9x9xf32>) -> tensor<2x4x9x9xf32>\n"
      "  %o = mix.add %r, %x : (tensor<2x4x9x9xf32>, tensor<2x4x9x9xf32>) -> "
      "tensor<2x4x9x9xf32>\n"
      "  mix.return %o : tensor<2x4x9x9xf32>\n"
      "}\n";
  std::mt19937 rng(1650);
  GemmCase inputs{1, 0, 1, 1, "", false, false, false};
  std::vector<float> x = inputData(inputs, 2 * 4 * 9 * 9, rng);
  compareBuilds(
      text, {2, 4, 9, 9}, {2, 4, 9, 9},
      [](MixPipelineOptions &o) { o.microkernels = false; },
      [&](ModuleOp kernels, ModuleOp loops) {
        CHECK(countCalls(kernels, "mixrt_ukernel_depthwise_s8_rescale") == 1);
        CHECK(countCalls(loops, "mixrt_ukernel_depthwise_s8_rescale") == 0);
      },
      x, /*checked=*/true,
      [](MixPipelineOptions &o) { o.verifyPolicy = false; });
  CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
}

// A calibrated int8 depthwise convolution whose rescaled sums overflow f32
// (inputs times 3e37, finite, against a calibrated range of [-5.4e37,
// 4.8e37]: the input scale is fixed, so only the rescale overflows): checked,
// the call returns the first such index and the loops behind it report what the
// loops report (count, first index and value); unchecked, nothing reports
// and the bits (relu'd infinities) are the loops'.
TEST_CASE("compiled int8 depthwise conv2d overflowing its rescale: the loops "
          "behind the call report as the loops do",
          "[exec][ukernel][int8]") {
  std::mt19937 rng(1700);
  const std::string text = llvm::formatv(
      "mix.network @d precision(f32) (%x: tensor<1x6x10x10xf32>) -> "
      "tensor<1x6x10x10xf32> {\n"
      "  %w = mix.weight dense<{0}> : tensor<6x1x3x3xf32>\n"
      "  %y = mix.conv2d %x, %w precision(int8) {{groups = 6 : i64, padding "
      "= array<i64: 1, 1, 1, 1>} : (tensor<1x6x10x10xf32>, "
      "tensor<6x1x3x3xf32>) -> tensor<1x6x10x10xf32>\n"
      "  %r = mix.relu %y : (tensor<1x6x10x10xf32>) -> "
      "tensor<1x6x10x10xf32>\n"
      "  mix.return %r : tensor<1x6x10x10xf32>\n}\n",
      convWeightText(rng, 6, 1, 3, 3));
  const float big = 3e37f;
  GemmCase inputs{1, 0, 1, 1, "", false, false, false};
  std::vector<float> x = inputData(inputs, 6 * 10 * 10, rng);
  for (float &v : x)
    v *= big;
  REQUIRE(llvm::all_of(x, [](float v) { return std::isfinite(v); }));
  std::filesystem::path calibration =
      std::filesystem::temp_directory_path() / "mixc_dw_overflow.calib";
  {
    std::ofstream file(calibration);
    file << "{\"format\": \"mixc-calibration\", \"version\": 1, "
            "\"method\": \"minmax\", \"samples\": 1, \"ranges\": {"
         << "\"d/conv2d#0/input\": {\"min\": " << -1.8 * big
         << ", \"max\": " << 1.6 * big << ", \"count\": 1}}}\n";
  }
  for (bool checked : {true, false}) {
    INFO((checked ? "checked" : "unchecked"));
    compareBuilds(
        text, {1, 6, 10, 10}, {1, 6, 10, 10},
        [](MixPipelineOptions &o) { o.microkernels = false; },
        [&](ModuleOp kernels, ModuleOp loops) {
          CHECK(countCalls(kernels, "mixrt_ukernel_depthwise_s8_rescale") == 1);
          CHECK(countCalls(loops, "mixrt_ukernel_depthwise_s8_rescale") == 0);
        },
        x, checked,
        [&](MixPipelineOptions &o) {
          o.calibrationPath = calibration.string();
          o.verifyPolicy = false;
        });
    CHECK((mixrt_check_status() != MIXRT_STATUS_OK) == checked);
  }
  std::filesystem::remove(calibration);
}

/// Calls of `callee` in a lowered module whose last operand, the flags, is
/// the constant `flags`, and whose second to last, the bias, is not null
/// (`withBias`) or null.
int countCallsWithEpilogue(ModuleOp module, llvm::StringRef callee,
                           int64_t flags, bool withBias) {
  int n = 0;
  module.walk([&](LLVM::CallOp call) {
    if (!call.getCallee() || *call.getCallee() != callee)
      return;
    auto operands = call.getArgOperands();
    auto flag = operands.back().getDefiningOp<LLVM::ConstantOp>();
    auto flagValue =
        flag ? dyn_cast<IntegerAttr>(flag.getValue()) : IntegerAttr();
    bool nullBias =
        bool(operands[operands.size() - 2].getDefiningOp<LLVM::ZeroOp>());
    if (flagValue && flagValue.getInt() == flags && nullBias != withBias)
      ++n;
  });
  return n;
}

// The epilogue of a one-group f32 convolution -- + bias, relu, or both --
// runs inside mixrt_ukernel_conv2d_f32 (MIXRT_UKERNEL_RELU) and writes the
// epilogue's output: conv + bias + relu reading the caller's input; conv +
// relu without a bias, one filter all zeros (relu of +0 sums); conv + bias
// into the caller's output; infinities, NaN, -0 and subnormals in the input
// (NaN through relu stays NaN: a planted relu(NaN) = 0 fails 2 assertions).
// The same bits as the loops on every path.
TEST_CASE("compiled f32 conv2d: bias and relu epilogues run inside the "
          "convolution call, bit for bit the loops",
          "[exec][ukernel]") {
  std::mt19937 rng(950);
  std::string text = llvm::formatv(
      "mix.network @d precision(f32) (%x: tensor<2x4x9x9xf32>) -> "
      "tensor<2x5x9x9xf32> {\n"
      "  %w1 = mix.weight dense<{0}> : tensor<6x4x3x3xf32>\n"
      "  %b1 = mix.weight dense<{1}> : tensor<6xf32>\n"
      "  %w2 = mix.weight dense<{2}> : tensor<6x6x1x1xf32>\n"
      "  %w3 = mix.weight dense<{3}> : tensor<5x6x3x3xf32>\n"
      "  %b3 = mix.weight dense<{4}> : tensor<5xf32>\n"
      "  %y = mix.conv2d %x, %w1, %b1 {{padding = array<i64: 1, 1, 1, 1>} : "
      "(tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> "
      "tensor<2x6x9x9xf32>\n"
      "  %r = mix.relu %y : (tensor<2x6x9x9xf32>) -> tensor<2x6x9x9xf32>\n"
      "  %y2 = mix.conv2d %r, %w2 : (tensor<2x6x9x9xf32>, "
      "tensor<6x6x1x1xf32>) -> tensor<2x6x9x9xf32>\n"
      "  %r2 = mix.relu %y2 : (tensor<2x6x9x9xf32>) -> tensor<2x6x9x9xf32>\n"
      "  %y3 = mix.conv2d %r2, %w3, %b3 {{padding = array<i64: 1, 1, 1, 1>} "
      ": (tensor<2x6x9x9xf32>, tensor<5x6x3x3xf32>, tensor<5xf32>) -> "
      "tensor<2x5x9x9xf32>\n"
      "  mix.return %y3 : tensor<2x5x9x9xf32>\n}\n",
      convWeightText(rng, 6, 4, 3, 3), vectorText(rng, 6),
      convWeightText(rng, 6, 6, 1, 1, /*zeroFilter=*/2),
      convWeightText(rng, 5, 6, 3, 3), vectorText(rng, 5));
  for (bool specials : {false, true}) {
    DYNAMIC_SECTION((specials ? "specials and NaN" : "normal values")) {
      GemmCase inputs{1, 0, 1, 1, "", false, specials, specials};
      compareBuilds(
          text, {2, 4, 9, 9}, {2, 5, 9, 9},
          [](MixPipelineOptions &o) { o.microkernels = false; },
          [](ModuleOp kernels, ModuleOp loops) {
            const char *conv = "mixrt_ukernel_conv2d_f32";
            CHECK(countCalls(kernels, conv) == 3);
            CHECK(countCallsWithEpilogue(kernels, conv, MIXRT_UKERNEL_RELU,
                                         true) == 1);
            CHECK(countCallsWithEpilogue(kernels, conv, MIXRT_UKERNEL_RELU,
                                         false) == 1);
            CHECK(countCallsWithEpilogue(kernels, conv, 0, true) == 1);
            CHECK(countCalls(loops, conv) == 0);
          },
          inputData(inputs, 2 * 4 * 9 * 9, rng));
    }
  }
  // Grouped (3 groups of 4 channels): the grouped call gets the bias and
  // writes the relu's output.
  std::string grouped = llvm::formatv(
      "mix.network @d precision(f32) (%x: tensor<2x12x8x8xf32>) -> "
      "tensor<2x6x8x8xf32> {\n"
      "  %w = mix.weight dense<{0}> : tensor<6x4x3x3xf32>\n"
      "  %b = mix.weight dense<{1}> : tensor<6xf32>\n"
      "  %a = mix.relu %x : (tensor<2x12x8x8xf32>) -> tensor<2x12x8x8xf32>\n"
      "  %y = mix.conv2d %a, %w, %b {{padding = array<i64: 1, 1, 1, 1>, "
      "groups = 3 : i64} : (tensor<2x12x8x8xf32>, tensor<6x4x3x3xf32>, "
      "tensor<6xf32>) -> tensor<2x6x8x8xf32>\n"
      "  %r = mix.relu %y : (tensor<2x6x8x8xf32>) -> tensor<2x6x8x8xf32>\n"
      "  mix.return %r : tensor<2x6x8x8xf32>\n}\n",
      convWeightText(rng, 6, 4, 3, 3), vectorText(rng, 6));
  // Depthwise (16 channels of 10x10: one chunk of planes; 20 channels of
  // 70x70: one plane per chunk): mixrt_ukernel_depthwise_f32 with the bias
  // and relu.
  for (int64_t side : {10, 70}) {
    int64_t ch = side == 10 ? 16 : 20;
    std::string t = llvm::formatv("tensor<1x{0}x{1}x{1}xf32>", ch, side);
    std::string dw = llvm::formatv(
        "mix.network @d precision(f32) (%x: {0}) -> {0} {\n"
        "  %w = mix.weight dense<{1}> : tensor<{2}x1x3x3xf32>\n"
        "  %b = mix.weight dense<{3}> : tensor<{2}xf32>\n"
        "  %a = mix.relu %x : ({0}) -> {0}\n"
        "  %y = mix.conv2d %a, %w, %b {{padding = array<i64: 1, 1, 1, 1>, "
        "groups = {2} : i64} : ({0}, tensor<{2}x1x3x3xf32>, "
        "tensor<{2}xf32>) -> {0}\n"
        "  %r = mix.relu %y : ({0}) -> {0}\n"
        "  mix.return %r : {0}\n}\n",
        t, convWeightText(rng, ch, 1, 3, 3), ch, vectorText(rng, ch));
    DYNAMIC_SECTION("depthwise " << side << "x" << side) {
      GemmCase inputs{1, 0, 1, 1, "", false, true, true};
      compareBuilds(
          dw, {1, ch, side, side}, {1, ch, side, side},
          [](MixPipelineOptions &o) { o.microkernels = false; },
          [](ModuleOp kernels, ModuleOp loops) {
            const char *callee = "mixrt_ukernel_depthwise_f32";
            CHECK(countCallsWithEpilogue(kernels, callee, MIXRT_UKERNEL_RELU,
                                         true) == 1);
            CHECK(countCalls(loops, callee) == 0);
          },
          inputData(inputs, ch * side * side, rng));
    }
  }
  DYNAMIC_SECTION("grouped") {
    GemmCase inputs{1, 0, 1, 1, "", false, true, true};
    compareBuilds(
        grouped, {2, 12, 8, 8}, {2, 6, 8, 8},
        [](MixPipelineOptions &o) { o.microkernels = false; },
        [](ModuleOp kernels, ModuleOp loops) {
          const char *conv = "mixrt_ukernel_conv2d_grouped_f32";
          CHECK(countCallsWithEpilogue(kernels, conv, MIXRT_UKERNEL_RELU,
                                       true) == 1);
          CHECK(countCalls(loops, conv) == 0);
        },
        inputData(inputs, 2 * 12 * 8 * 8, rng));
  }
}

/// The product of two activations: x [batch, S, K] (no batch when 0), its
/// transpose [batch, K, S] (mix.transpose) times the dense layer
/// d = x . W [batch, S, N]: M = K, N, and S summed; against the loops.
void checkMatmul(int64_t batch, int64_t s, int64_t k, int64_t n, bool specials,
                 unsigned seed) {
  std::mt19937 rng(seed);
  std::string pre = batch ? llvm::formatv("{0}x", batch).str() : "";
  std::string xt = pre + llvm::formatv("{0}x{1}", s, k).str(),
              tt = pre + llvm::formatv("{0}x{1}", k, s).str(),
              dt = pre + llvm::formatv("{0}x{1}", s, n).str(),
              yt = pre + llvm::formatv("{0}x{1}", k, n).str();
  std::string perm = batch ? "0, 2, 1" : "1, 0";
  std::string text = llvm::formatv(
      "mix.network @d precision(f32) (%x: tensor<{0}xf32>) -> "
      "tensor<{1}xf32> {\n"
      "  %w = mix.weight dense<{2}> : tensor<{3}x{4}xf32>\n"
      "  %d = mix.dense %x, %w : (tensor<{0}xf32>, tensor<{3}x{4}xf32>) -> "
      "tensor<{5}xf32>\n"
      "  %t = mix.transpose %x {{permutation = array<i64: {6}>} : "
      "(tensor<{0}xf32>) -> tensor<{7}xf32>\n"
      "  %y = mix.matmul %t, %d : (tensor<{7}xf32>, tensor<{5}xf32>) -> "
      "tensor<{1}xf32>\n"
      "  mix.return %y : tensor<{1}xf32>\n}\n",
      xt, yt, matrixText(rng, k, n), k, n, dt, perm, tt);
  std::vector<int64_t> in = {s, k}, out = {k, n};
  if (batch) {
    in.insert(in.begin(), batch);
    out.insert(out.begin(), batch);
  }
  GemmCase inputs{1, 0, 1, 1, "", false, specials, specials};
  checkModel(text, in, out, "mixrt_ukernel_conv2d_f32",
             inputData(inputs, (batch ? batch : 1) * s * k, rng));
}

namespace {

/// A dense value list of `shape` (nested brackets), uniform values in
/// [-scale, scale] written with 6 decimals.
std::string nestedText(std::mt19937 &rng, llvm::ArrayRef<int64_t> shape,
                       double scale) {
  std::uniform_real_distribution<double> dist(-scale, scale);
  if (shape.size() == 1) {
    std::string text = "[";
    for (int64_t i = 0; i < shape[0]; ++i)
      text += (i ? ", " : "") + std::to_string(dist(rng));
    return text + "]";
  }
  std::string text = "[";
  for (int64_t i = 0; i < shape[0]; ++i)
    text += (i ? ", " : "") + nestedText(rng, shape.drop_front(), scale);
  return text + "]";
}

struct RecurrentCase {
  bool gru;
  int64_t steps, batch, input, hidden;
  const char *direction; ///< "forward", "reverse" or "bidirectional"
  bool batchFirst, bias, lbr;
  const char *precision; ///< "" or a weights precision
  bool specials;         ///< inf, -0, a subnormal and NaN in x
};

} // namespace

// The input GEMM of every step (one per direction) and each step's
// recurrent GEMM of f32 lstm and gru layers call mixrt's f32 GEMM with
// MIXRT_UKERNEL_ACCUMULATE on W^T packed at compile time: each output's
// chain continues from the biases and the input GEMM's sum, so y_h (which
// every step's h feeds) is the loops' bit for bit, on every path. Batch
// first with several sequences and steps calls the input GEMM per sequence
// (x's rows are not in the accumulator's order). K crosses the 256-k block (I =
// 300, H = 260), N a partial panel (4H = 68, 3H = 99). f16 and bf16 layers
// widen x exactly for the input GEMM (their state stays f32). Weight-only
// int8 layers: the loops dequantize on every call, the calls in registers,
// with the same arithmetic.
TEST_CASE("compiled lstm and gru: the GEMM calls with accumulation equal "
          "the loops bit for bit",
          "[exec][ukernel][lstm][gru]") {
  unsigned seed = 70;
  for (RecurrentCase c : {
           RecurrentCase{false, 5, 3, 20, 17, "forward", false, true, false, "",
                         false},
           RecurrentCase{false, 4, 2, 7, 9, "bidirectional", true, false, false,
                         "", true},
           RecurrentCase{false, 3, 1, 300, 70, "reverse", true, true, false,
                         "precision(weights = f16)", false},
           RecurrentCase{false, 2, 2, 8, 260, "forward", false, true, false, "",
                         false},
           RecurrentCase{true, 4, 2, 10, 12, "forward", false, true, false, "",
                         false},
           RecurrentCase{true, 3, 3, 6, 33, "bidirectional", false, true, true,
                         "precision(weights = bf16)", true},
           RecurrentCase{true, 3, 2, 5, 8, "reverse", true, false, false, "",
                         false},
           // f16/bf16 layers: x widened exactly to f32 for the input GEMM,
           // the state f32.
           RecurrentCase{false, 4, 2, 20, 17, "bidirectional", false, true,
                         false, "precision(f16)", false},
           RecurrentCase{true, 3, 1, 9, 12, "forward", true, true, false,
                         "precision(bf16)", false},
           // One step, batch first: x's rows are in order.
           RecurrentCase{false, 1, 3, 6, 10, "forward", true, true, false, "",
                         false},
           // Weight-only int8: W^T of each view packed in int8 with its
           // rows' scales (per gate row, shared by the directions), the
           // dequantization in the call.
           RecurrentCase{false, 5, 2, 40, 33, "bidirectional", false, true,
                         false, "precision(weights = int8)", false},
           RecurrentCase{true, 4, 1, 300, 20, "reverse", true, true, false,
                         "precision(weights = int8)", true},
           RecurrentCase{true, 3, 2, 7, 9, "forward", false, false, true,
                         "precision(weights = int8)", false},
           // Asymmetric: nonzero zero points (the kernel's subtraction).
           RecurrentCase{false, 3, 2, 11, 18, "bidirectional", true, true,
                         false, "precision(weights = int8<asymmetric>)", false},
       }) {
    std::mt19937 rng(seed++);
    const int64_t dirs = std::string(c.direction) == "bidirectional" ? 2 : 1;
    const int64_t gates = (c.gru ? 3 : 4) * c.hidden;
    const std::vector<int64_t> inShape =
        c.batchFirst ? std::vector<int64_t>{c.batch, c.steps, c.input}
                     : std::vector<int64_t>{c.steps, c.batch, c.input};
    const std::vector<int64_t> hShape =
        c.batchFirst ? std::vector<int64_t>{c.batch, dirs, c.hidden}
                     : std::vector<int64_t>{dirs, c.batch, c.hidden};
    auto dims = [](const std::vector<int64_t> &shape) {
      std::string text;
      for (int64_t d : shape)
        text += std::to_string(d) + "x";
      return text + "f32";
    };
    const std::vector<int64_t> yShape =
        c.batchFirst ? std::vector<int64_t>{c.batch, c.steps, dirs, c.hidden}
                     : std::vector<int64_t>{c.steps, dirs, c.batch, c.hidden};
    const std::string xT = "tensor<" + dims(inShape) + ">",
                      wT = llvm::formatv("tensor<{0}x{1}x{2}xf32>", dirs, gates,
                                         c.input),
                      rT = llvm::formatv("tensor<{0}x{1}x{2}xf32>", dirs, gates,
                                         c.hidden),
                      bT =
                          llvm::formatv("tensor<{0}x{1}xf32>", dirs, 2 * gates),
                      hT = "tensor<" + dims(hShape) + ">",
                      yT = "tensor<" + dims(yShape) + ">";
    std::string text =
        "mix.network @d precision(f32) (%x: " + xT + ") -> " + hT + " {\n";
    text += "  %w = mix.weight dense<" +
            nestedText(rng, {dirs, gates, c.input},
                       1.0 / std::sqrt(double(c.input))) +
            "> : " + wT + "\n";
    text += "  %r = mix.weight dense<" +
            nestedText(rng, {dirs, gates, c.hidden},
                       1.0 / std::sqrt(double(c.hidden))) +
            "> : " + rT + "\n";
    if (c.bias)
      text += "  %b = mix.weight dense<" +
              nestedText(rng, {dirs, 2 * gates}, 0.5) + "> : " + bT + "\n";
    std::string attrs = llvm::formatv(
        "{{direction = \"{0}\", layout = {1} : i64{2}}", c.direction,
        c.batchFirst ? 1 : 0, c.lbr ? ", linear_before_reset = 1 : i64" : "");
    std::string types = "(" + xT + ", " + wT + ", " + rT +
                        (c.bias ? ", " + bT : std::string()) + ") -> (" + yT +
                        ", " + hT + (c.gru ? "" : ", " + hT) + ")";
    text += llvm::formatv("  %y:{0} = mix.{1} %x, %w, %r{2} {3} {4} : {5}\n",
                          c.gru ? 2 : 3, c.gru ? "gru" : "lstm",
                          c.bias ? " b(%b)" : "", c.precision, attrs, types);
    text += "  mix.return %y#1 : " + hT + "\n}\n";
    // Calls per direction: the input GEMM (batch first with several
    // sequences and steps: one call in a loop over the sequences), the
    // recurrent one (a gru without linear_before_reset: two, z and r, then
    // the candidate).
    const int calls = static_cast<int>(dirs) * (1 + (c.gru && !c.lbr ? 2 : 1));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(c.steps * c.batch * c.input));
    for (float &v : x)
      v = normal(rng);
    if (c.specials) {
      x[1] = INFINITY;
      x[2] = -0.0f;
      x[3] = 1e-40f;
      x[x.size() - 1] = NAN;
    }
    DYNAMIC_SECTION((c.gru ? "gru" : "lstm")
                    << " S " << c.steps << " B " << c.batch << " I " << c.input
                    << " H " << c.hidden << " " << c.direction
                    << (c.batchFirst ? " batch first" : "")
                    << (c.lbr ? " linear_before_reset" : "") << " "
                    << c.precision) {
      compareBuilds(
          text, inShape, hShape,
          [](MixPipelineOptions &o) { o.microkernels = false; },
          [&](ModuleOp kernels, ModuleOp loops) {
            CHECK(countCalls(kernels, "mixrt_ukernel_gemm_f32") == calls);
            CHECK(countCalls(loops, "mixrt_ukernel_gemm_f32") == 0);
            // Weight-only int8: one int8 packed form per call, no f32 copy
            // of the weights left.
            if (llvm::StringRef(c.precision).contains("int8")) {
              int int8Packed = 0, f32Folded = 0;
              kernels.walk([&](LLVM::GlobalOp global) {
                int8Packed += global.getSymName().contains("xi8_packed_t");
                f32Folded += global.getSymName().ends_with("_dequantized");
              });
              CHECK(int8Packed == calls);
              CHECK(f32Folded == 0);
            }
          },
          x);
    }
  }
}

TEST_CASE("compiled f32 matmul of two activations: the microkernel calls "
          "equal the loops bit for bit",
          "[exec][ukernel]") {
  // batch, S (summed), K (= M), N: one product; batches; N across the
  // 128-column blocks and S across the 128-k blocks (partial sums kept in
  // the output); infinities, NaN, -0 and subnormals.
  unsigned seed = 450;
  for (auto [batch, s, k, n, specials] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, bool>>{
           {0, 5, 3, 7, false},
           {3, 40, 17, 33, false},
           {1, 70, 5, 150, false},
           {2, 200, 4, 40, false},
           {2, 24, 9, 20, true},
       }) {
    DYNAMIC_SECTION("batch " << batch << " S " << s << " K " << k << " N " << n
                             << (specials ? " specials" : "")) {
      checkMatmul(batch, s, k, n, specials, seed);
    }
    ++seed;
  }
}

TEST_CASE("fused elementwise layers equal the unfused loops bit for bit",
          "[exec][ukernel][fusion]") {
  // conv2d (+ bias) -> batch_norm -> relu -> + residual (the block's
  // input) -> gelu, f32 and in an f16 block: with mix-fuse-elementwise
  // the elementwise layers after each conv run as one loop.
  std::mt19937 rng(400);
  for (const char *precision : {"", "precision(f16)"}) {
    DYNAMIC_SECTION("block " << (*precision ? precision : "f32")) {
      std::string w = "[";
      for (int f = 0; f < 4; ++f) {
        w += f ? ", [" : "[";
        for (int c = 0; c < 4; ++c)
          w += (c ? ", " : "") + matrixText(rng, 3, 3);
        w += "]";
      }
      w += "]";
      std::string t = "tensor<1x4x6x6xf32>", v = "tensor<4xf32>";
      std::string text = llvm::formatv(
          "mix.network @d precision(f32) (%x: {0}) -> {0} {\n"
          "  %y = mix.block @b {1} (%in = %x) : ({0}) -> {0} {\n"
          "  %w = mix.weight dense<{2}> : tensor<4x4x3x3xf32>\n"
          "  %bias = mix.weight dense<{3}> : {4}\n"
          "  %g = mix.weight dense<{5}> : {4}\n"
          "  %be = mix.weight dense<{6}> : {4}\n"
          "  %m = mix.weight dense<{7}> : {4}\n"
          "  %v = mix.weight dense<[0.5, 1.0, 2.0, 4.0]> : {4}\n"
          "  %c = mix.conv2d %in, %w, %bias {{padding = array<i64: 1, 1, 1, "
          "1>} : ({0}, tensor<4x4x3x3xf32>, {4}) -> {0}\n"
          "  %n = mix.batch_norm %c, %g, %be, %m, %v {8} : ({0}, {4}, {4}, "
          "{4}, {4}) -> {0}\n"
          "  %r = mix.relu %n : ({0}) -> {0}\n"
          "  %a = mix.add %r, %in : ({0}, {0}) -> {0}\n"
          "  %o = mix.gelu %a : ({0}) -> {0}\n"
          "  mix.yield %o : {0}\n"
          "  }\n"
          "  mix.return %y : {0}\n}\n",
          t, precision, w, vectorText(rng, 4), v, vectorText(rng, 4),
          vectorText(rng, 4), vectorText(rng, 4),
          // The policy keeps normalization in f32.
          *precision ? "precision(f32)" : "");
      GemmCase inputs{1, 0, 1, 1, "", false, true, false};
      compareBuilds(
          text, {1, 4, 6, 6}, {1, 4, 6, 6},
          [](MixPipelineOptions &o) { o.fuseElementwise = false; },
          [](ModuleOp fused, ModuleOp unfused) {
            CHECK(countLayerFunctions(fused) < countLayerFunctions(unfused));
          },
          inputData(inputs, 4 * 36, rng));
    }
  }
}

// z + transpose(z), then tanh, fused into one loop that reads z twice (the
// identity and the transposed map) and writes an intermediate: the memory
// plan must not put that loop's output over z (it overwrote elements the
// transposed read had yet to see: SQNR 24 dB before the fix).
TEST_CASE("a fused loop reading its input transposed too is not planned in "
          "place: the unfused loops' bits",
          "[exec][fusion]") {
  std::mt19937 rng(420);
  std::string text = llvm::formatv(
      "mix.network @d precision(f32) (%x: tensor<16x16xf32>) -> "
      "tensor<16x4xf32> {\n"
      "  %w = mix.weight dense<{0}> : tensor<16x4xf32>\n"
      "  %z = mix.sigmoid %x : (tensor<16x16xf32>) -> tensor<16x16xf32>\n"
      "  %t = mix.transpose %z {{permutation = array<i64: 1, 0>} : "
      "(tensor<16x16xf32>) -> tensor<16x16xf32>\n"
      "  %s = mix.add %z, %t : (tensor<16x16xf32>, tensor<16x16xf32>) -> "
      "tensor<16x16xf32>\n"
      "  %o = mix.tanh %s : (tensor<16x16xf32>) -> tensor<16x16xf32>\n"
      "  %y = mix.dense %o, %w : (tensor<16x16xf32>, tensor<16x4xf32>) -> "
      "tensor<16x4xf32>\n"
      "  mix.return %y : tensor<16x4xf32>\n}\n",
      matrixText(rng, 16, 4));
  GemmCase inputs{1, 0, 1, 1, "", false, false, false};
  compareBuilds(
      text, {16, 16}, {16, 4},
      [](MixPipelineOptions &o) { o.fuseElementwise = false; },
      [](ModuleOp fused, ModuleOp unfused) {
        CHECK(countLayerFunctions(fused) < countLayerFunctions(unfused));
      },
      inputData(inputs, 256, rng));
}

// Without checks, an int8 convolution's rescale fuses with the elementwise
// layers after it (mix-fuse-elementwise; here a residual add, then gelu),
// and mix-use-microkernels tiles the fused loop (40 channels: a partial
// tile of 8; 20 rows of 12): the same bits as the unfused loops without
// microkernels.
TEST_CASE("int8 conv2d without checks: the rescale fused with the layers "
          "after it and tiled equals the unfused loops bit for bit",
          "[exec][ukernel][fusion][int8]") {
  std::mt19937 rng(950);
  std::string t = "tensor<1x40x20x20xf32>";
  std::string text =
      llvm::formatv("mix.network @d precision(f32) (%x: {0}) -> {0} {\n"
                    "  %w = mix.weight dense<{1}> : tensor<40x40x1x1xf32>\n"
                    "  %c = mix.conv2d %x, %w precision(int8) : ({0}, "
                    "tensor<40x40x1x1xf32>) -> {0}\n"
                    "  %a = mix.add %c, %x : ({0}, {0}) -> {0}\n"
                    "  %o = mix.gelu %a : ({0}) -> {0}\n"
                    "  mix.return %o : {0}\n}\n",
                    t, convWeightText(rng, 40, 40, 1, 1));
  GemmCase inputs{1, 0, 1, 1, "", false, false, false};
  compareBuilds(
      text, {1, 40, 20, 20}, {1, 40, 20, 20},
      [](MixPipelineOptions &o) {
        o.fuseElementwise = false;
        o.microkernels = false;
      },
      [](ModuleOp fused, ModuleOp unfused) {
        CHECK(countLayerFunctions(fused) < countLayerFunctions(unfused));
      },
      inputData(inputs, 40 * 400, rng), /*checked=*/false);
}

namespace {

void checkDepthwiseCases(const std::vector<ConvCase> &cases, bool specials,
                         unsigned seed) {
  for (const ConvCase &c : cases) {
    DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                         << " " << c.kh << "x" << c.kw << " stride " << c.stride
                         << " pad " << c.pad << " dilation " << c.dilation
                         << " " << c.precision << (c.bias ? " bias" : "")
                         << (specials ? " inf/NaN weights" : "")) {
      checkDepthwise(c, specials, seed);
    }
    ++seed;
  }
}

} // namespace

// ConvCase: n, c, h, w, f (= c), kh, kw, stride, pad, dilation, precision,
// bias. f16 weights are widened exactly before the call.
TEST_CASE("compiled depthwise conv2d, stride 1: the depthwise microkernel "
          "call equals the loops bit for bit",
          "[exec][ukernel][depthwise]") {
  std::vector<ConvCase> cases;
  for (int64_t c : {1, 3, 17}) {
    // OW = 1, 7, 17, 33 (3x3, padding 1).
    for (int64_t w : {1, 7, 17, 33})
      cases.push_back({1, c, 5, w, c, 3, 3, 1, 1, 1, "", c != 3});
    // Dilation 2 (padding 2 keeps the size), no padding.
    cases.push_back({1, c, 8, 17, c, 3, 3, 1, 2, 2, "", true});
    cases.push_back({1, c, 6, 9, c, 3, 3, 1, 0, 1, "", false});
  }
  for (int64_t w : {7, 33})
    cases.push_back(
        {2, 3, 5, w, 3, 3, 3, 1, 1, 1, "precision(weights = f16)", true});
  checkDepthwiseCases(cases, false, 500);
}

TEST_CASE("compiled depthwise conv2d, stride 2: the depthwise microkernel "
          "call equals the loops bit for bit",
          "[exec][ukernel][depthwise]") {
  std::vector<ConvCase> cases;
  for (int64_t c : {1, 3, 17}) {
    // OW = 1, 7, 17, 33.
    for (int64_t w : {1, 13, 33, 65})
      cases.push_back({c == 3 ? 2 : 1, c, 9, w, c, 3, 3, 2, 1, 1, "", true});
    // 5x5, padding 2.
    cases.push_back({1, c, 7, 20, c, 5, 5, 2, 2, 1, "", c != 1});
  }
  cases.push_back(
      {1, 3, 9, 13, 3, 3, 3, 2, 1, 1, "precision(weights = f16)", true});
  checkDepthwiseCases(cases, false, 600);
}

TEST_CASE("compiled depthwise conv2d: the kernel's own padding (asymmetric, "
          "larger than 1, tiny images) equals the loops bit for bit",
          "[exec][ukernel][depthwise]") {
  // ConvCase: n, c, h, w, f (= c), kh, kw, stride, pad (unused), dilation,
  // precision, bias; then [top, left, bottom, right].
  struct PadCase {
    ConvCase c;
    Padding pad;
    bool specials;
  };
  const PadCase cases[] = {
      // Asymmetric, stride 1 and 2, with and without bias.
      {{1, 3, 8, 17, 3, 3, 3, 1, 0, 1, "", true}, {0, 1, 2, 3}, false},
      {{2, 3, 9, 33, 3, 3, 3, 2, 0, 1, "", false}, {1, 0, 0, 1}, true},
      {{1, 17, 12, 40, 17, 3, 3, 2, 0, 1, "", true}, {2, 1, 1, 2}, false},
      // Padding 2 and 3 around a 3x3 and a 5x5 window, dilation 2.
      {{1, 3, 7, 19, 3, 3, 3, 1, 0, 1, "", true}, {2, 2, 2, 2}, true},
      {{1, 3, 6, 21, 3, 5, 5, 2, 0, 1, "", false}, {3, 3, 3, 3}, false},
      {{1, 3, 9, 18, 3, 3, 3, 1, 0, 2, "", true}, {3, 1, 2, 4}, true},
      // Tiny images: every output is a border one (1x1, 2x2, 3x2 images).
      {{1, 3, 1, 1, 3, 3, 3, 1, 0, 1, "", true}, {1, 1, 1, 1}, true},
      {{2, 3, 2, 2, 3, 3, 3, 1, 0, 1, "", false}, {1, 1, 1, 1}, true},
      {{1, 3, 3, 2, 3, 3, 3, 2, 0, 1, "", true}, {2, 2, 2, 2}, true},
      {{1, 3, 2, 3, 3, 5, 5, 1, 0, 1, "", false}, {2, 2, 2, 2}, true},
      // f16 weights, asymmetric.
      {{1, 3, 7, 9, 3, 3, 3, 2, 0, 1, "precision(weights = f16)", true},
       {1, 2, 0, 1},
       false},
  };
  unsigned seed = 800;
  for (const PadCase &p : cases) {
    const ConvCase &c = p.c;
    DYNAMIC_SECTION("N " << c.n << " C " << c.c << " " << c.h << "x" << c.w
                         << " " << c.kh << "x" << c.kw << " stride " << c.stride
                         << " padding " << p.pad[0] << "," << p.pad[1] << ","
                         << p.pad[2] << "," << p.pad[3] << " dilation "
                         << c.dilation << " " << c.precision
                         << (c.bias ? " bias" : "")
                         << (p.specials ? " inf/NaN weights" : "")) {
      checkDepthwise(c, p.specials, seed, p.pad);
    }
    ++seed;
  }
}

TEST_CASE("compiled depthwise conv2d: infinite and NaN weights through the "
          "zero padding equal the loops",
          "[exec][ukernel][depthwise]") {
  checkDepthwiseCases({ConvCase{1, 3, 6, 7, 3, 3, 3, 1, 1, 1, "", true},
                       ConvCase{2, 17, 9, 33, 17, 3, 3, 2, 1, 1, "", false},
                       ConvCase{1, 3, 8, 17, 3, 3, 3, 1, 2, 2, "", true}},
                      true, 700);
}
