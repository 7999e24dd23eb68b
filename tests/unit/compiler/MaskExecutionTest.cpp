//===- MaskExecutionTest.cpp - compiled indexing layers vs reference ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Compiles gather, expand and max_pool2d with dilations and ceil_mode with
// mixc (the object mixc emits, loaded by CompiledNetwork) and compares every
// output with the f64 interpreter, bit for bit, in f32 and in f16: these
// layers copy or compare elements without arithmetic, and the inputs are
// multiples of 1/8 in [-4, 4], exact in both formats, so there is nothing to
// round. -inf and NaN inputs check that a NaN wins a max window and that
// cells beyond the input (padding, ceil_mode's overhang) never do.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

#include "compiler/CompiledNetwork.h"
#include "mixrt/mixrt.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {

/// Multiples of 1/8 in [-4, 4].
std::vector<float> eighths(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> k(-32, 32);
  std::vector<float> v(n);
  for (float &x : v)
    x = float(k(rng)) / 8.0f;
  return v;
}

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Compiles `source` with mixc, runs it on `inputs` (f32 buffers) and
/// compares every output with the interpreter's rounded to f32.
/// With `f16`, the layer's output is f16: the reference is rounded to f16.
/// With `tolerance`, a relative one (plus the same absolute, for results
/// near 0) instead of bit equality: interpolation weights that are not
/// dyadic fractions round in f32.
void compareWithReference(const std::string &source,
                          const std::vector<std::vector<float>> &inputs,
                          bool f16 = false, double tolerance = 0) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("layout", "mlir", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    REQUIRE(!ec);
    os << source;
  }
  CompileOptions options;
  options.modelPath = std::string(path);
  std::string diagnostics;
  llvm::raw_string_ostream diag(diagnostics);
  auto compiled = CompiledNetwork::compile(options, "", diag);
  llvm::sys::fs::remove(path);
  INFO(diagnostics);
  if (!compiled)
    FAIL(llvm::toString(compiled.takeError()));
  const NetworkSignature &sig = (*compiled)->signature();
  REQUIRE(sig.inputs.size() == inputs.size());

  std::vector<std::vector<float>> buffers = inputs;
  for (const HeaderTensor &t : sig.outputs)
    buffers.emplace_back(count(t.shape), -99.0f);
  std::vector<void *> pointers;
  for (auto &b : buffers)
    pointers.push_back(b.data());
  void *workspace = nullptr;
  if (uint64_t bytes = (*compiled)->workspaceBytes())
    REQUIRE(posix_memalign(&workspace, 64, bytes) == 0);
  mixrt_check_reset();
  (*compiled)->prepare(pointers, 1, workspace)();
  std::free(workspace);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OK);

  Model reference(source);
  std::vector<RefTensor> refInputs;
  for (auto [t, data] : llvm::zip_equal(sig.inputs, inputs)) {
    RefTensor r;
    r.shape.assign(t.shape.begin(), t.shape.end());
    r.data.assign(data.begin(), data.end());
    refInputs.push_back(std::move(r));
  }
  std::vector<RefTensor> expected = reference.ok(refInputs);
  for (size_t o = 0; o < expected.size(); ++o) {
    const std::vector<float> &got = buffers[inputs.size() + o];
    REQUIRE(got.size() == expected[o].data.size());
    for (size_t i = 0; i < got.size(); ++i) {
      double want = expected[o].data[i];
      INFO("output " << o << " element " << i << ": got " << got[i]
                     << ", reference " << want);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
        continue;
      }
      llvm::APFloat rounded(want);
      bool lost;
      rounded.convert(f16 ? llvm::APFloat::IEEEhalf()
                          : llvm::APFloat::IEEEsingle(),
                      llvm::APFloat::rmNearestTiesToEven, &lost);
      if (tolerance == 0)
        CHECK(double(got[i]) == rounded.convertToDouble());
      else
        CHECK(std::fabs(double(got[i]) - want) <=
              tolerance * (1 + std::fabs(want)));
    }
  }
}

