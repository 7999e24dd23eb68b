//===- QuantizedExecutionTest.cpp - compiled int8 layers against mixrt ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// int8 layers compiled by mixc (mix-quantize + the integer lowering) must
// produce exactly what mixrt produces for the same inputs: mixrt's quantizer
// on the activations and weights, mixrt_gemm_s8_f32 (exact i32 sums, the
// f64 rescale rounded once to f32), then the bias added in f32. Every
// output is compared bit for bit. Also: the checked numerics of compiled
// code (overflowing casts, non-finite values reaching a quantize) are
// reported through mixrt with the op's source location.
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/Interpreter.h"
#include "io/Calibration.h"
#include "mixrt/mixrt.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

struct QDeleter {
  void operator()(mixrt_qtensor *q) const { mixrt_qtensor_destroy(q); }
};
using QPtr = std::unique_ptr<mixrt_qtensor, QDeleter>;

QPtr quantize(const std::vector<float> &data, std::vector<int64_t> shape,
              mixrt_qscheme scheme, int32_t axis) {
  mixrt_qtensor *q = nullptr;
  REQUIRE(mixrt_quantize_f32(data.data(), shape.data(),
                             static_cast<int32_t>(shape.size()), scheme, axis,
                             &q) == MIXRT_STATUS_OK);
  return QPtr(q);
}

QPtr quantizeWith(const std::vector<float> &data, std::vector<int64_t> shape,
                  mixrt_qscheme scheme, float scale, int32_t zeroPoint) {
  mixrt_qtensor *q = nullptr;
  REQUIRE(mixrt_quantize_f32_with_params(data.data(), shape.data(),
                                         static_cast<int32_t>(shape.size()),
                                         scheme, MIXRT_PER_TENSOR, &scale,
                                         &zeroPoint, &q) == MIXRT_STATUS_OK);
  return QPtr(q);
}

mixrt_gemm_s8_operand operand(const mixrt_qtensor *q, int64_t ld,
                              bool perChannel) {
  return {mixrt_qtensor_data(q), ld, perChannel ? 1 : 0,
          mixrt_qtensor_scales(q), mixrt_qtensor_zero_points(q)};
}

/// Deterministic values in [-amplitude, amplitude), f32-representable.
std::vector<float> values(size_t n, uint64_t seed, double amplitude) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = float((double((seed >> 11) & 0xFFFFF) / double(0x100000) - 0.5) * 2 *
                 amplitude);
  }
  return v;
}

struct DenseCase {
  int64_t m, k, n;
  std::string precision; // the layer's precision clause
  mixrt_qscheme actScheme, weightScheme;
  bool perTensorWeights = false;
  std::optional<std::pair<double, double>> calibrated; // activation range
  bool splitK = false;
  bool perRowActivations = false; // one dynamic scale per row of x
};

/// Compiles one int8 dense layer and compares it with mixrt.
void checkDense(const DenseCase &c) {
  Jit jit;
  std::string shapeX = std::to_string(c.m) + "x" + std::to_string(c.k);
  std::string shapeW = std::to_string(c.k) + "x" + std::to_string(c.n);
  std::string shapeY = std::to_string(c.m) + "x" + std::to_string(c.n);
  std::string source = "mix.network @q precision(f32) (%x: tensor<" + shapeX +
                       "xf32>) -> tensor<" + shapeY +
                       "xf32> {\n"
                       "  %w = mix.weight external \"w\" : tensor<" +
                       shapeW +
                       "xf32>\n"
                       "  %b = mix.weight external \"b\" : tensor<" +
                       std::to_string(c.n) +
                       "xf32>\n"
                       "  %y = mix.dense %x, %w, %b precision(" +
                       c.precision + ") : (tensor<" + shapeX +
                       "xf32>, tensor<" + shapeW + "xf32>, tensor<" +
                       std::to_string(c.n) + "xf32>) -> tensor<" + shapeY +
                       "xf32>\n"
                       "  mix.return %y : tensor<" +
                       shapeY + "xf32>\n}\n";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  std::vector<float> x = values(c.m * c.k, 1, 3.0);
  std::vector<float> w = values(c.k * c.n, 2, 0.5);
  std::vector<float> b = values(c.n, 3, 1.0);
  WeightMap weights;
  weights["w"] = RefTensor{{c.k, c.n}, {w.begin(), w.end()}};
  weights["b"] = RefTensor{{c.n}, {b.begin(), b.end()}};
  inlineWeights(*module, weights);

  MixPipelineOptions options;
  options.weightGranularity = c.perTensorWeights ? WeightGranularity::tensor
                                                 : WeightGranularity::channel;
  options.splitK = c.splitK;
  llvm::SmallString<64> calibrationPath;
  QPtr qa;
  if (c.calibrated) {
    io::CalibrationTable table;
    table.method = io::CalibrationMethod::MinMax;
    table.samples = 1;
    table.ranges["q/dense#0/input"] = {c.calibrated->first,
                                       c.calibrated->second, 1};
    REQUIRE(!llvm::sys::fs::createTemporaryFile("calibration", "json",
                                                calibrationPath));
    if (llvm::Error error =
            io::writeCalibration(calibrationPath.str().str(), table))
      FAIL(llvm::toString(std::move(error)));
    options.calibrationPath = calibrationPath.str().str();
    // The static parameters: mixrt's for a tensor spanning the range.
    QPtr range =
        quantize({float(c.calibrated->first), float(c.calibrated->second)}, {2},
                 c.actScheme, MIXRT_PER_TENSOR);
    qa = quantizeWith(x, {c.m, c.k}, c.actScheme,
                      mixrt_qtensor_scales(range.get())[0],
                      mixrt_qtensor_zero_points(range.get())[0]);
  } else {
    qa = quantize(x, {c.m, c.k}, c.actScheme,
                  c.perRowActivations ? 0 : MIXRT_PER_TENSOR);
  }
  std::unique_ptr<ExecutionEngine> engine = compile(*module, options);
  if (!calibrationPath.empty())
    llvm::sys::fs::remove(calibrationPath);
  auto fn = engine->lookup("_mlir_ciface_q");
  REQUIRE(bool(fn));
  std::vector<float> y(c.m * c.n, -1.0f);
  auto in = view<float, 2>(x.data(), {c.m, c.k});
  auto out = view<float, 2>(y.data(), {c.m, c.n});
  mixrt_check_reset();
  reinterpret_cast<void (*)(StridedMemRefType<float, 2> *,
                            StridedMemRefType<float, 2> *)>(*fn)(&in, &out);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);

  QPtr qb = quantize(w, {c.k, c.n}, c.weightScheme,
                     c.perTensorWeights ? MIXRT_PER_TENSOR : 1);
  std::vector<float> expected(c.m * c.n);
  mixrt_gemm_s8_operand a = operand(qa.get(), c.k, c.perRowActivations);
  mixrt_gemm_s8_operand bq = operand(qb.get(), c.n, !c.perTensorWeights);
  REQUIRE(mixrt_gemm_s8_f32(c.m, c.n, c.k, &a, &bq, expected.data(), c.n) ==
          MIXRT_STATUS_OK);
  int mismatches = 0;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      float e = expected[i * c.n + j] + b[j];
      float got = y[i * c.n + j];
      if (bits(got) != bits(e) && ++mismatches <= 5)
        UNSCOPED_INFO("y[" << i << "][" << j << "] = " << got
                           << ", mixrt: " << e);
    }
  CHECK(mismatches == 0);
}

} // namespace

