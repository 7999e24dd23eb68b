//===- MixDialect.cpp - the mix dialect -----------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixDialect.h"
#include "dialect/MixAttrNames.h"
#include "dialect/MixOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mix;

#include "dialect/MixDialect.cpp.inc"

void MixDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "dialect/MixOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

static LogicalResult unknownAttribute(Operation *op, StringRef name,
                                      StringRef where) {
  return op->emitOpError()
         << "has unknown attribute '" << name << "'"
         << (where.empty() ? "" : " ") << where << "; the mix dialect defines '"
         << MixDialect::KChunkAttrHelper::getNameStr() << "' (on int8 dense, "
         << "matmul and conv2d layers), '"
         << MixDialect::NameAttrHelper::getNameStr()
         << "' (on network inputs and outputs), '"
         << MixDialect::WorkingPrecisionAttrHelper::getNameStr()
         << "' (on weight inputs of gradient networks), '" << attr::kRecompute
         << "' (on blocks) and '" << kMemoryPlanAttrName
         << "' (on lowered network functions)";
}

LogicalResult MixDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == KChunkAttrHelper::getNameStr()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(64))
      return op->emitOpError()
             << "expects '" << name << "' to be an i64 integer, got "
             << attr.getValue();
    if (value.getInt() < 1)
      return op->emitOpError()
             << "expects '" << name << "' >= 1, got " << value.getInt();
    if (!isa<DenseOp, MatmulOp, Conv2DOp>(op))
      return op->emitOpError()
             << "cannot carry '" << name
             << "': only int8 dense, matmul and conv2d layers split K";
    return success();
  }
  if (name == attr::kRecompute) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << "expects '" << name << "' to be a unit attribute, got "
             << attr.getValue();
    if (!isa<BlockOp>(op))
      return op->emitOpError()
             << "cannot carry '" << name
             << "': only a mix.block is recomputed for its backward";
    return success();
  }
  if (name == kMemoryPlanAttrName) {
    // Set by mix-plan-memory; read by mixc for the header and the report.
    auto plan = dyn_cast<DictionaryAttr>(attr.getValue());
    auto isSize = [&](StringRef key) {
      auto v = plan ? plan.getAs<IntegerAttr>(key) : IntegerAttr();
      return v && v.getType().isInteger(64) && v.getInt() >= 0;
    };
    if (!plan || plan.size() != 3 || !isSize("workspace") ||
        !isSize("intermediates") || !isSize("peak"))
      return op->emitOpError()
             << "expects '" << name
             << "' to be {workspace, intermediates, peak} byte counts "
                "(non-negative i64), got "
             << attr.getValue();
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError() << "cannot carry '" << name
                               << "': only lowered network functions have it";
    return success();
  }
  if (name == attr::kUkernel || name == attr::kUkernelBias) {
    // Set by the lowering on linalg.generic, removed by
    // mix-use-microkernels.
    static constexpr StringLiteral kKinds[] = {
        "gemm_f32",       "gemm_s8",           "range_f32",
        "quantize_f32",   "checked_quantize",  "checked_rescale",
        "checked_narrow", "rescale",           "depthwise_f32",
        "conv2d_f32",     "conv2d_s8",         "matmul_f32",
        "dequantize",     "recurrent_gemm_f32"};
    auto kind = dyn_cast<StringAttr>(attr.getValue());
    bool valid = name == attr::kUkernelBias
                     ? isa<UnitAttr>(attr.getValue())
                     : kind && llvm::is_contained(kKinds, kind.getValue());
    if (!valid) {
      InFlightDiagnostic diag = op->emitOpError()
                                << "expects '" << name << "' to be ";
      if (name == attr::kUkernel) {
        for (size_t i = 0; i < std::size(kKinds); ++i)
          diag << (i == 0                       ? ""
                   : i + 1 == std::size(kKinds) ? " or "
                                                : ", ")
               << "\"" << kKinds[i] << "\"";
      } else {
        diag << "a unit attribute";
      }
      return diag << ", got " << attr.getValue();
    }
    if (op->getName().getStringRef() != "linalg.generic")
      return op->emitOpError() << "cannot carry '" << name
                               << "': only the lowering's linalg.generic "
                                  "GEMMs and epilogues have it";
    return success();
  }
  if (name == attr::kUkernelWindow) {
    // Set by the lowering on a convolution loop, removed by
    // mix-use-microkernels.
    auto window = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    bool valid = window && window.size() == 8;
    for (int i = 0; valid && i < 8; ++i)
      valid = window[i] >= (i < 4 ? 1 : 0);
    if (!valid)
      return op->emitOpError()
             << "expects '" << name
             << "' to be 8 i64 (strides and dilations >= 1, then padding >= "
                "0: top, left, bottom, right), got "
             << attr.getValue();
    if (op->getName().getStringRef() != "linalg.generic")
      return op->emitOpError()
             << "cannot carry '" << name
             << "': only the lowering's depthwise linalg.generic has it";
    return success();
  }
  if (name == attr::kFoldedBatchNorm) {
    // Set by mix-fold-batch-norm; read by mixc --report.
    if (!isa<LocationAttr>(attr.getValue()))
      return op->emitOpError() << "expects '" << name
                               << "' to be a location, got " << attr.getValue();
    if (!isa<Conv2DOp>(op))
      return op->emitOpError()
             << "cannot carry '" << name
             << "': only a conv2d has a batch_norm folded into it";
    return success();
  }
  if (name == NameAttrHelper::getNameStr())
    return op->emitOpError()
           << "cannot carry '" << name
           << "' as an op attribute: it names a network input or output, "
              "e.g. (%x: tensor<1x4xf32> {mix.name = \"image\"})";
  return unknownAttribute(op, name, "");
}

/// mix.name on a network input or output: a non-empty string (the header
/// turns it into a C identifier, as it does the source names).
static LogicalResult verifyNameAttribute(Operation *op, NamedAttribute attr,
                                         StringRef what, unsigned index) {
  StringRef name = attr.getName().getValue();
  if (name != MixDialect::NameAttrHelper::getNameStr())
    return unknownAttribute(op, name,
                            ("on " + what + " #" + Twine(index)).str());
  // A network, or the function a network lowers to.
  if (!isa<FunctionOpInterface>(op))
    return op->emitOpError() << "cannot carry '" << name << "' on " << what
                             << " #" << index << ": only networks have it";
  auto value = dyn_cast<StringAttr>(attr.getValue());
  if (!value || value.getValue().empty())
    return op->emitOpError()
           << "expects '" << name << "' of " << what << " #" << index
           << " to be a non-empty string, got " << attr.getValue();
  return success();
}

LogicalResult MixDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned /*regionIndex*/,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == WorkingPrecisionAttrHelper::getNameStr()) {
    // Set by mix-differentiate{weights-as-inputs} on a weight input of a
    // gradient network; read by mixc --train for the training layout.
    auto precision = dyn_cast<PrecisionAttr>(attr.getValue());
    if (!precision || (precision.getKind() != PrecisionKind::f16 &&
                       precision.getKind() != PrecisionKind::bf16))
      return op->emitOpError()
             << "expects '" << name << "' of input #" << argIndex
             << " to be #mix.precision<f16> or #mix.precision<bf16>, got "
             << attr.getValue();
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError() << "cannot carry '" << name << "' on input #"
                               << argIndex << ": only networks have it";
    return success();
  }
  return verifyNameAttribute(op, attr, "input", argIndex);
}

LogicalResult MixDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned /*regionIndex*/,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  return verifyNameAttribute(op, attr, "output", resultIndex);
}
