//===- CastExecutionTest.cpp - compiled casts agree with mixrt ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The compiled code and mixrt must convert bit for bit alike. This compiles
// `mix.cast` f32 -> f16, f32 -> bf16 and f64 -> f16 through the whole
// pipeline (arith.truncf: vcvtps2ph on F16C targets for f16, arith-expand's
// integer RNE for bf16), runs it on 2^22 inputs covering every exponent,
// ties, subnormals, overflow, infinities and NaNs, and compares every result
// with mixrt's scalar conversion.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "compiler/Pipeline.h"
#include "mixrt/mixrt.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <random>

using namespace mlir;
using namespace mix;

namespace {
constexpr int64_t kCount = int64_t(1) << 22;

template <typename From>
std::vector<uint16_t> runCast(llvm::StringRef fromType, llvm::StringRef toType,
                              std::vector<From> &input) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  MLIRContext context;
  DialectRegistry registry;
  registerMixPipelineDependencies(registry);
  context.appendDialectRegistry(registry);
  loadMixDialects(context);
  std::string n = std::to_string(kCount);
  std::string source = "mix.network @cast precision(f32) (%x: tensor<" + n +
                       "x" + fromType.str() + ">) -> tensor<" + n + "x" +
                       toType.str() + "> {\n  %y = mix.cast %x : tensor<" + n +
                       "x" + fromType.str() + "> to tensor<" + n + "x" +
                       toType.str() + ">\n  mix.return %y : tensor<" + n + "x" +
                       toType.str() + ">\n}\n";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  REQUIRE(module);
  PassManager pm(&context);
  REQUIRE(succeeded(buildMixPipeline(pm, MixPipelineOptions())));
  REQUIRE(succeeded(pm.run(*module)));
  // A function_ref: the function must outlive create().
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(2, 0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = optimize;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    FAIL(llvm::toString(engine.takeError()));
  auto fn = (*engine)->lookup("_mlir_ciface_cast");
  REQUIRE(bool(fn));
  std::vector<uint16_t> output(kCount);
  StridedMemRefType<From, 1> in;
  in.basePtr = in.data = input.data();
  in.offset = 0;
  in.sizes[0] = kCount;
  in.strides[0] = 1;
  StridedMemRefType<uint16_t, 1> out;
  out.basePtr = out.data = output.data();
  out.offset = 0;
  out.sizes[0] = kCount;
  out.strides[0] = 1;
  using Fn =
      void (*)(StridedMemRefType<From, 1> *, StridedMemRefType<uint16_t, 1> *);
  reinterpret_cast<Fn>(*fn)(&in, &out);
  return output;
}

/// Inputs: the first 2^16 are all sign/exponent combinations with edge
/// mantissas (0, 1, ties, all ones); the rest random bit patterns.
std::vector<float> f32Inputs() {
  std::vector<float> v;
  v.reserve(kCount);
  const uint32_t mantissas[] = {0,        1,        0x0FFF,   0x1000,
                                0x1001,   0x2FFF,   0x3000,   0x8000,
                                0x8001,   0x7FFF,   0x18000,  0x400000,
                                0x401000, 0x7FE000, 0x7FF000, 0x7FFFFF};
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exp = 0; exp < 256; ++exp)
      for (uint32_t m : mantissas) {
        uint32_t bits = (sign << 31) | (exp << 23) | m;
        float f;
        std::memcpy(&f, &bits, 4);
        v.push_back(f);
      }
  std::mt19937 rng(42);
  while (int64_t(v.size()) < kCount) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    v.push_back(f);
  }
  return v;
}

bool isNaN16(uint16_t h, bool bf16) {
  return bf16 ? ((h & 0x7F80) == 0x7F80 && (h & 0x7F))
              : ((h & 0x7C00) == 0x7C00 && (h & 0x3FF));
}

