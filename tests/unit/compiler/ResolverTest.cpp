//===- ResolverTest.cpp - the precision resolver's C++ API ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "passes/Passes.h"
#include "passes/PrecisionAnalysis.h"
#include "passes/Resolve.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mix;

namespace {
/// Parses `source` into a fresh module (the context outlives it).
struct Model {
  explicit Model(llvm::StringRef source) {
    loadMixDialects(context);
    context.printOpOnDiagnostic(false);
    module = parseSourceString<ModuleOp>(source, &context);
    REQUIRE(module);
  }
  /// The n-th layer op in IR order.
  LayerOpInterface layer(unsigned n) {
    SmallVector<LayerOpInterface> layers;
    module->walk([&](LayerOpInterface l) { layers.push_back(l); });
    REQUIRE(n < layers.size());
    return layers[n];
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

std::string str(const Decision &d) {
  return d.precision.str() + " from " + d.describe();
}

// Three nested blocks: @outer (bf16) > unnamed (no precision) > @inner (f16),
// plus layers at every level.
const char *kNested = R"mlir(
mix.network @net precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = mix.relu %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = mix.block @outer precision(bf16) (%i0 = %a) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    %m = mix.block (%i1 = %i0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
      %n = mix.block @inner precision(f16) (%i2 = %i1) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
        %w = mix.weight external "w" : tensor<8x8xf32>
        %d = mix.dense %i2, %w precision(weights = int8) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
        %e = mix.dense %d, %w precision(int8) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
        %f = mix.dense %e, %w precision(f64, output = f16) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
        mix.yield %f : tensor<4x8xf32>
      }
      %r = mix.relu %n : (tensor<4x8xf32>) -> tensor<4x8xf32>
      mix.yield %r : tensor<4x8xf32>
    }
    mix.yield %m : tensor<4x8xf32>
  }
  mix.return %o : tensor<4x8xf32>
}
)mlir";
} // namespace

TEST_CASE("layers inherit from the network", "[resolve]") {
  Model m(kNested);
  FailureOr<LayerResolution> r = resolveLayer(m.layer(0));
  REQUIRE(succeeded(r));
  CHECK_FALSE(r->weights); // relu has no weights
  CHECK(str(r->activations) == "f32 from network @net");
  CHECK(r->activations.source == PrecisionSource::network);
  CHECK(isa<NetworkOp>(r->activations.origin));
  CHECK(str(r->accumulator) == "f32 from derived");
  CHECK(r->accumulator.source == PrecisionSource::derived);
  CHECK(str(r->output) == "f32 from network @net");
}

TEST_CASE("the innermost block with a precision wins", "[resolve]") {
  Model m(kNested);
  // relu inside the unnamed block inherits bf16 from @outer.
  FailureOr<LayerResolution> relu = resolveLayer(m.layer(4));
  REQUIRE(succeeded(relu));
  CHECK(str(relu->activations) == "bf16 from block @outer");
  CHECK(relu->accumulator.precision.getKind() == PrecisionKind::f32);

  // dense in @inner (three blocks deep): weights overridden, rest f16.
  FailureOr<LayerResolution> d = resolveLayer(m.layer(1));
  REQUIRE(succeeded(d));
  REQUIRE(d->weights);
  CHECK(str(*d->weights) == "int8 from property");
  CHECK(d->weights->origin == m.layer(1).getOperation());
  CHECK(str(d->activations) == "f16 from block @inner");
  // int8 weights with f16 activations cannot accumulate in integers.
  CHECK(d->accumulator.precision.getKind() == PrecisionKind::f32);
  CHECK(str(d->output) == "f16 from block @inner");
}

TEST_CASE("int8 layers accumulate in i32 and output f32", "[resolve]") {
  Model m(kNested);
  FailureOr<LayerResolution> r = resolveLayer(m.layer(2));
  REQUIRE(succeeded(r));
  CHECK(str(*r->weights) == "int8 from layer");
  CHECK(str(r->activations) == "int8 from layer");
  CHECK(r->accumulator.precision.getKind() == PrecisionKind::i32);
  CHECK(r->accumulator.source == PrecisionSource::derived);
  CHECK(r->output.precision.getKind() == PrecisionKind::f32);
  CHECK(r->output.source == PrecisionSource::derived);
}

