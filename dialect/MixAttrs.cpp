//===- MixAttrs.cpp - mix attributes --------------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrs.h"
#include "dialect/MixDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mix;

#include "dialect/MixEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/MixAttrs.cpp.inc"

void MixDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/MixAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

StringRef mix::getOverrideAttrName(PrecisionProperty property) {
  switch (property) {
  case PrecisionProperty::weights:
    return "weights_precision";
  case PrecisionProperty::activations:
    return "activations_precision";
  case PrecisionProperty::accumulator:
    return "accumulator_precision";
  case PrecisionProperty::output:
    return "output_precision";
  }
  llvm_unreachable("unknown precision property");
}

bool mix::isAtLeastF32(PrecisionAttr p) {
  return p && (p.getKind() == PrecisionKind::f32 ||
               p.getKind() == PrecisionKind::f64);
}

//===----------------------------------------------------------------------===//
// PrecisionAttr
//===----------------------------------------------------------------------===//

bool PrecisionAttr::isFloat() const {
  switch (getKind()) {
  case PrecisionKind::f64:
  case PrecisionKind::f32:
  case PrecisionKind::f16:
  case PrecisionKind::bf16:
    return true;
  case PrecisionKind::int8:
  case PrecisionKind::i32:
    return false;
  }
  llvm_unreachable("unknown precision kind");
}

unsigned PrecisionAttr::getBitWidth() const {
  switch (getKind()) {
  case PrecisionKind::f64:
    return 64;
  case PrecisionKind::f32:
  case PrecisionKind::i32:
    return 32;
  case PrecisionKind::f16:
  case PrecisionKind::bf16:
    return 16;
  case PrecisionKind::int8:
    return 8;
  }
  llvm_unreachable("unknown precision kind");
}

Type PrecisionAttr::getElementType() const {
  MLIRContext *ctx = getContext();
  switch (getKind()) {
  case PrecisionKind::f64:
    return Float64Type::get(ctx);
  case PrecisionKind::f32:
    return Float32Type::get(ctx);
  case PrecisionKind::f16:
    return Float16Type::get(ctx);
  case PrecisionKind::bf16:
    return BFloat16Type::get(ctx);
  case PrecisionKind::int8:
    return IntegerType::get(ctx, 8);
  case PrecisionKind::i32:
    return IntegerType::get(ctx, 32);
  }
  llvm_unreachable("unknown precision kind");
}

LogicalResult
PrecisionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      PrecisionKind kind, QuantScheme scheme, int64_t axis) {
  if (kind != PrecisionKind::int8 &&
      (scheme != QuantScheme::symmetric || axis != -1))
    return emitError() << "only int8 precisions have a quantization scheme or "
                          "axis, not "
                       << stringifyPrecisionKind(kind);
  if (axis < -1)
    return emitError() << "int8 quantization axis must be >= 0, got " << axis;
  return success();
}

void PrecisionAttr::printBody(raw_ostream &os) const {
  os << stringifyPrecisionKind(getKind());
  if (!isInt8() || (getScheme() == QuantScheme::symmetric && !isPerAxis()))
    return;
  os << '<' << stringifyQuantScheme(getScheme());
  if (isPerAxis())
    os << ", axis = " << getAxis();
  os << '>';
}

std::string PrecisionAttr::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printBody(os);
  return s;
}

PrecisionAttr PrecisionAttr::parseBody(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  // Builtin type keywords (f16, bf16, f32, f64, i32) lex as types; `int8`
  // is a bare identifier.
  std::optional<PrecisionKind> kind;
  Type type;
  OptionalParseResult typeResult = parser.parseOptionalType(type);
  if (typeResult.has_value()) {
    if (failed(*typeResult))
      return {};
    if (type.isF64())
      kind = PrecisionKind::f64;
    else if (type.isF32())
      kind = PrecisionKind::f32;
    else if (type.isF16())
      kind = PrecisionKind::f16;
    else if (type.isBF16())
      kind = PrecisionKind::bf16;
    else if (type.isSignlessInteger(32))
      kind = PrecisionKind::i32;
  } else {
    StringRef keyword;
    if (succeeded(parser.parseOptionalKeyword(&keyword)))
      kind = symbolizePrecisionKind(keyword);
  }
  if (!kind) {
    parser.emitError(loc, "expected a precision: f64, f32, f16, bf16, int8 "
                          "or i32");
    return {};
  }

  QuantScheme scheme = QuantScheme::symmetric;
  int64_t axis = -1;
  SMLoc lessLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess())) {
    if (*kind != PrecisionKind::int8) {
      parser.emitError(lessLoc)
          << "only int8 precisions have a quantization scheme or axis, not "
          << stringifyPrecisionKind(*kind);
      return {};
    }
    SMLoc schemeLoc = parser.getCurrentLocation();
    bool first = true;
    do {
      StringRef keyword;
      if (parser.parseKeyword(&keyword))
        return {};
      if (keyword == "axis") {
        SMLoc axisLoc = parser.getCurrentLocation();
        if (parser.parseEqual() || parser.parseInteger(axis))
          return {};
        if (axis < 0) {
          parser.emitError(axisLoc)
              << "int8 quantization axis must be >= 0, got " << axis;
          return {};
        }
      } else if (first && symbolizeQuantScheme(keyword)) {
        scheme = *symbolizeQuantScheme(keyword);
      } else {
        parser.emitError(schemeLoc)
            << "expected 'symmetric', 'asymmetric' or 'axis = N', got '"
            << keyword << "'";
        return {};
      }
      first = false;
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, ctx, *kind, scheme,
                    axis);
}

