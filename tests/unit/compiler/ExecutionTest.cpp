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

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/TargetSelect.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mix;

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

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// Compiles `source` to LLVM and JITs it.
std::unique_ptr<ExecutionEngine> compile(MLIRContext &context,
                                         llvm::StringRef source) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  REQUIRE(module);
  PassManager pm(&context);
  REQUIRE(succeeded(buildMixPipeline(pm, MixPipelineOptions())));
  REQUIRE(succeeded(pm.run(*module)));
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                                  /*sizeLevel=*/0, nullptr);
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    FAIL(llvm::toString(engine.takeError()));
  return std::move(*engine);
}

struct Jit {
  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    DialectRegistry registry;
    registerMixPipelineDependencies(registry);
    context.appendDialectRegistry(registry);
    loadMixDialects(context);
  }
  MLIRContext context;
};

template <int N>
StridedMemRefType<float, N> view(float *data, std::array<int64_t, N> shape) {
  StridedMemRefType<float, N> m;
  m.basePtr = m.data = data;
  m.offset = 0;
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = shape[i];
    m.strides[i] = stride;
    stride *= shape[i];
  }
  return m;
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
  auto in = view<2>(x, {2, 4});
  auto out = view<2>(y, {2, 3});
  reinterpret_cast<Fn> (*fn)(&in, &out);

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