TEST_CASE("f64 layers accumulate in f64; property beats layer", "[resolve]") {
  Model m(kNested);
  FailureOr<LayerResolution> r = resolveLayer(m.layer(3));
  REQUIRE(succeeded(r));
  CHECK(r->activations.precision.getKind() == PrecisionKind::f64);
  CHECK(r->accumulator.precision.getKind() == PrecisionKind::f64);
  CHECK(str(r->output) == "f16 from property");
}

TEST_CASE("default accumulator and output table", "[resolve]") {
  MLIRContext ctx;
  loadMixDialects(ctx);
  auto p = [&](PrecisionKind k) { return PrecisionAttr::get(&ctx, k); };
  using K = PrecisionKind;
  struct Row {
    PrecisionAttr weights, activations;
    K accumulator;
  } rows[] = {
      {p(K::f16), p(K::f16), K::f32},   {p(K::bf16), p(K::bf16), K::f32},
      {p(K::f32), p(K::f32), K::f32},   {p(K::f64), p(K::f64), K::f64},
      {p(K::int8), p(K::int8), K::i32}, {p(K::int8), p(K::f16), K::f32},
      {p(K::f16), p(K::int8), K::f32},  {{}, p(K::int8), K::i32},
      {p(K::int8), p(K::f64), K::f64},  {{}, p(K::f16), K::f32},
  };
  for (const Row &row : rows) {
    INFO((row.weights ? row.weights.str() : "none")
         << " x " << row.activations.str());
    CHECK(defaultAccumulator(row.weights, row.activations).getKind() ==
          row.accumulator);
  }
  CHECK(defaultOutput(p(K::int8)).getKind() == K::f32);
  CHECK(defaultOutput(p(K::bf16)).getKind() == K::bf16);
  // The scheme of int8 does not matter for the accumulator.
  PrecisionAttr asym =
      PrecisionAttr::get(&ctx, K::int8, QuantScheme::asymmetric, 1);
  CHECK(defaultAccumulator(asym, asym).getKind() == K::i32);
}

TEST_CASE("inheritedPrecision ignores the op's own precision", "[resolve]") {
  Model m(kNested);
  BlockOp inner;
  m.module->walk([&](BlockOp b) {
    if (b.getSymNameAttr() && b.getSymNameAttr().getValue() == "inner")
      inner = b;
  });
  REQUIRE(inner);
  FailureOr<Decision> inherited = inheritedPrecision(inner);
  REQUIRE(succeeded(inherited));
  CHECK(str(*inherited) == "bf16 from block @outer");
  FailureOr<Decision> own = effectivePrecision(inner);
  REQUIRE(succeeded(own));
  CHECK(str(*own) == "f16 from block @inner");
}

TEST_CASE("resolvePrecisions records provenance and is idempotent",
          "[resolve]") {
  Model m(kNested);
  ResolveCounts counts;
  REQUIRE(succeeded(resolvePrecisions(*m.module, &counts)));
  CHECK(counts.layers == 5);
  // Properties: relu 3, dense 4 x 3, relu 3 = 18.
  unsigned total = 0;
  for (unsigned n : counts.bySource)
    total += n;
  CHECK(total == 18);
  CHECK(counts.bySource[static_cast<unsigned>(PrecisionSource::network)] == 2);
  CHECK(counts.bySource[static_cast<unsigned>(PrecisionSource::property)] == 2);

  ResolvedAttr attr = m.layer(1).getResolution();
  REQUIRE(attr);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  os << attr;
  CHECK(printed ==
        "#mix.resolved<weights = int8 from property, activations = f16 from "
        "block @inner, accumulator = f32 from derived, output = f16 from "
        "block @inner>");

  std::string before;
  llvm::raw_string_ostream b(before);
  m.module->print(b);
  REQUIRE(succeeded(resolvePrecisions(*m.module)));
  std::string after;
  llvm::raw_string_ostream a(after);
  m.module->print(a);
  CHECK(before == after);
}

