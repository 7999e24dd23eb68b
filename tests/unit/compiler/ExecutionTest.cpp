//===- ExecutionTest.cpp - compiled mix models run bit-exactly ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Lowers small models through the whole pipeline to LLVM, JIT-compiles them
// with MLIR's ExecutionEngine and compares every output bit for bit with a
// scalar emulation of the documented semantics (RNE conversions via
// llvm::APFloat, f32 accumulation with one fused multiply-add per step, k
// ascending, as mixrt's reduced GEMM does).
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {
/// Rounds `x` to f16 (RNE) and back, in software.
float roundF16(float x) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return v.convertToFloat();
}

const char *kMlp = R"mlir(
mix.network @mlp precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    %w = mix.weight dense<[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [1.5, -2.5, 3.5]]> : tensor<4x3xf32>
    %b = mix.weight dense<[0.5, -0.5, 1.0]> : tensor<3xf32>
    %d = mix.dense %a, %w, %b : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = mix.relu %d : (tensor<2x3xf32>) -> tensor<2x3xf32>
    mix.yield %r : tensor<2x3xf32>
  }
  %s = mix.softmax %h : (tensor<2x3xf32>) -> tensor<2x3xf32>
  mix.return %s : tensor<2x3xf32>
}
)mlir";
} // namespace

TEST_CASE("an f16 block with an f32 softmax runs bit-exactly", "[exec]") {
  Jit jit;
  std::unique_ptr<ExecutionEngine> engine = compile(jit.context, kMlp);
  auto fn = engine->lookup("_mlir_ciface_mlp");
  REQUIRE(bool(fn));
  using Fn =
      void (*)(StridedMemRefType<float, 2> *, StridedMemRefType<float, 2> *);

  float x[8] = {1.1f, -0.3f, 2.7f, 0.05f, -1.0f, 3.3f, 0.25f, -0.75f};
  float y[6] = {};
  auto in = view<float, 2>(x, {2, 4});
  auto out = view<float, 2>(y, {2, 3});
  reinterpret_cast<Fn>(*fn)(&in, &out);

  // Emulation: operands rounded to f16 once; fmaf in f32, k ascending; bias
  // added in f32; one rounding to f16; relu; then softmax in f32 on the widened
  // values.
  const float w[4][3] = {{0.1f, 0.2f, 0.3f},
                         {0.4f, 0.5f, 0.6f},
                         {0.7f, 0.8f, 0.9f},
                         {1.5f, -2.5f, 3.5f}};
  const float b[3] = {0.5f, -0.5f, 1.0f};
  for (int m = 0; m < 2; ++m) {
    float h[3];
    for (int n = 0; n < 3; ++n) {
      float acc = 0.0f;
      for (int k = 0; k < 4; ++k)
        acc = std::fmaf(roundF16(x[m * 4 + k]), roundF16(w[k][n]), acc);
      h[n] = std::max(roundF16(acc + roundF16(b[n])), 0.0f);
    }
    float mx = std::max(h[0], std::max(h[1], h[2]));
    float e[3], sum = 0.0f;
    for (int n = 0; n < 3; ++n) {
      e[n] = std::exp(h[n] - mx);
      sum = sum + e[n];
    }
    for (int n = 0; n < 3; ++n) {
      float expected = e[n] / sum;
      INFO("row " << m << " col " << n << ": got " << y[m * 3 + n]
                  << ", expected " << expected);
      CHECK(bits(y[m * 3 + n]) == bits(expected));
    }
  }
}

//===----------------------------------------------------------------------===//
// f16 and bf16 arithmetic: one RNE rounding per operation, subnormals kept
//===----------------------------------------------------------------------===//

namespace {
/// Rounds `x` to `semantics` (RNE) and back to f32, in software.
float roundTo(const llvm::fltSemantics &semantics, float x) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return v.convertToFloat();
}

