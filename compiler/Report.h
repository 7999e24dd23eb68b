//===- Report.h - the precision report of a compilation -------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// What `mixc --report` tells: per layer, every property's resolved precision
// and who decided it; the casts inserted per network/block; the weight bytes
// the compiled model embeds per stored precision, against an all-f32 build;
// the int32 overflow-proof margin of every int8 layer; the code bytes of the
// object per precision, per layer and per function. Filled in stages by the
// driver as the pipeline runs:
//
//   load + bind weights -> recordModel() -> casts phase -> recordCasts()
//   -> quantize phase -> recordQuantized() -> rest of the pipeline
//   -> recordMemoryPlan() per network -> code generation -> recordCode()
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_REPORT_H
#define MIXC_COMPILER_REPORT_H

#include "compiler/CodeSize.h"
#include "mlir/IR/BuiltinOps.h"
#include "passes/PrecisionAnalysis.h"
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

/// The report's name of a network or block: "network @edge",
/// "block @edge/features" (unnamed blocks: "block#<index>"), unique even when
/// blocks of different networks share a name.
std::string getScopeLabel(mlir::Operation *scope);

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
    /// A batch_norm folded into a conv2d (mix-fold-batch-norm): that conv2d's
    /// layer path.
    std::optional<std::string> foldedInto;
    /// The layer functions that compute this layer (indices into
    /// codeFunctions()), once the code is recorded.
    std::vector<size_t> codeFunctions;
    /// The casts mix-insert-casts put on this layer's inputs, once the
    /// casts are recorded: the element types converted from and to, and
    /// the layer path of the value's producer, through block bindings
    /// (empty: a network input or the result of a block).
    struct CastIn {
      std::string from, to, producer;
    };
    std::vector<CastIn> castsIn;
    /// The bytes of the weight constants this layer reads after
    /// mix-quantize (quantized weights with their scales and zero points),
    /// once the quantized model is recorded; a weight read by several layers
    /// counts at each.
    std::optional<int64_t> weightBytes;
    /// int8 layers, once the quantized model is recorded: the static
    /// (calibrated) quantizations of its inputs, and how many are computed
    /// per call from the data (dynamic: without a calibration file, and
    /// always for values inside the layer: an lstm's state, an attention's
    /// context).
    struct StaticScale {
      double scale = 0;
      int64_t zeroPoint = 0;
      double min = 0, max = 0; ///< the range the scale represents
    };
    std::vector<StaticScale> staticScales;
    int64_t dynamicScales = 0;
  };
  /// A function of the object's code.
  struct CodeFunction {
    std::string name;
    int64_t bytes = 0;
    /// "f16", "int8", ... for a layer function (the precision its layers
    /// compute in: int8 for quantized layers, else the activations'),
    /// "networks" for the entry points and network functions, "other" for
    /// the rest (casts at a network's boundary, ...).
    std::string group;
    std::vector<size_t> layers; ///< indices into layers()
  };
  /// The code bytes of one group (a precision, "networks" or "other").
  struct CodeGroup {
    int64_t bytes = 0;
    unsigned functions = 0;
    unsigned layers = 0;
  };
  struct Scope {
    std::string name; ///< "network @edge", "block @edge/features"
    unsigned casts = 0;
    /// The precision the network or block sets itself ("int8"); empty for a
    /// block that inherits.
    std::string precision;
  };

  /// The model before the pipeline, weights bound inline: layers, their
  /// resolution (through `precisions` when given, so that the report shares
  /// one resolution with a policy check), the all-f32 weight bytes. Fails
  /// (with a diagnostic) if a layer cannot be resolved.
  mlir::LogicalResult recordModel(mlir::ModuleOp module,
                                  PrecisionAnalysis *precisions = nullptr);
  /// After the `casts` phase: casts per scope and the int8 proofs.
  void recordCasts(mlir::ModuleOp module);
  /// After the `quantize` phase: the bytes of every weight constant per
  /// element type (quantized weights, their scales and zero points
  /// included) and the activation scales of the int8 layers.
  void recordQuantized(mlir::ModuleOp module);
  /// After the `llvm` phase: the memory plan of network @`network`.
  void recordMemoryPlan(const std::string &network,
                        const MemoryPlanSummary &plan) {
    memoryPlans_[network] = plan;
  }
  /// After code generation: the object's code, attributed to the layers
  /// through `layerCalls` (collectLayerFunctionCalls() of the lowered
  /// module), for `target` (e.g. "x86_64-unknown-linux-gnu, cpu znver3").
  void
  recordCode(const ObjectCode &code,
             const std::map<std::string, std::vector<std::string>> &layerCalls,
             const std::string &target);

  const std::vector<Layer> &layers() const { return layers_; }
  const std::vector<Scope> &scopes() const { return scopes_; }
  /// Bytes per stored element type ("int8", "f32", "i32", ...).
  const std::map<std::string, int64_t> &weightBytes() const {
    return weightBytes_;
  }
  int64_t totalWeightBytes() const;
  int64_t f32WeightBytes() const { return f32Bytes_; }
  /// Whether recordCode() was called (an object was emitted).
  bool hasCode() const { return hasCode_; }
  /// The bytes of the object's text sections.
  int64_t codeBytes() const { return textBytes_; }
  const std::vector<CodeFunction> &codeFunctions() const {
    return codeFunctions_;
  }
  /// Code bytes per group; the groups and the alignment between functions
  /// (codeAlignmentBytes()) add up to codeBytes().
  const std::map<std::string, CodeGroup> &codeGroups() const {
    return codeGroups_;
  }
  int64_t codeAlignmentBytes() const { return alignmentBytes_; }
  /// The bytes of the functions that compute `layer`.
  int64_t layerCodeBytes(const Layer &layer) const;
  /// totalWeightBytes() / f32WeightBytes() (1 without weights).
  double weightRatio() const;

  llvm::json::Value toJSON() const;
  /// The text form: tables of layers, casts, weights and int8 proofs.
  void print(llvm::raw_ostream &os) const;

private:
  /// The code table of the text form.
  void printCode(llvm::raw_ostream &os) const;

  std::vector<Layer> layers_;
  std::vector<Scope> scopes_;
  std::map<std::string, int64_t> weightBytes_;
  int64_t f32Bytes_ = 0;
  std::map<std::string, MemoryPlanSummary> memoryPlans_;
  bool hasCode_ = false;
  std::string codeTarget_;
  int64_t textBytes_ = 0, alignmentBytes_ = 0;
  std::vector<CodeFunction> codeFunctions_;
  std::map<std::string, CodeGroup> codeGroups_;
};

} // namespace mix

#endif // MIXC_COMPILER_REPORT_H
