//===- LayerProfile.h - per-layer times of profiled code ------*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Code compiled with the pipeline option `profile-layers`
// (mix-profile-layers) calls mixc_profile_begin(where) before each layer and
// mixc_profile_end(where) after it, `where` being the layer's label
// ("file:line:col", and " (name)" for a named location such as an ONNX
// node's: lowering::layerLabel). This file defines both for code loaded into
// the process (CompiledNetwork registers them) and collects the times: a steady
// clock read at each call, summed per layer. One network runs at a time, on the
// calling thread (the microkernels' helper threads never call these).
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_LAYERPROFILE_H
#define MIXC_COMPILER_LAYERPROFILE_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

extern "C" {
void mixc_profile_begin(const char *where);
void mixc_profile_end(const char *where);
}

namespace mix {

/// The time of one layer since the last reset.
struct LayerTime {
  /// The layer's label: "file:line:col", and " (name)" if it has one.
  std::string where;
  /// Completed begin/end pairs.
  uint64_t calls = 0;
  double seconds = 0;
};

/// Forgets every time collected so far.
void resetLayerProfile();

/// The layers timed since the last reset, in the order they first ran.
std::vector<LayerTime> layerProfile();

/// What the source model says of a layer: its op ("conv2d") and, for the
/// GEMM-shaped layers with static shapes (dense, matmul, conv2d), the
/// arithmetic of one run, 2 x multiply-adds.
struct LayerInfo {
  std::string op;
  std::optional<double> ops;
};

/// The layers of `module` (a mix model as loaded) by their label
/// (lowering::layerLabel, as mix-profile-layers writes it).
std::map<std::string, LayerInfo> describeLayers(mlir::ModuleOp module);

} // namespace mix

#endif // MIXC_COMPILER_LAYERPROFILE_H
