//===- InterpreterTestUtil.h - helpers of the interpreter tests -*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shared by InterpreterTest.cpp (structure, weights, casts, errors),
// InterpreterLayersTest.cpp (every layer against hand-computed values) and
// InterpreterExamplesTest.cpp (the bundled examples): parsing a model,
// building tensors, comparing results.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_TESTS_UNIT_COMPILER_INTERPRETERTESTUTIL_H
#define MIXC_TESTS_UNIT_COMPILER_INTERPRETERTESTUTIL_H

#include "compiler/Interpreter.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace mix::test {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Parses `source` (as file `test.mlir`) into a fresh module.
struct Model {
  explicit Model(llvm::StringRef source, bool allowUnregistered = false) {
    loadMixDialects(context);
    context.allowUnregisteredDialects(allowUnregistered);
    context.printOpOnDiagnostic(false);
    module = mlir::parseSourceString<mlir::ModuleOp>(
        source, mlir::ParserConfig(&context), "test.mlir");
    REQUIRE(module);
  }
  NetworkOp network() {
    auto networks = module->getOps<NetworkOp>();
    REQUIRE(!networks.empty());
    return *networks.begin();
  }
  llvm::Expected<std::vector<RefTensor>> run(std::vector<RefTensor> inputs,
                                             const WeightMap &weights = {}) {
    return interpret(network(), inputs, weights);
  }
  /// Runs the network and requires success.
  std::vector<RefTensor> ok(std::vector<RefTensor> inputs,
                            const WeightMap &weights = {}) {
    auto results = run(std::move(inputs), weights);
    if (!results)
      FAIL(llvm::toString(results.takeError()));
    return std::move(*results);
  }
  /// Runs the network and requires an error; returns its message.
  std::string error(std::vector<RefTensor> inputs,
                    const WeightMap &weights = {}) {
    auto results = run(std::move(inputs), weights);
    bool succeeded = static_cast<bool>(results);
    REQUIRE_FALSE(succeeded);
    return llvm::toString(results.takeError());
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

inline RefTensor tensor(std::initializer_list<int64_t> shape,
                        std::vector<double> data) {
  RefTensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.data = std::move(data);
  return t;
}

using Shape = std::vector<int64_t>;
inline Shape shapeOf(const RefTensor &t) {
  return Shape(t.shape.begin(), t.shape.end());
}

/// Checks every value within a relative tolerance (absolute near zero).
inline void checkClose(const std::vector<double> &actual,
                       const std::vector<double> &expected,
                       double rel = 1e-12) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i << ": " << actual[i] << " vs " << expected[i]);
    CHECK(std::abs(actual[i] - expected[i]) <=
          rel * std::max(1.0, std::abs(expected[i])));
  }
}

/// A one-layer network `(%x: <in>) -> <out>` around `body`, which defines
/// `%y` from `%x`.
inline std::string unary(llvm::StringRef in, llvm::StringRef out,
                         llvm::StringRef body) {
  return ("mix.network @net precision(f32) (%x: " + in + ") -> " + out +
          " {\n" + body + "\n  mix.return %y : " + out + "\n}\n")
      .str();
}

} // namespace mix::test

#endif // MIXC_TESTS_UNIT_COMPILER_INTERPRETERTESTUTIL_H
