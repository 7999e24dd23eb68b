//===- MixOps.cpp - mix operations: assembly and accessors ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Custom parsers/printers of the structural ops and of the `precision(...)`
// clause shared by all layers. Verifiers live in MixOpsVerify.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixOps.h"
#include "dialect/ResizeTap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mix;

//===----------------------------------------------------------------------===//
// precision(...) clause of layer ops
//===----------------------------------------------------------------------===//

/// Parses `precision(f16, weights = int8, accumulator = f32)`. The clause is
/// optional; the bare precision (the layer precision) may appear once, first.
static ParseResult
parseLayerPrecision(OpAsmParser &parser, PrecisionAttr &layer,
                    PrecisionAttr &weights, PrecisionAttr &activations,
                    PrecisionAttr &accumulator, PrecisionAttr &output) {
  if (failed(parser.parseOptionalKeyword("precision")))
    return success();
  if (parser.parseLParen())
    return failure();
  PrecisionAttr *slots[] = {&weights, &activations, &accumulator, &output};
  bool first = true;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef keyword;
    if (succeeded(parser.parseOptionalKeyword(
            &keyword, {"weights", "activations", "accumulator", "output"}))) {
      PrecisionAttr &slot =
          *slots[static_cast<unsigned>(*symbolizePrecisionProperty(keyword))];
      if (slot)
        return parser.emitError(loc)
               << "'" << keyword << "' precision given twice";
      if (parser.parseEqual() || !(slot = PrecisionAttr::parseBody(parser)))
        return failure();
    } else {
      if (!first)
        return parser.emitError(loc)
               << "the layer precision must come first in precision(...)";
      if (!(layer = PrecisionAttr::parseBody(parser)))
        return failure();
    }
    first = false;
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRParen();
}

static void printLayerPrecision(OpAsmPrinter &printer, Operation *,
                                PrecisionAttr layer, PrecisionAttr weights,
                                PrecisionAttr activations,
                                PrecisionAttr accumulator,
                                PrecisionAttr output) {
  PrecisionAttr props[] = {weights, activations, accumulator, output};
  if (!layer && llvm::none_of(props, [](PrecisionAttr p) { return !!p; }))
    return;
  raw_ostream &os = printer.getStream();
  os << " precision(";
  bool first = true;
  if (layer) {
    layer.printBody(os);
    first = false;
  }
  for (PrecisionProperty prop : kAllProperties) {
    PrecisionAttr p = props[static_cast<unsigned>(prop)];
    if (!p)
      continue;
    if (!first)
      os << ", ";
    first = false;
    os << stringifyPrecisionProperty(prop) << " = ";
    p.printBody(os);
  }
  os << ')';
}

/// Parses `precision(<body>)` when present (networks and blocks).
static ParseResult parseOptionalPrecisionClause(OpAsmParser &parser,
                                                PrecisionAttr &result) {
  if (failed(parser.parseOptionalKeyword("precision")))
    return success();
  if (parser.parseLParen() || !(result = PrecisionAttr::parseBody(parser)) ||
      parser.parseRParen())
    return failure();
  return success();
}

static void printPrecisionClause(OpAsmPrinter &printer, PrecisionAttr p) {
  if (!p)
    return;
  printer << " precision(";
  p.printBody(printer.getStream());
  printer << ')';
}

#define GET_OP_CLASSES
#include "dialect/MixOps.cpp.inc"

//===----------------------------------------------------------------------===//
// NetworkOp
//===----------------------------------------------------------------------===//

ParseResult NetworkOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();
  SMLoc precisionLoc = parser.getCurrentLocation();
  PrecisionAttr precision;
  if (parseOptionalPrecisionClause(parser, precision))
    return failure();
  if (!precision)
    return parser.emitError(precisionLoc)
           << "expected 'precision(...)': a network must set its default "
              "precision";
  result.addAttribute(getPrecisionAttrName(result.name), precision);

  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : args)
    argTypes.push_back(arg.type);
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  call_interface_impl::addArgAndResultAttrs(builder, result, args, resultAttrs,
                                            getArgAttrsAttrName(result.name),
                                            getResAttrsAttrName(result.name));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, args);
}

void NetworkOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printSymbolName(getSymName());
  printPrecisionClause(printer, getPrecision());
  printer << ' ';
  function_interface_impl::printFunctionSignature(
      printer, *this, getArgumentTypes(), /*isVariadic=*/false,
      getResultTypes());
  function_interface_impl::printFunctionAttributes(
      printer, *this,
      {getFunctionTypeAttrName(), getArgAttrsAttrName(), getResAttrsAttrName(),
       getPrecisionAttrName()});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
}

//===----------------------------------------------------------------------===//
// BlockOp
//===----------------------------------------------------------------------===//

std::string BlockOp::getDisplayName() {
  if (StringAttr name = getSymNameAttr())
    return "@" + name.getValue().str();
  return "<unnamed>";
}

ParseResult BlockOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (succeeded(parser.parseOptionalSymbolName(name)))
    result.addAttribute(getSymNameAttrName(result.name), name);
  PrecisionAttr precision;
  if (parseOptionalPrecisionClause(parser, precision))
    return failure();
  if (precision)
    result.addAttribute(getPrecisionAttrName(result.name), precision);

  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseLParen())
    return failure();
  if (failed(parser.parseOptionalRParen())) {
    do {
      OpAsmParser::Argument arg;
      OpAsmParser::UnresolvedOperand operand;
      if (parser.parseArgument(arg) || parser.parseEqual() ||
          parser.parseOperand(operand))
        return failure();
      args.push_back(arg);
      operands.push_back(operand);
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen())
      return failure();
  }
  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType type;
  if (parser.parseColonType(type))
    return failure();
  if (type.getNumInputs() != operands.size())
    return parser.emitError(typeLoc)
           << "block binds " << operands.size() << " value(s) but its type has "
           << type.getNumInputs() << " input(s)";
  for (auto [arg, argType] : llvm::zip(args, type.getInputs()))
    arg.type = argType;
  if (parser.resolveOperands(operands, type.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, args);
}

void BlockOp::print(OpAsmPrinter &printer) {
  if (StringAttr name = getSymNameAttr()) {
    printer << ' ';
    printer.printSymbolName(name.getValue());
  }
  printPrecisionClause(printer, getPrecisionAttr());
  printer << " (";
  llvm::interleaveComma(llvm::zip(getBody().getArguments(), getInputs()),
                        printer, [&](auto pair) {
                          printer << std::get<0>(pair) << " = "
                                  << std::get<1>(pair);
                        });
  printer << ") : ";
  printer.printFunctionalType(getInputs().getTypes(), getResultTypes());
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getSymNameAttrName(), getPrecisionAttrName()});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/true);
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

ParseResult WeightOp::parse(OpAsmParser &parser, OperationState &result) {
  if (succeeded(parser.parseOptionalKeyword("external"))) {
    std::string ref;
    Type type;
    if (parser.parseString(&ref) ||
        parser.parseOptionalAttrDict(result.attributes) ||
        parser.parseColonType(type))
      return failure();
    result.addAttribute(getRefAttrName(result.name),
                        parser.getBuilder().getStringAttr(ref));
    result.addTypes(type);
    return success();
  }
  SMLoc loc = parser.getCurrentLocation();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return parser.emitError(loc)
           << "expected inline tensor data (e.g. dense<...> : tensor<...>) "
              "or 'external \"name\"'";
  result.addAttribute(getValueAttrName(result.name), elements);
  result.addTypes(elements.getType());
  return parser.parseOptionalAttrDict(result.attributes);
}

void WeightOp::print(OpAsmPrinter &printer) {
  if (StringAttr ref = getRefAttr()) {
    printer << " external ";
    printer.printString(ref.getValue());
    printer.printOptionalAttrDict((*this)->getAttrs(),
                                  {getRefAttrName(), getValueAttrName()});
    printer << " : " << getType();
    return;
  }
  printer << ' ';
  printer.printAttribute(getValueAttr());
  printer.printOptionalAttrDict((*this)->getAttrs(),
                                {getRefAttrName(), getValueAttrName()});
}

//===----------------------------------------------------------------------===//
// Weight operands of weighted layers
//===----------------------------------------------------------------------===//

static SmallVector<Value> nonNull(std::initializer_list<Value> values) {
  SmallVector<Value> result;
  for (Value v : values)
    if (v)
      result.push_back(v);
  return result;
}