TEST_CASE("an inherited int8 axis outside the tensor rank fails", "[resolve]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %o = mix.block @q precision(int8<symmetric, axis = 2>) (%i = %x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    %w = mix.weight external "w" : tensor<8x8xf32>
    %d = mix.dense %i, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    mix.yield %d : tensor<4x8xf32>
  }
  mix.return %o : tensor<4x8xf32>
}
)mlir");
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&m.context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    for (Diagnostic &note : diag.getNotes())
      messages.push_back("note: " + note.str());
    return success();
  });
  CHECK(failed(resolveLayer(m.layer(0))));
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] ==
        "'mix.dense' op inherits weights precision int8<symmetric, axis = 2> "
        "quantized along axis 2, but its weights tensor has rank 2");
  CHECK(messages[1] == "note: precision inherited from block @q");
}

namespace {
/// Counts how often a pass manager computes the precision analysis (a cached
/// analysis is not computed again, so this counts real resolutions).
struct CountPrecisionAnalyses : public PassInstrumentation {
  explicit CountPrecisionAnalyses(unsigned &count) : count(count) {}
  void runBeforeAnalysis(StringRef, TypeID id, Operation *) override {
    if (id == TypeID::get<PrecisionAnalysis>())
      ++count;
  }
  unsigned &count;
};

constexpr const char *kPipelineModel = R"mlir(
mix.network @net precision(f32) (%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %y = mix.block @half precision(f16) (%a = %x) : (tensor<1x2xf32>) -> tensor<1x2xf32> {
    %r = mix.relu %a : (tensor<1x2xf32>) -> tensor<1x2xf32>
    mix.yield %r : tensor<1x2xf32>
  }
  %w = mix.weight dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = mix.weight dense<[0.5, -0.5]> : tensor<2xf32>
  %z = mix.dense %y, %w, %b precision(int8) : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  mix.return %z : tensor<1x2xf32>
}
)mlir";
} // namespace

TEST_CASE("the passes of a pipeline share one precision resolution",
          "[resolve][analysis]") {
  Model m(kPipelineModel);
  unsigned computed = 0;
  PassManager pm(&m.context);
  pm.addInstrumentation(std::make_unique<CountPrecisionAnalyses>(computed));
  pm.addPass(createMixResolvePrecisionPass());
  pm.addPass(createMixVerifyPolicyPass());
  pm.addPass(createMixInsertCastsPass());
  pm.addPass(createMixCheckInt8AccumulationPass());
  REQUIRE(succeeded(pm.run(*m.module)));
  // Resolve computes it; verify-policy, insert-casts and the int32 proof
  // reuse it.
  CHECK(computed == 1);

  // mix-quantize reuses it too, then replaces the int8 layer, so the
  // lowering resolves what is left once more.
  PassManager rest(&m.context);
  rest.addInstrumentation(std::make_unique<CountPrecisionAnalyses>(computed));
  rest.addPass(createMixResolvePrecisionPass());
  rest.addPass(createMixQuantizePass());
  rest.addPass(createConvertMixToLinalgPass());
  REQUIRE(succeeded(rest.run(*m.module)));
  CHECK(computed == 3);
}

TEST_CASE("the precision analysis agrees with resolveLayer and resolves each "
          "layer once",
          "[resolve][analysis]") {
  Model m(kNested);
  PrecisionAnalysis precisions(*m.module);
  SmallVector<LayerOpInterface> layers;
  m.module->walk([&](LayerOpInterface l) { layers.push_back(l); });
  REQUIRE(layers.size() == 5);
  for (int pass = 0; pass < 2; ++pass) {
    for (LayerOpInterface layer : layers) {
      FailureOr<LayerResolution> cached = precisions.resolve(layer);
      FailureOr<LayerResolution> direct = resolveLayer(layer);
      REQUIRE(succeeded(cached));
      REQUIRE(succeeded(direct));
      CHECK(cached->toAttr(&m.context) == direct->toAttr(&m.context));
      CHECK(cached->layer.origin == direct->layer.origin);
    }
  }
  CHECK(precisions.getNumComputed() == 5);
}