TEST_CASE("compiled int8 dense layers match mixrt bit for bit",
          "[exec][int8]") {
  SECTION("symmetric, per output channel, dynamic activation scale") {
    checkDense(
        {5, 67, 13, "int8", MIXRT_QSCHEME_SYMMETRIC, MIXRT_QSCHEME_SYMMETRIC});
  }
  SECTION("symmetric weights per tensor") {
    DenseCase c{
        5, 67, 13, "int8", MIXRT_QSCHEME_SYMMETRIC, MIXRT_QSCHEME_SYMMETRIC};
    c.perTensorWeights = true;
    checkDense(c);
  }
  SECTION("asymmetric activations and weights (zero-point corrections)") {
    checkDense({4, 33, 9, "int8<asymmetric>", MIXRT_QSCHEME_ASYMMETRIC,
                MIXRT_QSCHEME_ASYMMETRIC});
  }
  SECTION("static scale from calibration, saturating outside the range") {
    DenseCase c{
        4, 40, 6, "int8", MIXRT_QSCHEME_SYMMETRIC, MIXRT_QSCHEME_SYMMETRIC};
    c.calibrated = {{-1.5, 2.0}}; // inputs reach +-3: clamped to +-127
    checkDense(c);
  }
  SECTION("static asymmetric scale from calibration") {
    DenseCase c{3,
                24,
                5,
                "int8, activations = int8<asymmetric>",
                MIXRT_QSCHEME_ASYMMETRIC,
                MIXRT_QSCHEME_SYMMETRIC};
    c.calibrated = {{-0.75, 2.5}};
    checkDense(c);
  }
  SECTION("per-row activation scales (symmetric)") {
    DenseCase c{6,
                50,
                7,
                "int8, activations = int8<symmetric, axis = 0>",
                MIXRT_QSCHEME_SYMMETRIC,
                MIXRT_QSCHEME_SYMMETRIC};
    c.perRowActivations = true;
    checkDense(c);
  }
  SECTION("per-row activation scales and zero points (asymmetric)") {
    DenseCase c{5,
                31,
                4,
                "int8, activations = int8<asymmetric, axis = 0>",
                MIXRT_QSCHEME_ASYMMETRIC,
                MIXRT_QSCHEME_SYMMETRIC};
    c.perRowActivations = true;
    checkDense(c);
  }
  SECTION("split K: 40000 products of up to 255 x 255 in 2 i32 pieces") {
    // The bound 40000 * 255 * 255 > 2^31 - 1 rejects the layer unless K is
    // split (at most 33025 products per piece); the pieces are added exactly
    // in f64, so the result equals mixrt's exact sum.
    DenseCase c{1,
                40000,
                2,
                "int8<asymmetric>",
                MIXRT_QSCHEME_ASYMMETRIC,
                MIXRT_QSCHEME_ASYMMETRIC};
    c.splitK = true;
    checkDense(c);
  }
}

