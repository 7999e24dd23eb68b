//===- MixOpsVerify.cpp - mix operation verifiers -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The checks the op verifiers share (MixOpsVerify.h) and the verifiers of
// the structure ops. The layers are verified in MixOpsVerifyLayers.cpp,
// quantized arithmetic in MixOpsVerifyQuantized.cpp; precision legality
// common to all layers is in MixInterfaces.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOpsVerify.h"
#include "dialect/MixOps.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

#include <optional>

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> checks::shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

void checks::noteDefinition(InFlightDiagnostic &diag, Value value,
                            StringRef what) {
  if (Operation *def = value.getDefiningOp())
    diag.attachNote(def->getLoc()) << what << " defined here";
}

LogicalResult checks::checkRank(Operation *op, Value value, StringRef what,
                                int64_t rank) {
  int64_t actual = cast<ShapedType>(value.getType()).getRank();
  if (actual == rank)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expects " << what << " of rank " << rank
                            << ", got rank " << actual << " "
                            << formatShape(shapeOf(value));
  noteDefinition(diag, value, what);
  return diag;
}

LogicalResult checks::checkMinRank(Operation *op, Value value, StringRef what,
                                   int64_t rank) {
  int64_t actual = cast<ShapedType>(value.getType()).getRank();
  if (actual >= rank)
    return success();
  return op->emitOpError() << "expects " << what << " of rank >= " << rank
                           << ", got rank " << actual;
}

LogicalResult checks::checkVector(Operation *op, Value value, StringRef what,
                                  int64_t size, StringRef sizeName) {
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() == 1 && shape[0] == size)
    return success();
  InFlightDiagnostic diag =
      op->emitOpError() << "expects " << what << " of shape [" << size << "] ("
                        << sizeName << "), got " << formatShape(shape);
  noteDefinition(diag, value, what);
  return diag;
}

LogicalResult checks::checkAttentionMask(Operation *op, Value mask, Value input,
                                         int64_t heads) {
  ArrayRef<int64_t> m = shapeOf(mask), x = shapeOf(input);
  int64_t rank = static_cast<int64_t>(m.size());
  auto fail = [&](InFlightDiagnostic diag) -> LogicalResult {
    noteDefinition(diag, mask, "mask");
    return diag;
  };
  if (rank < 2 || rank > 4)
    return fail(op->emitOpError()
                << "expects mask of rank 2, 3 or 4 (broadcast to the scores "
                   "[B, H, S, S]), got rank "
                << rank << " " << formatShape(m));
  int64_t scores[] = {x[0], heads, x[1], x[1]};
  StringRef names[] = {"batch", "heads", "queries", "keys"};
  for (int64_t i = 0; i < rank; ++i) {
    int64_t axis = attentionMaskAxis(rank, i);
    if (m[i] == scores[axis] || m[i] == 1)
      continue;
    return fail(op->emitOpError()
                << "expects mask broadcastable to the scores [B, H, S, S] = "
                << formatShape(scores) << ", but its " << names[axis]
                << " dimension is " << formatDim(m[i]) << " in "
                << formatShape(m));
  }
  return success();
}

LogicalResult checks::checkResultShape(Operation *op,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual == expected)
    return success();
  return op->emitOpError() << "result shape " << formatShape(actual)
                           << " does not match the expected shape "
                           << formatShape(expected);
}

LogicalResult checks::checkArraySize(Operation *op, StringRef name,
                                     ArrayRef<int64_t> values, size_t size,
                                     int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "expects '" << name << "' to have " << size
                             << " values, got " << values.size();
  for (int64_t v : values)
    if (v < minValue)
      return op->emitOpError()
             << "expects every '" << name << "' value >= " << minValue
             << ", got " << formatShape(values);
  return success();
}

FailureOr<int64_t> checks::windowOutput(Operation *op, StringRef dimName,
                                        int64_t in, int64_t padBefore,
                                        int64_t padAfter, int64_t window,
                                        int64_t stride, int64_t dilation) {
  int64_t span = dilation * (window - 1) + 1;
  int64_t padded = in + padBefore + padAfter;
  if (padded < span) {
    op->emitOpError() << "window of extent " << span << " does not fit the "
                      << dimName << " dimension (" << in << " + padding "
                      << padBefore + padAfter << ")";
    return failure();
  }
  return (padded - span) / stride + 1;
}