SmallVector<Value> DenseOp::getWeightOperands() {
  return nonNull({getWeight(), getBias()});
}
SmallVector<Value> Conv2DOp::getWeightOperands() {
  return nonNull({getWeight(), getBias()});
}
SmallVector<Value> ConvTranspose2DOp::getWeightOperands() {
  return nonNull({getWeight(), getBias()});
}
SmallVector<Value> BatchNormOp::getWeightOperands() {
  return nonNull({getScale(), getBias(), getMean(), getVariance()});
}
SmallVector<Value> LayerNormOp::getWeightOperands() {
  return nonNull({getGamma(), getBeta()});
}
SmallVector<Value> InstanceNormOp::getWeightOperands() {
  return nonNull({getScale(), getBias()});
}
SmallVector<Value> GroupNormOp::getWeightOperands() {
  return nonNull({getScale(), getBias()});
}
SmallVector<Value> EmbeddingOp::getWeightOperands() {
  return nonNull({getTable()});
}
SmallVector<Value> LstmOp::getWeightOperands() {
  return nonNull({getW(), getR(), getB()});
}
int64_t LstmOp::getHiddenSize() {
  return cast<ShapedType>(getR().getType()).getShape().back();
}
PrecisionAttr LstmOp::getStatePrecisionOrDefault() {
  if (PrecisionAttr p = getStatePrecisionAttr())
    return p;
  return PrecisionAttr::get(getContext(), PrecisionKind::f32);
}
SmallVector<Value> GruOp::getWeightOperands() {
  return nonNull({getW(), getR(), getB()});
}
int64_t GruOp::getHiddenSize() {
  return cast<ShapedType>(getR().getType()).getShape().back();
}
PrecisionAttr GruOp::getStatePrecisionOrDefault() {
  if (PrecisionAttr p = getStatePrecisionAttr())
    return p;
  return PrecisionAttr::get(getContext(), PrecisionKind::f32);
}
SmallVector<Value> AttentionOp::getWeightOperands() {
  return nonNull(
      {getWq(), getWk(), getWv(), getWo(), getBq(), getBk(), getBv(), getBo()});
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

double mix::resizeCoordinate(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                             int64_t out) {
  double scale = op.getScales()[dim];
  StringRef coordinates = op.getCoordinateMode();
  if (coordinates == "asymmetric")
    return double(i) / scale;
  if (coordinates == "align_corners") {
    // ONNX divides by the unfloored output length minus one.
    double length = double(in) * scale;
    return length <= 1 ? 0.0 : double(i) * double(in - 1) / (length - 1);
  }
  if (coordinates == "pytorch_half_pixel" && out == 1)
    return 0.0;
  return (double(i) + 0.5) / scale - 0.5;
}

void mix::resizeCubicWeights(double r, double weight[4]) {
  const double a = kResizeCubicA;
  double s = r + 1, t = 1 - r, u = t + 1;
  weight[0] = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
  weight[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  weight[2] = ((a + 2) * t - (a + 3)) * t * t + 1;
  weight[3] = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a;
}

ResizeCubicTap mix::resizeCubicTap(ResizeOp op, unsigned dim, int64_t i,
                                   int64_t in, int64_t out) {
  double c = resizeCoordinate(op, dim, i, in, out);
  double f = std::floor(c);
  ResizeCubicTap tap;
  resizeCubicWeights(c - f, tap.weight);
  for (int t = 0; t < 4; ++t)
    tap.index[t] =
        std::min<int64_t>(std::max<int64_t>(int64_t(f) - 1 + t, 0), in - 1);
  return tap;
}

ResizeTap mix::resizeTap(ResizeOp op, unsigned dim, int64_t i, int64_t in,
                         int64_t out) {
  StringRef nearest = op.getNearestMode();
  double c = resizeCoordinate(op, dim, i, in, out);
  auto clampIndex = [&](int64_t v) {
    return std::min<int64_t>(std::max<int64_t>(v, 0), in - 1);
  };
  if (op.getMode() == "nearest") {
    double r;
    if (nearest == "floor") {
      r = std::floor(c);
    } else if (nearest == "ceil") {
      r = std::ceil(c);
    } else {
      double f = std::floor(c);
      r = c - f == 0.5 ? (nearest == "round_prefer_floor" ? f : f + 1)
                       : std::round(c);
    }
    int64_t at = clampIndex(int64_t(r));
    return {at, at, 0.0};
  }
  c = std::min(std::max(c, 0.0), double(in - 1));
  int64_t lo = int64_t(std::floor(c));
  return {lo, clampIndex(lo + 1), c - double(lo)};
}