TEST_CASE("a compiled int8 conv2d matches mixrt's GEMM on im2col patches",
          "[exec][int8]") {
  Jit jit;
  const int64_t C = 3, H = 6, W = 5, F = 4, KH = 3, KW = 3;
  const int64_t OH = 6, OW = 5; // padding 1 on every side, stride 1
  std::string source = R"mlir(
mix.network @conv precision(f32) (%x: tensor<1x3x6x5xf32>) -> tensor<1x4x6x5xf32> {
  %w = mix.weight external "w" : tensor<4x3x3x3xf32>
  %b = mix.weight external "b" : tensor<4xf32>
  %y = mix.conv2d %x, %w, %b precision(int8<asymmetric>) {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x3x6x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x5xf32>
  mix.return %y : tensor<1x4x6x5xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  std::vector<float> x = values(C * H * W, 11, 2.0);
  for (float &v : x)
    v = v + 1.0f; // mostly positive: a non-trivial zero point
  std::vector<float> w = values(F * C * KH * KW, 12, 0.4);
  std::vector<float> b = values(F, 13, 0.5);
  WeightMap weights;
  weights["w"] = RefTensor{{F, C, KH, KW}, {w.begin(), w.end()}};
  weights["b"] = RefTensor{{F}, {b.begin(), b.end()}};
  inlineWeights(*module, weights);
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_conv");
  REQUIRE(bool(fn));
  std::vector<float> y(F * OH * OW);
  auto in = view<float, 4>(x.data(), {1, C, H, W});
  auto out = view<float, 4>(y.data(), {1, F, OH, OW});
  mixrt_check_reset();
  reinterpret_cast<void (*)(StridedMemRefType<float, 4> *,
                            StridedMemRefType<float, 4> *)>(*fn)(&in, &out);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);

  // mixrt: quantize the input (per tensor) and the weights (per output
  // channel), im2col with padded positions at the input's zero point, then
  // A [OH*OW, C*KH*KW] x B [C*KH*KW, F].
  QPtr qx =
      quantize(x, {1, C, H, W}, MIXRT_QSCHEME_ASYMMETRIC, MIXRT_PER_TENSOR);
  QPtr qw = quantize(w, {F, C, KH, KW}, MIXRT_QSCHEME_ASYMMETRIC, 0);
  int32_t zx = mixrt_qtensor_zero_points(qx.get())[0];
  const int8_t *xd = mixrt_qtensor_data(qx.get());
  const int8_t *wd = mixrt_qtensor_data(qw.get());
  const int64_t K = C * KH * KW;
  std::vector<int8_t> patches(OH * OW * K), wt(K * F);
  for (int64_t i = 0; i < OH; ++i)
    for (int64_t j = 0; j < OW; ++j)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t u = 0; u < KH; ++u)
          for (int64_t v = 0; v < KW; ++v) {
            int64_t r = i - 1 + u, s = j - 1 + v;
            bool inside = r >= 0 && r < H && s >= 0 && s < W;
            patches[(i * OW + j) * K + (c * KH + u) * KW + v] =
                inside ? xd[(c * H + r) * W + s] : static_cast<int8_t>(zx);
          }
  for (int64_t f = 0; f < F; ++f)
    for (int64_t k = 0; k < K; ++k)
      wt[k * F + f] = wd[f * K + k];
  mixrt_gemm_s8_operand a = {patches.data(), K, 0,
                             mixrt_qtensor_scales(qx.get()), &zx};
  mixrt_gemm_s8_operand bq = {wt.data(), F, 1, mixrt_qtensor_scales(qw.get()),
                              mixrt_qtensor_zero_points(qw.get())};
  std::vector<float> expected(OH * OW * F);
  REQUIRE(mixrt_gemm_s8_f32(OH * OW, F, K, &a, &bq, expected.data(), F) ==
          MIXRT_STATUS_OK);
  int mismatches = 0;
  for (int64_t f = 0; f < F; ++f)
    for (int64_t p = 0; p < OH * OW; ++p) {
      float e = expected[p * F + f] + b[f];
      float got = y[f * OH * OW + p];
      if (bits(got) != bits(e) && ++mismatches <= 5)
        UNSCOPED_INFO("y[" << f << "][" << p << "] = " << got
                           << ", mixrt: " << e);
    }
  CHECK(mismatches == 0);
}

namespace {
/// Compiles the matmul network @mm of `source` (inputs a, b of the given
/// shapes) and compares it bit for bit with the interpreter on the IR after
/// mix-quantize.
template <int R>
void checkMatmulAgainstInterpreter(const std::string &source,
                                   std::array<int64_t, R> aShape,
                                   std::array<int64_t, R> bShape,
                                   std::array<int64_t, R> cShape) {
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  auto count = [](auto shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  };
  std::vector<float> a = values(count(aShape), 21, 1.5),
                     b = values(count(bShape), 22, 4.0);
  OwningOpRef<ModuleOp> quantized = quantizedCopy(*module);
  auto ref = interpret(
      *quantized->getOps<NetworkOp>().begin(),
      {RefTensor{{aShape.begin(), aShape.end()}, {a.begin(), a.end()}},
       RefTensor{{bShape.begin(), bShape.end()}, {b.begin(), b.end()}}},
      {});
  if (!ref)
    FAIL(llvm::toString(ref.takeError()));
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_mm");
  REQUIRE(bool(fn));
  std::vector<float> c(count(cShape));
  auto av = view<float, R>(a.data(), aShape);
  auto bv = view<float, R>(b.data(), bShape);
  auto cv = view<float, R>(c.data(), cShape);
  reinterpret_cast<void (*)(StridedMemRefType<float, R> *,
                            StridedMemRefType<float, R> *,
                            StridedMemRefType<float, R> *)>(*fn)(&av, &bv, &cv);
  for (size_t i = 0; i < c.size(); ++i) {
    INFO("element " << i);
    CHECK(bits(c[i]) == bits(float((*ref)[0].data[i])));
  }
}
} // namespace