std::string network(const char *precision, const std::string &args,
                    const std::string &body, const std::string &result) {
  return std::string("mix.network @n precision(") + precision + ") (" + args +
         ") -> " + result + " {\n" + body + "\n  mix.return %y : " + result +
         "\n}\n";
}

} // namespace

TEST_CASE("compiled gather and expand equal the reference", "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      // A scalar index: the CLS token x[:, 0].
      compareWithReference(
          network(precision, "%x: tensor<2x5x3xf32>",
                  "  %y = mix.gather %x {axis = 1 : i64, indices = dense<0> : "
                  "tensor<i64>} : (tensor<2x5x3xf32>) -> tensor<2x3xf32>",
                  "tensor<2x3xf32>"),
          {eighths(30, 11)}, f16);
      // 1-D indices along the last axis, repeated and out of order.
      compareWithReference(
          network(precision, "%x: tensor<2x5x3xf32>",
                  "  %y = mix.gather %x {axis = -1 : i64, indices = dense<[2, "
                  "0, 2, 1]> : tensor<4xi64>} : (tensor<2x5x3xf32>) -> "
                  "tensor<2x5x4xf32>",
                  "tensor<2x5x4xf32>"),
          {eighths(30, 12)}, f16);
      // 2-D indices along axis 0.
      compareWithReference(
          network(precision, "%x: tensor<4x3xf32>",
                  "  %y = mix.gather %x {axis = 0 : i64, indices = dense<[[3, "
                  "1], [0, 3], [2, 2]]> : tensor<3x2xi64>} : "
                  "(tensor<4x3xf32>) -> tensor<3x2x3xf32>",
                  "tensor<3x2x3xf32>"),
          {eighths(12, 13)}, f16);
      // Expand: a new leading dimension, a 1 broadcast, a kept dimension.
      compareWithReference(
          network(precision, "%x: tensor<3x1x2xf32>",
                  "  %y = mix.expand %x : (tensor<3x1x2xf32>) -> "
                  "tensor<2x3x4x2xf32>",
                  "tensor<2x3x4x2xf32>"),
          {eighths(6, 14)}, f16);
      compareWithReference(
          network(precision, "%x: tensor<1xf32>",
                  "  %y = mix.expand %x : (tensor<1xf32>) -> tensor<3x5xf32>",
                  "tensor<3x5xf32>"),
          {eighths(1, 15)}, f16);
    }
  }
}

TEST_CASE("compiled max_pool2d with dilations and ceil_mode equals the "
          "reference",
          "[exec][masks]") {
  for (const char *precision : {"f32", "f16"}) {
    SECTION(precision) {
      bool f16 = std::string(precision) == "f16";
      std::vector<float> x = eighths(2 * 7 * 7, 21);
      x[5] = std::nanf("");
      x[60] = -INFINITY;
      // Dilations 2 x 3 with padding.
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "dilations = array<i64: 2, 3>, padding = array<i64: 1, 0, 1, "
                  "1>} : (tensor<1x2x7x7xf32>) -> tensor<1x2x7x5xf32>",
                  "tensor<1x2x7x5xf32>"),
          {x}, f16);
      // ceil_mode: the last window of each row and column overhangs the
      // input by one cell.
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "strides = array<i64: 2, 2>, ceil_mode = true} : "
                  "(tensor<1x2x7x7xf32>) -> tensor<1x2x4x4xf32>",
                  "tensor<1x2x4x4xf32>"),
          {x}, f16);
      // Both, with padding; the last window that would start in the bottom
      // padding is dropped (2 rows, not 3).
      compareWithReference(
          network(precision, "%x: tensor<1x2x7x7xf32>",
                  "  %y = mix.max_pool2d %x {kernel = array<i64: 2, 2>, "
                  "strides = array<i64: 4, 2>, dilations = array<i64: 1, 2>, "
                  "padding = array<i64: 1, 1, 1, 1>, ceil_mode = true} : "
                  "(tensor<1x2x7x7xf32>) -> tensor<1x2x2x4xf32>",
                  "tensor<1x2x2x4xf32>"),
          {x}, f16);
    }
  }
}
