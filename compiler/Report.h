//===- Report.h - the precision report of a compilation -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What `mixc --report` tells: per layer, every property's resolved precision
// and who decided it; the casts inserted per network/block; the weight bytes
// the compiled model embeds per stored precision, against an all-f32 build;
// the int32 overflow-proof margin of every int8 layer. Filled in stages by
// the driver as the pipeline runs:
//
//   load + bind weights -> recordModel() -> casts phase -> recordCasts()
//   -> quantize phase -> recordQuantized() -> rest of the pipeline
//   -> recordMemoryPlan() per network
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_REPORT_H
#define MIXC_COMPILER_REPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mix {

/// The static memory plan of one network (mix-plan-memory), in bytes.
struct MemoryPlanSummary {
  int64_t workspace = 0;     ///< the planned workspace
  int64_t intermediates = 0; ///< the sum of all intermediate buffers
  int64_t peak = 0;          ///< the liveness lower bound
};

class PrecisionReport {
public:
  /// One property of a layer: its precision and its provenance.
  struct Property {
    std::string name;      ///< weights, activations, accumulator, output
    std::string precision; ///< e.g. "int8<asymmetric>", "f16"
    std::string source;    ///< network, block, layer, property, derived
    std::string origin;    ///< "network @edge", "block @features", ...
  };
  struct Layer {
    std::string path;     ///< getLayerPath()
    std::string kind;     ///< "conv2d"
    std::string location; ///< file:line:col
    std::vector<Property> properties;
    /// int8 layers: the contraction length, the worst-case sum and the
    /// margin to 2^31 - 1 (negative: split K), and the K chunk if split.
    std::optional<int64_t> k, worstCase, margin, kChunk;
  };
  struct Scope {
    std::string name; ///< "network @edge", "block @edge/features"
    unsigned casts = 0;
  };

  /// The model before the pipeline, weights bound inline: layers, their
  /// resolution, the all-f32 weight bytes. Fails (with a diagnostic) if a
  /// layer cannot be resolved.
  mlir::LogicalResult recordModel(mlir::ModuleOp module);
  /// After the `casts` phase: casts per scope and the int8 proofs.
  void recordCasts(mlir::ModuleOp module);
  /// After the `quantize` phase: the bytes of every weight constant per
  /// element type (quantized weights, their scales and zero points
  /// included).
  void recordQuantized(mlir::ModuleOp module);
  /// After the `llvm` phase: the memory plan of network @`network`.
  void recordMemoryPlan(const std::string &network,
                        const MemoryPlanSummary &plan) {
    memoryPlans_[network] = plan;
  }

  const std::vector<Layer> &layers() const { return layers_; }
  const std::vector<Scope> &scopes() const { return scopes_; }
  /// Bytes per stored element type ("int8", "f32", "i32", ...).
  const std::map<std::string, int64_t> &weightBytes() const {
    return weightBytes_;
  }
  int64_t totalWeightBytes() const;
  int64_t f32WeightBytes() const { return f32Bytes_; }
  /// totalWeightBytes() / f32WeightBytes() (1 without weights).
  double weightRatio() const;

  llvm::json::Value toJSON() const;
  /// The text form: tables of layers, casts, weights and int8 proofs.
  void print(llvm::raw_ostream &os) const;

private:
  std::vector<Layer> layers_;
  std::vector<Scope> scopes_;
  std::map<std::string, int64_t> weightBytes_;
  int64_t f32Bytes_ = 0;
  std::map<std::string, MemoryPlanSummary> memoryPlans_;
};

} // namespace mix

#endif // MIXC_COMPILER_REPORT_H