TEST_CASE("compiled int8 layers agree bit for bit with the interpreter",
          "[exec][int8]") {
  // The interpreter emulates the quantized ops exactly; on IR after
  // mix-quantize whose quantize inputs are network inputs, outputs match.
  SECTION("batched, asymmetric, per tensor") {
    checkMatmulAgainstInterpreter<3>(R"mlir(
mix.network @mm precision(int8<asymmetric>) (%a: tensor<2x3x7xf32>, %b: tensor<2x7x4xf32>) -> tensor<2x3x4xf32> {
  %c = mix.matmul %a, %b : (tensor<2x3x7xf32>, tensor<2x7x4xf32>) -> tensor<2x3x4xf32>
  mix.return %c : tensor<2x3x4xf32>
}
)mlir",
                                     {2, 3, 7}, {2, 7, 4}, {2, 3, 4});
  }
  SECTION("lhs per row (asymmetric), rhs per tensor") {
    checkMatmulAgainstInterpreter<2>(R"mlir(
mix.network @mm precision(f32) (%a: tensor<5x9xf32>, %b: tensor<9x3xf32>) -> tensor<5x3xf32> {
  %c = mix.matmul %a, %b precision(int8, activations = int8<asymmetric, axis = 0>) : (tensor<5x9xf32>, tensor<9x3xf32>) -> tensor<5x3xf32>
  mix.return %c : tensor<5x3xf32>
}
)mlir",
                                     {5, 9}, {9, 3}, {5, 3});
  }
}

TEST_CASE("compiled code reports failed checks with the source location",
          "[exec][checked]") {
  Jit jit;
  std::string source =
      R"mlir(mix.network @chk precision(f32) (%x: tensor<4xf32>) -> tensor<4xf16> {
  %h = mix.cast %x checked : tensor<4xf32> to tensor<4xf16>
  mix.return %h : tensor<4xf16>
}
mix.network @q precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<[[1.0, 0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
)mlir";
  // The first failure recorded: element 1 of the dense layer's input.
  auto expectNonFiniteReported = [](const std::string &value) {
    CHECK(mixrt_check_status() == MIXRT_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(mixrt_last_error_message())
              .rfind("model.mlir:7:8: non-finite value reaches an int8 "
                     "quantize at element 1 (value " +
                         value + ")",
                     0) == 0);
  };
  auto run = [&](bool checked, std::vector<float> castIn,
                 std::vector<float> denseIn) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &jit.context, "model.mlir");
    REQUIRE(module);
    MixPipelineOptions options;
    options.checkedCasts = checked;
    std::unique_ptr<ExecutionEngine> engine = compile(*module, options);
    auto chk = engine->lookup("_mlir_ciface_chk");
    auto q = engine->lookup("_mlir_ciface_q");
    REQUIRE(bool(chk));
    REQUIRE(bool(q));
    std::vector<uint16_t> h(4);
    auto in = view<float, 1>(castIn.data(), {4});
    auto out = view<uint16_t, 1>(h.data(), {4});
    std::vector<float> y(2);
    auto x = view<float, 2>(denseIn.data(), {1, 2});
    auto yv = view<float, 2>(y.data(), {1, 2});
    mixrt_check_reset();
    reinterpret_cast<void (*)(StridedMemRefType<float, 1> *,
                              StridedMemRefType<uint16_t, 1> *)>(*chk)(&in,
                                                                       &out);
    reinterpret_cast<void (*)(StridedMemRefType<float, 2> *,
                              StridedMemRefType<float, 2> *)>(*q)(&x, &yv);
    return h;
  };

  SECTION("an f32 -> f16 overflow") {
    std::vector<uint16_t> h =
        run(true, {1.0f, 65504.0f, 70000.0f, INFINITY}, {1.0f, 2.0f});
    CHECK(h[2] == 0x7C00); // the value is still +inf (IEEE), but reported
    CHECK(mixrt_check_failure_count() == 1); // inf input is not an overflow
    CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
    CHECK(std::string(mixrt_last_error_message()) ==
          "model.mlir:2:8: checked cast from f32 to f16 overflows at element "
          "2 (value 70000)");
  }
  SECTION("a NaN reaching an int8 quantize") {
    run(true, {1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, NAN});
    expectNonFiniteReported("nan");
  }
  SECTION("an infinity reaching an int8 quantize") {
    // Reported as the non-finite input (as mixrt does), not as the
    // unrepresentable scale the infinity also produces.
    run(true, {1.0f, 2.0f, 3.0f, 4.0f}, {1.0f, INFINITY});
    expectNonFiniteReported("inf");
  }
  SECTION("checks off: nothing is reported") {
    run(false, {1.0f, 2.0f, 70000.0f, 4.0f}, {1.0f, NAN});
    CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
  }
  mixrt_check_reset();
}

TEST_CASE("compiled int8 attention matches the interpreter", "[exec][int8]") {
  // Projections are integer GEMMs (exact on both sides); the attention core
  // runs in f32 compiled and f64 in the interpreter, so the context differs
  // by f32 rounding (~1e-7 relative) before its dynamic int8 quantization.
  // A context value that lands within that of a rounding boundary moves one
  // quantization step, which changes outputs by at most step * max|wo| *
  // (#flips): allow 1% of the largest output, far below the 50% a broken
  // lowering would cause and far above f32 rounding alone.
  // With biases (added in f32 after each projection's rescale, exact on
  // both sides up to f32 rounding) and a padding mask (in the f32 core),
  // the same bound holds.
  bool extras = false;
  SECTION("no biases, no mask") {}
  SECTION("biases and a padding mask") { extras = true; }
  Jit jit;
  std::string source = R"mlir(
mix.network @att precision(f32) (%x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %wq = mix.weight external "wq" : tensor<8x8xf32>
  %wk = mix.weight external "wk" : tensor<8x8xf32>
  %wv = mix.weight external "wv" : tensor<8x8xf32>
  %wo = mix.weight external "wo" : tensor<8x8xf32>
  %y = mix.attention %x, %wq, %wk, %wv, %wo precision(int8) {num_heads = 2 : i64, causal = true}
      : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<2x5x8xf32>
  mix.return %y : tensor<2x5x8xf32>
}
)mlir";
  if (extras)
    source = R"mlir(