/// p = x * y and s = p + x in the network's precision: each operation
/// rounds once to that precision.
std::string arithmeticModel(llvm::StringRef precision) {
  return (R"mlir(
mix.network @arith precision()mlir" +
          precision + R"mlir() (%x: tensor<8xf32>, %y: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %p = mix.mul %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %s = mix.add %p, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  mix.return %p, %s : tensor<8xf32>, tensor<8xf32>
}
)mlir")
      .str();
}
} // namespace

TEST_CASE("f16 and bf16 arithmetic rounds once per operation and keeps "
          "subnormals",
          "[exec]") {
  // Products that are subnormal in the 16-bit format (bf16: below 2^-126;
  // f16: below 2^-14), ties, an overflow to infinity and a NaN. Before
  // mix-widen-narrow-floats, LLVM rounded bf16 results with vcvtneps2bf16
  // on AVX512-BF16 CPUs, which flushes subnormals to zero, and with a
  // __truncsfbf2 call elsewhere.
  struct Case {
    const char *precision;
    const llvm::fltSemantics &semantics;
    float x[8], y[8];
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Case cases[] = {
      {"bf16",
       llvm::APFloat::BFloat(),
       {0x1p-64f, 0x1p-64f, -0x1.8p-70f, 1.0f, 0x1.02p0f, 0x1p100f, 3.0f, nan},
       {0x1.8p-64f, 0x1p-66f, 0x1p-60f, 0x1.01p0f, 0x1.02p0f, 0x1p100f,
        -0x1p-130f, 2.0f}},
      {"f16",
       llvm::APFloat::IEEEhalf(),
       {0x1p-12f, 0x1p-13f, -0x1.8p-10f, 1.0f, 0x1.004p0f, 0x1p8f, 3.0f, nan},
       {0x1.8p-12f, 0x1p-10f, 0x1p-9f, 0x1.002p0f, 0x1.004p0f, 0x1p8f,
        -0x1p-20f, 2.0f}},
  };
  for (const Case &c : cases) {
    DYNAMIC_SECTION(c.precision) {
      Jit jit;
      MixPipelineOptions options;
      options.verifyPolicy = false;
      std::unique_ptr<ExecutionEngine> engine =
          compile(jit.context, arithmeticModel(c.precision), options);
      REQUIRE(engine);
      auto fn = engine->lookup("_mlir_ciface_arith");
      REQUIRE(bool(fn));
      using Memref = StridedMemRefType<float, 1>;
      using Fn = void (*)(Memref *, Memref *, Memref *, Memref *);
      float x[8], y[8], product[8] = {}, sum[8] = {};
      std::copy(std::begin(c.x), std::end(c.x), x);
      std::copy(std::begin(c.y), std::end(c.y), y);
      Memref xv = view<float, 1>(x, {8}), yv = view<float, 1>(y, {8});
      Memref pv = view<float, 1>(product, {8}), sv = view<float, 1>(sum, {8});
      reinterpret_cast<Fn>(*fn)(&xv, &yv, &pv, &sv);
      for (int i = 0; i < 8; ++i) {
        // The operands' products are exact in f32; f32 has more than
        // 2p + 2 bits, so rounding its sum again to the format is one
        // rounding of the exact sum.
        float xr = roundTo(c.semantics, x[i]), yr = roundTo(c.semantics, y[i]);
        float p = roundTo(c.semantics, xr * yr);
        float s = roundTo(c.semantics, p + xr);
        INFO(c.precision << " element " << i << ": product " << product[i]
                         << " (expected " << p << "), sum " << sum[i]
                         << " (expected " << s << ")");
        if (std::isnan(p)) {
          CHECK(std::isnan(product[i]));
          CHECK(std::isnan(sum[i]));
          continue;
        }
        CHECK(bits(product[i]) == bits(p));
        CHECK(bits(sum[i]) == bits(s));
      }
      // The subnormal products are not flushed to zero.
      CHECK(product[0] != 0.0f);
      CHECK(product[1] != 0.0f);
      CHECK(product[2] != 0.0f);
    }
  }
}

//===----------------------------------------------------------------------===//
// The ResNet-style example, compiled, against the f64 reference interpreter
//===----------------------------------------------------------------------===//

#include "compiler/Interpreter.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace {
struct ResnetRun {
  std::vector<float> logits;
  float loss;
};

ResnetRun runCompiledResnet(Jit &jit, OwningOpRef<ModuleOp> module,
                            std::vector<float> &image,
                            std::vector<int32_t> &labels) {
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_resnet");
  REQUIRE(bool(fn));
  ResnetRun run;
  run.logits.assign(20, 0.0f);
  run.loss = 0.0f;
  auto in = view<float, 4>(image.data(), {2, 3, 16, 16});
  StridedMemRefType<int32_t, 1> lab;
  lab.basePtr = lab.data = labels.data();
  lab.offset = 0;
  lab.sizes[0] = 2;
  lab.strides[0] = 1;
  auto out = view<float, 2>(run.logits.data(), {2, 10});
  StridedMemRefType<float, 0> loss;
  loss.basePtr = loss.data = &run.loss;
  loss.offset = 0;
  using Fn =
      void (*)(StridedMemRefType<float, 4> *, StridedMemRefType<int32_t, 1> *,
               StridedMemRefType<float, 2> *, StridedMemRefType<float, 0> *);
  reinterpret_cast<Fn>(*fn)(&in, &lab, &out, &loss);
  return run;
}

} // namespace

