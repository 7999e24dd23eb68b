//===- resolve_bench.cpp - resolution and policy-check throughput ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Measures mix-resolve-precision and mix-verify-policy on generated networks
// of 1,000 to 100,000 layers in blocks nested four deep, and fits the
// complexity (expected: O(N)). `bench_resolve --generate N` prints such a
// network instead, e.g. to time `mix-lint` on it.
//
//===----------------------------------------------------------------------===//

#include "NetworkGenerator.h"
#include "compiler/ModelLoader.h"
#include "dialect/MixOps.h"
#include "mlir/Parser/Parser.h"
#include "passes/PolicyCheck.h"
#include "passes/Resolve.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>

using namespace mlir;
using namespace mix;

namespace {
struct Loaded {
  Loaded(unsigned layers) {
    loadMixDialects(context);
    module =
        parseSourceString<ModuleOp>(bench::generateNetwork(layers), &context);
    if (!module) {
      std::cerr << "generated network does not parse\n";
      std::abort();
    }
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

void clearResolutions(ModuleOp module) {
  module.walk([](LayerOpInterface l) { l.setResolution({}); });
}

/// mix-resolve-precision on an unresolved module (attributes cleared
/// outside the timed region each iteration).
void BM_ResolvePrecision(benchmark::State &state) {
  Loaded m(state.range(0));
  for (auto _ : state) {
    state.PauseTiming();
    clearResolutions(*m.module);
    state.ResumeTiming();
    if (failed(resolvePrecisions(*m.module)))
      state.SkipWithError("resolution failed");
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}

/// mix-verify-policy with the default policy (resolves and checks).
void BM_VerifyPolicy(benchmark::State &state) {
  Loaded m(state.range(0));
  Policy policy = Policy::getDefault();
  policy.blocks["b1"].deny = {PrecisionKind::int8};
  size_t findings = 0;
  for (auto _ : state) {
    FailureOr<std::vector<Finding>> f = checkPolicy(*m.module, policy);
    if (failed(f))
      state.SkipWithError("policy check failed");
    findings = f->size();
    benchmark::DoNotOptimize(findings);
  }
  state.counters["findings"] = findings;
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}

/// Parsing the same text, as a yardstick for the two above.
void BM_ParseReference(benchmark::State &state) {
  std::string text = bench::generateNetwork(state.range(0));
  MLIRContext context;
  loadMixDialects(context);
  for (auto _ : state) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    benchmark::DoNotOptimize(module.get());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetComplexityN(state.range(0));
}
} // namespace

BENCHMARK(BM_ParseReference)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK(BM_ResolvePrecision)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK(BM_VerifyPolicy)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

int main(int argc, char **argv) {
  if (argc == 3 && std::strcmp(argv[1], "--generate") == 0) {
    std::cout << bench::generateNetwork(std::stoul(argv[2]));
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