/// Compares bit for bit; for NaN inputs only NaN-ness and sign (the payload
/// rule of compiled code is the hardware's: documented in docs/compiler.md).
template <typename From, typename Ref>
void compare(const std::vector<From> &input,
             const std::vector<uint16_t> &output, Ref reference, bool bf16) {
  int64_t mismatches = 0;
  for (int64_t i = 0; i < kCount; ++i) {
    uint16_t expected = reference(input[i]);
    uint16_t got = output[i];
    bool same = got == expected;
    if (!same && isNaN16(expected, bf16))
      same = isNaN16(got, bf16) && (got & 0x8000) == (expected & 0x8000);
    if (!same && mismatches++ < 5)
      UNSCOPED_INFO("input #" << i << " (" << double(input[i]) << "): got 0x"
                              << std::hex << got << ", mixrt 0x" << expected
                              << std::dec);
  }
  CHECK(mismatches == 0);
}
} // namespace

TEST_CASE("compiled f32->f16 casts match mixrt bit for bit", "[exec][cast]") {
  std::vector<float> input = f32Inputs();
  std::vector<uint16_t> output = runCast<float>("f32", "f16", input);
  compare(input, output, mixrt_f32_to_f16, /*bf16=*/false);
}

TEST_CASE("compiled f32->bf16 casts match mixrt bit for bit", "[exec][cast]") {
  std::vector<float> input = f32Inputs();
  std::vector<uint16_t> output = runCast<float>("f32", "bf16", input);
  compare(input, output, mixrt_f32_to_bf16, /*bf16=*/true);
}

TEST_CASE("compiled f64->f16 casts round once, like mixrt", "[exec][cast]") {
  std::vector<float> f = f32Inputs();
  std::vector<double> input(f.begin(), f.end());
  // Values just off f16 ties, where rounding through f32 would differ.
  for (int64_t i = 0; i < 4096; ++i)
    input[i] = (1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)) *
               std::ldexp(1.0, int(i % 30) - 15) * ((i & 1) ? -1 : 1);
  std::vector<uint16_t> output = runCast<double>("f64", "f16", input);
  compare(input, output, mixrt_f64_to_f16, /*bf16=*/false);
}

TEST_CASE("compiled f64->bf16 casts round once, like mixrt", "[exec][cast]") {
  std::vector<float> f = f32Inputs();
  std::vector<double> input(f.begin(), f.end());
  // Values just off bf16 ties (1 + 2^-8 is a tie), where rounding through
  // f32 with RNE would differ, and values beyond f32's range.
  for (int64_t i = 0; i < 4096; ++i)
    input[i] = (1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)) *
               std::ldexp(1.0, int(i % 60) - 30) * ((i & 1) ? -1 : 1);
  input[4096] = 1e39;
  input[4097] = -1e39;
  input[4098] = 1e-39;
  input[4099] = std::ldexp(1.0, -140) * 1.5;
  std::vector<uint16_t> output = runCast<double>("f64", "bf16", input);
  compare(input, output, mixrt_f64_to_bf16, /*bf16=*/true);
}

TEST_CASE("compiled f16<->bf16 casts round once", "[exec][cast]") {
  // Every f16 value to bf16: widen exactly, round once.
  std::vector<uint16_t> halves(kCount);
  for (int64_t i = 0; i < kCount; ++i)
    halves[i] = uint16_t(i);
  std::vector<uint16_t> output = runCast<uint16_t>("f16", "bf16", halves);
  int64_t mismatches = 0;
  for (int64_t i = 0; i < (1 << 16); ++i) {
    uint16_t expected = mixrt_f32_to_bf16(mixrt_f16_to_f32(uint16_t(i)));
    uint16_t got = output[i];
    bool same =
        got == expected || (isNaN16(expected, true) && isNaN16(got, true) &&
                            (got & 0x8000) == (expected & 0x8000));
    if (!same && mismatches++ < 5)
      UNSCOPED_INFO("f16 0x" << std::hex << i << ": got 0x" << got
                             << ", expected 0x" << expected << std::dec);
  }
  CHECK(mismatches == 0);
}