mix.network @att precision(f32) (%x: tensor<2x5x8xf32>) -> tensor<2x5x8xf32> {
  %wq = mix.weight external "wq" : tensor<8x8xf32>
  %wk = mix.weight external "wk" : tensor<8x8xf32>
  %wv = mix.weight external "wv" : tensor<8x8xf32>
  %wo = mix.weight external "wo" : tensor<8x8xf32>
  %bq = mix.weight external "bq" : tensor<8xf32>
  %bk = mix.weight external "bk" : tensor<8xf32>
  %bv = mix.weight external "bv" : tensor<8xf32>
  %bo = mix.weight external "bo" : tensor<8xf32>
  %m = mix.weight external "m" : tensor<2x1x1x5xf32>
  %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) bk(%bk) bv(%bv) bo(%bo) mask(%m) precision(int8) {num_heads = 2 : i64, causal = true}
      : (tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x1x1x5xf32>) -> tensor<2x5x8xf32>
  mix.return %y : tensor<2x5x8xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  WeightMap weights;
  uint64_t seed = 40;
  for (const char *name : {"wq", "wk", "wv", "wo"}) {
    std::vector<float> w = values(64, ++seed, 0.7);
    weights[name] = RefTensor{{8, 8}, {w.begin(), w.end()}};
  }
  if (extras) {
    for (const char *name : {"bq", "bk", "bv", "bo"}) {
      std::vector<float> b = values(8, ++seed, 1.0);
      weights[name] = RefTensor{{8}, {b.begin(), b.end()}};
    }
    // Sample 1: its last two keys are padding.
    RefTensor mask{{2, 1, 1, 5}, std::vector<double>(10, 0.0)};
    mask.data[8] = mask.data[9] = -1e4;
    weights["m"] = mask;
  }
  inlineWeights(*module, weights);
  std::vector<float> x = values(2 * 5 * 8, 50, 2.0);
  OwningOpRef<ModuleOp> quantized = quantizedCopy(*module);
  auto ref = interpret(*quantized->getOps<NetworkOp>().begin(),
                       {RefTensor{{2, 5, 8}, {x.begin(), x.end()}}}, {});
  if (!ref)
    FAIL(llvm::toString(ref.takeError()));
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_att");
  REQUIRE(bool(fn));
  std::vector<float> y(2 * 5 * 8);
  auto xv = view<float, 3>(x.data(), {2, 5, 8});
  auto yv = view<float, 3>(y.data(), {2, 5, 8});
  mixrt_check_reset();
  reinterpret_cast<void (*)(StridedMemRefType<float, 3> *,
                            StridedMemRefType<float, 3> *)>(*fn)(&xv, &yv);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);
  double scale = 0, worst = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    scale = std::max(scale, std::fabs((*ref)[0].data[i]));
    worst = std::max(worst, std::fabs(y[i] - (*ref)[0].data[i]));
  }
  INFO("worst " << worst << " of " << scale);
  CHECK(scale > 0.1);
  CHECK(worst <= 0.01 * scale);
}

TEST_CASE("split K computes a sum beyond int32 exactly", "[exec][int8]") {
  // Every input and weight is 1.0, asymmetric: scale 1/255, zero point -128,
  // q = 127, so each product is (127 + 128)^2 = 65025 and the exact sum
  // 40000 * 65025 = 2601000000 exceeds 2^31 - 1: one i32 sum would wrap.
  // Split into pieces of at most 33025 products added in f64, the result is
  // the exact sum rescaled once: (f32)((f64)s * (f64)s * 2601000000).
  Jit jit;
  std::string source = R"mlir(
mix.network @big precision(f32) (%x: tensor<1x40000xf32>) -> tensor<1x2xf32> {
  %w = mix.weight dense<1.0> : tensor<40000x2xf32>
  %y = mix.dense %x, %w precision(int8<asymmetric>) : (tensor<1x40000xf32>, tensor<40000x2xf32>) -> tensor<1x2xf32>
  mix.return %y : tensor<1x2xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  MixPipelineOptions options;
  options.splitK = true;
  std::unique_ptr<ExecutionEngine> engine = compile(*module, options);
  auto fn = engine->lookup("_mlir_ciface_big");
  REQUIRE(bool(fn));
  std::vector<float> x(40000, 1.0f), y(2, -1.0f);
  auto xv = view<float, 2>(x.data(), {1, 40000});
  auto yv = view<float, 2>(y.data(), {1, 2});
  mixrt_check_reset();
  reinterpret_cast<void (*)(StridedMemRefType<float, 2> *,
                            StridedMemRefType<float, 2> *)>(*fn)(&xv, &yv);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);
  const double s = static_cast<double>(static_cast<float>(1.0 / 255.0));
  const float expected = static_cast<float>(s * s * 2601000000.0);
  CHECK(bits(y[0]) == bits(expected));
  CHECK(bits(y[1]) == bits(expected));
  // The exact result is 40000 (up to the rounding of the scale).
  CHECK(std::fabs(y[0] - 40000.0f) < 1.0f);
}

