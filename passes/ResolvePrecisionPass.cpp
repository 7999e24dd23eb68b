//===- ResolvePrecisionPass.cpp - mix-resolve-precision -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PrecisionAnalysis.h"

namespace mix {
#define GEN_PASS_DEF_MIXRESOLVEPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {
struct MixResolvePrecisionPass
    : public mix::impl::MixResolvePrecisionPassBase<MixResolvePrecisionPass> {
  using Base::Base;

  void runOnOperation() override {
    ResolveCounts counts;
    if (failed(getAnalysis<PrecisionAnalysis>().record(&counts)))
      return signalPassFailure();
    markAllAnalysesPreserved(); // only `resolved` attributes changed
    numLayers += counts.layers;
    numFromNetwork +=
        counts.bySource[static_cast<unsigned>(PrecisionSource::network)];
    numFromBlock +=
        counts.bySource[static_cast<unsigned>(PrecisionSource::block)];
    numFromLayer +=
        counts.bySource[static_cast<unsigned>(PrecisionSource::layer)];
    numFromProperty +=
        counts.bySource[static_cast<unsigned>(PrecisionSource::property)];
    numDerived +=
        counts.bySource[static_cast<unsigned>(PrecisionSource::derived)];
  }
};
} // namespace
