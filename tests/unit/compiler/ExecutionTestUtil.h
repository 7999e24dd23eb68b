//===- ExecutionTestUtil.h - compiled networks vs the interpreter -*- C++
//-*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What the execution tests of the layer families (data movement, masks,
// normalization, math) share: inputs that keep sums exact, rounding and ulp
// helpers, and running a network compiled by mixc (the object mixc emits,
// loaded by CompiledNetwork) next to the f64 interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_TESTS_UNIT_COMPILER_EXECUTIONTESTUTIL_H
#define MIXC_TESTS_UNIT_COMPILER_EXECUTIONTESTUTIL_H

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
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mix::test {

/// `n` multiples of 1/8 in [-4, 4]: exact in f16, and their sums of up to
/// 2^13 terms are exact in f32.
inline std::vector<float> eighths(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> k(-32, 32);
  std::vector<float> v(n);
  for (float &x : v)
    x = float(k(rng)) / 8.0f;
  return v;
}

/// The number of elements of `shape`.
inline int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// `x` rounded to nearest even in the format `sem`.
inline double roundTo(double x, const llvm::fltSemantics &sem) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}

/// One ulp of `x` in the format `sem` (of its binade; the smallest
/// subnormal step below the normal range; at the largest finite value, the
/// step below it).
inline double ulp(double x, const llvm::fltSemantics &sem) {
  llvm::APFloat v(std::fabs(roundTo(x, sem)));
  bool lost;
  v.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  llvm::APFloat next = v;
  next.next(false);
  if (next.isInfinity()) {
    next = v;
    next.next(true);
    return std::fabs(v.convertToDouble() - next.convertToDouble());
  }
  return next.convertToDouble() - v.convertToDouble();
}

/// "tensor<2x3xf32>" for {2, 3}.
inline std::string f32TensorType(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// `source` written to a new temporary `.mlir` file named after `prefix`,
/// for mixc to compile (the caller removes it); initializes the native
/// target for the in-process JIT.
inline std::string writeTemporaryModel(const std::string &source,
                                       const char *prefix) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::SmallString<128> path;
  REQUIRE(!llvm::sys::fs::createTemporaryFile(prefix, "mlir", path));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  REQUIRE(!ec);
  os << source;
  return path.str().str();
}

/// Compiles `source` with mixc (`configure`, if given, changes options) and
/// loads it; fails the test with mixc's diagnostics if it does not compile.
inline std::unique_ptr<CompiledNetwork> compileSource(
    const std::string &source,
    const std::function<void(CompileOptions &)> &configure = nullptr) {
  std::string path = writeTemporaryModel(source, "exec");
  CompileOptions options;
  options.modelPath = path;
  if (configure)
    configure(options);
  std::string diagnostics;
  llvm::raw_string_ostream diag(diagnostics);
  auto compiled = CompiledNetwork::compile(options, "", diag);
  llvm::sys::fs::remove(path);
  INFO(source);
  INFO(diagnostics);
  if (!compiled)
    FAIL(llvm::toString(compiled.takeError()));
  return std::move(*compiled);
}

/// Runs `compiled` once on `pointers` (its inputs, then its outputs) with a
/// fresh workspace, and checks that no run-time check failed.
inline void runOnce(CompiledNetwork &compiled, std::vector<void *> pointers) {
  void *workspace = nullptr;
  if (uint64_t bytes = compiled.workspaceBytes())
    REQUIRE(posix_memalign(&workspace, 64, bytes) == 0);
  mixrt_check_reset();
  compiled.prepare(pointers, 1, workspace)();
  std::free(workspace);
  CHECK(mixrt_check_status() == MIXRT_STATUS_OK);
}

/// A compiled network's outputs and the interpreter's for the same inputs.
struct ExecutionResult {
  std::vector<std::vector<float>> compiled;
  std::vector<RefTensor> reference;
};

/// Compiles `source` with mixc (with the default policy unless
/// `verifyPolicy` is false; `configure`, if given, changes any other
/// option), runs it once on `inputs` (f32 buffers, one per network input;
/// the outputs are f32 too), checks that no run-time check failed, and runs
/// the interpreter on the same inputs.
inline ExecutionResult
runBoth(const std::string &source,
        const std::vector<std::vector<float>> &inputs, bool verifyPolicy = true,
        const std::function<void(CompileOptions &)> &configure = nullptr) {
  auto compiled = compileSource(source, [&](CompileOptions &options) {
    options.pipeline.verifyPolicy = verifyPolicy;
    if (configure)
      configure(options);
  });
  const NetworkSignature &sig = compiled->signature();
  REQUIRE(sig.inputs.size() == inputs.size());

  std::vector<std::vector<float>> buffers = inputs;
  for (const HeaderTensor &t : sig.outputs)
    buffers.emplace_back(count(t.shape), -99.0f);
  std::vector<void *> pointers;
  for (auto &b : buffers)
    pointers.push_back(b.data());
  runOnce(*compiled, pointers);

  Model reference(source);
  std::vector<RefTensor> refInputs;
  for (auto [t, data] : llvm::zip_equal(sig.inputs, inputs)) {
    RefTensor r;
    r.shape.assign(t.shape.begin(), t.shape.end());
    r.data.assign(data.begin(), data.end());
    refInputs.push_back(std::move(r));
  }
  ExecutionResult result;
  result.reference = reference.ok(refInputs);
  result.compiled.assign(buffers.begin() + inputs.size(), buffers.end());
  REQUIRE(result.compiled.size() == result.reference.size());
  return result;
}

/// Compiles and runs `source` on `inputs` and compares every output with
/// the interpreter's rounded to f32 (to f16 with `f16`, for a layer whose
/// output is f16), bit for bit; NaN must be NaN. With `tolerance`, a
/// relative one (plus the same absolute, for results near 0) instead of
/// bit equality.
inline void compareWithReference(const std::string &source,
                                 const std::vector<std::vector<float>> &inputs,
                                 bool f16 = false, double tolerance = 0) {
  ExecutionResult r = runBoth(source, inputs);
  for (size_t o = 0; o < r.reference.size(); ++o) {
    const std::vector<float> &got = r.compiled[o];
    REQUIRE(got.size() == r.reference[o].data.size());
    for (size_t i = 0; i < got.size(); ++i) {
      double want = r.reference[o].data[i];
      INFO("output " << o << " element " << i << ": got " << got[i]
                     << ", reference " << want);
      if (std::isnan(want)) {
        CHECK(std::isnan(got[i]));
        continue;
      }
      if (tolerance == 0)
        CHECK(double(got[i]) ==
              roundTo(want, f16 ? llvm::APFloat::IEEEhalf()
                                : llvm::APFloat::IEEEsingle()));
      else
        CHECK(std::fabs(double(got[i]) - want) <=
              tolerance * (1 + std::fabs(want)));
    }
  }
}

} // namespace mix::test

#endif // MIXC_TESTS_UNIT_COMPILER_EXECUTIONTESTUTIL_H