TEST_CASE("a compiled int8 rescale beyond f32 is reported", "[exec][checked]") {
  // Inputs near FLT_MAX give an activation scale of about 2.4e36; times the
  // weight scale and a sum of 2 * 127 * 127 the f64 rescale exceeds FLT_MAX:
  // mixrt_gemm_s8_f32 fails with OUT_OF_RANGE, and so does compiled code.
  Jit jit;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"mlir(mix.network @r precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x1xf32> {
  %w = mix.weight dense<[[1000.0], [1000.0]]> : tensor<2x1xf32>
  %y = mix.dense %x, %w precision(int8) : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  mix.return %y : tensor<1x1xf32>
}
)mlir",
      &jit.context, "rescale.mlir");
  REQUIRE(module);
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_r");
  REQUIRE(bool(fn));
  std::vector<float> x = {3.0e38f, 3.0e38f}, y(1);
  auto xv = view<float, 2>(x.data(), {1, 2});
  auto yv = view<float, 2>(y.data(), {1, 1});
  mixrt_check_reset();
  reinterpret_cast<void (*)(StridedMemRefType<float, 2> *,
                            StridedMemRefType<float, 2> *)>(*fn)(&xv, &yv);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OUT_OF_RANGE);
  CHECK(std::string(mixrt_last_error_message())
            .rfind("rescale.mlir:3:8: int8 rescale overflows f32 at element 0",
                   0) == 0);
  // mixrt agrees that this GEMM has no f32 result.
  QPtr qa = quantize(x, {1, 2}, MIXRT_QSCHEME_SYMMETRIC, MIXRT_PER_TENSOR);
  QPtr qb = quantize({1000.0f, 1000.0f}, {2, 1}, MIXRT_QSCHEME_SYMMETRIC, 1);
  mixrt_gemm_s8_operand a = operand(qa.get(), 2, false);
  mixrt_gemm_s8_operand b = operand(qb.get(), 1, true);
  float c = 0;
  CHECK(mixrt_gemm_s8_f32(1, 1, 2, &a, &b, &c, 1) == MIXRT_STATUS_OUT_OF_RANGE);
  mixrt_check_reset();
}

namespace {

/// mixrt's int8 round trip of a weight: quantized (scheme, axis) and
/// dequantized, `scale * (q - zero_point)` rounded once to f32.
std::vector<float> dequantizedWeight(const std::vector<float> &w,
                                     std::vector<int64_t> shape,
                                     mixrt_qscheme scheme, int32_t axis) {
  QPtr q = quantize(w, shape, scheme, axis);
  std::vector<float> d(w.size());
  REQUIRE(
      mixrt_dequantize_f32(q.get(), d.data(), static_cast<int64_t>(d.size())) ==
      MIXRT_STATUS_OK);
  return d;
}

/// Round to nearest, ties to even, to f16 and back (exact).
float roundF16(float v) {
  llvm::APFloat a(v);
  bool lost = false;
  a.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  a.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return a.convertToFloat();
}

} // namespace

TEST_CASE("weight-only int8 layers compute with mixrt's dequantized weights, "
          "bit for bit",
          "[exec][int8]") {
  // A dense (f16 block: the input rounded to f16, f32 fma chain over k
  // ascending, + bias in f32, the result rounded to f16) and a conv2d (f32)
  // whose weights are int8; every output compared with a C++ reference on
  // mixrt's quantize + dequantize of the weight. (The interpreter computes
  // float layers in f64, the ideal model; its mix.dequantize is checked
  // bit for bit below.)
  const int64_t M = 3, K = 37, N = 11;
  const int64_t C = 2, H = 5, W = 4, F = 3;
  std::string source = R"mlir(
mix.network @wo precision(f32) (%x: tensor<3x37xf32>, %img: tensor<1x2x5x4xf32>) -> (tensor<3x11xf32>, tensor<1x3x5x4xf32>) {
  %h = mix.block @half precision(f16) (%in = %x) : (tensor<3x37xf32>) -> tensor<3x11xf32> {
    %w = mix.weight external "w" : tensor<37x11xf32>
    %b = mix.weight external "b" : tensor<11xf32>
    %y = mix.dense %in, %w, %b precision(weights = int8<asymmetric>) : (tensor<3x37xf32>, tensor<37x11xf32>, tensor<11xf32>) -> tensor<3x11xf32>
    mix.yield %y : tensor<3x11xf32>
  }
  %cw = mix.weight external "cw" : tensor<3x2x3x3xf32>
  %c = mix.conv2d %img, %cw precision(weights = int8) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x2x5x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x5x4xf32>
  mix.return %h, %c : tensor<3x11xf32>, tensor<1x3x5x4xf32>
}
)mlir";
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  std::vector<float> x = values(M * K, 31, 2.0), w = values(K * N, 32, 0.7),
                     b = values(N, 33, 1.0), img = values(C * H * W, 34, 3.0),
                     cw = values(F * C * 9, 35, 0.4);
  WeightMap weights;
  weights["w"] = RefTensor{{K, N}, {w.begin(), w.end()}};
  weights["b"] = RefTensor{{N}, {b.begin(), b.end()}};
  weights["cw"] = RefTensor{{F, C, 3, 3}, {cw.begin(), cw.end()}};
  inlineWeights(*module, weights);

  // The references: per output channel (axis 1 of the dense weight, 0 of
  // the conv's), the dense asymmetric.
  std::vector<float> wd =
      dequantizedWeight(w, {K, N}, MIXRT_QSCHEME_ASYMMETRIC, 1);
  std::vector<float> cwd =
      dequantizedWeight(cw, {F, C, 3, 3}, MIXRT_QSCHEME_SYMMETRIC, 0);
  // The dequantized weights are not the float ones (else the test would not
  // tell a quantized layer from a float one).
  CHECK(wd != w);
  CHECK(cwd != cw);
  std::vector<float> yRef(M * N), cRef(F * H * W);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        acc = std::fma(roundF16(x[i * K + k]), wd[k * N + j], acc);
      yRef[i * N + j] = roundF16(acc + b[j]);
    }
  for (int64_t f = 0; f < F; ++f)
    for (int64_t oh = 0; oh < H; ++oh)
      for (int64_t ow = 0; ow < W; ++ow) {
        float acc = 0.0f;
        for (int64_t c = 0; c < C; ++c)
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              int64_t ih = oh + kh - 1, iw = ow + kw - 1;
              float v = ih >= 0 && ih < H && iw >= 0 && iw < W
                            ? img[(c * H + ih) * W + iw]
                            : 0.0f;
              acc = std::fma(v, cwd[((f * C + c) * 3 + kh) * 3 + kw], acc);
            }
        cRef[(f * H + oh) * W + ow] = acc;
      }

  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_wo");
  REQUIRE(bool(fn));
  std::vector<float> y(M * N, -1.0f), c(F * H * W, -1.0f);
  auto xv = view<float, 2>(x.data(), {M, K});
  auto iv = view<float, 4>(img.data(), {1, C, H, W});
  auto yv = view<float, 2>(y.data(), {M, N});
  auto cv = view<float, 4>(c.data(), {1, F, H, W});
  // Inputs, then the output buffers (destination style).
  mixrt_check_reset();
  reinterpret_cast<void (*)(
      StridedMemRefType<float, 2> *, StridedMemRefType<float, 4> *,
      StridedMemRefType<float, 2> *, StridedMemRefType<float, 4> *)>(*fn)(
      &xv, &iv, &yv, &cv);
  REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);
  for (int64_t i = 0; i < M * N; ++i) {
    INFO("dense element " << i);
    CHECK(bits(y[i]) == bits(yRef[i]));
  }
  for (int64_t i = 0; i < F * H * W; ++i) {
    INFO("conv2d element " << i);
    CHECK(bits(c[i]) == bits(cRef[i]));
  }
}

