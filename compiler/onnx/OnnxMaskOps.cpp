//===- OnnxMaskOps.cpp - ONNX Gather and Expand of activations ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The indexing ops of issue 13: Gather of an activation by constant indices
// (mix.gather; negative indices normalized here, out-of-range ones refused)
// and Expand of a tensor to a constant (or folded) shape (mix.expand).
// Gather of a constant table by computed indices stays an embedding
// (OnnxOps.cpp); Gather of constants only is folded (OnnxFold.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "onnx/onnx_pb.h"

#include <string>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

bool isFloat(Importer &im, const onnx::NodeProto &node, Value v);

/// Gather(data, indices) with `data` an activation.
void convertGather(Importer &im, const onnx::NodeProto &node, Value x) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank();
  const Constant *indices = im.constant(input(node, 1));
  if (!indices)
    return im.problem(node, "Gather of an activation is supported with "
                            "constant indices only (indices computed at run "
                            "time select rows of a constant table: an "
                            "embedding)");
  auto values = im.constantInts(input(node, 1));
  if (!values || indices->numElements() != int64_t(values->size()))
    return im.problem(node, "the indices of a Gather must be integers");
  int64_t axis = attrInt(node, "axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank)
    return im.problem(node, "axis " + std::to_string(axis) +
                                " is out of range for rank " +
                                std::to_string(rank));
  if (axis < 0)
    axis += rank;
  int64_t dim = xt.getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return im.problem(node, "cannot gather along the dynamic batch");
  std::vector<int64_t> normalized;
  for (int64_t index : *values) {
    if (index < -dim || index >= dim)
      return im.problem(node, "index " + std::to_string(index) +
                                  " is out of range for axis " +
                                  std::to_string(axis) + " of size " +
                                  std::to_string(dim));
    normalized.push_back(index < 0 ? index + dim : index);
  }
  SmallVector<int64_t> shape(xt.getShape().take_front(axis));
  llvm::append_range(shape, indices->shape);
  llvm::append_range(shape, xt.getShape().drop_front(axis + 1));
  auto indicesType =
      RankedTensorType::get(indices->shape, im.builder.getI64Type());
  OpBuilder &b = im.builder;
  im.define(node.output(0),
            layer<GatherOp>(
                im, RankedTensorType::get(shape, xt.getElementType()), {x},
                {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                 b.getNamedAttr("indices", DenseIntElementsAttr::get(
                                               indicesType, normalized))}));
}

/// Whether `v` holds floating-point elements, else records a problem.
bool isFloat(Importer &im, const onnx::NodeProto &node, Value v) {
  if (isa<FloatType>(cast<ShapedType>(v.getType()).getElementType()))
    return true;
  im.problem(node, node.op_type() + " of non-floating-point tensors is not "
                                    "supported (mix layers compute on "
                                    "floating-point tensors)");
  return false;
}

} // namespace

bool Importer::convertMaskOp(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  std::string out = node.output_size() ? node.output(0) : "";
  if (op == "Gather") {
    // A constant table is an embedding (OnnxOps.cpp) unless the indices are
    // constants too (integer constants are folded before).
    Value x = value(input(node, 0));
    if (!x && constant(input(node, 0)) && constant(input(node, 1)))
      x = operand(node, input(node, 0));
    if (!x)
      return false;
    if (isFloat(*this, node, x))
      convertGather(*this, node, x);
    return true;
  }
  if (op != "Expand")
    return false;
  Value x = operand(node, input(node, 0));
  if (!x || !isFloat(*this, node, x))
    return true;
  auto target = constantInts(input(node, 1));
  if (!target) {
    problem(node, "the shape of an Expand must be known at import (a "
                  "constant, or a shape computation of constants)");
    return true;
  }
  auto xt = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> in = xt.getShape();
  size_t rank = std::max(in.size(), target->size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    size_t fromIn = rank - in.size(), fromTarget = rank - target->size();
    int64_t a = i < fromIn ? 1 : in[i - fromIn];
    int64_t b = i < fromTarget ? 1 : (*target)[i - fromTarget];
    bool dynamicIn = ShapedType::isDynamic(a), dynamicOut = b == kBatchDim;
    if (dynamicIn || dynamicOut) {
      // The batch expands to nothing else, and nothing expands to it.
      if (!(dynamicIn && (dynamicOut || b == 1))) {
        problem(node, "cannot expand " + shapeString(in) + " to the shape " +
                          shapeString(*target) +
                          ": the dynamic batch must stay the batch");
        return true;
      }
      shape[i] = ShapedType::kDynamic;
      continue;
    }
    if (b < 0 || (a != b && a != 1 && b != 1)) {
      problem(node, "cannot expand " + shapeString(in) + " to the shape " +
                        shapeString(*target));
      return true;
    }
    shape[i] = a == 1 ? b : a;
  }
  define(out, layer<ExpandOp>(*this,
                              RankedTensorType::get(shape, xt.getElementType()),
                              {x}));
  return true;
}