LogicalResult checks::checkSameShape(Operation *op, Value value,
                                     StringRef what) {
  if (shapeOf(value) == shapeOf(op->getResult(0)))
    return success();
  return op->emitOpError() << "result shape "
                           << formatShape(shapeOf(op->getResult(0)))
                           << " differs from the " << what << " shape "
                           << formatShape(shapeOf(value));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

static LogicalResult checkScopePrecision(Operation *op, PrecisionAttr p) {
  if (p && p.getKind() == PrecisionKind::i32)
    return op->emitOpError()
           << "precision cannot be i32 (i32 is only an accumulator precision)";
  return success();
}

/// Why `name` cannot name a network in C, or "" if it can. The generated
/// header declares `_mlir_ciface_NAME` and `NAME_run`, so the name must be
/// a C identifier, and it must keep out of the names of the runtime
/// (`mixrt_`), of generated code (`mixc_`, `_mlir_`) and of the C
/// implementation (`__x`, `_X`).
static std::string checkNetworkName(StringRef name) {
  auto isStart = [](char c) { return llvm::isAlpha(c) || c == '_'; };
  if (!isStart(name.front()) || !llvm::all_of(name, [&](char c) {
        return isStart(c) || llvm::isDigit(c);
      }))
    return "is not a C identifier (letters, digits and '_', not starting "
           "with a digit): the generated C header names the network's "
           "functions after it";
  for (StringRef prefix : {"mixrt_", "mixc_", "_mlir_"})
    if (name.starts_with(prefix))
      return ("starts with '" + prefix +
              "', a prefix reserved for the runtime and generated code")
          .str();
  if (name.size() > 1 && name[0] == '_' &&
      (name[1] == '_' || llvm::isUpper(name[1])))
    return "is reserved in C (it starts with '__' or '_' and a capital)";
  return "";
}

LogicalResult NetworkOp::verify() {
  if (getSymName().empty())
    return emitOpError() << "name cannot be empty";
  if (std::string why = checkNetworkName(getSymName()); !why.empty())
    return emitOpError() << "name '" << getSymName() << "' " << why;
  if (failed(checkScopePrecision(*this, getPrecision())))
    return failure();
  Block &entry = getBody().front();
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  if (entry.getNumArguments() != inputs.size())
    return emitOpError() << "body has " << entry.getNumArguments()
                         << " arguments, but the signature has "
                         << inputs.size() << " inputs";
  for (auto [i, arg, type] : llvm::enumerate(entry.getArguments(), inputs))
    if (arg.getType() != type)
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << ", but the signature says "
                           << type;
  // Tensor encodings (sparse layouts, ...) mean nothing to mix and the
  // lowering cannot keep them: rejected here, at the first value that has
  // one, rather than as an internal error of the lowering.
  auto encoded = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getEncoding();
  };
  for (BlockArgument arg : entry.getArguments())
    if (encoded(arg.getType()))
      return emitOpError() << "input #" << arg.getArgNumber() << " has type "
                           << arg.getType()
                           << ": tensor encodings are not supported";
  for (auto [i, type] : llvm::enumerate(getFunctionType().getResults()))
    if (encoded(type))
      return emitOpError() << "output #" << i << " has type " << type
                           << ": tensor encodings are not supported";
  // Dynamic batch: only the leading dimension may be `?`, and a network
  // with one computes every sample on its own, so each output is per sample
  // too (docs/dialect.md, "Dynamic batch").
  auto batchOf = [](Type type) -> std::optional<bool> {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.getRank() == 0)
      return false;
    if (llvm::any_of(tensor.getShape().drop_front(), ShapedType::isDynamic))
      return std::nullopt;
    return tensor.isDynamicDim(0);
  };
  std::optional<unsigned> dynamicInput;
  for (auto [i, type] : llvm::enumerate(inputs)) {
    std::optional<bool> batch = batchOf(type);
    if (!batch)
      return emitOpError() << "input #" << i << " has type " << type
                           << ": only the leading (batch) dimension may be "
                              "dynamic";
    if (*batch && !dynamicInput)
      dynamicInput = i;
  }
  for (auto [i, type] : llvm::enumerate(getFunctionType().getResults())) {
    std::optional<bool> batch = batchOf(type);
    if (!batch)
      return emitOpError() << "output #" << i << " has type " << type
                           << ": only the leading (batch) dimension may be "
                              "dynamic";
    if (*batch && !dynamicInput)
      return emitOpError() << "output #" << i << " has type " << type
                           << " with a dynamic batch, but no input has one";
    if (!*batch && dynamicInput)
      return emitOpError()
             << "output #" << i << " has type " << type
             << " without the dynamic batch `?` of input #" << *dynamicInput
             << ": each sample of a batch is computed on its own, so every "
                "output must have the leading dimension `?`";
  }
  WalkResult walk = getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (encoded(arg.getType())) {
          op->emitOpError()
              << "block argument #" << arg.getArgNumber() << " has type "
              << arg.getType() << ": tensor encodings are not supported";
          return WalkResult::interrupt();
        }
    for (OpResult result : op->getResults())
      if (encoded(result.getType())) {
        op->emitOpError() << "result #" << result.getResultNumber()
                          << " has type " << result.getType()
                          << ": tensor encodings are not supported";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Runs after the ops of the body are verified, so an op's own diagnostic
/// about its sizes comes first.
LogicalResult NetworkOp::verifyRegions() {
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  // Every tensor's bytes (per sample, for a dynamic batch) must be
  // countable in int64: the memory plan, the header's sizes and the
  // lowering's index arithmetic all compute them, and a shape like
  // 2^62 x 4 of f32 would overflow them silently.
  auto tooLarge = [](Type type) -> std::optional<std::string> {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return std::nullopt;
    int64_t bytes =
        std::max<int64_t>(1, (tensor.getElementTypeBitWidth() + 7) / 8);
    for (int64_t d : tensor.getShape())
      if (!ShapedType::isDynamic(d) && llvm::MulOverflow(bytes, d, bytes))
        return std::string("its size in bytes overflows int64");
    return std::nullopt;
  };
  for (auto [i, type] : llvm::enumerate(inputs))
    if (auto why = tooLarge(type))
      return emitOpError() << "input #" << i << " has type " << type << ": "
                           << *why;
  for (auto [i, type] : llvm::enumerate(getFunctionType().getResults()))
    if (auto why = tooLarge(type))
      return emitOpError() << "output #" << i << " has type " << type << ": "
                           << *why;
  WalkResult walk = getBody().walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (auto why = tooLarge(result.getType())) {
        op->emitOpError() << "result #" << result.getResultNumber()
                          << " has type " << result.getType() << ": " << *why;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ReturnOp::verify() {
  auto network = cast<NetworkOp>((*this)->getParentOp());
  ArrayRef<Type> expected = network.getFunctionType().getResults();
  if (getValues().size() != expected.size()) {
    InFlightDiagnostic diag = emitOpError()
                              << "returns " << getValues().size()
                              << " value(s), but the network declares "
                              << expected.size() << " output(s)";
    diag.attachNote(network.getLoc()) << "network declared here";
    return diag;
  }
  for (auto [i, value, type] : llvm::enumerate(getValues(), expected)) {
    if (value.getType() == type)
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "output #" << i << " has type " << value.getType()
                      << ", but the network declares " << type;
    diag.attachNote(network.getLoc()) << "network declared here";
    return diag;
  }
  return success();
}

LogicalResult BlockOp::verify() {
  if (failed(checkScopePrecision(*this, getPrecisionAttr())))
    return failure();
  if (StringAttr name = getSymNameAttr(); name && name.getValue().empty())
    return emitOpError() << "block name cannot be empty";
  return success();
}

LogicalResult BlockOp::verifyRegions() {
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << entry.getNumArguments()
                         << " arguments, but the block binds "
                         << getInputs().size() << " value(s)";
  for (auto [i, arg, input] :
       llvm::enumerate(entry.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType()
                           << ", but is bound to a value of type "
                           << input.getType();
  auto yield = dyn_cast<YieldOp>(entry.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with 'mix.yield'";
  if (yield.getValues().size() != getNumResults()) {
    InFlightDiagnostic diag = emitOpError()
                              << "has " << getNumResults()
                              << " result(s), but its body yields "
                              << yield.getValues().size() << " value(s)";
    diag.attachNote(yield.getLoc()) << "yield is here";
    return diag;
  }
  for (auto [i, result, value] :
       llvm::enumerate(getResults(), yield.getValues())) {
    if (result.getType() == value.getType())
      continue;
    InFlightDiagnostic diag =
        emitOpError() << "result #" << i << " has type " << result.getType()
                      << ", but its body yields " << value.getType();
    diag.attachNote(yield.getLoc()) << "yield is here";
    return diag;
  }
  return success();
}

/// The largest weight mixc accepts: 16 GiB (docs/guarantees.md). Larger
/// types, and element counts that overflow 64 bits, are rejected here, before
/// any pass or the interpreter materializes the data.
static constexpr uint64_t kMaxWeightBytes = uint64_t(16) << 30;

LogicalResult WeightOp::verify() {
  auto type = cast<ShapedType>(getType());
  uint64_t bytes = std::max<uint64_t>(1, (type.getElementTypeBitWidth() + 7) /
                                             8); // i1 counts as a byte
  for (int64_t dim : type.getShape())
    if (dim < 0 || __builtin_mul_overflow(bytes, uint64_t(dim), &bytes))
      return emitOpError()
             << "weight of type " << type
             << " has more elements than 64 bits can count; a weight holds "
                "at most "
             << kMaxWeightBytes << " bytes";
  if (bytes > kMaxWeightBytes)
    return emitOpError() << "weight of type " << type << " needs " << bytes
                         << " bytes; a weight holds at most " << kMaxWeightBytes
                         << " bytes";
  if (!!getValueAttr() == !!getRefAttr())
    return emitOpError()
           << "must have exactly one of inline data or an external reference";
  if (StringAttr ref = getRefAttr(); ref && ref.getValue().empty())
    return emitOpError() << "external weight reference cannot be empty";
  if (ElementsAttr value = getValueAttr();
      value && value.getType() != getType())
    return emitOpError() << "inline data of type " << value.getType()
                         << " does not match the result type " << getType();
  // Data in the file's resource section must be there: a missing blob used
  // to pass every check and fail only when the lowered module was
  // translated to LLVM IR.
  if (auto resource =
          dyn_cast_if_present<DenseResourceElementsAttr>(getValueAttr());
      resource && !resource.getRawHandle().getBlob())
    return emitOpError() << "inline data dense_resource<"
                         << resource.getRawHandle().getKey()
                         << "> has no blob: the file's dialect_resources "
                            "section does not define '"
                         << resource.getRawHandle().getKey() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  Type from = getElementTypeOrSelf(getInput().getType());
  Type to = getElementTypeOrSelf(getType());
  if (!isa<FloatType>(to)) {
    InFlightDiagnostic diag =
        emitOpError() << "cannot cast " << from << " to " << to
                      << ": the result must be a float type (f16, bf16, f32 "
                         "or f64)";
    if (isa<FloatType>(from))
      diag.attachNote(getLoc())
          << "float to integer casts (ONNX's Cast truncates toward zero and "
             "leaves out-of-range values undefined) are not supported";
    else
      diag.attachNote(getLoc()) << "integer to integer casts are not supported";
    checks::noteDefinition(diag, getInput(), "input");
    return diag;
  }
  if (getIsUnsigned() && !from.isInteger(8)) {
    InFlightDiagnostic diag =
        emitOpError() << "'unsigned' reads an i8 input as 0 .. 255, but the "
                         "input is "
                      << from;
    diag.attachNote(getLoc())
        << (isa<FloatType>(from) ? "a float input has no signedness"
            : from.isInteger(1)  ? "an i1 input is always 0 or 1"
                                 : "only i8 (ONNX's uint8) has an "
                                   "unsigned reading");
    checks::noteDefinition(diag, getInput(), "input");
    return diag;
  }
  return success();
}
