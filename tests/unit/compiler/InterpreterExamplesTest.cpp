//===- InterpreterExamplesTest.cpp - the examples in the interpreter ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The bundled examples run in the interpreter with deterministic weights and
// inputs: shapes, finite outputs, softmax rows that sum to 1, and the error
// of a missing weight.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

using namespace mlir;
using namespace mix;
using namespace mix::test;

//===----------------------------------------------------------------------===//
// The bundled examples
//===----------------------------------------------------------------------===//

namespace {

/// The repository root (MIXC_SOURCE_DIR, from CMake: `__FILE__` is relative
/// when ccache's base_dir rewrites the compiler's paths).
std::string repoRoot() { return MIXC_SOURCE_DIR; }

/// Deterministic values in [-scale, scale) (a 64-bit LCG).
std::vector<double> pseudoRandom(int64_t n, uint64_t &state, double scale) {
  std::vector<double> v(n);
  for (double &x : v) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    x = scale * (static_cast<double>(state >> 11) * 0x1.0p-53 * 2 - 1);
  }
  return v;
}

/// A weight for every external reference in `module`: variances are
/// positive, everything else small enough to keep activations moderate.
WeightMap makeWeights(ModuleOp module) {
  WeightMap weights;
  uint64_t state = 42;
  module.walk([&](WeightOp op) {
    StringAttr ref = op.getRefAttr();
    if (!ref || weights.count(ref.getValue()))
      return;
    auto type = cast<RankedTensorType>(op.getType());
    RefTensor t;
    t.shape.assign(type.getShape().begin(), type.getShape().end());
    int64_t fanIn = type.getRank() >= 2
                        ? t.numElements() / type.getShape()[type.getRank() - 1]
                        : 1;
    if (type.getRank() == 4) // FCHW: fan-in is C * KH * KW
      fanIn = t.numElements() / type.getShape()[0];
    t.data = pseudoRandom(t.numElements(), state,
                          1.0 / std::sqrt(static_cast<double>(fanIn)));
    if (ref.getValue().ends_with(".var"))
      for (double &v : t.data)
        v = 1 + std::abs(v);
    weights[ref.getValue()] = std::move(t);
  });
  return weights;
}

/// Inputs for every network argument: floats in [-1, 1), integers in
/// [0, classes).
std::vector<RefTensor> makeInputs(NetworkOp network, int64_t classes) {
  std::vector<RefTensor> inputs;
  uint64_t state = 7;
  for (Type type : network.getArgumentTypes()) {
    auto tensorType = cast<RankedTensorType>(type);
    RefTensor t;
    t.shape.assign(tensorType.getShape().begin(), tensorType.getShape().end());
    t.data = pseudoRandom(t.numElements(), state, 1.0);
    if (tensorType.getElementType().isInteger())
      for (double &v : t.data)
        v = std::floor((v + 1) / 2 * static_cast<double>(classes));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

struct Example {
  explicit Example(llvm::StringRef name) {
    loadMixDialects(context);
    auto loaded = loadModel(repoRoot() + "/examples/" + name.str(), context);
    if (!loaded)
      FAIL(llvm::toString(loaded.takeError()));
    module = std::move(*loaded);
    network = *module->getOps<NetworkOp>().begin();
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  NetworkOp network;
};

void checkFinite(const RefTensor &t) {
  for (double v : t.data)
    REQUIRE(std::isfinite(v));
}

/// Checks that every row along the last dimension sums to 1.
void checkSoftmaxRows(const RefTensor &t) {
  int64_t d = t.shape.back();
  for (int64_t r = 0; r < t.numElements() / d; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < d; ++i) {
      CHECK(t.data[r * d + i] >= 0);
      sum += t.data[r * d + i];
    }
    CHECK(std::abs(sum - 1) <= 1e-12);
  }
}

} // namespace

TEST_CASE("example: resnet", "[interp]") {
  Example ex("resnet.mlir");
  auto out = interpret(ex.network, makeInputs(ex.network, 10),
                       makeWeights(*ex.module));
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 2);
  CHECK(shapeOf((*out)[0]) == Shape{2, 10});
  CHECK((*out)[1].shape.empty());
  checkFinite((*out)[0]);
  checkFinite((*out)[1]);
  CHECK((*out)[1].data[0] > 0);
}

TEST_CASE("example: transformer", "[interp]") {
  Example ex("transformer.mlir");
  auto out = interpret(ex.network, makeInputs(ex.network, 50),
                       makeWeights(*ex.module));
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 2);
  CHECK(shapeOf((*out)[0]) == Shape{2, 8, 50});
  checkFinite((*out)[0]);
  checkSoftmaxRows((*out)[0]);
  CHECK((*out)[1].shape.empty());
  checkFinite((*out)[1]);
  CHECK((*out)[1].data[0] > 0);
}

TEST_CASE("example: edge_int8", "[interp]") {
  Example ex("edge_int8.mlir");
  WeightMap weights = makeWeights(*ex.module);
  auto out = interpret(ex.network, makeInputs(ex.network, 10), weights);
  if (!out)
    FAIL(llvm::toString(out.takeError()));
  REQUIRE(out->size() == 1);
  CHECK(shapeOf((*out)[0]) == Shape{1, 10});
  checkFinite((*out)[0]);
  checkSoftmaxRows((*out)[0]);

  // A missing weight is reported at the op that references it.
  weights.erase("classifier.fc2.bias");
  auto missing = interpret(ex.network, makeInputs(ex.network, 10), weights);
  bool succeeded = static_cast<bool>(missing);
  REQUIRE_FALSE(succeeded);
  CHECK(llvm::toString(missing.takeError()) ==
        repoRoot() + "/examples/edge_int8.mlir:59:11: external weight "
                     "'classifier.fc2.bias' is not in the weight map");
}
