//===- OnnxDataOps.cpp - ONNX data movement, reductions, pooling ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Transpose, Concat, Slice and Pad of activations (the same ops on
// constants are folded, OnnxFold.cpp), ReduceSum/Mean/L2/Max/Min and
// AveragePool. Index attributes and inputs are normalized here the way ONNX
// defines them (negative axes, clamped slice bounds), so the mix ops carry
// only checked, normalized values.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"
#include "dialect/ResizeTap.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

/// `axis` in [0, rank), or std::nullopt.
std::optional<int64_t> normalize(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Slice bounds clamped as ONNX defines them (start in [0, dim] for a
/// positive step, [0, dim - 1] for a negative one; end in [0, dim] or
/// [-1, dim - 1]).
void clampSlice(int64_t dim, int64_t step, int64_t &start, int64_t &end) {
  if (start < 0)
    start =
        std::max<int64_t>(start, std::numeric_limits<int64_t>::min() + dim) +
        dim;
  if (end < 0)
    end =
        std::max<int64_t>(end, std::numeric_limits<int64_t>::min() + dim) + dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
}

} // namespace

bool Importer::convertDataOp(const onnx::NodeProto &node) {
  llvm::StringRef op = node.op_type();
  std::string out = node.output_size() ? node.output(0) : "";
  auto i64Array = [&](llvm::StringRef name, llvm::ArrayRef<int64_t> values) {
    return builder.getNamedAttr(name, builder.getDenseI64ArrayAttr(values));
  };
  auto rankOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };

  if (op == "Transpose") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    int64_t rank = rankOf(x);
    std::vector<int64_t> perm;
    if (auto given = attrInts(node, "perm"))
      perm = *given;
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    define(out, layer<TransposeOp>(*this, type, {x},
                                   {i64Array("permutation", perm)}));
    return true;
  }

  if (op == "Concat") {
    SmallVector<Value> inputs;
    for (int i = 0; i < node.input_size(); ++i) {
      Value v = operand(node, input(node, i));
      if (!v)
        return true;
      inputs.push_back(v);
    }
    RankedTensorType type = floatTypeOf(node, out);
    if (inputs.empty() || !type)
      return true;
    define(out, layer<ConcatOp>(*this, type, inputs,
                                {builder.getNamedAttr(
                                    "axis", builder.getI64IntegerAttr(
                                                attrInt(node, "axis", 0)))}));
    return true;
  }

  if (op == "Slice") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    auto xt = cast<RankedTensorType>(x.getType());
    int64_t rank = xt.getRank();
    auto starts = constantInts(input(node, 1));
    auto ends = constantInts(input(node, 2));
    std::optional<std::vector<int64_t>> axes, steps;
    if (!input(node, 3).empty())
      axes = constantInts(input(node, 3));
    if (!input(node, 4).empty())
      steps = constantInts(input(node, 4));
    if (!starts || !ends || (!input(node, 3).empty() && !axes) ||
        (!input(node, 4).empty() && !steps)) {
      problem(node, "the starts, ends, axes and steps of a Slice of an "
                    "activation must be constants");
      return true;
    }
    size_t n = starts->size();
    if (!axes) {
      axes.emplace();
      for (size_t i = 0; i < n; ++i)
        axes->push_back(int64_t(i));
    }
    if (!steps)
      steps = std::vector<int64_t>(n, 1);
    if (ends->size() != n || axes->size() != n || steps->size() != n) {
      problem(node, "starts, ends, axes and steps have different lengths");
      return true;
    }
    SmallVector<int64_t> outAxes, outStarts, outEnds, outSteps;
    for (size_t i = 0; i < n; ++i) {
      std::optional<int64_t> axis = normalize((*axes)[i], rank);
      if (!axis) {
        problem(node, "axis " + llvm::Twine((*axes)[i]) +
                          " is out of range for rank " + llvm::Twine(rank));
        return true;
      }
      int64_t start = (*starts)[i], end = (*ends)[i], step = (*steps)[i];
      if (step == 0) {
        problem(node, "a Slice step is 0");
        return true;
      }
      int64_t dim = xt.getDimSize(*axis);
      if (ShapedType::isDynamic(dim)) {
        // The batch may only be kept whole.
        if (start == 0 && step == 1 &&
            end >= std::numeric_limits<int32_t>::max())
          continue;
        problem(node, "cannot slice the dynamic batch (axis " +
                          llvm::Twine(*axis) + ")");
        return true;
      }
      clampSlice(dim, step, start, end);
      outAxes.push_back(*axis);
      outStarts.push_back(start);
      outEnds.push_back(end);
      outSteps.push_back(step);
    }
    define(out, layer<SliceOp>(
                    *this, type, {x},
                    {i64Array("axes", outAxes), i64Array("starts", outStarts),
                     i64Array("ends", outEnds), i64Array("steps", outSteps)}));
    return true;
  }

  if (op == "Pad") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    auto pads = constantInts(input(node, 1));
    if (!pads) {
      problem(node, "the pads of a Pad must be constants");
      return true;
    }
    if (llvm::any_of(*pads, [](int64_t p) { return p < 0; })) {
      problem(node, "negative pads (cropping) are not supported");
      return true;
    }
    if (node.input_size() > 3 && !input(node, 3).empty()) {
      problem(node, "Pad with axes is not supported");
      return true;
    }
    double value = 0.0;
    if (!input(node, 2).empty()) {
      std::optional<double> v = constantScalar(input(node, 2));
      if (!v) {
        problem(node, "the constant_value of a Pad must be a constant scalar");
        return true;
      }
      value = *v;
    }
    std::string mode = attrString(node, "mode", "constant");
    define(out, layer<PadOp>(
                    *this, type, {x},
                    {i64Array("pads", *pads),
                     builder.getNamedAttr("mode", builder.getStringAttr(mode)),
                     builder.getNamedAttr("value",
                                          builder.getF64FloatAttr(value))}));
    return true;
  }

  using Build =
      Value (*)(Importer &, Type, ValueRange, llvm::ArrayRef<NamedAttribute>);
  Build reduce = llvm::StringSwitch<Build>(op)
                     .Case("ReduceSum", layer<ReduceSumOp>)
                     .Case("ReduceMean", layer<ReduceMeanOp>)
                     .Case("ReduceL2", layer<ReduceL2Op>)
                     .Case("ReduceProd", layer<ReduceProdOp>)
                     .Case("ReduceMax", layer<ReduceMaxOp>)
                     .Case("ReduceMin", layer<ReduceMinOp>)
                     .Cases({"ReduceL1", "ReduceSumSquare", "ReduceLogSum",
                             "ReduceLogSumExp"},
                            layer<ReduceSumOp>)
                     .Default(nullptr);
  if (reduce) {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    // The sums of a function of x, as ONNX's reference: sum(|x|),
    // sum(x * x), log(sum(x)), log(sum(exp(x))).
    auto xType = cast<RankedTensorType>(x.getType());
    if (op == "ReduceL1")
      x = layer<AbsOp>(*this, xType, {x});
    else if (op == "ReduceSumSquare")
      x = layer<MulOp>(*this, xType, {x, x});
    else if (op == "ReduceLogSumExp")
      x = layer<ExpOp>(*this, xType, {x});
    bool logOfSum = op == "ReduceLogSum" || op == "ReduceLogSumExp";
    // ReduceSum takes its axes as an input (opset 13), the others as an
    // attribute (until opset 18).
    std::vector<int64_t> axes;
    if (op == "ReduceSum") {
      if (!input(node, 1).empty()) {
        auto given = constantInts(input(node, 1));
        if (!given) {
          problem(node, "the axes of a ReduceSum must be constants");
          return true;
        }
        axes = *given;
      }
      if (axes.empty() && attrInt(node, "noop_with_empty_axes", 0) != 0) {
        define(out, x);
        return true;
      }
    } else if (auto given = attrInts(node, "axes")) {
      axes = *given;
    }
    Value y = reduce(
        *this, type, {x},
        {i64Array("axes", axes),
         builder.getNamedAttr(
             "keepdims", builder.getBoolAttr(attrInt(node, "keepdims", 1)))});
    define(out, logOfSum ? layer<LogOp>(*this, type, {y}) : y);
    return true;
  }

  if (op == "ArgMax" || op == "ArgMin") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = typeOf(node, out);
    if (!x || !type)
      return true;
    if (!isa<FloatType>(cast<RankedTensorType>(x.getType()).getElementType())) {
      problem(node, op.str() + " of integer tensors is not supported");
      return true;
    }
    if (!type.getElementType().isInteger(64)) {
      problem(node, "the result of " + op.str() + " must be int64");
      return true;
    }
    llvm::SmallVector<NamedAttribute> attrs = {
        builder.getNamedAttr(
            "axis", builder.getI64IntegerAttr(attrInt(node, "axis", 0))),
        builder.getNamedAttr("keepdims",
                             builder.getBoolAttr(attrInt(node, "keepdims", 1))),
        builder.getNamedAttr(
            "select_last_index",
            builder.getBoolAttr(attrInt(node, "select_last_index", 0)))};
    define(out, op == "ArgMax" ? layer<ArgMaxOp>(*this, type, {x}, attrs)
                               : layer<ArgMinOp>(*this, type, {x}, attrs));
    return true;
  }

  if (op == "Squeeze" || op == "Unsqueeze") {
    // Of an activation (constants are folded): the same data, reshaped.
    Value x = value(input(node, 0));
    if (!x)
      return false;
    RankedTensorType type = floatTypeOf(node, out);
    if (!type)
      return true;
    define(out, layer<ReshapeOp>(*this, type, {x}));
    return true;
  }

  if (op == "Split") {
    Value x = operand(node, input(node, 0));
    if (!x)
      return true;
    auto xt = cast<RankedTensorType>(x.getType());
    std::optional<int64_t> axis =
        normalize(attrInt(node, "axis", 0), xt.getRank());
    if (!axis) {
      problem(node, "axis is out of range");
      return true;
    }
    int64_t dim = xt.getDimSize(*axis);
    if (ShapedType::isDynamic(dim)) {
      problem(node, "cannot split the dynamic batch");
      return true;
    }
    std::vector<int64_t> sizes;
    if (!input(node, 1).empty()) {
      auto given = constantInts(input(node, 1));
      if (!given) {
        problem(node, "the split sizes must be constants");
        return true;
      }
      sizes = *given;
    } else {
      int64_t parts = node.output_size();
      int64_t each = (dim + parts - 1) / parts; // the last part may be smaller
      for (int64_t i = 0, left = dim; i < parts; ++i, left -= each)
        sizes.push_back(std::min(each, std::max<int64_t>(left, 0)));
    }
    int64_t total = 0;
    bool overflow = false;
    for (int64_t size : sizes)
      overflow |= llvm::AddOverflow(total, size, total);
    if (overflow || int64_t(sizes.size()) != node.output_size() ||
        total != dim || llvm::any_of(sizes, [](int64_t v) { return v < 0; })) {
      problem(node,
              "split sizes do not add up to the axis size " + llvm::Twine(dim));
      return true;
    }
    int64_t start = 0;
    for (auto [i, size] : llvm::enumerate(sizes)) {
      std::string name = node.output(int(i));
      RankedTensorType type = floatTypeOf(node, name);
      if (!type)
        return true;
      if (!name.empty())
        define(name, layer<SliceOp>(*this, type, {x},
                                    {i64Array("axes", {*axis}),
                                     i64Array("starts", {start}),
                                     i64Array("ends", {start + size}),
                                     i64Array("steps", {int64_t(1)})}));
      start += size;
    }
    return true;
  }

  if (op == "ConvTranspose") {
    Value x = operand(node, input(node, 0));
    const Constant *w = constant(input(node, 1));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    if (rankOf(x) != 4 || (w && w->shape.size() != 4)) {
      problem(node, "only 2-D transposed convolutions (4-D inputs) are "
                    "supported");
      return true;
    }
    if (!w) {
      problem(node, "the weight of a ConvTranspose must be a constant");
      return true;
    }
    std::string autoPad = attrString(node, "auto_pad", "NOTSET");
    if ((autoPad != "NOTSET" && autoPad != "VALID" && !autoPad.empty()) ||
        attrInts(node, "output_shape")) {
      problem(node, "ConvTranspose with output_shape or auto_pad SAME_* is "
                    "not supported (give pads)");
      return true;
    }
    SmallVector<int64_t> strides = pair(node, "strides");
    SmallVector<int64_t> dilations = pair(node, "dilations");
    auto pads = attrInts(node, "pads").value_or(std::vector<int64_t>(4, 0));
    auto outputPadding =
        attrInts(node, "output_padding").value_or(std::vector<int64_t>(2, 0));
    if (autoPad == "VALID")
      pads.assign(4, 0);
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
        outputPadding.size() != 2) {
      problem(node, "strides, dilations, pads and output_padding must be "
                    "2-D");
      return true;
    }
    Value wv = weight(node, *w);
    if (!wv)
      return true;
    SmallVector<Value> operands = {x, wv};
    if (!input(node, 2).empty()) {
      const Constant *b = constant(input(node, 2));
      if (!b) {
        problem(node, "the bias of a ConvTranspose must be a constant");
        return true;
      }
      Value bv = weight(node, *b);
      if (!bv)
        return true;
      operands.push_back(bv);
    }
    define(out, layer<ConvTranspose2DOp>(
                    *this, type, operands,
                    {i64Array("strides", strides), i64Array("padding", pads),
                     i64Array("dilations", dilations),
                     i64Array("output_padding", outputPadding),
                     builder.getNamedAttr("groups",
                                          builder.getI64IntegerAttr(
                                              attrInt(node, "group", 1)))}));
    return true;
  }

  if (op == "Resize") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    auto xt = cast<RankedTensorType>(x.getType());
    std::string mode = attrString(node, "mode", "nearest");
    std::string coordinates =
        attrString(node, "coordinate_transformation_mode", "half_pixel");
    std::string nearestMode =
        attrString(node, "nearest_mode", "round_prefer_floor");
    if (xt.getRank() != 4 || !xt.hasStaticShape()) {
      problem(node, "only Resize of static 4-D (NCHW) tensors is supported");
      return true;
    }
    if (mode != "nearest" && mode != "linear" && mode != "cubic") {
      problem(node, "Resize mode '" + mode +
                        "' is not supported (nearest, linear, cubic)");
      return true;
    }
    if (mode == "cubic" &&
        attrFloat(node, "cubic_coeff_a", kResizeCubicA) != kResizeCubicA) {
      std::string a;
      llvm::raw_string_ostream(a) << llvm::format(
          "%g", attrFloat(node, "cubic_coeff_a", kResizeCubicA));
      problem(node, "Resize mode 'cubic' with cubic_coeff_a " + a +
                        " is not supported (only -0.75, ONNX's default and "
                        "PyTorch's bicubic)");
      return true;
    }
    if (coordinates == "tf_crop_and_resize" ||
        coordinates == "tf_half_pixel_for_nn" ||
        attrInt(node, "exclude_outside", 0) != 0) {
      problem(node, "Resize with coordinate_transformation_mode '" +
                        coordinates + "' or exclude_outside is not supported");
      return true;
    }
    // Scales (input 2) or sizes (input 3), constants; N and C unchanged.
    SmallVector<double> scales;
    if (node.input_size() > 3 && !input(node, 3).empty()) {
      auto sizes = constantInts(input(node, 3));
      if (!sizes || sizes->size() != 4) {
        problem(node, "the sizes of a Resize must be 4 constants");
        return true;
      }
      if ((*sizes)[0] != xt.getDimSize(0) || (*sizes)[1] != xt.getDimSize(1)) {
        problem(node, "Resize may only change the spatial dimensions");
        return true;
      }
      for (int i = 2; i < 4; ++i) {
        // The scale whose floor(in * scale) is the size (ONNX's scale is
        // size / in; one step up when that rounds below the size).
        double in = double(xt.getDimSize(i)), size = double((*sizes)[i]);
        double scale = size / in;
        if (std::floor(in * scale) < size)
          scale = std::nextafter(scale, 2 * scale + 1);
        scales.push_back(scale);
      }
    } else if (!input(node, 2).empty()) {
      const Constant *c = constant(input(node, 2));
      std::optional<std::vector<double>> given =
          c ? constantFloats(input(node, 2)) : std::nullopt;
      if (!given || given->size() != 4) {
        problem(node, "the scales of a Resize must be 4 constants");
        return true;
      }
      if ((*given)[0] != 1.0 || (*given)[1] != 1.0) {
        problem(node, "Resize may only change the spatial dimensions");
        return true;
      }
      scales = {(*given)[2], (*given)[3]};
    } else {
      problem(node, "a Resize needs scales or sizes");
      return true;
    }
    auto str = [&](llvm::StringRef name, llvm::StringRef v) {
      return builder.getNamedAttr(name, builder.getStringAttr(v));
    };
    define(out, layer<ResizeOp>(
                    *this, type, {x},
                    {builder.getNamedAttr("scales",
                                          builder.getDenseF64ArrayAttr(scales)),
                     str("mode", mode), str("coordinate_mode", coordinates),
                     str("nearest_mode", nearestMode)}));
    return true;
  }

  if (op == "AveragePool") {
    Value x = operand(node, input(node, 0));
    RankedTensorType type = floatTypeOf(node, out);
    if (!x || !type)
      return true;
    auto xt = cast<RankedTensorType>(x.getType());
    auto kernel = attrInts(node, "kernel_shape");
    if (xt.getRank() != 4 || !kernel || kernel->size() != 2) {
      problem(node, "only 2-D average pooling is supported");
      return true;
    }
    if (attrInt(node, "ceil_mode", 0) != 0) {
      problem(node, "AveragePool with ceil_mode = 1 is not supported");
      return true;
    }
    SmallVector<int64_t> strides = pair(node, "strides");
    if (strides.size() != 2) {
      problem(node, "strides must have 2 values for a 2-D window");
      return true;
    }
    auto pads =
        windowPadding(*this, node, xt, *kernel, strides, {int64_t(1), 1});
    if (!pads)
      return true;
    define(out, layer<AvgPool2DOp>(
                    *this, type, {x},
                    {i64Array("kernel", *kernel), i64Array("strides", strides),
                     i64Array("padding", *pads),
                     builder.getNamedAttr(
                         "count_include_pad",
                         builder.getBoolAttr(
                             attrInt(node, "count_include_pad", 0) != 0))}));
    return true;
  }
  return false;
}