TEST_CASE("the ResNet example compiles and matches the reference", "[exec]") {
  Jit jit;
  std::string source = readExample("resnet.mlir");
  std::vector<float> image(2 * 3 * 16 * 16);
  for (size_t i = 0; i < image.size(); ++i)
    image[i] = float(std::sin(0.37 * double(i)));
  std::vector<int32_t> labels = {3, 7};

  auto reference = [&](ModuleOp module, const WeightMap &weights) {
    RefTensor img{{2, 3, 16, 16}, {image.begin(), image.end()}};
    RefTensor lab{{2}, {3.0, 7.0}};
    auto out =
        interpret(*module.getOps<NetworkOp>().begin(), {img, lab}, weights);
    if (!out)
      FAIL(llvm::toString(out.takeError()));
    return std::move(*out);
  };

  SECTION("all f32: within 1e-5 relative of the f64 reference") {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &jit.context);
    REQUIRE(module);
    stripOverrides(*module);
    WeightMap weights = makeWeights(*module);
    std::vector<RefTensor> ref = reference(*module, weights);
    inlineWeights(*module, weights);
    ResnetRun run = runCompiledResnet(jit, std::move(module), image, labels);
    // f32 through ~10 layers of sums of up to 288 terms: each rounding is
    // 2^-24 relative, so 1e-5 of the largest logit leaves a wide margin.
    double scale = 0;
    for (double v : ref[0].data)
      scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < run.logits.size(); ++i) {
      INFO("logit " << i << ": " << run.logits[i] << " vs " << ref[0].data[i]);
      CHECK(std::fabs(run.logits[i] - ref[0].data[i]) <= 1e-5 * scale);
    }
    CHECK(std::fabs(run.loss - ref[1].data[0]) <=
          1e-5 * std::fabs(ref[1].data[0]));
  }

  SECTION("f16 stages as written: within the f16 error budget") {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &jit.context);
    REQUIRE(module);
    WeightMap weights = makeWeights(*module);
    std::vector<RefTensor> ref = reference(*module, weights);
    inlineWeights(*module, weights);
    ResnetRun run = runCompiledResnet(jit, std::move(module), image, labels);
    // Activations and weights of 7 f16 conv layers (and 4 relu/add results)
    // are rounded to 11 significant bits (relative error <= 2^-12 ~ 2.4e-4
    // each, RNE); batch norms, sums and the classifier stay in f32. Errors
    // of independent roundings add up to a few 1e-3 of the signal at most:
    // allow 2e-3 of the largest logit (1.3e-4 measured).
    double scale = 0;
    for (double v : ref[0].data)
      scale = std::max(scale, std::fabs(v));
    double worst = 0;
    for (size_t i = 0; i < run.logits.size(); ++i)
      worst = std::max(worst, std::fabs(run.logits[i] - ref[0].data[i]));
    INFO("worst logit error " << worst << " (scale " << scale << ")");
    CHECK(worst <= 2e-3 * scale);
    // f16 really was used: results are not bit-identical to f32's bound.
    CHECK(worst > 1e-5 * scale);
  }
}