Attribute PrecisionAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  PrecisionAttr attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void PrecisionAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer.getStream());
  printer << '>';
}

//===----------------------------------------------------------------------===//
// DecisionAttr
//===----------------------------------------------------------------------===//

void DecisionAttr::printBody(raw_ostream &os) const {
  getPrecision().printBody(os);
  os << " from " << stringifyPrecisionSource(getSource());
  // As a symbol reference, so that a name that is not a bare identifier is
  // quoted (`@"my-net"`) and parses back (parseOptionalSymbolName).
  if (getOrigin()) {
    os << ' ';
    FlatSymbolRefAttr::get(getOrigin()).print(os);
  }
}

std::string DecisionAttr::describeSource() const {
  std::string s = stringifyPrecisionSource(getSource()).str();
  switch (getSource()) {
  case PrecisionSource::network:
  case PrecisionSource::block:
    s += getOrigin() ? " @" + getOrigin().getValue().str() : " <unnamed>";
    break;
  case PrecisionSource::layer:
  case PrecisionSource::property:
  case PrecisionSource::derived:
    break; // the keyword alone, as in the IR
  }
  return s;
}

DecisionAttr DecisionAttr::parseBody(AsmParser &parser) {
  PrecisionAttr precision = PrecisionAttr::parseBody(parser);
  if (!precision || parser.parseKeyword("from"))
    return {};
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return {};
  std::optional<PrecisionSource> source = symbolizePrecisionSource(keyword);
  if (!source) {
    parser.emitError(loc) << "expected a precision source (network, block, "
                             "layer, property, derived), got '"
                          << keyword << "'";
    return {};
  }
  StringAttr origin;
  (void)parser.parseOptionalSymbolName(origin);
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    precision, *source, origin);
}

LogicalResult DecisionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   PrecisionAttr precision,
                                   PrecisionSource source, StringAttr origin) {
  if (!precision)
    return emitError() << "a decision needs a precision";
  if (origin && source != PrecisionSource::network &&
      source != PrecisionSource::block)
    return emitError() << "only network and block decisions name an origin, "
                          "not '"
                       << stringifyPrecisionSource(source) << "'";
  if (source == PrecisionSource::network && !origin)
    return emitError() << "a network decision must name its network";
  return success();
}

Attribute DecisionAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  DecisionAttr attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void DecisionAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer.getStream());
  printer << '>';
}

//===----------------------------------------------------------------------===//
// ResolvedAttr
//===----------------------------------------------------------------------===//

DecisionAttr ResolvedAttr::get(PrecisionProperty property) const {
  switch (property) {
  case PrecisionProperty::weights:
    return getWeights();
  case PrecisionProperty::activations:
    return getActivations();
  case PrecisionProperty::accumulator:
    return getAccumulator();
  case PrecisionProperty::output:
    return getOutput();
  }
  llvm_unreachable("unknown precision property");
}

Attribute ResolvedAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  DecisionAttr decisions[4];
  do {
    SMLoc propLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    std::optional<PrecisionProperty> prop = symbolizePrecisionProperty(keyword);
    if (!prop) {
      parser.emitError(propLoc)
          << "unknown precision property '" << keyword << "'";
      return {};
    }
    DecisionAttr &slot = decisions[static_cast<unsigned>(*prop)];
    if (slot) {
      parser.emitError(propLoc) << "property '" << keyword << "' given twice";
      return {};
    }
    if (parser.parseEqual() || !(slot = DecisionAttr::parseBody(parser)))
      return {};
  } while (succeeded(parser.parseOptionalComma()));
  if (parser.parseGreater())
    return {};
  for (PrecisionProperty prop :
       {PrecisionProperty::activations, PrecisionProperty::accumulator,
        PrecisionProperty::output}) {
    if (!decisions[static_cast<unsigned>(prop)]) {
      parser.emitError(loc) << "resolved precisions lack '"
                            << stringifyPrecisionProperty(prop) << "'";
      return {};
    }
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    decisions[0], decisions[1], decisions[2], decisions[3]);
}

LogicalResult ResolvedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   DecisionAttr weights,
                                   DecisionAttr activations,
                                   DecisionAttr accumulator,
                                   DecisionAttr output) {
  if (!activations || !accumulator || !output)
    return emitError() << "resolved precisions need activations, accumulator "
                          "and output";
  auto isI32 = [](DecisionAttr d) {
    return d && d.getPrecision().getKind() == PrecisionKind::i32;
  };
  if (isI32(weights) || isI32(activations) || isI32(output))
    return emitError() << "i32 is only an accumulator precision";
  if (accumulator.getPrecision().isInt8())
    return emitError() << "the accumulator cannot be int8";
  return success();
}

void ResolvedAttr::print(AsmPrinter &printer) const {
  printer << '<';
  llvm::raw_ostream &os = printer.getStream();
  bool first = true;
  for (PrecisionProperty prop : kAllProperties) {
    DecisionAttr d = get(prop);
    if (!d)
      continue;
    if (!first)
      os << ", ";
    first = false;
    os << stringifyPrecisionProperty(prop) << " = ";
    d.printBody(os);
  }
  printer << '>';
}