TEST_CASE("weight-only int8 attention computes the f32 attention of mixrt's "
          "dequantized weights, bit for bit",
          "[exec][int8][attention]") {
  // mix.attention with int8 weights and f32 activations: each of the four
  // projection weights is quantized per output channel (axis 1 of [E, E])
  // and dequantized; the projections read the int8 weights packed with
  // their scales and zero points (mixrt_ukernel_gemm_f32 dequantizes in
  // registers). The same network in f32 with the weights replaced by
  // mixrt's quantize + dequantize of them must give the same bits. Four
  // distinct weights, then one weight shared by the four projections (one
  // dequantized buffer read by four GEMMs).
  const int64_t B = 2, S = 6, E = 16;
  for (bool shared : {false, true}) {
    for (const char *scheme : {"int8", "int8<asymmetric>"}) {
      DYNAMIC_SECTION((shared ? "one shared weight, " : "four weights, ")
                      << scheme) {
        auto text = [&](const std::string &precision) {
          std::string t = "tensor<2x6x16xf32>", w = "tensor<16x16xf32>",
                      b = "tensor<16xf32>";
          std::string body;
          for (const char *name : {"wq", "wk", "wv", "wo"})
            body += std::string("  %") + name + " = mix.weight external \"" +
                    (shared ? "wq" : name) + "\" : " + w + "\n";
          for (const char *name : {"bq", "bk", "bv", "bo"})
            body += std::string("  %") + name + " = mix.weight external \"" +
                    name + "\" : " + b + "\n";
          return "mix.network @att precision(f32) (%x: " + t + ") -> " + t +
                 " {\n" + body +
                 "  %y = mix.attention %x, %wq, %wk, %wv, %wo bq(%bq) bk(%bk) "
                 "bv(%bv) bo(%bo) " +
                 precision + " {causal = true, num_heads = 2 : i64} : (" + t +
                 ", " + w + ", " + w + ", " + w + ", " + w + ", " + b + ", " +
                 b + ", " + b + ", " + b + ") -> " + t +
                 "\n  mix.return %y : " + t + "\n}\n";
        };
        WeightMap weights, dequantized;
        uint64_t seed = 60;
        mixrt_qscheme qs = std::string(scheme) == "int8"
                               ? MIXRT_QSCHEME_SYMMETRIC
                               : MIXRT_QSCHEME_ASYMMETRIC;
        for (const char *name : {"wq", "wk", "wv", "wo"}) {
          std::vector<float> w = values(E * E, ++seed, 0.5);
          std::vector<float> d = dequantizedWeight(w, {E, E}, qs, 1);
          CHECK(d != w);
          weights[name] = RefTensor{{E, E}, {w.begin(), w.end()}};
          dequantized[name] = RefTensor{{E, E}, {d.begin(), d.end()}};
        }
        for (const char *name : {"bq", "bk", "bv", "bo"}) {
          std::vector<float> b = values(E, ++seed, 0.3);
          weights[name] = dequantized[name] =
              RefTensor{{E}, {b.begin(), b.end()}};
        }
        Jit jit;
        OwningOpRef<ModuleOp> w8 = parseSourceString<ModuleOp>(
            text(std::string("precision(weights = ") + scheme + ")"),
            &jit.context);
        OwningOpRef<ModuleOp> f32 =
            parseSourceString<ModuleOp>(text(""), &jit.context);
        REQUIRE(w8);
        REQUIRE(f32);
        inlineWeights(*w8, weights);
        inlineWeights(*f32, dequantized);
        std::unique_ptr<ExecutionEngine> w8Engine = compile(*w8);
        std::unique_ptr<ExecutionEngine> f32Engine = compile(*f32);
        // The int8 projections' weights are read packed (no dequantize
        // loop left): 4 calls of the float GEMM, and a quarter of the
        // bytes.
        int gemms = 0;
        w8->walk([&](LLVM::CallOp call) {
          if (call.getCallee() && *call.getCallee() == "mixrt_ukernel_gemm_f32")
            ++gemms;
        });
        CHECK(gemms == 4);
        std::vector<float> x = values(B * S * E, 70, 2.0);
        auto runOn = [&](ExecutionEngine &engine) {
          auto fn = engine.lookup("_mlir_ciface_att");
          REQUIRE(bool(fn));
          std::vector<float> y(B * S * E, -1.0f);
          auto xv = view<float, 3>(x.data(), {B, S, E});
          auto yv = view<float, 3>(y.data(), {B, S, E});
          mixrt_check_reset();
          reinterpret_cast<void (*)(StridedMemRefType<float, 3> *,
                                    StridedMemRefType<float, 3> *)>(*fn)(&xv,
                                                                         &yv);
          REQUIRE(mixrt_check_status() == MIXRT_STATUS_OK);
          return y;
        };
        std::vector<float> got = runOn(*w8Engine), want = runOn(*f32Engine);
        for (size_t i = 0; i < got.size(); ++i) {
          INFO("element " << i);
          CHECK(bits(got[i]) == bits(want[i]));
        }
      }
    }
  }
}

