//===- OnnxRecurrent.cpp - ONNX LSTM and GRU to mix.lstm and mix.gru ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// ONNX's LSTM and GRU map directly onto mix.lstm and mix.gru (same operand
// layouts, gate orders i, o, f, c and z, r, h, layout, direction and
// linear_before_reset attributes). What they do not compute is refused with
// a problem naming the node: non-default activations, clip, input_forget,
// sequence_lens, peepholes.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

/// ONNX's defaults, per direction: LSTM f = Sigmoid, g = Tanh, h = Tanh
/// (`perDirection` 3); GRU f = Sigmoid, g = Tanh (2).
static bool defaultActivations(const onnx::NodeProto &node, int64_t dirs,
                               int perDirection) {
  const onnx::AttributeProto *a = findAttr(node, "activations");
  if (!a)
    return true;
  if (a->strings_size() != perDirection * dirs)
    return false;
  for (int i = 0; i < a->strings_size(); ++i) {
    llvm::StringRef name = a->strings(i);
    if (!name.equals_insensitive(i % perDirection == 0 ? "Sigmoid" : "Tanh"))
      return false;
  }
  return true;
}

bool Importer::convertRecurrent(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  if (op != "LSTM" && op != "GRU")
    return false;
  bool gru = op == "GRU";
  std::string what = op.str();
  std::string direction = attrString(node, "direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    problem(node, what + " direction '" + direction + "' is not supported");
    return true;
  }
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (findAttr(node, "clip")) {
    problem(node, what + "'s clip attribute is not supported");
    return true;
  }
  if (attrInt(node, "input_forget", 0) != 0) {
    problem(node, "LSTM's input_forget (coupled input and forget gates) is "
                  "not supported");
    return true;
  }
  if (!defaultActivations(node, dirs, gru ? 2 : 3) ||
      findAttr(node, "activation_alpha") || findAttr(node, "activation_beta")) {
    problem(node, what + " activations other than the defaults (Sigmoid, " +
                      (gru ? "Tanh" : "Tanh, Tanh") + ") are not supported");
    return true;
  }
  if (!gru && !input(node, 7).empty()) {
    problem(node, "LSTM peepholes (input P) are not supported");
    return true;
  }
  if (!input(node, 4).empty()) {
    problem(node, what + "'s sequence_lens input is not supported (every "
                         "sequence must have the full length)");
    return true;
  }
  int64_t layout = attrInt(node, "layout", 0);
  if (layout != 0 && layout != 1) {
    problem(node, what + " layout " + std::to_string(layout) +
                      " is not supported (0 or 1)");
    return true;
  }
  Value x = operand(node, input(node, 0));
  Value w = operand(node, input(node, 1));
  Value r = operand(node, input(node, 2));
  if (!x || !w || !r)
    return true;
  auto xType = cast<RankedTensorType>(x.getType());
  auto rType = cast<RankedTensorType>(r.getType());
  if (xType.getRank() != 3 || rType.getRank() != 3 || !xType.hasStaticShape()) {
    problem(node, what + " needs a static input of rank 3 and R of rank 3");
    return true;
  }
  int64_t hidden = rType.getDimSize(2);
  if (const onnx::AttributeProto *h = findAttr(node, "hidden_size");
      h && h->i() != hidden) {
    problem(node, what + " hidden_size " + std::to_string(h->i()) +
                      " differs from R's last dimension " +
                      std::to_string(hidden));
    return true;
  }
  SmallVector<Value> operands = {x, w, r};
  Value b, h0, c0;
  for (auto [index, slot] :
       {std::pair<int, Value *>{3, &b}, {5, &h0}, {gru ? 99 : 6, &c0}}) {
    if (input(node, index).empty())
      continue;
    *slot = operand(node, input(node, index));
    if (!*slot)
      return true;
    operands.push_back(*slot);
  }
  int64_t steps = xType.getDimSize(layout == 0 ? 0 : 1);
  int64_t batch = xType.getDimSize(layout == 0 ? 1 : 0);
  Type elem = xType.getElementType();
  auto yType = RankedTensorType::get(
      layout == 0 ? SmallVector<int64_t>{steps, dirs, batch, hidden}
                  : SmallVector<int64_t>{batch, steps, dirs, hidden},
      elem);
  auto stateType = RankedTensorType::get(
      layout == 0 ? SmallVector<int64_t>{dirs, batch, hidden}
                  : SmallVector<int64_t>{batch, dirs, hidden},
      elem);
  SmallVector<NamedAttribute> attrs;
  if (direction != "forward")
    attrs.push_back(
        builder.getNamedAttr("direction", builder.getStringAttr(direction)));
  if (layout != 0)
    attrs.push_back(
        builder.getNamedAttr("layout", builder.getI64IntegerAttr(layout)));
  if (gru) {
    if (int64_t lbr = attrInt(node, "linear_before_reset", 0))
      attrs.push_back(builder.getNamedAttr(
          "linear_before_reset", builder.getI64IntegerAttr(lbr != 0)));
    attrs.push_back(builder.getNamedAttr(
        "operandSegmentSizes",
        builder.getDenseI32ArrayAttr({1, 1, 1, b ? 1 : 0, h0 ? 1 : 0})));
    auto g = GruOp::create(builder, loc, TypeRange{yType, stateType}, operands,
                           attrs);
    if (failed(verify(g))) {
      problem(node, "GRU's operands do not have ONNX's shapes");
      g.erase();
      return true;
    }
    for (int i = 0; i < 2; ++i)
      if (hasOutput(node, i))
        define(node.output(i), g->getResult(i));
    return true;
  }
  attrs.push_back(
      builder.getNamedAttr("operandSegmentSizes",
                           builder.getDenseI32ArrayAttr(
                               {1, 1, 1, b ? 1 : 0, h0 ? 1 : 0, c0 ? 1 : 0})));
  auto lstm = LstmOp::create(
      builder, loc, TypeRange{yType, stateType, stateType}, operands, attrs);
  if (failed(verify(lstm))) {
    problem(node, "LSTM's operands do not have ONNX's shapes");
    lstm.erase();
    return true;
  }
  for (int i = 0; i < 3; ++i)
    if (hasOutput(node, i))
      define(node.output(i), lstm->getResult(i));
  return true;
}
