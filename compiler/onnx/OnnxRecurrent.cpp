//===- OnnxRecurrent.cpp - ONNX LSTM to mix.lstm --------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// ONNX's LSTM maps directly onto mix.lstm (same operand layouts, gate order
// i, o, f, c, layout and direction attributes). What mix.lstm does not
// compute is refused with a problem naming the node: non-default
// activations, clip, input_forget, sequence_lens, peepholes.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

/// LSTM's ONNX defaults, per direction: f = Sigmoid, g = Tanh, h = Tanh.
static bool defaultActivations(const onnx::NodeProto &node, int64_t dirs) {
  const onnx::AttributeProto *a = findAttr(node, "activations");
  if (!a)
    return true;
  if (a->strings_size() != 3 * dirs)
    return false;
  for (int i = 0; i < a->strings_size(); ++i) {
    llvm::StringRef name = a->strings(i);
    if (!name.equals_insensitive(i % 3 == 0 ? "Sigmoid" : "Tanh"))
      return false;
  }
  return true;
}

bool Importer::convertRecurrent(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  if (op != "LSTM")
    return false;
  std::string direction = attrString(node, "direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    problem(node, "LSTM direction '" + direction + "' is not supported");
    return true;
  }
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (findAttr(node, "clip")) {
    problem(node, "LSTM's clip attribute is not supported");
    return true;
  }
  if (attrInt(node, "input_forget", 0) != 0) {
    problem(node, "LSTM's input_forget (coupled input and forget gates) is "
                  "not supported");
    return true;
  }
  if (!defaultActivations(node, dirs) || findAttr(node, "activation_alpha") ||
      findAttr(node, "activation_beta")) {
    problem(node, "LSTM activations other than the defaults (Sigmoid, Tanh, "
                  "Tanh) are not supported");
    return true;
  }
  if (!input(node, 7).empty()) {
    problem(node, "LSTM peepholes (input P) are not supported");
    return true;
  }
  if (!input(node, 4).empty()) {
    problem(node, "LSTM's sequence_lens input is not supported (every "
                  "sequence must have the full length)");
    return true;
  }
  int64_t layout = attrInt(node, "layout", 0);
  if (layout != 0 && layout != 1) {
    problem(node, "LSTM layout " + std::to_string(layout) +
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
    problem(node, "LSTM needs a static input of rank 3 and R of rank 3");
    return true;
  }
  int64_t hidden = rType.getDimSize(2);
  if (const onnx::AttributeProto *h = findAttr(node, "hidden_size");
      h && h->i() != hidden) {
    problem(node, "LSTM hidden_size " + std::to_string(h->i()) +
                      " differs from R's last dimension " +
                      std::to_string(hidden));
    return true;
  }
  SmallVector<Value> operands = {x, w, r};
  Value b, h0, c0;
  for (auto [index, slot] :
       {std::pair<int, Value *>{3, &b}, {5, &h0}, {6, &c0}}) {
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