TEST_CASE("the transformer example compiles and matches the reference",
          "[exec]") {
  Jit jit;
  std::string source = readExample("transformer.mlir");
  std::vector<int32_t> tokens(16), targets(16);
  for (int i = 0; i < 16; ++i) {
    tokens[i] = (7 * i + 3) % 50;
    targets[i] = (11 * i + 5) % 50;
  }

  auto run = [&](bool stripped, double tolerance, bool expectDifferent) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &jit.context);
    REQUIRE(module);
    if (stripped)
      stripOverrides(*module);
    WeightMap weights = makeWeights(*module);
    RefTensor tok{{2, 8}, {tokens.begin(), tokens.end()}};
    RefTensor tgt{{16}, {targets.begin(), targets.end()}};
    auto ref =
        interpret(*module->getOps<NetworkOp>().begin(), {tok, tgt}, weights);
    if (!ref)
      FAIL(llvm::toString(ref.takeError()));
    inlineWeights(*module, weights);

    std::unique_ptr<ExecutionEngine> engine = compile(*module);
    auto fn = engine->lookup("_mlir_ciface_transformer");
    REQUIRE(bool(fn));
    StridedMemRefType<int32_t, 2> tokView;
    tokView.basePtr = tokView.data = tokens.data();
    tokView.offset = 0;
    tokView.sizes[0] = 2;
    tokView.sizes[1] = 8;
    tokView.strides[0] = 8;
    tokView.strides[1] = 1;
    StridedMemRefType<int32_t, 1> tgtView;
    tgtView.basePtr = tgtView.data = targets.data();
    tgtView.offset = 0;
    tgtView.sizes[0] = 16;
    tgtView.strides[0] = 1;
    std::vector<float> probs(2 * 8 * 50);
    float loss = 0;
    auto probsView = view<float, 3>(probs.data(), {2, 8, 50});
    StridedMemRefType<float, 0> lossView;
    lossView.basePtr = lossView.data = &loss;
    lossView.offset = 0;
    using Fn = void (*)(
        StridedMemRefType<int32_t, 2> *, StridedMemRefType<int32_t, 1> *,
        StridedMemRefType<float, 3> *, StridedMemRefType<float, 0> *);
    reinterpret_cast<Fn>(*fn)(&tokView, &tgtView, &probsView, &lossView);

    double worst = 0;
    for (size_t i = 0; i < probs.size(); ++i)
      worst = std::max(worst, std::fabs(probs[i] - (*ref)[0].data[i]));
    INFO("worst probability error " << worst << ", loss " << loss << " vs "
                                    << (*ref)[1].data[0]);
    // Probabilities are in [0, 1]: an absolute bound.
    CHECK(worst <= tolerance);
    CHECK(std::fabs(loss - (*ref)[1].data[0]) <=
          tolerance * std::fabs((*ref)[1].data[0]));
    if (expectDifferent)
      CHECK(worst > 1e-6);
  };

  // All f32: every rounding is 2^-24 (6e-8) relative and sums have at most
  // 64 terms; probabilities are at most 1, so 1e-6 absolute (and 1e-6
  // relative on the loss) leaves a margin of about 10x (8e-9 measured).
  SECTION("all f32") { run(/*stripped=*/true, 1e-6, false); }
  // f16 blocks: activations and weights of the attention and feed-forward
  // layers are rounded to 11 bits (2^-11 ~ 4.9e-4 relative each), sums stay
  // in f32, layer norms in f32 re-normalize; the head's logits move by a few
  // 1e-3 at most, so probabilities (<= 1) by less than 1e-3 and the loss by
  // less than 1e-3 relative (8e-6 and 3e-6 measured).
  SECTION("f16 blocks as written") { run(/*stripped=*/false, 1e-3, true); }
}