TEST_CASE("mix.dequantize: compiled and interpreted, scale * (q - zero_point) "
          "rounded once",
          "[exec][int8]") {
  // Per index along axis 0 (3 scales and zero points), along axis 1 (4),
  // and per tensor, with
  // the extremes of q - zp (-128 - 127 = -255, 127 - (-128) = 255) and
  // scales whose products round (1/3, 0.1); expected values from the
  // formula in C++ float arithmetic (one rounding of an exact product).
  std::string source = R"mlir(
mix.network @dq precision(f32) (%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %q = mix.weight dense<[[-128, 127, 0, 1], [5, -7, 100, -100], [127, -128, 3, -3]]> : tensor<3x4xi8>
  %s = mix.weight dense<[0.333333343, 0.1, 3.0e+38]> : tensor<3xf32>
  %z = mix.weight dense<[127, -128, 0]> : tensor<3xi32>
  %a = mix.dequantize %q, %s, %z axis(0) : (tensor<3x4xi8>, tensor<3xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  %s1 = mix.weight dense<0.0078125> : tensor<1xf32>
  %z1 = mix.weight dense<-3> : tensor<1xi32>
  %t = mix.dequantize %q, %s1, %z1 : (tensor<3x4xi8>, tensor<1xf32>, tensor<1xi32>) -> tensor<3x4xf32>
  %s4 = mix.weight dense<[0.5, 0.1, 0.333333343, 2.0]> : tensor<4xf32>
  %z4 = mix.weight dense<[0, 7, -128, 127]> : tensor<4xi32>
  %c = mix.dequantize %q, %s4, %z4 axis(1) : (tensor<3x4xi8>, tensor<4xf32>, tensor<4xi32>) -> tensor<3x4xf32>
  %ax = mix.add %a, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %tx = mix.add %t, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %cx = mix.add %c, %x : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  mix.return %ax, %tx, %cx : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}
)mlir";
  const int8_t q[12] = {-128, 127, 0, 1, 5, -7, 100, -100, 127, -128, 3, -3};
  const float scales[3] = {0.333333343f, 0.1f, 3.0e+38f};
  const int32_t zps[3] = {127, -128, 0};
  // Axis 1 (a dense weight's [K, N] columns): element i in column i % 4.
  const float scales4[4] = {0.5f, 0.1f, 0.333333343f, 2.0f};
  const int32_t zps4[4] = {0, 7, -128, 127};
  std::vector<float> perAxis(12), perTensor(12), perColumn(12);
  for (int i = 0; i < 12; ++i) {
    perAxis[i] = scales[i / 4] * float(int32_t(q[i]) - zps[i / 4]);
    perTensor[i] = 0.0078125f * float(int32_t(q[i]) + 3);
    perColumn[i] = scales4[i % 4] * float(int32_t(q[i]) - zps4[i % 4]);
  }
  // 3e38 * 127 overflows to +inf, as mixrt's unchecked product would.
  CHECK(std::isinf(perAxis[8]));
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &jit.context);
  REQUIRE(module);
  // x = +0: the adds return the dequantized values unchanged.
  std::vector<float> x(12, 0.0f);
  auto ref = interpret(*module->getOps<NetworkOp>().begin(),
                       {RefTensor{{3, 4}, {x.begin(), x.end()}}}, {});
  if (!ref)
    FAIL(llvm::toString(ref.takeError()));
  OwningOpRef<ModuleOp> quantized = quantizedCopy(*module);
  auto refQ = interpret(*quantized->getOps<NetworkOp>().begin(),
                        {RefTensor{{3, 4}, {x.begin(), x.end()}}}, {});
  if (!refQ)
    FAIL(llvm::toString(refQ.takeError()));
  std::unique_ptr<ExecutionEngine> engine = compile(*module);
  auto fn = engine->lookup("_mlir_ciface_dq");
  REQUIRE(bool(fn));
  std::vector<float> a(12, -1.0f), t(12, -1.0f), cc(12, -1.0f);
  auto xv = view<float, 2>(x.data(), {3, 4});
  auto av = view<float, 2>(a.data(), {3, 4});
  auto tv = view<float, 2>(t.data(), {3, 4});
  auto cv = view<float, 2>(cc.data(), {3, 4});
  reinterpret_cast<void (*)(
      StridedMemRefType<float, 2> *, StridedMemRefType<float, 2> *,
      StridedMemRefType<float, 2> *, StridedMemRefType<float, 2> *)>(*fn)(
      &xv, &av, &tv, &cv);
  for (int i = 0; i < 12; ++i) {
    INFO("element " << i);
    CHECK(bits(a[i]) == bits(perAxis[i]));
    CHECK(bits(t[i]) == bits(perTensor[i]));
    CHECK(bits(cc[i]) == bits(perColumn[i]));
    for (auto *r : {&*ref, &*refQ}) {
      CHECK(bits(float((*r)[0].data[i])) == bits(perAxis[i]));
      CHECK(bits(float((*r)[1].data[i])) == bits(perTensor[i]));
      CHECK(bits(float((*r)[2].data[i])) == bits(perColumn[i]));
    }
  }
}
