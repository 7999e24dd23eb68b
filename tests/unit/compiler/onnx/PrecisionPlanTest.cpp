//===- PrecisionPlanTest.cpp - module paths and precision plans -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/PrecisionPlan.h"
#include "compiler/ModelLoader.h"
#include "compiler/onnx/Importer.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mix;

namespace {

/// A plan file with `text`, removed when the test ends.
struct PlanFile {
  explicit PlanFile(llvm::StringRef text) {
    llvm::SmallString<128> p;
    int fd;
    REQUIRE(!llvm::sys::fs::createTemporaryFile("plan", "json", fd, p));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    path = p.str().str();
  }
  ~PlanFile() { llvm::sys::fs::remove(path); }
  std::string path;
};

/// What the importer builds: blocks named by dotted paths, layers located
/// at NameLoc(node name).
const char kModel[] = R"mlir(
mix.network @net precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = mix.block @enc (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    %1 = mix.block @enc.layer.0 (%b = %a) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
      %w = mix.weight dense<0.5> : tensor<4x4xf32>
      %d = mix.dense %b, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32> loc("/enc/layer.0/MatMul"("m.onnx":1:1))
      %s = mix.softmax %d : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("/enc/layer.0/Softmax"("m.onnx":2:1))
      mix.yield %s : tensor<2x4xf32>
    }
    mix.yield %1 : tensor<2x4xf32>
  }
  mix.return %0 : tensor<2x4xf32>
}
)mlir";

} // namespace

TEST_CASE("module paths of node names", "[onnx]") {
  using onnx_import::modulePath;
  CHECK(modulePath("/encoder/layer.0/attn/MatMul") ==
        std::vector<std::string>{"encoder", "layer.0", "attn"});
  CHECK(modulePath("/Relu").empty());
  CHECK(modulePath("Gemm_0").empty());
  CHECK(modulePath("").empty());
  CHECK(modulePath("//a//b/Op") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a precision plan is written as block, layer and property "
          "precisions",
          "[onnx]") {
  MLIRContext context;
  loadMixDialects(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModel, &context);
  REQUIRE(module);
  PlanFile file(R"({"default": "bf16", "blocks": {"enc.*": "f16"},
                    "ops": {"softmax": "f32"},
                    "nodes": {"/enc/layer.0/MatMul": {"weights": "int8",
                                                      "accumulator": "f32"}}})");
  auto plan = loadPrecisionPlan(file.path, context);
  REQUIRE(static_cast<bool>(plan));
  auto network = *module->getOps<NetworkOp>().begin();
  llvm::Error error = applyPrecisionPlan(*plan, network);
  REQUIRE(!static_cast<bool>(error));
  CHECK(network.getPrecision().str() == "bf16");
  SmallVector<BlockOp> blocks;
  network.walk<WalkOrder::PreOrder>([&](BlockOp b) { blocks.push_back(b); });
  REQUIRE(blocks.size() == 2);
  CHECK(!blocks[0].getPrecisionAttr()); // @enc does not match "enc.*"
  REQUIRE(blocks[1].getPrecisionAttr());
  CHECK(blocks[1].getPrecisionAttr().str() == "f16");
  DenseOp dense;
  network.walk([&](DenseOp d) { dense = d; });
  REQUIRE(dense);
  REQUIRE(dense.getWeightsPrecisionAttr());
  CHECK(dense.getWeightsPrecisionAttr().str() == "int8");
  CHECK(dense.getAccumulatorPrecisionAttr().str() == "f32");
  CHECK(!dense.getPrecisionAttr());
}

TEST_CASE("precision plan errors name the key", "[onnx]") {
  MLIRContext context;
  loadMixDialects(context);
  auto message = [&](llvm::StringRef text) {
    PlanFile file(text);
    auto plan = loadPrecisionPlan(file.path, context);
    if (static_cast<bool>(plan))
      return std::string();
    std::string m = llvm::toString(plan.takeError());
    return m.substr(m.find(": ") + 2);
  };
  CHECK(message(R"({"ops": {"dense": {"wieghts": "int8"}}})") ==
        "ops.dense.wieghts: unknown key (expected precision, weights, "
        "activations, accumulator or output)");
  CHECK(
      message(R"({"blocks": {"a": {"precision": "f16", "weights": "f16"}}})") ==
      "blocks.a.weights: unknown key (a block has only a precision)");
  CHECK(message(R"({"nodes": {"/a/B": 3}})") ==
        "nodes./a/B: expected a precision or an object, got a number");
  CHECK(message(R"({"default": "i32"})") ==
        "default: i32 is only a precision of the accumulator");
  CHECK(message(R"({"ops": {"dense": {"accumulator": "i32"}}})").empty());
}
