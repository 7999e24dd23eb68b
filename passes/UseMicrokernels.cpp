//===- UseMicrokernels.cpp - mix-use-microkernels -------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Replaces the GEMMs of dense layers whose weight is a constant by calls of
// mixrt's microkernels (mixrt/ukernel.h), with the weight packed at compile
// time by the same mixrt function the runtime documents. The microkernels
// keep the numeric contract of the loops they replace (ascending k, one FMA
// per step from +0; exact int32 sums), so results are bit-identical. The
// rescale epilogue of an int8 GEMM moves into the call
// (mixrt_ukernel_gemm_s8s8f32) when the call computes the same bits, with
// the i32 GEMM and the rescale loop kept as its fallback.
// Depthwise and one-group f32 convolutions (the loops marked
// "depthwise_f32" and "conv2d_f32", which read their unpadded input in
// their body) call mixrt_ukernel_depthwise_f32 or mixrt_ukernel_conv2d_f32
// on that input with the padding of mix.ukernel_window: no padded copy.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrNames.h"
#include "passes/LinalgBuilders.h"
#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"

#include "mixrt/ukernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace mix {
#define GEN_PASS_DEF_MIXUSEMICROKERNELSPASS
#define GEN_PASS_DEF_MIXPACKDEQUANTIZEDWEIGHTSPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;

namespace {

constexpr StringLiteral kGemmF32 = "mixrt_ukernel_gemm_f32";
constexpr StringLiteral kGemmS8 = "mixrt_ukernel_gemm_s8s8s32";
constexpr StringLiteral kGemmS8F32 = "mixrt_ukernel_gemm_s8s8f32";
constexpr StringLiteral kRangeF32 = "mixrt_ukernel_range_f32";
constexpr StringLiteral kQuantizeF32 = "mixrt_ukernel_quantize_f32_s8";
constexpr StringLiteral kDepthwiseF32 = "mixrt_ukernel_depthwise_f32";
constexpr StringLiteral kDepthwiseS8Rescale =
    "mixrt_ukernel_depthwise_s8_rescale";
constexpr StringLiteral kConvF32 = "mixrt_ukernel_conv2d_f32";
constexpr StringLiteral kConvGroupedF32 = "mixrt_ukernel_conv2d_grouped_f32";
constexpr StringLiteral kConvS8 = "mixrt_ukernel_conv2d_s8s8s32";
constexpr StringLiteral kConvS8Rescale = "mixrt_ukernel_conv2d_s8_rescale";
/// Rows (M) up to which a weight-only int8 dense dequantizes in the GEMM.
constexpr int64_t kMaxDequantizedRows = 32;
/// On a weight-only int8 weight folded to f32 by
/// mix-pack-dequantized-weights: the name of its packed int8 form.
constexpr StringLiteral kPackedDequantized = "mix_packed_dequantized";
/// On a weight-only int8 lstm/gru weight folded to f32 by
/// mix-pack-dequantized-weights: its int8 values, scales and zero points
/// (symbols), and the axis of the parameters (-1: per tensor).
constexpr StringLiteral kDequantizedFrom = "mix_dequantized_from";
constexpr StringLiteral kDequantizedAxis = "mix_dequantized_axis";

/// The source of `view` through memref.subview and memref.cast ops.
Value viewSource(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      view = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      view = cast.getSource();
    else
      break;
  }
  return view;
}

/// The raw little-endian bytes of a constant global's value (a splat is
/// expanded), or nothing if the global has no usable initial value.
std::optional<std::vector<char>> globalBytes(memref::GlobalOp global) {
  if (!global.getConstant())
    return std::nullopt;
  std::optional<Attribute> init = global.getInitialValue();
  if (!init)
    return std::nullopt;
  auto type = cast<MemRefType>(global.getType());
  int64_t bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return std::nullopt;
  size_t bytes = static_cast<size_t>(type.getNumElements()) * (bits / 8);
  if (auto dense = dyn_cast<DenseElementsAttr>(*init)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      std::vector<char> out(bytes);
      for (size_t i = 0; i < bytes; i += raw.size())
        std::copy(raw.begin(), raw.end(), out.begin() + i);
      return out;
    }
    if (raw.size() != bytes)
      return std::nullopt;
    return std::vector<char>(raw.begin(), raw.end());
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(*init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != bytes)
      return std::nullopt;
    ArrayRef<char> raw = blob->getData();
    return std::vector<char>(raw.begin(), raw.end());
  }
  return std::nullopt;
}

/// A private, constant, 64-byte aligned global `name` of type `type` holding
/// `value`, created before `anchor` and entered in `symbols` (which may
/// rename it to keep names unique).
memref::GlobalOp constantGlobal(Operation *anchor, StringRef name,
                                MemRefType type, DenseElementsAttr value,
                                SymbolTable &symbols) {
  OpBuilder b(anchor);
  auto result = memref::GlobalOp::create(
      b, anchor->getLoc(), name, b.getStringAttr("private"), type, value,
      /*constant=*/true, b.getI64IntegerAttr(64));
  symbols.insert(result);
  return result;
}

/// A constant global of the raw bytes `bytes` (an i8 vector), named `name`.
memref::GlobalOp byteGlobal(Operation *anchor, StringRef name,
                            ArrayRef<char> bytes, SymbolTable &symbols) {
  auto size = static_cast<int64_t>(bytes.size());
  Builder b(anchor->getContext());
  return constantGlobal(
      anchor, name, MemRefType::get({size}, b.getI8Type()),
      DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get({size}, b.getI8Type()), bytes),
      symbols);
}

/// The constant global `value` reads (memref.get_global), or null.
memref::GlobalOp constantGlobalOf(Value value, SymbolTable &symbols) {
  auto get = value.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return {};
  auto global = symbols.lookup<memref::GlobalOp>(get.getName());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return global;
}

/// A statically shaped, contiguous row-major buffer of `elem` and `rank`.
bool isPlainBuffer(Value value, Type elem, int64_t rank) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.getElementType() == elem && type.getRank() == rank &&
         memref::isStaticShapeAndContiguousRowMajor(type);
}

/// Where a buffer lives: its root (a block argument, or an op result that is
/// no view) and, for views of the workspace at a constant byte offset, the
/// byte range [begin, end) in it.
struct Placement {
  Value root;
  int64_t begin = 0;
  int64_t end = INT64_MAX;
};

Placement placementOf(Value value) {
  auto type = cast<MemRefType>(value.getType());
  int64_t bytes =
      type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  // Reshapes of contiguous buffers cover the same bytes.
  while (isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  if (auto view = value.getDefiningOp<memref::ViewOp>()) {
    APInt shift;
    if (view.getSizes().empty() &&
        matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
      return {view.getSource(), shift.getSExtValue(),
              shift.getSExtValue() + bytes};
    return {view.getSource()};
  }
  return {value, 0, bytes};
}

/// Whether `root` is the workspace (the buffer the memory plan views).
bool isWorkspace(Value root) {
  return llvm::any_of(root.getUsers(), [&](Operation *user) {
    return isa<memref::ViewOp>(user);
  });
}

/// Whether `a` and `b` are the same bytes: one value, or two views of the
/// workspace at the same constant range (the memory plan makes one view per
/// use of a buffer).
bool sameBytes(Value a, Value b) {
  if (a == b)
    return true;
  Placement pa = placementOf(a), pb = placementOf(b);
  return pa.root == pb.root && isWorkspace(pa.root) && pa.end != INT64_MAX &&
         pa.begin == pb.begin && pa.end == pb.end;
}

/// Whether writing `out` cannot change `in` during the write: two views of
/// the workspace at disjoint constant ranges, or one view of the workspace
/// and one caller buffer (the workspace is the caller's scratch memory, which
/// no tensor argument may overlap).
bool provablyDisjoint(Value in, Value out) {
  Placement a = placementOf(in), b = placementOf(out);
  if (a.root == b.root)
    return isWorkspace(a.root) && (a.end <= b.begin || b.end <= a.begin);
  return isWorkspace(a.root) != isWorkspace(b.root);
}

/// The generated code's view of a buffer: an `!llvm.ptr` to its first
/// element.
Value pointerTo(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, metadata.getBaseBuffer());
  Value offset = metadata.getOffset();
  int64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  Value bytes = arith::MulIOp::create(
      b, loc, offset, arith::ConstantIndexOp::create(b, loc, elementBytes));
  Value address = arith::AddIOp::create(b, loc, base, bytes);
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), asInt);
}

Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value nullPointer(OpBuilder &b, Location loc) {
  return LLVM::ZeroOp::create(b, loc,
                              LLVM::LLVMPointerType::get(b.getContext()));
}

/// Appends the window arguments of mixrt's convolution kernels (ukernel.h):
/// stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left,
/// pad_bottom, pad_right, OH, OW.
void appendWindowArgs(OpBuilder &b, Location loc, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> dilations, ArrayRef<int64_t> pad,
                      int64_t oh, int64_t ow, SmallVectorImpl<Value> &args) {
  for (int64_t v : {strides[0], strides[1], dilations[0], dilations[1], pad[0],
                    pad[1], pad[2], pad[3], oh, ow})
    args.push_back(i64Const(b, loc, v));
}

/// Declares `name` (an external mixrt function) once.
void declare(ModuleOp module, StringRef name, FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder b(module.getBodyRegion());
  func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
}

/// Ops that only name a value (constants, workspace views): they do not
/// separate two computations.
bool isBookkeeping(Operation *op) {
  return isa<arith::ConstantOp, memref::ViewOp, memref::GetGlobalOp>(op);
}

/// The computation before (`forward` false) or after `op` in its block,
/// skipping bookkeeping ops.
Operation *adjacentComputation(Operation *op, bool forward) {
  Operation *next = forward ? op->getNextNode() : op->getPrevNode();
  while (next && isBookkeeping(next))
    next = forward ? next->getNextNode() : next->getPrevNode();
  return next;
}

/// Whether the i32 zero points `zp` are a constant global whose values all
/// lie in [-128, 127], the range the int8 kernels accept (they refuse the
/// call otherwise, and the call's status is not read); `allZero` tells
/// whether they are all 0.
bool constantInt8ZeroPoints(Value zp, SymbolTable &symbols, bool &allZero) {
  memref::GlobalOp global = constantGlobalOf(zp, symbols);
  std::optional<std::vector<char>> bytes =
      global ? globalBytes(global) : std::nullopt;
  if (!bytes || bytes->size() % 4 != 0)
    return false;
  allZero = true;
  for (size_t i = 0; i < bytes->size(); i += 4) {
    int32_t v;
    std::memcpy(&v, bytes->data() + i, 4);
    if (v < -128 || v > 127)
      return false;
    allZero = allZero && v == 0;
  }
  return true;
}

/// A convolution loop of the lowering over the unpadded input (marked with
/// mix.ukernel_window): its window [strides 2, dilations 2, padding 4] and
/// the input buffer, the one memref.load of its body (defined outside the
/// loop; everything else in the body pure, with `fmas` math.fma ops).
struct UnpaddedLoop {
  ArrayRef<int64_t> strides, dilations, padding;
  Value input;
};

FailureOr<UnpaddedLoop> matchUnpaddedLoop(linalg::GenericOp op, unsigned inputs,
                                          int fmas) {
  auto window = op->getAttrOfType<DenseI64ArrayAttr>(attr::kUkernelWindow);
  if (!window || window.size() != 8 || op.getNumDpsInputs() != inputs ||
      op.getNumDpsInits() != 1)
    return failure();
  ArrayRef<int64_t> win = window.asArrayRef();
  if (llvm::any_of(win.take_front(4), [](int64_t v) { return v < 1; }) ||
      llvm::any_of(win.drop_front(4), [](int64_t v) { return v < 0; }))
    return failure();
  Value in;
  int loads = 0, seen = 0;
  op.getRegion().walk([&](Operation *inner) {
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      ++loads;
      in = load.getMemRef();
    } else if (isa<math::FmaOp>(inner)) {
      ++seen;
    } else if (!isPure(inner) && !isa<linalg::YieldOp>(inner)) {
      loads = -1;
    }
  });
  if (loads != 1 || seen != fmas ||
      op.getRegion().isAncestor(in.getParentRegion()))
    return failure();
  return UnpaddedLoop{win.slice(0, 2), win.slice(2, 2), win.slice(4, 4), in};
}

/// Whether the padded input [N, C, H, W] covers every tap of the window's
/// outputs (the kernels check it too).
bool coversTaps(MemRefType in, MemRefType weight, MemRefType out,
                const UnpaddedLoop &loop) {
  for (int i = 0; i < 2; ++i) {
    int64_t o = out.getDimSize(2 + i), k = weight.getDimSize(2 + i);
    if (o > 0 &&
        (o - 1) * loop.strides[i] + (k - 1) * loop.dilations[i] >=
            in.getDimSize(2 + i) + loop.padding[i] + loop.padding[i + 2])
      return false;
  }
  return true;
}

/// The linalg.fill with +0 writing `buffer` right before `op` (bookkeeping
/// ops aside), or null.
linalg::FillOp zeroFillBefore(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(adjacentComputation(op, false));
  if (!fill || fill.getOutputs().size() != 1 || fill.getOutputs()[0] != buffer)
    return {};
  Value v = fill.getInputs()[0];
  // +0 only: the kernels start every sum from +0 (a -0 fill would give -0
  // where every product is -0).
  if (matchPattern(v, m_PosZeroFloat()) || matchPattern(v, m_Zero()))
    return fill;
  return {};
}

/// Whether `op` is mix.relu's arithmetic on `x`: `arith.maximumf(x, +0)`
/// with no fast-math flags (what the kernels' relu computes, bit for bit).
bool isReluOf(Operation *op, Value x) {
  auto max = dyn_cast_or_null<arith::MaximumFOp>(op);
  return max && max.getLhs() == x &&
         max.getFastmath() == arith::FastMathFlags::none &&
         matchPattern(max.getRhs(), m_PosZeroFloat());
}

struct MixUseMicrokernelsPass
    : public mix::impl::MixUseMicrokernelsPassBase<MixUseMicrokernelsPass> {
  using MixUseMicrokernelsPassBase::MixUseMicrokernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<linalg::GenericOp> gemms;
    module.walk([&](linalg::GenericOp op) {
      if (op->hasAttr(attr::kUkernel))
        gemms.push_back(op);
    });
    packed.clear();
    packedTransposedCache.clear();
    for (linalg::GenericOp op : gemms) {
      // (An epilogue fused into its GEMM's call has lost its mark.)
      if (!enabled || !op->hasAttr(attr::kUkernel))
        continue;
      StringRef kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
      // A dense whose weight is not a constant (weight-only int8's
      // dequantized weight, a weight passed as an input) is the product of
      // two activations when both are [M, K] x [K, N] f32 buffers.
      if (kind == "gemm_f32" && failed(rewriteFloat(op, symbols)))
        (void)rewriteMatmul(op);
      else if (kind == "gemm_s8")
        (void)rewriteInt8(op, symbols);
      else if (kind == "range_f32")
        (void)rewriteRange(op);
      else if (kind == "quantize_f32")
        (void)rewriteQuantize(op, /*checked=*/false);
      else if (kind == "checked_quantize" &&
               failed(rewriteQuantize(op, /*checked=*/true)))
        (void)guardQuantize(op);
      else if (kind == "checked_narrow")
        (void)guardNarrow(op);
      else if (kind == "checked_rescale")
        (void)guardRescale(fuseRelu(op, symbols), symbols);
      else if (kind == "rescale")
        (void)fuseRelu(op, symbols);
      else if (kind == "depthwise_f32" &&
               failed(rewriteIntDepthwise(op, symbols)))
        (void)rewriteConvolution(op, /*depthwise=*/true, symbols);
      else if (kind == "conv2d_f32")
        (void)rewriteConvolution(op, /*depthwise=*/false, symbols);
      else if (kind == "conv2d_s8")
        (void)rewriteIntConvolution(op, symbols);
      else if (kind == "matmul_f32")
        (void)rewriteMatmul(op);
      else if (kind == "recurrent_gemm_f32")
        (void)rewriteRecurrent(op, symbols);
    }
    module.walk([](linalg::GenericOp op) {
      op->removeAttr(attr::kUkernel);
      op->removeAttr(attr::kUkernelWindow);
      op->removeAttr(attr::kUkernelBias);
    });
    // Weights now read only in packed form are dropped.
    module.walk([&](memref::GetGlobalOp get) {
      if (get->use_empty() && replacedWeights.contains(get.getName()))
        get.erase();
    });
    // (A folded weight-only int8 weight names its packed form; whichever
    // of the two nothing reads goes.)
    llvm::StringSet<> packedForms;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (auto name = global->getAttrOfType<StringAttr>(kPackedDequantized)) {
        packedForms.insert(name.getValue());
        global->removeAttr(kPackedDequantized);
      }
      // (A folded lstm/gru weight names its int8 parts; they go unless
      // something reads them.)
      if (auto from = global->getAttrOfType<ArrayAttr>(kDequantizedFrom)) {
        for (Attribute name : from)
          packedForms.insert(cast<FlatSymbolRefAttr>(name).getValue());
        global->removeAttr(kDequantizedFrom);
        global->removeAttr(kDequantizedAxis);
      }
    }
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if ((replacedWeights.contains(global.getSymName()) ||
           packedForms.contains(global.getSymName())) &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
  }

  /// The packed copy of weight `global` (K x N of `type`), made once.
  memref::GlobalOp packedWeight(memref::GlobalOp global,
                                mixrt_ukernel_type type, SymbolTable &symbols) {
    auto it = packed.find(global.getSymName());
    if (it != packed.end())
      return it->second;
    std::optional<std::vector<char>> bytes = globalBytes(global);
    if (!bytes)
      return {};
    auto shape = cast<MemRefType>(global.getType()).getShape();
    int64_t k = shape[0], n = shape[1];
    int64_t size = mixrt_ukernel_packed_size(type, k, n);
    if (size <= 0)
      return {};
    std::vector<char> out(size);
    if (mixrt_ukernel_pack_b(type, k, n, bytes->data(), n, out.data()) !=
        MIXRT_STATUS_OK)
      return {};
    memref::GlobalOp result = byteGlobal(
        global, (global.getSymName() + "_packed").str(), out, symbols);
    packed[global.getSymName()] = result;
    replacedWeights.insert(global.getSymName());
    return result;
  }

  /// Packed W^T of the [N, K] view at element `offset` of `global`, rows
  /// `rowStride` and columns `colStride` elements apart (all static), made
  /// once per view.
  memref::GlobalOp packedTransposed(memref::GlobalOp global, int64_t offset,
                                    int64_t rowStride, int64_t colStride,
                                    int64_t n, int64_t k,
                                    SymbolTable &symbols) {
    std::string key =
        llvm::formatv("{0}@{1}:{2}x{3}/{4},{5}", global.getSymName(), offset, n,
                      k, rowStride, colStride)
            .str();
    auto it = packedTransposedCache.find(key);
    if (it != packedTransposedCache.end())
      return it->second;
    auto type = cast<MemRefType>(global.getType());
    Type elem = type.getElementType();
    mixrt_ukernel_type kind = elem.isF32()    ? MIXRT_UKERNEL_F32
                              : elem.isF16()  ? MIXRT_UKERNEL_F16
                              : elem.isBF16() ? MIXRT_UKERNEL_BF16
                                              : MIXRT_UKERNEL_TYPE_MAX_ENUM;
    if (kind == MIXRT_UKERNEL_TYPE_MAX_ENUM || n <= 0 || k <= 0 || offset < 0 ||
        rowStride < 0 || colStride < 0 ||
        offset + (n - 1) * rowStride + (k - 1) * colStride >=
            type.getNumElements())
      return {};
    std::optional<std::vector<char>> bytes = globalBytes(global);
    if (!bytes)
      return {};
    size_t eb = elem.getIntOrFloatBitWidth() / 8;
    std::vector<char> t(static_cast<size_t>(k * n) * eb);
    for (int64_t g = 0; g < n; ++g)
      for (int64_t kk = 0; kk < k; ++kk)
        std::memcpy(t.data() + static_cast<size_t>(kk * n + g) * eb,
                    bytes->data() + static_cast<size_t>(offset + g * rowStride +
                                                        kk * colStride) *
                                        eb,
                    eb);
    int64_t size = mixrt_ukernel_packed_size(kind, k, n);
    if (size <= 0)
      return {};
    std::vector<char> out(size);
    if (mixrt_ukernel_pack_b(kind, k, n, t.data(), n, out.data()) !=
        MIXRT_STATUS_OK)
      return {};
    memref::GlobalOp result = byteGlobal(
        global, (global.getSymName() + "_packed_t").str(), out, symbols);
    packedTransposedCache[key] = result;
    replacedWeights.insert(global.getSymName());
    return result;
  }

  /// As packedTransposed, for the f32 global of a weight-only int8 weight
  /// that mix-pack-dequantized-weights folded: W^T of its int8 values with
  /// each column's scale and zero point (one parameter per view row, or
  /// nothing), packed as MIXRT_UKERNEL_S8_DEQUANTIZED.
  memref::GlobalOp
  packedDequantizedTransposed(memref::GlobalOp global, int64_t offset,
                              int64_t rowStride, int64_t colStride, int64_t n,
                              int64_t k, SymbolTable &symbols) {
    auto from = global->getAttrOfType<ArrayAttr>(kDequantizedFrom);
    auto axisAttr = global->getAttrOfType<IntegerAttr>(kDequantizedAxis);
    if (!from || from.size() != 3 || !axisAttr)
      return {};
    std::string key =
        llvm::formatv("dq:{0}@{1}:{2}x{3}/{4},{5}", global.getSymName(), offset,
                      n, k, rowStride, colStride)
            .str();
    auto it = packedTransposedCache.find(key);
    if (it != packedTransposedCache.end())
      return it->second;
    std::array<memref::GlobalOp, 3> parts;
    std::array<std::optional<std::vector<char>>, 3> bytes;
    for (int i = 0; i < 3; ++i) {
      parts[i] = symbols.lookup<memref::GlobalOp>(
          cast<FlatSymbolRefAttr>(from[i]).getValue());
      if (!parts[i])
        return {};
      bytes[i] = globalBytes(parts[i]);
      if (!bytes[i])
        return {};
    }
    auto qType = cast<MemRefType>(parts[0].getType());
    ArrayRef<int64_t> shape = qType.getShape();
    int64_t axis = axisAttr.getInt(), inner = 1;
    if (axis >= static_cast<int64_t>(shape.size()) || n <= 0 || k <= 0 ||
        offset < 0 || rowStride < 0 || colStride < 0 ||
        offset + (n - 1) * rowStride + (k - 1) * colStride >=
            qType.getNumElements())
      return {};
    for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
      inner *= shape[d];
    const int64_t params = axis < 0 ? 1 : shape[axis];
    if (bytes[1]->size() != static_cast<size_t>(params) * 4 ||
        bytes[2]->size() != static_cast<size_t>(params) * 4)
      return {};
    const auto *q = reinterpret_cast<const int8_t *>(bytes[0]->data());
    std::vector<int8_t> t(static_cast<size_t>(k * n));
    std::vector<float> scales(n);
    std::vector<int32_t> zeros(n);
    for (int64_t g = 0; g < n; ++g) {
      int64_t param = -1;
      for (int64_t kk = 0; kk < k; ++kk) {
        int64_t at = offset + g * rowStride + kk * colStride;
        int64_t p = axis < 0 ? 0 : (at / inner) % params;
        // One parameter per column, or the view does not fit.
        if (param >= 0 && p != param)
          return {};
        param = p;
        t[kk * n + g] = q[at];
      }
      std::memcpy(&scales[g], bytes[1]->data() + param * 4, 4);
      std::memcpy(&zeros[g], bytes[2]->data() + param * 4, 4);
    }
    int64_t size =
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, k, n);
    if (size <= 0)
      return {};
    std::vector<char> out(size);
    if (mixrt_ukernel_pack_b_dequantized(k, n, t.data(), n, scales.data(),
                                         zeros.data(),
                                         out.data()) != MIXRT_STATUS_OK)
      return {};
    memref::GlobalOp result = byteGlobal(
        parts[0], (parts[0].getSymName() + "_packed_t").str(), out, symbols);
    packedTransposedCache[key] = result;
    replacedWeights.insert(global.getSymName());
    ++numDequantized;
    return result;
  }

  /// Whether `op`'s body, maps and iterators are C[l..., n] += A[l'..., k] x
  /// W[n, k]: A and C indexed by the same leading loops, those of more than
  /// one iteration in the same order (so their rows correspond: a batch
  /// first layer of one sequence reads x as (n, s) where C is (s, n)), k
  /// the one reduction, W by (n, k). (The mark says so; this keeps a
  /// producer of the mark with other maps from being miscompiled.)
  static bool isAccumulatingGemmNT(linalg::GenericOp op) {
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    AffineMap a = maps[0], w = maps[1], c = maps[2];
    if (a.getNumSymbols() || w.getNumResults() != 2 ||
        a.getNumResults() != c.getNumResults() || a.getNumResults() < 2)
      return false;
    unsigned last = a.getNumResults() - 1;
    auto k = dyn_cast<AffineDimExpr>(a.getResult(last));
    auto n = dyn_cast<AffineDimExpr>(c.getResult(last));
    if (!k || !n || k == n || w.getResult(0) != n || w.getResult(1) != k ||
        !a.isProjectedPermutation() || !c.isProjectedPermutation() ||
        a.isFunctionOfDim(n.getPosition()) ||
        c.isFunctionOfDim(k.getPosition()))
      return false;
    // The body: yield(fma(a, w, acc)), a and w possibly widened (extf).
    Block *body = op.getBody();
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    auto fma = yield.getNumOperands() == 1
                   ? yield.getOperand(0).getDefiningOp<math::FmaOp>()
                   : math::FmaOp();
    auto isArg = [&](Value v, unsigned i) {
      if (auto ext = v.getDefiningOp<arith::ExtFOp>())
        v = ext.getIn();
      return v == body->getArgument(i);
    };
    if (!fma || !isArg(fma.getA(), 0) || !isArg(fma.getB(), 1) ||
        fma.getC() != body->getArgument(2))
      return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto rowLoops = [&](AffineMap map, bool all) {
      SmallVector<unsigned> dims;
      for (unsigned i = 0; i < last; ++i) {
        auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
        if (!dim)
          return SmallVector<unsigned>{~0u};
        if (all || ranges[dim.getPosition()] != 1)
          dims.push_back(dim.getPosition());
      }
      if (all)
        llvm::sort(dims);
      return dims;
    };
    if (rowLoops(a, true) != rowLoops(c, true) ||
        rowLoops(a, false) != rowLoops(c, false))
      return false;
    // k the only reduction, every other loop a dimension of C.
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [dim, iterator] : llvm::enumerate(iterators)) {
      bool isK = dim == k.getPosition();
      if ((iterator == utils::IteratorType::reduction) != isK)
        return false;
      if (!isK && !c.isFunctionOfDim(dim))
        return false;
    }
    return c.isProjectedPermutation();
  }

  /// An lstm's or gru's GEMM (marked "recurrent_gemm_f32"): C [..., N] +=
  /// A [..., K] x W^T, W a static [N, K] view of a constant global; one
  /// call of mixrt_ukernel_gemm_f32 with MIXRT_UKERNEL_ACCUMULATE on W^T
  /// packed at compile time.
  LogicalResult rewriteRecurrent(linalg::GenericOp op, SymbolTable &symbols) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
      return failure();
    Value a = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
          c = op.getDpsInits()[0];
    auto aType = dyn_cast<MemRefType>(a.getType());
    auto wType = dyn_cast<MemRefType>(w.getType());
    auto cType = dyn_cast<MemRefType>(c.getType());
    if (!aType || !wType || !cType || !aType.getElementType().isF32() ||
        !cType.getElementType().isF32() || wType.getRank() != 2 ||
        aType.getRank() != cType.getRank() || aType.getRank() < 2 ||
        !aType.hasStaticShape() || !cType.hasStaticShape() ||
        !wType.hasStaticShape() ||
        !memref::isStaticShapeAndContiguousRowMajor(aType))
      return failure();
    int64_t k = aType.getShape().back(), n = cType.getShape().back();
    if (k <= 0 || n <= 0 || wType.getDimSize(0) != n ||
        wType.getDimSize(1) != k || !isAccumulatingGemmNT(op))
      return failure();
    int64_t m = aType.getNumElements() / k;
    // C: contiguous, or (rank 2) rows at a constant stride.
    SmallVector<int64_t> cStrides;
    int64_t cOffset;
    if (failed(cType.getStridesAndOffset(cStrides, cOffset)) ||
        cStrides.back() != 1 || cType.getNumElements() / n != m)
      return failure();
    int64_t ldc = n;
    if (!memref::isStaticShapeAndContiguousRowMajor(cType)) {
      if (cType.getRank() != 2 || ShapedType::isDynamic(cStrides[0]) ||
          cStrides[0] < n)
        return failure();
      ldc = cStrides[0];
    }
    // W: views (subview, cast) of a constant global, its element (g, k) at
    // offset + g * rowStride + k * colStride of the global.
    memref::GlobalOp global = constantGlobalOf(viewSource(w), symbols);
    SmallVector<int64_t> wStrides;
    int64_t wOffset;
    if (!global || failed(wType.getStridesAndOffset(wStrides, wOffset)) ||
        ShapedType::isDynamic(wOffset) || ShapedType::isDynamic(wStrides[0]) ||
        ShapedType::isDynamic(wStrides[1]) ||
        !cast<MemRefType>(global.getType()).getLayout().isIdentity())
      return failure();
    // Weight-only int8 (folded by mix-pack-dequantized-weights): its int8
    // values packed with their parameters, dequantized in the call.
    memref::GlobalOp packedB = packedDequantizedTransposed(
        global, wOffset, wStrides[0], wStrides[1], n, k, symbols);
    if (!packedB)
      packedB = packedTransposed(global, wOffset, wStrides[0], wStrides[1], n,
                                 k, symbols);
    if (!packedB)
      return failure();

    OpBuilder b(op);
    callGemmF32(b, op.getLoc(), m, n, k, a, packedB, c, ldc, Value(),
                MIXRT_UKERNEL_ACCUMULATE);
    op.erase();
    // The weight's views and its get_global go when nothing else reads
    // them (the global then goes at the end of the pass).
    Operation *dead = w.getDefiningOp();
    while (dead && dead->use_empty() &&
           isa<memref::SubViewOp, memref::CastOp, memref::GetGlobalOp>(dead)) {
      Operation *next = dead->getNumOperands()
                            ? dead->getOperand(0).getDefiningOp()
                            : nullptr;
      dead->erase();
      dead = next;
    }
    ++numRecurrent;
    return success();
  }

  /// A call of mixrt_ukernel_gemm_f32 (declared once): C (`c`, rows `ldc`
  /// apart) from A (`a`, contiguous rows of K), the packed weight global
  /// `packedB`, `bias` (or none) and `flags`.
  void callGemmF32(OpBuilder &b, Location loc, int64_t m, int64_t n, int64_t k,
                   Value a, memref::GlobalOp packedB, Value c, int64_t ldc,
                   Value bias, uint32_t flags) {
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    declare(getOperation(), kGemmF32,
            b.getFunctionType(
                {i64, i64, i64, ptr, i64, ptr, ptr, i64, ptr, i32}, {i32}));
    Value mV = i64Const(b, loc, m), nV = i64Const(b, loc, n),
          kV = i64Const(b, loc, k);
    Value args[] = {mV,
                    nV,
                    kV,
                    pointerTo(b, loc, a),
                    kV,
                    packedPointer(b, loc, packedB),
                    pointerTo(b, loc, c),
                    ldc == n ? nV : i64Const(b, loc, ldc),
                    bias ? pointerTo(b, loc, bias) : nullPointer(b, loc),
                    arith::ConstantIntOp::create(b, loc, i32, flags)};
    func::CallOp::create(b, loc, kGemmF32, TypeRange{i32}, args);
  }

  Value packedPointer(OpBuilder &b, Location loc, memref::GlobalOp packedB) {
    Value get = memref::GetGlobalOp::create(
        b, loc, cast<MemRefType>(packedB.getType()), packedB.getSymName());
    return pointerTo(b, loc, get);
  }

  /// The common shape of a marked GEMM: A [..., K] and C [..., N]
  /// contiguous buffers of `aElem` and `cElem` (the first input and the
  /// init), a constant K x N weight global (the second input), and the zero
  /// fill of C right before.
  struct GemmMatch {
    Value a, c;
    memref::GlobalOp weight;
    int64_t m, n, k;
    linalg::FillOp fill;
  };
  FailureOr<GemmMatch> matchGemm(linalg::GenericOp op, unsigned inputs,
                                 Type aElem, Type cElem, SymbolTable &symbols) {
    if (op.getNumDpsInputs() != inputs || op.getNumDpsInits() != 1)
      return failure();
    GemmMatch g;
    g.a = op.getDpsInputs()[0];
    g.c = op.getDpsInits()[0];
    auto cType = cast<MemRefType>(g.c.getType());
    int64_t rank = cType.getRank();
    if (!isPlainBuffer(g.a, aElem, rank) || !isPlainBuffer(g.c, cElem, rank))
      return failure();
    g.weight = constantGlobalOf(op.getDpsInputs()[1], symbols);
    if (!g.weight)
      return failure();
    auto wType = cast<MemRefType>(g.weight.getType());
    if (wType.getRank() != 2 || !wType.getLayout().isIdentity())
      return failure();
    g.k = wType.getDimSize(0);
    g.n = wType.getDimSize(1);
    if (cast<MemRefType>(g.a.getType()).getShape().back() != g.k ||
        cType.getShape().back() != g.n)
      return failure();
    g.m = cType.getNumElements() / std::max<int64_t>(g.n, 1);
    g.fill = zeroFillBefore(op, g.c);
    if (!g.fill)
      return failure();
    return g;
  }

  /// dense in f32 (weights f32, f16 or bf16): C = A x B into the zero-filled
  /// accumulator, and the bias epilogue after it when it can be fused.
  LogicalResult rewriteFloat(linalg::GenericOp op, SymbolTable &symbols) {
    Type f32 = Float32Type::get(&getContext());
    FailureOr<GemmMatch> g = matchGemm(op, 2, f32, f32, symbols);
    if (failed(g))
      return failure();
    Value a = g->a, c = g->c;
    int64_t m = g->m, n = g->n, k = g->k;
    int64_t rank = cast<MemRefType>(c.getType()).getRank();
    linalg::FillOp fill = g->fill;
    memref::GlobalOp packedB;
    // Weight-only int8 (mix-pack-dequantized-weights): the int8 weight is
    // already packed with its scales and zero points; the f32 global is
    // what the loops read.
    if (auto name = g->weight->getAttrOfType<StringAttr>(kPackedDequantized)) {
      packedB = symbols.lookup<memref::GlobalOp>(name.getValue());
      if (packedB) {
        replacedWeights.insert(g->weight.getSymName());
        ++numDequantized;
      }
    } else {
      Type we = cast<MemRefType>(g->weight.getType()).getElementType();
      mixrt_ukernel_type type = we.isF32()    ? MIXRT_UKERNEL_F32
                                : we.isF16()  ? MIXRT_UKERNEL_F16
                                : we.isBF16() ? MIXRT_UKERNEL_BF16
                                              : MIXRT_UKERNEL_TYPE_MAX_ENUM;
      if (type == MIXRT_UKERNEL_TYPE_MAX_ENUM)
        return failure();
      packedB = packedWeight(g->weight, type, symbols);
    }
    if (!packedB)
      return failure();

    // The bias epilogue right after, reading the accumulator and a bias of
    // N floats, fuses when its result cannot overlap A.
    Value out = c, bias;
    Operation *epilogue = nullptr;
    if (auto next =
            dyn_cast_or_null<linalg::GenericOp>(adjacentComputation(op, true));
        next && next->hasAttr(attr::kUkernelBias) &&
        next.getNumDpsInputs() == 2 && next.getDpsInputs()[0] == c &&
        isPlainBuffer(next.getDpsInputs()[1], f32, 1) &&
        cast<MemRefType>(next.getDpsInputs()[1].getType()).getDimSize(0) == n &&
        isPlainBuffer(next.getDpsInits()[0], f32, rank) &&
        provablyDisjoint(a, next.getDpsInits()[0]) &&
        llvm::all_of(c.getUsers(), [&](Operation *user) {
          return user == fill || user == op || user == next;
        })) {
      epilogue = next;
      out = next.getDpsInits()[0];
      bias = next.getDpsInputs()[1];
    }

    // A relu right after (the bias epilogue or the GEMM) runs in the call
    // too (MIXRT_UKERNEL_RELU: x > 0 or NaN ? x : +0, arith.maximumf(x, +0);
    // the call's NaN is the canonical one with or without it), which then
    // writes the relu's buffer. The call reads A and the bias while it
    // writes.
    Operation *last = epilogue ? epilogue : op.getOperation();
    SmallVector<Value> reads = {a};
    if (bias)
      reads.push_back(bias);
    SmallVector<Operation *> writers = {fill};
    if (epilogue)
      writers = {};
    linalg::GenericOp relu = reluAfter(last, out, reads, symbols, writers);
    if (relu && !hoistBefore(relu.getDpsInits()[0], last))
      relu = {};
    if (relu)
      out = relu.getDpsInits()[0];

    // At the epilogue when fused: its output's view may be defined after the
    // GEMM (only bookkeeping ops lie between the two). C's rows contiguous.
    OpBuilder b(last);
    callGemmF32(b, op.getLoc(), m, n, k, a, packedB, out, n, bias,
                relu ? MIXRT_UKERNEL_RELU : 0);
    if (relu) {
      relu.erase();
      ++numFusedRelu;
    }
    if (epilogue)
      epilogue->erase();
    op.erase();
    fill.erase();
    ++numFloat;
    if (epilogue)
      ++numFusedBias;
    return success();
  }

  /// The exact i32 GEMM of qdense: C = sum_k (A - za) (B - zb) into the
  /// zero-filled i32 accumulator (the rescale epilogue stays as it is).
  LogicalResult rewriteInt8(linalg::GenericOp op, SymbolTable &symbols) {
    Type i8 = IntegerType::get(&getContext(), 8);
    Type i32 = IntegerType::get(&getContext(), 32);
    FailureOr<GemmMatch> g = matchGemm(op, 4, i8, i32, symbols);
    if (failed(g) ||
        cast<MemRefType>(g->weight.getType()).getElementType() != i8)
      return failure();
    Value a = g->a, c = g->c;
    Value za = op.getDpsInputs()[2], zb = op.getDpsInputs()[3];
    int64_t m = g->m, n = g->n, k = g->k;
    int64_t rank = cast<MemRefType>(c.getType()).getRank();
    // The input zero point: one value, or one per row of a rank-2 A.
    auto zaType = dyn_cast<MemRefType>(za.getType());
    if (!zaType || zaType.getElementType() != i32 ||
        !memref::isStaticShapeAndContiguousRowMajor(zaType))
      return failure();
    uint32_t flags = 0;
    if (zaType.getRank() == 1) {
      if (rank != 2 || zaType.getDimSize(0) != m)
        return failure();
      flags |= MIXRT_UKERNEL_A_PER_ROW;
    } else if (zaType.getRank() != 0) {
      return failure();
    }
    // The weight zero points: N values, or one constant 0 (none).
    auto zbType = dyn_cast<MemRefType>(zb.getType());
    if (!zbType || zbType.getElementType() != i32 ||
        !memref::isStaticShapeAndContiguousRowMajor(zbType))
      return failure();
    // The weight zero points: constants in [-128, 127] (else the loops).
    // Per-column ones that are all 0 (symmetric weights, the quantizer's
    // usual case) are passed as none: the kernels then skip the zb *
    // sum_k (A - za) term, one pass over each row of A per block; one zero
    // point for every column must be 0.
    bool zbAllZero = false;
    if (!constantInt8ZeroPoints(zb, symbols, zbAllZero))
      return failure();
    bool zbPerColumn =
        zbType.getRank() == 1 && zbType.getDimSize(0) == n && !zbAllZero;
    if (!zbPerColumn && !zbAllZero)
      return failure();
    linalg::FillOp fill = g->fill;
    memref::GlobalOp packedB =
        packedWeight(g->weight, MIXRT_UKERNEL_S8, symbols);
    if (!packedB)
      return failure();

    ModuleOp module = getOperation();
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = IntegerType::get(&getContext(), 64);
    // The call into the i32 accumulator, at `b`'s insertion point.
    auto callS32 = [&](OpBuilder &b) {
      declare(
          module, kGemmS8,
          b.getFunctionType(
              {i64, i64, i64, ptr, i64, ptr, ptr, ptr, ptr, i64, i32}, {i32}));
      Value mV = i64Const(b, loc, m), nV = i64Const(b, loc, n),
            kV = i64Const(b, loc, k);
      Value args[] = {mV,
                      nV,
                      kV,
                      pointerTo(b, loc, a),
                      kV,
                      pointerTo(b, loc, za),
                      packedPointer(b, loc, packedB),
                      zbPerColumn ? pointerTo(b, loc, zb) : nullPointer(b, loc),
                      pointerTo(b, loc, c),
                      nV,
                      arith::ConstantIntOp::create(b, loc, i32, flags)};
      func::CallOp::create(b, loc, kGemmS8, TypeRange{i32}, args);
    };

    std::optional<RescaleMatch> rescale =
        matchRescale(op, a, za, c, flags, symbols);
    if (!rescale) {
      OpBuilder b(op);
      callS32(b);
      op.erase();
      fill.erase();
      ++numInt8;
      return success();
    }

    // The rescale epilogue fuses: one call of mixrt_ukernel_gemm_s8s8f32
    // writes the f32 result. The call refuses scales that are not positive
    // and finite (a NaN scale from a non-finite input, say) and returns an
    // error without writing anything; a checked rescale could also have to
    // report an overflow beyond f32, which the call would not. In those cases
    // the GEMM into the i32 accumulator and the rescale loop run as before,
    // with the same results and reports.
    // A relu right after the rescale runs in the call's epilogue too
    // (MIXRT_UKERNEL_RELU: x > 0 ? x : +0, arith.maximumf(x, +0) on the
    // finite values the call writes); the call then writes the relu's
    // buffer. The call reads A, sa and the zero point while it writes.
    linalg::GenericOp relu = reluAfter(rescale->op, rescale->out,
                                       ValueRange{a, rescale->sa, za}, symbols);
    if (relu && !hoistBefore(relu.getDpsInits()[0], rescale->op))
      relu = {};
    Value result = relu ? relu.getDpsInits()[0] : rescale->out;
    uint32_t f32Flags =
        flags | (relu ? static_cast<uint32_t>(MIXRT_UKERNEL_RELU) : 0u);
    OpBuilder b(rescale->op);
    Type f64 = b.getF64Type();
    declare(module, kGemmS8F32,
            b.getFunctionType({i64, i64, i64, ptr, i64, ptr, ptr, ptr, ptr, ptr,
                               ptr, i64, ptr, i32},
                              {i32}));
    auto callF32 = [&](OpBuilder &b) {
      Value mV = i64Const(b, loc, m), nV = i64Const(b, loc, n),
            kV = i64Const(b, loc, k);
      Value args[] = {mV,
                      nV,
                      kV,
                      pointerTo(b, loc, a),
                      kV,
                      pointerTo(b, loc, rescale->sa),
                      pointerTo(b, loc, za),
                      packedPointer(b, loc, packedB),
                      pointerTo(b, loc, rescale->sb),
                      zbPerColumn ? pointerTo(b, loc, zb) : nullPointer(b, loc),
                      pointerTo(b, loc, result),
                      nV,
                      rescale->bias ? pointerTo(b, loc, rescale->bias)
                                    : nullPointer(b, loc),
                      arith::ConstantIntOp::create(b, loc, i32, f32Flags)};
      return func::CallOp::create(b, loc, kGemmS8F32, TypeRange{i32}, args)
          .getResult(0);
    };
    Value status;
    if (rescale->checked) {
      // |sa * max(sb)| * 2^31 bounds every rescaled sum (|acc| <= 2^31);
      // below 3e38 nothing can overflow f32 (NaN: the loops decide).
      Value sa = memref::LoadOp::create(b, loc, rescale->sa, ValueRange{});
      Value bound = arith::MulFOp::create(
          b, loc, arith::ExtFOp::create(b, loc, f64, sa),
          arith::ConstantOp::create(
              b, loc, b.getF64FloatAttr(rescale->maxSb * 2147483648.0)));
      Value mayFail = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::UGE,
          math::AbsFOp::create(b, loc, bound),
          arith::ConstantOp::create(b, loc, b.getF64FloatAttr(3e38)));
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{i32}, mayFail,
                                    /*withElseRegion=*/true);
      OpBuilder thenB = ifOp.getThenBodyBuilder();
      scf::YieldOp::create(
          thenB, loc,
          ValueRange{arith::ConstantIntOp::create(
              thenB, loc, i32, MIXRT_STATUS_INVALID_ARGUMENT)});
      OpBuilder elseB = ifOp.getElseBodyBuilder();
      scf::YieldOp::create(elseB, loc, ValueRange{callF32(elseB)});
      status = ifOp.getResult(0);
    } else {
      status = callF32(b);
    }
    Value failed = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, status,
        arith::ConstantIntOp::create(b, loc, i32, MIXRT_STATUS_OK));
    auto fallback = scf::IfOp::create(b, loc, failed, /*withElseRegion=*/false);
    OpBuilder fallbackB = OpBuilder::atBlockTerminator(fallback.thenBlock());
    callS32(fallbackB);
    rescale->op->moveBefore(fallback.thenBlock()->getTerminator());
    if (relu) {
      relu->moveBefore(fallback.thenBlock()->getTerminator());
      ++numFusedRelu;
    }
    // Handled here: the checked loop stays checked in the fallback.
    rescale->op->removeAttr(attr::kUkernel);
    op.erase();
    fill.erase();
    ++numInt8;
    ++numFusedRescale;
    return success();
  }

  /// The rescale epilogue of an int8 GEMM right after it, reading its i32
  /// accumulator `c` (written by nothing else): out = (f32)((f64)sa *
  /// (f64)sb[n] * (f64)c) (+ bias[n] in f32), checks aside.
  struct RescaleMatch {
    linalg::GenericOp op;
    Value sa, sb, bias, out;
    bool checked = false;
    double maxSb = 0.0; ///< the largest weight scale
  };

  /// Matches the epilogue when mixrt_ukernel_gemm_s8s8f32 computes the same
  /// bits: sa one value (or one per row, with the zero points, unchecked),
  /// sb and the bias constants (weight scales positive and finite, the bias
  /// finite: the call's NaN canonicalization can then never apply), and an
  /// f32 output that overlaps none of the call's inputs.
  std::optional<RescaleMatch> matchRescale(linalg::GenericOp gemm, Value a,
                                           Value za, Value c, uint32_t flags,
                                           SymbolTable &symbols) {
    auto op =
        dyn_cast_or_null<linalg::GenericOp>(adjacentComputation(gemm, true));
    if (!op || op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 3 ||
        op.getNumDpsInputs() > 4 || op.getDpsInputs()[0] != c)
      return std::nullopt;
    RescaleMatch r;
    r.op = op;
    r.sa = op.getDpsInputs()[1];
    r.sb = op.getDpsInputs()[2];
    if (op.getNumDpsInputs() == 4)
      r.bias = op.getDpsInputs()[3];
    r.out = op.getDpsInits()[0];
    auto cType = cast<MemRefType>(c.getType());
    int64_t rank = cType.getRank(), n = cType.getShape().back();
    Type f32 = Float32Type::get(&getContext());
    auto outType = dyn_cast<MemRefType>(r.out.getType());
    if (!isPlainBuffer(r.out, f32, rank) ||
        outType.getShape() != cType.getShape())
      return std::nullopt;
    // Maps: the accumulator and output elementwise, sa per tensor or per
    // row, sb and the bias per column.
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap column =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
    bool perRow = flags & MIXRT_UKERNEL_A_PER_ROW;
    AffineMap saMap =
        perRow ? AffineMap::get(rank, 0, {getAffineDimExpr(0, ctx)}, ctx)
               : AffineMap::get(rank, 0, {}, ctx);
    SmallVector<AffineMap> want = {id, saMap, column};
    if (r.bias)
      want.push_back(column);
    want.push_back(id);
    if (op.getIndexingMapsArray() != want ||
        !isPlainBuffer(r.sa, f32, perRow ? 1 : 0))
      return std::nullopt;
    if (!matchRescaleBody(op.getBody(), r.bias != nullptr, r.checked))
      return std::nullopt;
    if (r.checked && perRow)
      return std::nullopt;
    // Constant weight scales (positive, finite) and bias (finite).
    if (!constantF32s(r.sb, n, /*positive=*/true, &r.maxSb, symbols) ||
        (r.bias &&
         !constantF32s(r.bias, n, /*positive=*/false, nullptr, symbols)))
      return std::nullopt;
    // The call reads A, the zero points and sa while it writes the output.
    if (!provablyDisjoint(a, r.out) || !provablyDisjoint(r.sa, r.out) ||
        !provablyDisjoint(za, r.out))
      return std::nullopt;
    // The accumulator is read by nothing else.
    if (!llvm::all_of(c.getUsers(), [&](Operation *user) {
          return user == op || user == gemm || isa<linalg::FillOp>(user);
        }))
      return std::nullopt;
    return r;
  }

  /// Whether the ops of a loop body are pure, or checks: an scf.if without
  /// results whose ops only compute and call mixrt_check_fail (`checked`
  /// tells whether there is one). Such a body's values are its yield's.
  static bool onlyPureOpsAndChecks(Block *body, bool &checked) {
    checked = false;
    for (Operation &inner : body->without_terminator()) {
      if (auto check = dyn_cast<scf::IfOp>(inner)) {
        bool onlyReports = check.getNumResults() == 0;
        check->walk([&](Operation *nested) {
          if (auto call = dyn_cast<func::CallOp>(nested))
            onlyReports &= call.getCallee() == "mixrt_check_fail";
          else if (!isPure(nested) && !isa<scf::YieldOp, scf::IfOp>(nested))
            onlyReports = false;
        });
        if (!onlyReports)
          return false;
        checked = true;
        continue;
      }
      if (!isPure(&inner))
        return false;
    }
    return true;
  }

  /// Whether `body` yields (f32)((f64)sa * (f64)sb * (f64)acc) [+ bias] with
  /// acc an i32 sum (or, with `floatAcc`, an f32 one),
  /// block arguments (acc, sa, sb[, bias], out), no fast-math flags; other
  /// ops may only be pure or the checks (scf.if calling mixrt_check_fail),
  /// which set `checked`. With `relu`, also its relu (mix.relu fused into
  /// the loop by mix-fuse-elementwise), which sets *relu.
  static bool matchRescaleBody(Block *body, bool hasBias, bool &checked,
                               bool *relu = nullptr, bool floatAcc = false) {
    if (!onlyPureOpsAndChecks(body, checked))
      return false;
    auto arg = [&](Value v, unsigned i) { return v == body->getArgument(i); };
    auto plain = [](auto op) {
      return op && op.getFastmath() == arith::FastMathFlags::none;
    };
    Value y = body->getTerminator()->getOperand(0);
    if (relu) {
      Operation *def = y.getDefiningOp();
      *relu = def && def->getNumOperands() == 2 &&
              isReluOf(def, def->getOperand(0));
      if (*relu)
        y = def->getOperand(0);
    }
    if (hasBias) {
      auto add = y.getDefiningOp<arith::AddFOp>();
      if (!plain(add) || !y.getType().isF32())
        return false;
      if (arg(add.getRhs(), 3))
        y = add.getLhs();
      else if (arg(add.getLhs(), 3))
        y = add.getRhs();
      else
        return false;
    }
    auto trunc = y.getDefiningOp<arith::TruncFOp>();
    if (!trunc || !trunc.getType().isF32() ||
        trunc.getFastmath().value_or(arith::FastMathFlags::none) !=
            arith::FastMathFlags::none ||
        trunc.getRoundingmodeAttr() || !trunc.getIn().getType().isF64())
      return false;
    auto wide = trunc.getIn().getDefiningOp<arith::MulFOp>();
    if (!plain(wide))
      return false;
    // One factor is the accumulator, the other the product of the scales.
    // (An int32 sum converted, or with `floatAcc` an f32 one extended.)
    auto isAcc = [&](Value v) {
      if (floatAcc) {
        auto ext = v.getDefiningOp<arith::ExtFOp>();
        return ext && arg(ext.getIn(), 0) && ext.getIn().getType().isF32() &&
               ext.getType().isF64();
      }
      auto conv = v.getDefiningOp<arith::SIToFPOp>();
      return conv && arg(conv.getIn(), 0) && conv.getType().isF64();
    };
    auto isExt = [&](Value v, unsigned i) {
      auto ext = v.getDefiningOp<arith::ExtFOp>();
      return ext && arg(ext.getIn(), i) && ext.getType().isF64();
    };
    Value scales;
    if (isAcc(wide.getRhs()))
      scales = wide.getLhs();
    else if (isAcc(wide.getLhs()))
      scales = wide.getRhs();
    else
      return false;
    auto product = scales.getDefiningOp<arith::MulFOp>();
    return plain(product) &&
           ((isExt(product.getLhs(), 1) && isExt(product.getRhs(), 2)) ||
            (isExt(product.getLhs(), 2) && isExt(product.getRhs(), 1)));
  }

  /// The f32 window kernels of mixrt (ukernel.h).
  enum class WindowCall { Depthwise, Conv, Grouped };

  /// Declares mixrt_ukernel_depthwise_f32, mixrt_ukernel_conv2d_f32 or
  /// mixrt_ukernel_conv2d_grouped_f32 (ukernel.h) and returns its name: (N,
  /// C, H, W, input, [F, [groups,]] KH, KW, weight, strides[2],
  /// dilations[2], pads[4], OH, OW, output, bias, flags) -> status, the
  /// three alike but for F, which the convolutions take, and groups, which
  /// the grouped one takes.
  StringLiteral declareWindowCall(OpBuilder &b, WindowCall kind) {
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    SmallVector<Type> types = {i64, i64, i64, i64, ptr};
    if (kind != WindowCall::Depthwise)
      types.push_back(i64);
    if (kind == WindowCall::Grouped)
      types.push_back(i64);
    types.append({i64, i64, ptr});
    types.append(10, i64);
    types.append({ptr, ptr, i32});
    StringLiteral callee = kind == WindowCall::Depthwise ? kDepthwiseF32
                           : kind == WindowCall::Conv    ? kConvF32
                                                         : kConvGroupedF32;
    declare(getOperation(), callee, b.getFunctionType(types, {i32}));
    return callee;
  }

  /// The conv2d loop of the lowering over the unpadded input (convMaps over
  /// (n, f, c, kh, kw, oh, ow): the weight its only operand, [C, 1, KH, KW]
  /// with groups == C == F when `depthwise`, else [F, C / groups, KH, KW];
  /// output [N, F, OH, OW]; the input [N, C, H, W] read by the one
  /// memref.load of its body, +0 outside the image) as one call of
  /// mixrt_ukernel_depthwise_f32 or mixrt_ukernel_conv2d_f32, with the
  /// strides, dilations and padding of mix.ukernel_window; the weight's and
  /// output's indexing maps must then be exactly convMaps'. With several
  /// groups (not depthwise), one call of mixrt_ukernel_conv2d_grouped_f32
  /// (each output the chain mixrt_ukernel_conv2d_f32 would compute on its
  /// group's channels).
  LogicalResult rewriteConvolution(linalg::GenericOp op, bool depthwise,
                                   SymbolTable &symbols) {
    FailureOr<UnpaddedLoop> loop = matchUnpaddedLoop(op, 1, 1);
    if (failed(loop))
      return failure();
    Value in = loop->input;
    Type f32 = Float32Type::get(&getContext());
    Value w = op.getDpsInputs()[0], out = op.getDpsInits()[0];
    if (!isPlainBuffer(in, f32, 4) || !isPlainBuffer(w, f32, 4) ||
        !isPlainBuffer(out, f32, 4))
      return failure();
    auto inType = cast<MemRefType>(in.getType());
    auto wType = cast<MemRefType>(w.getType());
    auto outType = cast<MemRefType>(out.getType());
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
            f = wType.getDimSize(0), perGroupIn = wType.getDimSize(1);
    int64_t groups = depthwise                               ? c
                     : perGroupIn > 0 && c % perGroupIn == 0 ? c / perGroupIn
                                                             : 0;
    if (c < 1 || groups < 1 || f % groups != 0 || outType.getDimSize(0) != n ||
        outType.getDimSize(1) != f ||
        (depthwise && (perGroupIn != 1 || f != c)))
      return failure();
    ArrayRef<int64_t> strides = loop->strides, dilations = loop->dilations,
                      pad = loop->padding;
    lowering::ConvMaps expected =
        lowering::convMaps(strides, dilations, groups, wType, op.getContext());
    SmallVector<AffineMap> want = {expected.weight, expected.output};
    if (op.getIndexingMapsArray() != want ||
        !coversTaps(inType, wType, outType, *loop))
      return failure();

    // The kernel writes every output from +0: the fill is dead.
    linalg::FillOp fill = zeroFillBefore(op, out);
    // The epilogue right after the loop -- + bias[f], relu, or both, and
    // nothing else -- runs inside the call(s), on each block (depthwise:
    // chunk of planes) while it is in cache, writing the epilogue's output
    // (per group: the group's bias).
    FusedConvEpilogue fused = matchConvEpilogue(op, in, out, fill, symbols);
    Operation *epilogue = fused.op;
    OpBuilder b(epilogue ? epilogue : op.getOperation());
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    WindowCall kind = depthwise     ? WindowCall::Depthwise
                      : groups == 1 ? WindowCall::Conv
                                    : WindowCall::Grouped;
    StringLiteral callee = declareWindowCall(b, kind);
    int64_t h = inType.getDimSize(2), wd = inType.getDimSize(3),
            kh = wType.getDimSize(2), kw = wType.getDimSize(3),
            oh = outType.getDimSize(2), ow = outType.getDimSize(3);
    Value dest = epilogue ? fused.output : out;
    SmallVector<Value> args = {i64Const(b, loc, n), i64Const(b, loc, c),
                               i64Const(b, loc, h), i64Const(b, loc, wd),
                               pointerTo(b, loc, in)};
    if (kind != WindowCall::Depthwise)
      args.push_back(i64Const(b, loc, f));
    if (kind == WindowCall::Grouped)
      args.push_back(i64Const(b, loc, groups));
    for (int64_t v : {kh, kw})
      args.push_back(i64Const(b, loc, v));
    args.push_back(pointerTo(b, loc, w));
    appendWindowArgs(b, loc, strides, dilations, pad, oh, ow, args);
    args.push_back(pointerTo(b, loc, dest));
    args.push_back(fused.bias ? pointerTo(b, loc, fused.bias)
                              : nullPointer(b, loc));
    args.push_back(arith::ConstantIntOp::create(
        b, loc, i32, fused.relu ? MIXRT_UKERNEL_RELU : 0));
    func::CallOp::create(b, loc, callee, TypeRange{i32}, args);
    if (epilogue) {
      epilogue->erase();
      ++numFusedConvEpilogue;
    }
    if (fill)
      fill.erase();
    op.erase();
    if (kind == WindowCall::Depthwise)
      ++numDepthwise;
    else if (kind == WindowCall::Conv)
      ++numConv;
    else
      ++numGroupedConv;
    return success();
  }

  /// The int8 conv2d loop of the lowering over the unpadded input
  /// (lowering::unpaddedIntConvolution: convMaps over (n, f, c, kh, kw, oh,
  /// ow) of one group; operands the i8 weight [F, C, KH, KW], the input zero
  /// point (rank 0) and the weight's ([1] or [F]), all i32 but the weight;
  /// the i32 output [N, F, OH, OW]; the i8 input [N, C, H, W] read by the
  /// one memref.load of its body) as one call of
  /// mixrt_ukernel_conv2d_s8s8s32 with the window of mix.ukernel_window.
  /// Weight zero points that are all constant 0 are passed as none.
  LogicalResult rewriteIntConvolution(linalg::GenericOp op,
                                      SymbolTable &symbols) {
    FailureOr<UnpaddedLoop> loop = matchUnpaddedLoop(op, 3, 0);
    if (failed(loop))
      return failure();
    Value in = loop->input;
    MLIRContext *ctx = &getContext();
    Type i8 = IntegerType::get(ctx, 8), i32 = IntegerType::get(ctx, 32);
    Value w = op.getDpsInputs()[0], za = op.getDpsInputs()[1],
          zw = op.getDpsInputs()[2], out = op.getDpsInits()[0];
    if (!isPlainBuffer(in, i8, 4) || !isPlainBuffer(w, i8, 4) ||
        !isPlainBuffer(out, i32, 4) || !isPlainBuffer(za, i32, 0) ||
        !isPlainBuffer(zw, i32, 1))
      return failure();
    auto inType = cast<MemRefType>(in.getType());
    auto wType = cast<MemRefType>(w.getType());
    auto outType = cast<MemRefType>(out.getType());
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
            f = wType.getDimSize(0),
            zws = cast<MemRefType>(zw.getType()).getDimSize(0);
    if (c < 1 || wType.getDimSize(1) != c || outType.getDimSize(0) != n ||
        outType.getDimSize(1) != f || (zws != 1 && zws != f))
      return failure();
    ArrayRef<int64_t> strides = loop->strides, dilations = loop->dilations,
                      pad = loop->padding;
    lowering::ConvMaps expected =
        lowering::convMaps(strides, dilations, 1, wType, ctx);
    AffineMap zwMap = AffineMap::get(
        7, 0,
        {zws == 1 ? getAffineConstantExpr(0, ctx) : getAffineDimExpr(1, ctx)},
        ctx);
    SmallVector<AffineMap> want = {
        expected.weight, AffineMap::get(7, 0, {}, ctx), zwMap, expected.output};
    if (op.getIndexingMapsArray() != want ||
        !coversTaps(inType, wType, outType, *loop))
      return failure();
    // Weight zero points: constants in [-128, 127] (else the loops); all 0
    // (symmetric weights): none. The input zero point: a constant in
    // [-128, 127], or computed by a dynamic mix.quantize (within int8).
    bool zwNone = false, zaZero = false;
    if (!constantInt8ZeroPoints(zw, symbols, zwNone) ||
        (constantGlobalOf(za, symbols) &&
         !constantInt8ZeroPoints(za, symbols, zaZero)))
      return failure();
    // The body: the loop's one i32 product (x - za) * (w - zw).
    int products = 0;
    op.getRegion().walk(
        [&](arith::MulIOp mul) { products += mul.getType().isInteger(32); });
    if (products != 1)
      return failure();

    // The kernel writes every output: the fill before it is dead.
    linalg::FillOp fill = zeroFillBefore(op, out);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    // The arguments both kernels take first: the image, the window, the
    // weight, up to the output's extents.
    SmallVector<Type> types = {i64, i64, i64, i64, ptr, i32,
                               i64, i64, i64, ptr, ptr};
    types.append(10, i64);
    auto convArgs = [&](OpBuilder &b, Location loc) {
      SmallVector<Value> args;
      for (int64_t v : {n, c, inType.getDimSize(2), inType.getDimSize(3)})
        args.push_back(i64Const(b, loc, v));
      args.push_back(pointerTo(b, loc, in));
      args.push_back(memref::LoadOp::create(b, loc, za, ValueRange{}));
      for (int64_t v : {f, wType.getDimSize(2), wType.getDimSize(3)})
        args.push_back(i64Const(b, loc, v));
      args.push_back(pointerTo(b, loc, w));
      args.push_back(zwNone ? nullPointer(b, loc) : pointerTo(b, loc, zw));
      appendWindowArgs(b, loc, strides, dilations, pad, outType.getDimSize(2),
                       outType.getDimSize(3), args);
      return args;
    };
    const uint32_t zwFlags =
        !zwNone && zws > 1 ? static_cast<uint32_t>(MIXRT_UKERNEL_A_PER_ROW)
                           : 0u;
    // The rescale right after (+ relu, + a static quantize): one call that
    // runs them on each block of sums while in cache, this loop and those
    // epilogues kept behind it as its fallback (rewritten there as usual).
    if (std::optional<ConvS8Epilogue> epilogue = matchConvS8Epilogue(
            op, fill, in, out, op.getDpsInputs(), symbols)) {
      Operation *last = epilogue->quantize ? epilogue->quantize
                        : epilogue->relu   ? epilogue->relu
                                           : epilogue->rescale;
      OpBuilder after(last->getBlock(), std::next(last->getIterator()));
      Location loc = op.getLoc();
      Type f32 = after.getF32Type();
      SmallVector<Type> fusedTypes = types;
      fusedTypes.append({ptr, f32, ptr, ptr, f32, i32, i32, ptr, i32});
      declare(getOperation(), kConvS8Rescale,
              after.getFunctionType(fusedTypes, {i64}));
      SmallVector<Value> args = convArgs(after, loc);
      args.push_back(pointerTo(after, loc, out));
      args.push_back(
          memref::LoadOp::create(after, loc, epilogue->sa, ValueRange{}));
      args.push_back(pointerTo(after, loc, epilogue->sb));
      args.push_back(epilogue->bias ? pointerTo(after, loc, epilogue->bias)
                                    : nullPointer(after, loc));
      if (epilogue->quantize) {
        args.push_back(
            memref::LoadOp::create(after, loc, epilogue->scale, ValueRange{}));
        args.push_back(
            memref::LoadOp::create(after, loc, epilogue->zp, ValueRange{}));
      } else {
        args.push_back(
            arith::ConstantOp::create(after, loc, after.getF32FloatAttr(0.0f)));
        args.push_back(arith::ConstantIntOp::create(after, loc, i32, 0));
      }
      args.push_back(
          arith::ConstantIntOp::create(after, loc, i32, epilogue->qmin));
      args.push_back(pointerTo(after, loc, epilogue->dst));
      bool relu = epilogue->relu || epilogue->reluInLoop;
      uint32_t flags = zwFlags;
      if (relu)
        flags |= MIXRT_UKERNEL_RELU;
      if (epilogue->quantize)
        flags |= MIXRT_UKERNEL_OUT_S8;
      args.push_back(arith::ConstantIntOp::create(after, loc, i32, flags));
      Value first =
          func::CallOp::create(after, loc, kConvS8Rescale, TypeRange{i64}, args)
              .getResult(0);
      // -1: every output written, every value finite; -2: refused (a
      // dynamic input scale that is not finite and positive), nothing
      // written; an index: written, a value there not finite. Checked
      // loops report it: they run again from the sums, as before.
      Value fallback =
          epilogue->checked
              ? arith::CmpIOp::create(after, loc, arith::CmpIPredicate::ne,
                                      first, i64Const(after, loc, -1))
              : arith::CmpIOp::create(after, loc, arith::CmpIPredicate::eq,
                                      first, i64Const(after, loc, -2));
      auto ifOp = scf::IfOp::create(after, loc, fallback,
                                    /*withElseRegion=*/false);
      Operation *end = ifOp.thenBlock()->getTerminator();
      for (Operation *moved :
           {fill ? fill.getOperation() : nullptr, op.getOperation(),
            epilogue->rescale.getOperation(),
            epilogue->relu ? epilogue->relu.getOperation() : nullptr,
            epilogue->quantize ? epilogue->quantize.getOperation() : nullptr})
        if (moved)
          moved->moveBefore(end);
      ++numFusedConvS8Rescale;
      if (epilogue->quantize)
        ++numFusedConvS8Quantize;
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    types.append({ptr, i32});
    declare(getOperation(), kConvS8, b.getFunctionType(types, {i32}));
    SmallVector<Value> args = convArgs(b, loc);
    args.push_back(pointerTo(b, loc, out));
    args.push_back(arith::ConstantIntOp::create(b, loc, i32, zwFlags));
    func::CallOp::create(b, loc, kConvS8, TypeRange{i32}, args);
    if (fill)
      fill.erase();
    op.erase();
    ++numConvS8;
    return success();
  }

  /// An int8 depthwise convolution as mixc lowers it: the loop converting
  /// the int8 input to f32 (`(f32)(x - zp)`: extsi, subi, sitofp; identity
  /// maps, the zero point rank 0) right before the depthwise_f32 loop that
  /// alone reads it (its fill aside), then its rescale (+ bias, + relu;
  /// matchConvS8Epilogue on f32 sums). One call of
  /// mixrt_ukernel_depthwise_s8_rescale runs all of it on each chunk of
  /// planes while in cache; the loops move into an scf.if behind the call,
  /// run when it returns != -1 (checked: they report as before) or == -2
  /// (unchecked: refused), where the depthwise loop then calls
  /// mixrt_ukernel_depthwise_f32 as usual. Shapes the kernel always refuses
  /// (a plane of more than 8192 elements whose window rows do not fit 8192
  /// floats) keep the loops.
  LogicalResult rewriteIntDepthwise(linalg::GenericOp op,
                                    SymbolTable &symbols) {
    FailureOr<UnpaddedLoop> loop = matchUnpaddedLoop(op, 1, 1);
    if (failed(loop))
      return failure();
    MLIRContext *ctx = &getContext();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8),
         i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    Value in = loop->input, w = op.getDpsInputs()[0], out = op.getDpsInits()[0];
    if (!isPlainBuffer(in, f32, 4) || !isPlainBuffer(w, f32, 4) ||
        !isPlainBuffer(out, f32, 4))
      return failure();
    auto inType = cast<MemRefType>(in.getType());
    auto wType = cast<MemRefType>(w.getType());
    auto outType = cast<MemRefType>(out.getType());
    int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
            h = inType.getDimSize(2), wd = inType.getDimSize(3),
            kh = wType.getDimSize(2), kw = wType.getDimSize(3),
            oh = outType.getDimSize(2), ow = outType.getDimSize(3);
    ArrayRef<int64_t> strides = loop->strides, dilations = loop->dilations,
                      pad = loop->padding;
    if (c < 1 || wType.getDimSize(0) != c || wType.getDimSize(1) != 1 ||
        outType.getDimSize(0) != n || outType.getDimSize(1) != c ||
        op.getIndexingMapsArray() !=
            SmallVector<AffineMap>{
                lowering::convMaps(strides, dilations, c, wType, ctx).weight,
                lowering::convMaps(strides, dilations, c, wType, ctx).output} ||
        !coversTaps(inType, wType, outType, *loop))
      return failure();
    if (h * wd > 8192 && wd * ((kh - 1) * dilations[0] + 1) > 8192)
      return failure();
    linalg::FillOp fill = zeroFillBefore(op, out);
    auto convert = dyn_cast_or_null<linalg::GenericOp>(
        adjacentComputation(fill ? fill.getOperation() : op.getOperation(),
                            /*forward=*/false));
    if (!convert || convert->hasAttr(attr::kUkernel) ||
        convert.getNumDpsInputs() != 2 || convert.getNumDpsInits() != 1 ||
        convert.getDpsInits()[0] != in || !convert.hasPureBufferSemantics())
      return failure();
    Value q = convert.getDpsInputs()[0], zp = convert.getDpsInputs()[1];
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    if (!isPlainBuffer(q, i8, 4) ||
        cast<MemRefType>(q.getType()).getShape() != inType.getShape() ||
        !isPlainBuffer(zp, i32, 0) ||
        convert.getNumParallelLoops() != convert.getNumLoops() ||
        convert.getIndexingMapsArray() !=
            SmallVector<AffineMap>{id, AffineMap::get(4, 0, {}, ctx), id})
      return failure();
    // Its body: (f32)((i32)x - zp), nothing else.
    Block &body = convert.getRegion().front();
    auto ext = dyn_cast<arith::ExtSIOp>(&body.front());
    auto sub = ext ? dyn_cast_or_null<arith::SubIOp>(ext->getNextNode())
                   : arith::SubIOp();
    auto toFloat = sub ? dyn_cast_or_null<arith::SIToFPOp>(sub->getNextNode())
                       : arith::SIToFPOp();
    if (!toFloat || toFloat->getNextNode() != body.getTerminator() ||
        ext.getIn() != body.getArgument(0) || !ext.getType().isInteger(32) ||
        sub.getLhs() != ext.getResult() ||
        sub.getRhs() != body.getArgument(1) ||
        toFloat.getIn() != sub.getResult() || !toFloat.getType().isF32() ||
        body.getTerminator()->getOperand(0) != toFloat.getResult())
      return failure();
    // The converted input is read by the depthwise loop only.
    if (!llvm::all_of(in.getUsers(), [&](Operation *user) {
          return user == convert || op->isAncestor(user);
        }))
      return failure();
    std::optional<ConvS8Epilogue> epilogue = matchConvS8Epilogue(
        op, fill, q, out, ValueRange{w, zp, q}, symbols, /*depthwise=*/true);
    if (!epilogue)
      return failure();

    Operation *last = epilogue->relu ? epilogue->relu.getOperation()
                                     : epilogue->rescale.getOperation();
    OpBuilder after(last->getBlock(), std::next(last->getIterator()));
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    SmallVector<Type> types = {i64, i64, i64, i64, ptr, i32, i64, i64, ptr};
    types.append(10, i64);
    types.append({f32, ptr, ptr, ptr, i32});
    declare(getOperation(), kDepthwiseS8Rescale,
            after.getFunctionType(types, {i64}));
    SmallVector<Value> args;
    for (int64_t v : {n, c, h, wd})
      args.push_back(i64Const(after, loc, v));
    args.push_back(pointerTo(after, loc, q));
    args.push_back(memref::LoadOp::create(after, loc, zp, ValueRange{}));
    for (int64_t v : {kh, kw})
      args.push_back(i64Const(after, loc, v));
    args.push_back(pointerTo(after, loc, w));
    appendWindowArgs(after, loc, strides, dilations, pad, oh, ow, args);
    args.push_back(
        memref::LoadOp::create(after, loc, epilogue->sa, ValueRange{}));
    args.push_back(pointerTo(after, loc, epilogue->sb));
    args.push_back(epilogue->bias ? pointerTo(after, loc, epilogue->bias)
                                  : nullPointer(after, loc));
    args.push_back(pointerTo(after, loc, epilogue->dst));
    bool relu = epilogue->relu || epilogue->reluInLoop;
    args.push_back(arith::ConstantIntOp::create(after, loc, i32,
                                                relu ? MIXRT_UKERNEL_RELU : 0));
    Value first = func::CallOp::create(after, loc, kDepthwiseS8Rescale,
                                       TypeRange{i64}, args)
                      .getResult(0);
    // As for mixrt_ukernel_conv2d_s8_rescale: -1 all written and finite,
    // -2 refused (nothing written), else the first index not finite.
    Value fallback =
        epilogue->checked
            ? arith::CmpIOp::create(after, loc, arith::CmpIPredicate::ne, first,
                                    i64Const(after, loc, -1))
            : arith::CmpIOp::create(after, loc, arith::CmpIPredicate::eq, first,
                                    i64Const(after, loc, -2));
    auto ifOp = scf::IfOp::create(after, loc, fallback,
                                  /*withElseRegion=*/false);
    Operation *end = ifOp.thenBlock()->getTerminator();
    for (Operation *moved :
         {convert.getOperation(), fill ? fill.getOperation() : nullptr,
          op.getOperation(), epilogue->rescale.getOperation(),
          epilogue->relu ? epilogue->relu.getOperation() : nullptr})
      if (moved)
        moved->moveBefore(end);
    ++numFusedDepthwiseS8;
    (void)rewriteConvolution(op, /*depthwise=*/true, symbols);
    return success();
  }

  /// What mixrt_ukernel_conv2d_s8_rescale runs after an int8 convolution's
  /// sums: the rescale loop, the relu after it, the static quantize after
  /// those, and the buffer the call then writes.
  struct ConvS8Epilogue {
    linalg::GenericOp rescale, relu, quantize;
    Value sa, sb, bias; ///< the rescale's input scale, weight scales, bias
    Value scale, zp;    ///< the quantize's (rank 0)
    Value dst;          ///< the f32 result, or the quantize's int8 one
    int32_t qmin = 0;
    bool checked = false;    ///< a loop reports what the call may find
    bool reluInLoop = false; ///< the rescale loop computes the relu
  };

  /// The epilogue of the int8 convolution `conv` (sums `out`, zero-filled
  /// by `fill` or null) that mixrt_ukernel_conv2d_s8_rescale computes bit
  /// for bit: right after the loop (bookkeeping ops aside) the rescale
  /// loop of qconv2d ("rescale" or "checked_rescale": (f32)((f64)sa *
  /// (f64)sb[f] * (f64)acc) [+ bias[f]] [then relu, fused into the loop by
  /// mix-fuse-elementwise when unchecked], identity maps but sa per tensor
  /// and sb, bias per filter, weight scales positive and finite, the bias
  /// finite, both constants) reading the sums (read by nothing else); then
  /// optionally mix.relu (reluAfter); then optionally a per-tensor quantize
  /// with constant scale (positive) and zero point (in [-128, 127]) of that
  /// f32 result, which nothing else reads (a workspace buffer). The call writes
  /// its output while it reads the input, so the output must not overlap it,
  /// nor the sums unless it is an f32 output in their bytes; nor what the
  /// loops behind it read again (`reads`, the conv loop's operands, and the
  /// input scale) unless a constant. With `depthwise`, the epilogue of an
  /// int8 depthwise convolution (f32 sums; mixrt_ukernel_depthwise_s8_rescale
  /// fuses no quantize, and its output may overlap the loops' sums).
  std::optional<ConvS8Epilogue>
  matchConvS8Epilogue(linalg::GenericOp conv, linalg::FillOp fill, Value in,
                      Value out, ValueRange reads, SymbolTable &symbols,
                      bool depthwise = false) {
    auto op =
        dyn_cast_or_null<linalg::GenericOp>(adjacentComputation(conv, true));
    if (!op)
      return std::nullopt;
    auto kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
    if (!kind ||
        (kind.getValue() != "rescale" &&
         kind.getValue() != "checked_rescale") ||
        op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 3 ||
        op.getNumDpsInputs() > 4 || op.getDpsInputs()[0] != out)
      return std::nullopt;
    ConvS8Epilogue e;
    e.rescale = op;
    e.sa = op.getDpsInputs()[1];
    e.sb = op.getDpsInputs()[2];
    if (op.getNumDpsInputs() == 4)
      e.bias = op.getDpsInputs()[3];
    Value y = op.getDpsInits()[0];
    MLIRContext *ctx = &getContext();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8);
    auto outType = cast<MemRefType>(out.getType());
    int64_t filters = outType.getDimSize(1);
    if (!isPlainBuffer(y, f32, 4) ||
        cast<MemRefType>(y.getType()).getShape() != outType.getShape() ||
        !isPlainBuffer(e.sa, f32, 0))
      return std::nullopt;
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    AffineMap filter = AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx);
    SmallVector<AffineMap> want = {id, AffineMap::get(4, 0, {}, ctx), filter};
    if (e.bias)
      want.push_back(filter);
    want.push_back(id);
    if (op.getIndexingMapsArray() != want ||
        !matchRescaleBody(op.getBody(), e.bias != nullptr, e.checked,
                          &e.reluInLoop, /*floatAcc=*/depthwise) ||
        !constantF32s(e.sb, filters, /*positive=*/true, nullptr, symbols) ||
        (e.bias &&
         !constantF32s(e.bias, filters, /*positive=*/false, nullptr, symbols)))
      return std::nullopt;
    if (!llvm::all_of(out.getUsers(), [&](Operation *user) {
          return user == op || user == conv || user == fill;
        }))
      return std::nullopt;
    if (!e.reluInLoop)
      e.relu = reluAfter(op, y, op.getDpsInputs(), symbols);
    Value result = e.relu ? e.relu.getDpsInits()[0] : y;
    e.dst = result;
    Operation *writer = e.relu ? e.relu.getOperation() : op.getOperation();
    if (auto q = depthwise ? linalg::GenericOp()
                           : dyn_cast_or_null<linalg::GenericOp>(
                                 adjacentComputation(writer, true))) {
      auto qkind = q->getAttrOfType<StringAttr>(attr::kUkernel);
      std::optional<int32_t> qmin;
      // (A caller's buffer must be written: only the workspace's may be
      // skipped.)
      bool onlyReader = isWorkspace(placementOf(result).root) &&
                        llvm::all_of(result.getUsers(), [&](Operation *user) {
                          return user == writer || user == q;
                        });
      if (qkind &&
          (qkind.getValue() == "quantize_f32" ||
           qkind.getValue() == "checked_quantize") &&
          onlyReader && q.getNumDpsInputs() == 3 && q.getNumDpsInits() == 1 &&
          q.getDpsInputs()[0] == result &&
          isPlainBuffer(q.getDpsInits()[0], i8, 4) &&
          cast<MemRefType>(q.getDpsInits()[0].getType()).getShape() ==
              outType.getShape() &&
          q.getIndexingMapsArray() ==
              SmallVector<AffineMap>{id, AffineMap::get(4, 0, {}, ctx),
                                     AffineMap::get(4, 0, {}, ctx), id} &&
          (qmin = matchQuantizeBody(q.getBody())) &&
          staticQuantization(q.getDpsInputs()[1], q.getDpsInputs()[2],
                             symbols)) {
        e.quantize = q;
        e.scale = q.getDpsInputs()[1];
        e.zp = q.getDpsInputs()[2];
        e.qmin = *qmin;
        e.dst = q.getDpsInits()[0];
        e.checked |= qkind.getValue() == "checked_quantize";
      }
    }
    // (The depthwise call does not use the loops' sums: the loops behind it
    // compute them again from the int8 input when they run.)
    if (!provablyDisjoint(in, e.dst) ||
        !(depthwise || (!e.quantize && sameBytes(out, e.dst)) ||
          provablyDisjoint(out, e.dst)))
      return std::nullopt;
    // What the loops behind the call read again when they run (the weight,
    // the zero points, the input scale: run-time values of a dynamic
    // quantize) must still hold it after the call wrote its output.
    SmallVector<Value> rereads(reads.begin(), reads.end());
    rereads.push_back(e.sa);
    if (!llvm::all_of(rereads, [&](Value v) {
          return constantGlobalOf(v, symbols) || provablyDisjoint(v, e.dst);
        }))
      return std::nullopt;
    return e;
  }

  /// Whether `v` is a constant global of `n` f32 values, each finite (and
  /// positive when `positive`); their largest magnitude into *maxAbs.
  bool constantF32s(Value v, int64_t n, bool positive, double *maxAbs,
                    SymbolTable &symbols) {
    memref::GlobalOp global = constantGlobalOf(v, symbols);
    std::optional<std::vector<char>> bytes =
        global ? globalBytes(global) : std::nullopt;
    if (!bytes || !isPlainBuffer(v, Float32Type::get(&getContext()), 1) ||
        bytes->size() != static_cast<size_t>(n) * 4)
      return false;
    for (size_t i = 0; i < bytes->size(); i += 4) {
      float x;
      std::memcpy(&x, bytes->data() + i, 4);
      if (!(std::fabs(x) <= 3.4028235e38f) || (positive && !(x > 0.0f)))
        return false;
      if (maxAbs)
        *maxAbs = std::max(*maxAbs, static_cast<double>(std::fabs(x)));
    }
    return true;
  }

  /// Whether a quantize's rank-0 scale and zero point are constants the
  /// int8 kernels accept: a positive scale (not NaN), a zero point in
  /// [-128, 127].
  bool staticQuantization(Value scale, Value zp, SymbolTable &symbols) {
    memref::GlobalOp global = constantGlobalOf(scale, symbols);
    std::optional<std::vector<char>> bytes =
        global ? globalBytes(global) : std::nullopt;
    bool zpIgnored = false;
    if (!bytes || bytes->size() != 4 ||
        !isPlainBuffer(scale, Float32Type::get(&getContext()), 0) ||
        !isPlainBuffer(zp, IntegerType::get(&getContext(), 32), 0) ||
        !constantInt8ZeroPoints(zp, symbols, zpIgnored))
      return false;
    float x;
    std::memcpy(&x, bytes->data(), 4);
    return x > 0.0f;
  }

  /// The epilogue mixrt_ukernel_conv2d_f32 can run: the generic right after
  /// the convolution's loop (bookkeeping ops aside) reading its sums `out`
  /// (identity map) and optionally a bias of F floats (map d1), writing
  /// another plain f32 buffer of the same shape (identity), whose body is
  /// `acc + bias` (arith.addf, either order), `arith.maximumf(x, +0)`
  /// (mix.relu), or the first then the second, with no fast-math flags --
  /// what the kernel computes, so the bits are the loops'. The sums must
  /// have no other reader, and the epilogue's output must not overlap the
  /// input (the call writes it while reading the input); it may be the
  /// sums' own bytes (the memory plan puts an elementwise layer in place of
  /// the input it last reads, through one view per use: sameBytes).
  struct FusedConvEpilogue {
    Operation *op = nullptr;
    Value output, bias;
    bool relu = false;
  };
  FusedConvEpilogue matchConvEpilogue(linalg::GenericOp conv, Value in,
                                      Value out, linalg::FillOp fill,
                                      SymbolTable &symbols) {
    auto next =
        dyn_cast_or_null<linalg::GenericOp>(adjacentComputation(conv, true));
    if (!next || next->hasAttr(attr::kUkernel) || next.getNumDpsInits() != 1 ||
        next.getNumDpsInputs() < 1 || next.getNumDpsInputs() > 2 ||
        next.getDpsInputs()[0] != out ||
        next.getNumParallelLoops() != next.getNumLoops())
      return {};
    Type f32 = Float32Type::get(&getContext());
    auto outType = cast<MemRefType>(out.getType());
    Value y = next.getDpsInits()[0];
    Value w = conv.getDpsInputs()[0];
    // The call reads the input and the weight while it writes y. Unless y
    // is the sums' own bytes, the sums are never written: they must be
    // the workspace's (a caller's output -- a network returning both the
    // conv and its relu -- must be written).
    if (!isPlainBuffer(y, f32, 4) ||
        cast<MemRefType>(y.getType()).getShape() != outType.getShape() ||
        !provablyDisjoint(in, y) ||
        !(constantGlobalOf(w, symbols) || provablyDisjoint(w, y)) ||
        (!sameBytes(y, out) && !isWorkspace(placementOf(out).root)))
      return {};
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
    SmallVector<AffineMap> want = {id};
    Value bias;
    if (next.getNumDpsInputs() == 2) {
      bias = next.getDpsInputs()[1];
      if (!isPlainBuffer(bias, f32, 1) ||
          cast<MemRefType>(bias.getType()).getDimSize(0) !=
              outType.getDimSize(1) ||
          !(constantGlobalOf(bias, symbols) || provablyDisjoint(bias, y)))
        return {};
      want.push_back(AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx));
    }
    want.push_back(id);
    if (next.getIndexingMapsArray() != want)
      return {};
    // The body: [addf(acc, bias)] then [maximumf(x, +0)], yielded.
    Block &body = next.getRegion().front();
    Value acc = body.getArgument(0);
    Value value = acc;
    bool added = false, relu = false;
    for (Operation &inner : body.without_terminator()) {
      if (auto add = dyn_cast<arith::AddFOp>(inner);
          add && bias && !added && !relu &&
          add.getFastmath() == arith::FastMathFlags::none &&
          ((add.getLhs() == acc && add.getRhs() == body.getArgument(1)) ||
           (add.getRhs() == acc && add.getLhs() == body.getArgument(1)))) {
        value = add.getResult();
        added = true;
        continue;
      }
      if (!relu && isReluOf(&inner, value)) {
        value = inner.getResult(0);
        relu = true;
        continue;
      }
      return {};
    }
    // Something to do, and a bias operand only when it is added.
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (yield.getNumOperands() != 1 || yield.getOperand(0) != value ||
        value == acc || added != bool(bias))
      return {};
    if (!llvm::all_of(out.getUsers(), [&](Operation *user) {
          return user == fill || user == conv || user == next;
        }))
      return {};
    return {next, y, bias, relu};
  }

  /// The f32 product of two activations (the lowering's contraction with
  /// batched operands, marked "matmul_f32"; or a "gemm_f32" dense whose
  /// weight is not a constant, rank 2): A [batch..., M, K] x B
  /// [batch..., K, N] into the zero-filled C [batch..., M, N], all
  /// contiguous. Per batch one call of mixrt_ukernel_conv2d_f32 as a 1x1
  /// convolution of one image: input B (K channels of a 1 x N plane),
  /// weight A (M filters), output C -- from +0, one fma per k ascending:
  /// the loop's chain.
  LogicalResult rewriteMatmul(linalg::GenericOp op) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
      return failure();
    Type f32 = Float32Type::get(&getContext());
    Value a = op.getDpsInputs()[0], bm = op.getDpsInputs()[1],
          c = op.getDpsInits()[0];
    auto cType = dyn_cast<MemRefType>(c.getType());
    if (!cType || cType.getRank() < 2)
      return failure();
    int64_t rank = cType.getRank();
    if (!isPlainBuffer(a, f32, rank) || !isPlainBuffer(bm, f32, rank) ||
        !isPlainBuffer(c, f32, rank))
      return failure();
    lowering::ContractionMaps maps = lowering::contractionMaps(
        rank, rank, /*rhsBatched=*/true, op.getContext());
    SmallVector<AffineMap> want = {maps.lhs, maps.rhs, maps.output};
    if (op.getIndexingMapsArray() != want)
      return failure();
    // The body is the loop's one fma (f32 operands: no conversion).
    int fmas = 0;
    bool other = false;
    op.getRegion().walk([&](Operation *inner) {
      if (isa<math::FmaOp>(inner))
        ++fmas;
      else if (!isa<linalg::YieldOp>(inner))
        other = true;
    });
    linalg::FillOp fill = zeroFillBefore(op, c);
    if (fmas != 1 || other || !fill)
      return failure();
    ArrayRef<int64_t> cs = cType.getShape();
    int64_t m = cs[rank - 2], n = cs[rank - 1],
            k = cast<MemRefType>(a.getType()).getDimSize(rank - 1);
    int64_t batch = 1;
    for (int64_t d : cs.drop_back(2))
      batch *= d;

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    declareWindowCall(b, WindowCall::Conv);
    Value pa = pointerTo(b, loc, a), pb = pointerTo(b, loc, bm),
          pc = pointerTo(b, loc, c);
    auto call = [&](OpBuilder &cb, Value image) {
      // The batch's operands: element offsets image * (M*K, K*N, M*N).
      auto at = [&](Value base, int64_t stride) -> Value {
        if (!image)
          return base;
        Value offset =
            arith::MulIOp::create(cb, loc, image, i64Const(cb, loc, stride));
        return LLVM::GEPOp::create(cb, loc, ptr, f32, base, ValueRange{offset});
      };
      // N = 1 image of K channels, H = 1, W = N; F = M, KH = KW = 1.
      SmallVector<Value> args;
      for (int64_t v : {int64_t{1}, k, int64_t{1}, n})
        args.push_back(i64Const(cb, loc, v));
      args.push_back(at(pb, k * n));
      for (int64_t v : {m, int64_t{1}, int64_t{1}})
        args.push_back(i64Const(cb, loc, v));
      args.push_back(at(pa, m * k));
      // Strides, dilations 1; no padding; OH = 1, OW = N.
      for (int64_t v : {1, 1, 1, 1, 0, 0, 0, 0, 1})
        args.push_back(i64Const(cb, loc, v));
      args.push_back(i64Const(cb, loc, n));
      args.push_back(at(pc, m * n));
      args.push_back(nullPointer(cb, loc));
      args.push_back(arith::ConstantIntOp::create(cb, loc, i32, 0));
      func::CallOp::create(cb, loc, kConvF32, TypeRange{i32}, args);
    };
    if (batch == 1) {
      call(b, Value());
    } else {
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(b, loc, v);
      };
      scf::ForOp::create(b, loc, index(0), index(batch), index(1), ValueRange{},
                         [&](OpBuilder &lb, Location, Value i, ValueRange) {
                           call(lb,
                                arith::IndexCastOp::create(lb, loc, i64, i));
                           scf::YieldOp::create(lb, loc);
                         });
    }
    fill.erase();
    op.erase();
    ++numMatmul;
    return success();
  }

  /// The range of a dynamic per-tensor quantize: lo = minimum(+0, x...),
  /// hi = maximum(+0, x...) into rank-0 buffers.
  LogicalResult rewriteRange(linalg::GenericOp op) {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 2)
      return failure();
    Value x = op.getDpsInputs()[0];
    Value lo = op.getDpsInits()[0], hi = op.getDpsInits()[1];
    Type f32 = Float32Type::get(&getContext());
    auto xType = dyn_cast<MemRefType>(x.getType());
    if (!xType || !isPlainBuffer(x, f32, xType.getRank()) ||
        !isPlainBuffer(lo, f32, 0) || !isPlainBuffer(hi, f32, 0))
      return failure();
    OpBuilder b(op);
    callRange(b, op.getLoc(), x, lo, hi);
    op.erase();
    ++numRange;
    return success();
  }

  /// A per-tensor quantize of an f32 buffer into an i8 one, exactly
  ///   q = fptosi(select(isnan(r), zpf, minimumf(maximumf(r, qmin), 127)))
  ///   r = addf(roundeven(divf(x, scale)), zpf), zpf = sitofp(zp)
  /// (checks aside), as one call of mixrt_ukernel_quantize_f32_s8, which
  /// computes these bits with vector instructions (and threads). The loop
  /// stays behind the call: it runs when the call refuses its parameters
  /// (a NaN scale, from a non-finite input of a dynamic quantize) and, when
  /// checked, when the call returns the index of a non-finite input, so the
  /// checked loop reports it as before.
  LogicalResult rewriteQuantize(linalg::GenericOp op, bool checked) {
    if (op.getNumDpsInputs() != 3 || op.getNumDpsInits() != 1)
      return failure();
    Value x = op.getDpsInputs()[0], scale = op.getDpsInputs()[1],
          zp = op.getDpsInputs()[2], out = op.getDpsInits()[0];
    Type f32 = Float32Type::get(&getContext());
    Type i8 = IntegerType::get(&getContext(), 8);
    Type i32 = IntegerType::get(&getContext(), 32);
    auto xType = dyn_cast<MemRefType>(x.getType());
    if (!xType || !isPlainBuffer(x, f32, xType.getRank()) ||
        !isPlainBuffer(out, i8, xType.getRank()) ||
        cast<MemRefType>(out.getType()).getShape() != xType.getShape() ||
        !isPlainBuffer(scale, f32, 0) || !isPlainBuffer(zp, i32, 0))
      return failure();
    int64_t rank = xType.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, &getContext());
    AffineMap param = AffineMap::get(rank, 0, {}, &getContext());
    SmallVector<AffineMap> want = {id, param, param, id};
    if (op.getIndexingMapsArray() != want)
      return failure();
    std::optional<int32_t> qmin = matchQuantizeBody(op.getBody());
    if (!qmin || !provablyDisjoint(x, out))
      return failure();

    OpBuilder b(op);
    Location loc = op.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type();
    declare(getOperation(), kQuantizeF32,
            b.getFunctionType({ptr, i64, f32, i32, i32, ptr}, {i64}));
    Value args[] = {pointerTo(b, loc, x),
                    i64Const(b, loc, xType.getNumElements()),
                    memref::LoadOp::create(b, loc, scale, ValueRange{}),
                    memref::LoadOp::create(b, loc, zp, ValueRange{}),
                    arith::ConstantIntOp::create(b, loc, i32, *qmin),
                    pointerTo(b, loc, out)};
    Value first =
        func::CallOp::create(b, loc, kQuantizeF32, TypeRange{i64}, args)
            .getResult(0);
    // -1: every element written, none non-finite; -2: refused, nothing
    // written; an index: written, the first non-finite input there.
    Value fallback =
        checked ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, first,
                                        i64Const(b, loc, -1))
                : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first,
                                        i64Const(b, loc, -2));
    auto ifOp = scf::IfOp::create(b, loc, fallback, /*withElseRegion=*/false);
    op->moveBefore(ifOp.thenBlock()->getTerminator());
    op->removeAttr(attr::kUkernel);
    ++numQuantize;
    return success();
  }

  /// qmin (-128 or -127) if `body` (block arguments x, scale, zp, out)
  /// computes the quantize of rewriteQuantize, no fast-math flags; other
  /// ops may only be pure or the checks.
  static std::optional<int32_t> matchQuantizeBody(Block *body) {
    bool checked;
    if (!onlyPureOpsAndChecks(body, checked))
      return std::nullopt;
    auto arg = [&](Value v, unsigned i) { return v == body->getArgument(i); };
    auto plain = [](auto op) {
      return op && op.getFastmath() == arith::FastMathFlags::none;
    };
    auto constant = [](Value v) -> std::optional<double> {
      FloatAttr attr;
      if (!matchPattern(v, m_Constant(&attr)))
        return std::nullopt;
      return attr.getValueAsDouble();
    };
    auto isZp = [&](Value v) {
      auto conv = v.getDefiningOp<arith::SIToFPOp>();
      return conv && arg(conv.getIn(), 2) && conv.getType().isF32();
    };
    auto toInt =
        body->getTerminator()->getOperand(0).getDefiningOp<arith::FPToSIOp>();
    if (!toInt || !toInt.getType().isInteger(8))
      return std::nullopt;
    auto select = toInt.getIn().getDefiningOp<arith::SelectOp>();
    if (!select || !isZp(select.getTrueValue()))
      return std::nullopt;
    auto isNaN = select.getCondition().getDefiningOp<arith::CmpFOp>();
    auto upper = select.getFalseValue().getDefiningOp<arith::MinimumFOp>();
    if (!isNaN || isNaN.getPredicate() != arith::CmpFPredicate::UNO ||
        isNaN.getLhs() != isNaN.getRhs() || !plain(upper) ||
        constant(upper.getRhs()) != 127.0)
      return std::nullopt;
    auto lower = upper.getLhs().getDefiningOp<arith::MaximumFOp>();
    if (!plain(lower) || lower.getLhs() != isNaN.getLhs())
      return std::nullopt;
    std::optional<double> qmin = constant(lower.getRhs());
    if (qmin != -128.0 && qmin != -127.0)
      return std::nullopt;
    auto shifted = lower.getLhs().getDefiningOp<arith::AddFOp>();
    if (!plain(shifted) || !isZp(shifted.getRhs()))
      return std::nullopt;
    auto round = shifted.getLhs().getDefiningOp<math::RoundEvenOp>();
    if (!round || round.getFastmath() != arith::FastMathFlags::none)
      return std::nullopt;
    auto div = round.getOperand().getDefiningOp<arith::DivFOp>();
    if (!plain(div) || !arg(div.getLhs(), 0) || !arg(div.getRhs(), 1))
      return std::nullopt;
    return static_cast<int32_t>(*qmin);
  }

  /// Runs `op` (an elementwise loop with per-element checks) only when
  /// `mayFail`, and otherwise a copy of it without the checks, which LLVM
  /// vectorizes. Both write the same buffers; when a check can fail the
  /// checked loop runs exactly as before (same reports, same count).
  linalg::GenericOp guardChecks(linalg::GenericOp op, Value mayFail) {
    OpBuilder b(op);
    auto ifOp = scf::IfOp::create(b, op.getLoc(), mayFail,
                                  /*withElseRegion=*/true);
    Operation *unchecked = op->clone();
    op->moveBefore(ifOp.thenBlock()->getTerminator());
    ifOp.elseBlock()->getOperations().insert(
        ifOp.elseBlock()->getTerminator()->getIterator(), unchecked);
    // The checks are the scf.if blocks that call mixrt_check_fail.
    SmallVector<scf::IfOp> checks;
    unchecked->walk([&](scf::IfOp check) {
      bool reports = false;
      check.getThenRegion().walk([&](func::CallOp call) {
        reports |= call.getCallee() == "mixrt_check_fail";
      });
      if (reports && check.getNumResults() == 0)
        checks.push_back(check);
    });
    for (scf::IfOp check : checks)
      check.erase();
    // What computed their conditions, indices and values is dead now.
    IRRewriter rewriter(&getContext());
    (void)runRegionDCE(rewriter, unchecked->getRegions());
    ++numGuarded;
    return cast<linalg::GenericOp>(unchecked);
  }

  /// A call of mixrt_ukernel_range_f32 on the f32 buffer `x`: its result
  /// (the first non-finite index, or -1) and the rank-0 f32 buffers
  /// receiving min(+0, x...) and max(+0, x...) (`lo`, `hi`, or new ones on
  /// the stack).
  struct RangeCall {
    Value first, lo, hi;
  };
  RangeCall callRange(OpBuilder &b, Location loc, Value x, Value lo = {},
                      Value hi = {}) {
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    Type i64 = b.getI64Type(), f32 = b.getF32Type();
    declare(getOperation(), kRangeF32,
            b.getFunctionType({ptr, i64, ptr, ptr}, {i64}));
    auto scalar = MemRefType::get({}, f32);
    RangeCall r;
    r.lo = lo ? lo : memref::AllocaOp::create(b, loc, scalar).getResult();
    r.hi = hi ? hi : memref::AllocaOp::create(b, loc, scalar).getResult();
    Value args[] = {
        pointerTo(b, loc, x),
        i64Const(b, loc, cast<MemRefType>(x.getType()).getNumElements()),
        pointerTo(b, loc, r.lo), pointerTo(b, loc, r.hi)};
    r.first = func::CallOp::create(b, loc, kRangeF32, TypeRange{i64}, args)
                  .getResult(0);
    return r;
  }

  /// A checked f32 quantize: its check (a non-finite input) can fail only
  /// when mixrt_ukernel_range_f32 finds a non-finite element.
  LogicalResult guardQuantize(linalg::GenericOp op) {
    if (op.getNumDpsInputs() < 1)
      return failure();
    Value x = op.getDpsInputs()[0];
    Type f32 = Float32Type::get(&getContext());
    auto xType = dyn_cast<MemRefType>(x.getType());
    if (!xType || !isPlainBuffer(x, f32, xType.getRank()))
      return failure();
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value first = callRange(b, loc, x).first;
    Value mayFail = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          first, i64Const(b, loc, 0));
    guardChecks(op, mayFail);
    return success();
  }

  /// A checked f32 -> f16/bf16 cast (x rounded once; a finite x that
  /// rounds to +-inf is reported): only |x| >= T overflows, T the halfway
  /// point between the largest finite value and 2^(emax+1), which rounds to
  /// inf (ties to even: the largest finite value has an odd significand) --
  /// f16 65520, bf16 0x7F7F8000 (3.3961775e38). The checked loop runs only
  /// when mixrt_ukernel_range_f32 finds min(+0, x...) <= -T or max(+0,
  /// x...) >= T, or a NaN (both bounds NaN; an infinite input too, which
  /// the checked loop passes through unreported).
  LogicalResult guardNarrow(linalg::GenericOp op) {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
      return failure();
    Value x = op.getDpsInputs()[0];
    Type f32 = Float32Type::get(&getContext());
    auto xType = dyn_cast<MemRefType>(x.getType());
    Type to = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    if (!xType || !isPlainBuffer(x, f32, xType.getRank()) ||
        !(to.isF16() || to.isBF16()))
      return failure();
    OpBuilder b(op);
    Location loc = op.getLoc();
    RangeCall range = callRange(b, loc, x);
    uint32_t bits = to.isF16() ? 0x477FF000u /* 65520 */ : 0x7F7F8000u;
    float bound;
    std::memcpy(&bound, &bits, sizeof bound);
    auto constant = [&](float v) {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    Value loV = memref::LoadOp::create(b, loc, range.lo, ValueRange{});
    Value hiV = memref::LoadOp::create(b, loc, range.hi, ValueRange{});
    // Ordered compares: a NaN bound makes `safe` false.
    Value safe = arith::AndIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, loV,
                              constant(-bound)),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, hiV,
                              constant(bound)));
    Value mayFail = arith::XOrIOp::create(
        b, loc, safe, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
    (void)guardChecks(op, mayFail);
    return success();
  }

  /// A checked int8 rescale (f32)((f64)sa * (f64)sb[n] * (f64)acc) of an
  /// i32 accumulator: |acc| <= 2^31, so no value can overflow f32 while
  /// sa * max(sb) * 2^31 < 3e38 (f64, exact products; sb is a constant, its
  /// maximum known now). Otherwise (or for a NaN sa) the checked loop runs.
  LogicalResult guardRescale(linalg::GenericOp op, SymbolTable &symbols) {
    if (op.getNumDpsInputs() < 3)
      return failure();
    Value acc = op.getDpsInputs()[0], sa = op.getDpsInputs()[1],
          sb = op.getDpsInputs()[2];
    auto accType = dyn_cast<MemRefType>(acc.getType());
    auto saType = dyn_cast<MemRefType>(sa.getType());
    Type f32 = Float32Type::get(&getContext());
    // i32 sums, or f32 ones holding exact integers below 2^24 (qconv2d's
    // sums by the f32 kernels): |acc| < 2^31 either way.
    if (!accType ||
        !(accType.getElementType().isInteger(32) ||
          accType.getElementType().isF32()) ||
        !saType || saType.getRank() != 0 || saType.getElementType() != f32)
      return failure();
    memref::GlobalOp sbGlobal = constantGlobalOf(sb, symbols);
    std::optional<std::vector<char>> sbBytes =
        sbGlobal ? globalBytes(sbGlobal) : std::nullopt;
    if (!sbBytes ||
        cast<MemRefType>(sbGlobal.getType()).getElementType() != f32 ||
        sbBytes->empty())
      return failure();
    double maxSb = 0.0;
    for (size_t i = 0; i + 4 <= sbBytes->size(); i += 4) {
      float v;
      std::memcpy(&v, sbBytes->data() + i, 4);
      if (!(std::fabs(v) <= 3.4028235e38f))
        return failure(); // a non-finite weight scale: always checked
      maxSb = std::max(maxSb, static_cast<double>(std::fabs(v)));
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type f64 = b.getF64Type();
    Value saValue = memref::LoadOp::create(b, loc, sa, ValueRange{});
    Value bound = arith::MulFOp::create(
        b, loc, arith::ExtFOp::create(b, loc, f64, saValue),
        arith::ConstantOp::create(b, loc,
                                  b.getF64FloatAttr(maxSb * 2147483648.0)));
    Value mayFail = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::UGE, math::AbsFOp::create(b, loc, bound),
        arith::ConstantOp::create(b, loc, b.getF64FloatAttr(3e38)));
    (void)guardChecks(op, mayFail);
    return success();
  }

  /// The relu (mix.relu: a loop whose body is only `arith.maximumf(x, +0)`)
  /// right after `op` (bookkeeping ops aside), reading `op`'s output `out`
  /// (written only by `op` and `writers`, e.g. the zero fill of a GEMM)
  /// into an f32 buffer of its shape (identity maps, all parallel), when
  /// `op` may write the relu's buffer instead: `out` has no other reader and
  /// is the workspace's unless the relu works in place (its buffer the same
  /// bytes: a network output must be written), and the relu's buffer
  /// overlaps none of `reads` (what `op` reads while it writes), constants
  /// aside. Null otherwise.
  linalg::GenericOp reluAfter(Operation *op, Value out, ValueRange reads,
                              SymbolTable &symbols,
                              ArrayRef<Operation *> writers = {}) {
    auto next =
        dyn_cast_or_null<linalg::GenericOp>(adjacentComputation(op, true));
    if (!next || next->hasAttr(attr::kUkernel) || next.getNumDpsInputs() != 1 ||
        next.getNumDpsInits() != 1 || !next.hasPureBufferSemantics() ||
        next.getDpsInputs()[0] != out)
      return {};
    Value y = next.getDpsInits()[0];
    auto outType = dyn_cast<MemRefType>(out.getType());
    Type f32 = Float32Type::get(&getContext());
    if (!outType || !isPlainBuffer(y, f32, outType.getRank()) ||
        cast<MemRefType>(y.getType()).getShape() != outType.getShape() ||
        next.getNumParallelLoops() != next.getNumLoops() ||
        !llvm::all_of(next.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return {};
    if (!sameBytes(y, out) && (!isWorkspace(placementOf(out).root) ||
                               !llvm::all_of(reads, [&](Value in) {
                                 return constantGlobalOf(in, symbols) ||
                                        provablyDisjoint(in, y);
                               })))
      return {};
    Block &body = next.getRegion().front();
    if (!isReluOf(&body.front(), body.getArgument(0)) ||
        body.front().getNextNode() != body.getTerminator() ||
        body.getTerminator()->getOperand(0) != body.front().getResult(0))
      return {};
    if (!llvm::all_of(out.getUsers(), [&](Operation *user) {
          return user == op || user == next ||
                 llvm::is_contained(writers, user);
        }))
      return {};
    return next;
  }

  /// A relu (reluAfter) right after the int8 rescale `op`: computed in the
  /// rescale's loop, which then writes the relu's buffer -- one pass over
  /// memory instead of two, the same bits (the check still sees the value
  /// before the relu). Returns the rescale.
  linalg::GenericOp fuseRelu(linalg::GenericOp op, SymbolTable &symbols) {
    if (op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
        op.getNumParallelLoops() != op.getNumLoops() ||
        op.payloadUsesValueFromOperand(&op.getDpsInitsMutable()[0]) ||
        !op.getIndexingMapsArray().back().isIdentity())
      return op;
    linalg::GenericOp next =
        reluAfter(op, op.getDpsInits()[0], op.getDpsInputs(), symbols);
    // The relu's buffer is named (a view, its offset) after the rescale:
    // those bookkeeping ops move before it.
    if (!next || !hoistBefore(next.getDpsInits()[0], op))
      return op;
    Operation *yield = op.getRegion().front().getTerminator();
    OpBuilder b(yield);
    Value zero = arith::ConstantOp::create(b, yield->getLoc(),
                                           b.getFloatAttr(b.getF32Type(), 0.0));
    Value relu = arith::MaximumFOp::create(b, yield->getLoc(),
                                           yield->getOperand(0), zero);
    yield->setOperand(0, relu);
    op.getDpsInitsMutable()[0].assign(next.getDpsInits()[0]);
    next.erase();
    ++numFusedRelu;
    return op;
  }

  /// Makes `v` available before `op` (same block), moving the bookkeeping
  /// ops that define it there; false if it is defined otherwise.
  static bool hoistBefore(Value v, Operation *op) {
    Operation *def = v.getDefiningOp();
    if (DominanceInfo().properlyDominates(v, op))
      return true;
    if (!def || def->getBlock() != op->getBlock() || !isBookkeeping(def))
      return false;
    for (Value operand : def->getOperands())
      if (!hoistBefore(operand, op))
        return false;
    def->moveBefore(op);
    return true;
  }

  llvm::StringMap<memref::GlobalOp> packed;
  /// Packed transposed views of weights (packedTransposed), by view.
  llvm::StringMap<memref::GlobalOp> packedTransposedCache;
  llvm::StringSet<> replacedWeights;
};

/// Weight-only int8 dense layers before the memory plan: a "gemm_f32"
/// GEMM whose weight is a buffer of its own that only the lowering's
/// mix.dequantize loop writes, from constant globals, reads instead an f32
/// global of the dequantized values computed at compile time (the loop's
/// arithmetic in C++ float, the same bits), which names the int8 weight
/// packed with its scales and zero points; mix-use-microkernels then calls
/// mixrt_ukernel_gemm_f32 on the packed form (and drops the f32 global),
/// else the loops read the f32 global. The dequantize loop and its buffer
/// go: the memory plan never reserves the K x N f32 weight.
struct MixPackDequantizedWeightsPass
    : public mix::impl::MixPackDequantizedWeightsPassBase<
          MixPackDequantizedWeightsPass> {
  using MixPackDequantizedWeightsPassBase::MixPackDequantizedWeightsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<linalg::GenericOp> gemms;
    module.walk([&](linalg::GenericOp op) {
      auto kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
      if (kind && kind.getValue() == "gemm_f32" && op.getNumDpsInputs() == 2 &&
          op.getNumDpsInits() == 1)
        gemms.push_back(op);
    });
    cache.clear();
    for (linalg::GenericOp op : gemms)
      (void)fold(op, symbols);
    // lstm and gru weights: views of a dequantized buffer read by their
    // GEMMs (marked "recurrent_gemm_f32").
    llvm::SetVector<Operation *> buffers;
    module.walk([&](linalg::GenericOp op) {
      auto kind = op->getAttrOfType<StringAttr>(attr::kUkernel);
      if (kind && kind.getValue() == "recurrent_gemm_f32" &&
          op.getNumDpsInputs() == 2)
        if (auto alloc = viewSource(op.getDpsInputs()[1])
                             .getDefiningOp<memref::AllocOp>())
          buffers.insert(alloc);
    });
    for (Operation *alloc : buffers)
      (void)foldRecurrent(cast<memref::AllocOp>(alloc), symbols);
  }

  /// A weight-only int8 lstm/gru weight: a buffer of its own (any rank,
  /// static, identity layout) that the lowering's mix.dequantize loop alone
  /// writes, from constant int8 values and one scale and zero point per
  /// index of one axis (or one), before its readers, and that only
  /// "recurrent_gemm_f32" GEMMs read, as their weight, through views.
  /// It becomes an f32 global of the values the loop computes, naming its
  /// int8 parts for mix-use-microkernels (which packs each GEMM's view in
  /// int8); the loop and the buffer go.
  LogicalResult foldRecurrent(memref::AllocOp alloc, SymbolTable &symbols) {
    Value buffer = alloc.getResult();
    auto type = cast<MemRefType>(buffer.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        !type.getElementType().isF32())
      return failure();
    linalg::GenericOp loop;
    SmallVector<Operation *> readers;
    SmallVector<Value> views = {buffer};
    while (!views.empty()) {
      Value view = views.pop_back_val();
      for (Operation *user : view.getUsers()) {
        if (isa<memref::SubViewOp, memref::CastOp>(user)) {
          views.push_back(user->getResult(0));
          continue;
        }
        auto generic = dyn_cast<linalg::GenericOp>(user);
        if (!generic)
          return failure();
        auto kind = generic->getAttrOfType<StringAttr>(attr::kUkernel);
        if (kind && kind.getValue() == "recurrent_gemm_f32" &&
            generic.getNumDpsInputs() == 2 &&
            generic.getDpsInputs()[1] == view &&
            generic.getDpsInputs()[0] != view &&
            generic.getDpsInits()[0] != view) {
          readers.push_back(generic);
          continue;
        }
        if (loop || view != buffer || !kind ||
            kind.getValue() != "dequantize" || generic.getNumDpsInits() != 1 ||
            generic.getDpsInits()[0] != buffer ||
            generic.getNumDpsInputs() != 3)
          return failure();
        loop = generic;
      }
    }
    if (!loop || readers.empty())
      return failure();
    // Written before every reader (which may be inside the time loops).
    for (Operation *reader : readers) {
      Operation *at = loop->getBlock()->findAncestorOpInBlock(*reader);
      if (!at || !loop->isBeforeInBlock(at))
        return failure();
    }
    memref::GlobalOp q = constantGlobalOf(loop.getDpsInputs()[0], symbols),
                     scales = constantGlobalOf(loop.getDpsInputs()[1], symbols),
                     zps = constantGlobalOf(loop.getDpsInputs()[2], symbols);
    if (!q || !scales || !zps)
      return failure();
    auto qType = cast<MemRefType>(q.getType());
    auto sType = cast<MemRefType>(scales.getType());
    auto zType = cast<MemRefType>(zps.getType());
    int64_t rank = type.getRank();
    if (qType.getShape() != type.getShape() ||
        !qType.getElementType().isInteger(8) ||
        !qType.getLayout().isIdentity() || !sType.getElementType().isF32() ||
        !zType.getElementType().isInteger(32) || sType.getRank() != 1 ||
        zType.getRank() != 1 || sType.getShape() != zType.getShape())
      return failure();
    // The parameters' maps: one axis (its size of values) or (0) (one).
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineMap> maps = loop.getIndexingMapsArray();
    if (maps[0] != id || maps[3] != id || maps[1] != maps[2] ||
        maps[1].getNumResults() != 1 || !isDequantizeBody(loop.getBody()))
      return failure();
    int64_t axis = -1;
    if (auto dim = dyn_cast<AffineDimExpr>(maps[1].getResult(0))) {
      axis = dim.getPosition();
      if (sType.getDimSize(0) != type.getDimSize(axis))
        return failure();
    } else if (maps[1] !=
                   AffineMap::get(rank, 0, getAffineConstantExpr(0, ctx)) ||
               sType.getDimSize(0) != 1) {
      return failure();
    }
    std::string key = (q.getSymName() + "/" + scales.getSymName() + "/" +
                       zps.getSymName() + "/" + Twine(axis))
                          .str();
    memref::GlobalOp global = cache.lookup(key);
    if (!global) {
      std::optional<std::vector<char>> qb = globalBytes(q),
                                       sb = globalBytes(scales),
                                       zb = globalBytes(zps);
      if (!qb || !sb || !zb)
        return failure();
      int64_t inner = 1;
      for (int64_t d = axis + 1; axis >= 0 && d < rank; ++d)
        inner *= type.getDimSize(d);
      const int64_t params = sType.getDimSize(0);
      const auto *values = reinterpret_cast<const int8_t *>(qb->data());
      // The loop's arithmetic: extsi, subi (modulo 2^32), sitofp, mulf.
      std::vector<float> f32(static_cast<size_t>(type.getNumElements()));
      for (size_t i = 0; i < f32.size(); ++i) {
        int64_t p = axis < 0 ? 0 : (static_cast<int64_t>(i) / inner) % params;
        float sv;
        int32_t zv;
        std::memcpy(&sv, sb->data() + p * 4, 4);
        std::memcpy(&zv, zb->data() + p * 4, 4);
        auto d32 = static_cast<int32_t>(static_cast<uint32_t>(values[i]) -
                                        static_cast<uint32_t>(zv));
        f32[i] = sv * static_cast<float>(d32);
      }
      Builder b(ctx);
      global = constantGlobal(
          q, (q.getSymName() + "_dequantized").str(), type,
          DenseElementsAttr::get(
              RankedTensorType::get(type.getShape(), b.getF32Type()),
              ArrayRef<float>(f32)),
          symbols);
      global->setAttr(
          kDequantizedFrom,
          b.getArrayAttr({FlatSymbolRefAttr::get(q.getSymNameAttr()),
                          FlatSymbolRefAttr::get(scales.getSymNameAttr()),
                          FlatSymbolRefAttr::get(zps.getSymNameAttr())}));
      global->setAttr(kDequantizedAxis, b.getI64IntegerAttr(axis));
      cache[key] = global;
    }
    OpBuilder b(alloc);
    Value get = memref::GetGlobalOp::create(b, alloc.getLoc(), type,
                                            global.getSymName());
    SmallVector<Operation *> inputs;
    for (Value input : loop.getDpsInputs())
      inputs.push_back(input.getDefiningOp());
    loop.erase();
    buffer.replaceAllUsesWith(get);
    alloc.erase();
    // The int8 parts' get_globals (the globals stay: the GEMMs' views are
    // packed from them; mix-use-microkernels drops them after).
    for (Operation *input : inputs)
      if (input && input->use_empty())
        input->erase();
    ++numFolded;
    return success();
  }

  /// A weight-only int8 weight: the [K, N] f32 buffer (a memref.alloc: not
  /// an argument or result of the network) that only the lowering's
  /// mix.dequantize loop (marked "dequantize") writes, and only GEMMs read
  /// (`gemm` and others marked "gemm_f32", e.g. an attention's projections
  /// sharing one weight), from constant globals: the int8 values [K, N] and
  /// their scales and zero points, one per column (axis 1) or one.
  struct DequantizedWeight {
    linalg::GenericOp loop;
    memref::GlobalOp q, scales, zps;
  };
  std::optional<DequantizedWeight>
  dequantizedWeight(Value weight, Operation *gemm, SymbolTable &symbols) {
    if (!weight.getDefiningOp<memref::AllocOp>())
      return std::nullopt;
    linalg::GenericOp loop;
    for (Operation *user : weight.getUsers()) {
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!generic)
        return std::nullopt;
      auto kind = generic->getAttrOfType<StringAttr>(attr::kUkernel);
      if (kind && kind.getValue() == "gemm_f32" &&
          generic.getNumDpsInputs() == 2 &&
          generic.getDpsInputs()[1] == weight &&
          generic.getDpsInputs()[0] != weight &&
          generic.getDpsInits()[0] != weight)
        continue;
      if (loop || !kind || kind.getValue() != "dequantize" ||
          generic.getNumDpsInits() != 1 || generic.getDpsInits()[0] != weight)
        return std::nullopt;
      loop = generic;
    }
    // Written before the GEMM, in its block.
    if (!loop || loop->getBlock() != gemm->getBlock() ||
        !loop->isBeforeInBlock(gemm) || loop.getNumDpsInputs() != 3 ||
        !isPlainBuffer(weight, Float32Type::get(&getContext()), 2))
      return std::nullopt;
    DequantizedWeight d{loop, constantGlobalOf(loop.getDpsInputs()[0], symbols),
                        constantGlobalOf(loop.getDpsInputs()[1], symbols),
                        constantGlobalOf(loop.getDpsInputs()[2], symbols)};
    if (!d.q || !d.scales || !d.zps)
      return std::nullopt;
    auto qType = cast<MemRefType>(d.q.getType());
    auto sType = cast<MemRefType>(d.scales.getType());
    auto zType = cast<MemRefType>(d.zps.getType());
    if (qType.getShape() != cast<MemRefType>(weight.getType()).getShape() ||
        !qType.getElementType().isInteger(8) ||
        !sType.getElementType().isF32() ||
        !zType.getElementType().isInteger(32) || sType.getRank() != 1 ||
        zType.getRank() != 1 || !qType.getLayout().isIdentity())
      return std::nullopt;
    // The parameters' maps: (d0, d1) -> (d1), one per column, or -> (0).
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap perColumn = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
    AffineMap perTensor = AffineMap::get(2, 0, getAffineConstantExpr(0, ctx));
    SmallVector<AffineMap> maps = loop.getIndexingMapsArray();
    for (int i : {1, 2}) {
      int64_t size =
          cast<MemRefType>(loop.getDpsInputs()[i].getType()).getDimSize(0);
      if (!(maps[i] == perColumn && size == qType.getDimSize(1)) &&
          !(maps[i] == perTensor && size == 1))
        return std::nullopt;
    }
    if (maps[0] != id || maps[3] != id || !isDequantizeBody(loop.getBody()))
      return std::nullopt;
    return d;
  }

  /// Whether `body` is exactly mix.dequantize's lowering: yield(mulf(s,
  /// sitofp(subi(extsi(q), z)))) on (q, s, z, out), no fast-math flags (a
  /// loop fused with more work keeps no mark, but this is what the folding
  /// computes).
  static bool isDequantizeBody(Block *body) {
    if (body->getNumArguments() != 4 || body->getOperations().size() != 5)
      return false;
    auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
    if (!yield || yield.getNumOperands() != 1)
      return false;
    auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
    if (!mul || mul.getFastmath() != arith::FastMathFlags::none ||
        mul.getLhs() != body->getArgument(1))
      return false;
    auto toFloat = mul.getRhs().getDefiningOp<arith::SIToFPOp>();
    auto sub = toFloat ? toFloat.getIn().getDefiningOp<arith::SubIOp>()
                       : arith::SubIOp();
    auto ext =
        sub ? sub.getLhs().getDefiningOp<arith::ExtSIOp>() : arith::ExtSIOp();
    return ext && sub.getRhs() == body->getArgument(2) &&
           ext.getIn() == body->getArgument(0) && toFloat.getType().isF32() &&
           sub.getType().isInteger(32);
  }

  /// The f32 global of a dequantized weight, naming its packed int8 form
  /// (both made once per values, scales and zero points).
  memref::GlobalOp folded(DequantizedWeight d, SymbolTable &symbols) {
    std::string key = (d.q.getSymName() + "/" + d.scales.getSymName() + "/" +
                       d.zps.getSymName())
                          .str();
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    std::optional<std::vector<char>> q = globalBytes(d.q),
                                     scales = globalBytes(d.scales),
                                     zps = globalBytes(d.zps);
    if (!q || !scales || !zps)
      return {};
    auto shape = cast<MemRefType>(d.q.getType()).getShape();
    int64_t k = shape[0], n = shape[1];
    // Per tensor: the one value for every column.
    auto perColumn = [&](const std::vector<char> &bytes, auto elem) {
      using T = decltype(elem);
      std::vector<T> v(n);
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(&v[j],
                    bytes.data() +
                        (bytes.size() > sizeof(T) ? j : 0) * sizeof(T),
                    sizeof(T));
      return v;
    };
    std::vector<float> s = perColumn(*scales, float());
    std::vector<int32_t> z = perColumn(*zps, int32_t());
    const auto *values = reinterpret_cast<const int8_t *>(q->data());
    int64_t size =
        mixrt_ukernel_packed_size(MIXRT_UKERNEL_S8_DEQUANTIZED, k, n);
    if (size <= 0)
      return {};
    std::vector<char> packedBytes(size);
    if (mixrt_ukernel_pack_b_dequantized(k, n, values, n, s.data(), z.data(),
                                         packedBytes.data()) != MIXRT_STATUS_OK)
      return {};
    // The loop's arithmetic: extsi, subi (modulo 2^32), sitofp, mulf.
    std::vector<float> f32(static_cast<size_t>(k * n));
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) {
        auto d32 =
            static_cast<int32_t>(static_cast<uint32_t>(values[i * n + j]) -
                                 static_cast<uint32_t>(z[j]));
        f32[i * n + j] = s[j] * static_cast<float>(d32);
      }
    memref::GlobalOp packedGlobal = byteGlobal(
        d.q, (d.q.getSymName() + "_packed").str(), packedBytes, symbols);
    Builder b(d.q.getContext());
    auto f32Type = RankedTensorType::get({k, n}, b.getF32Type());
    memref::GlobalOp foldedGlobal = constantGlobal(
        d.q, (d.q.getSymName() + "_dequantized").str(),
        MemRefType::get({k, n}, b.getF32Type()),
        DenseElementsAttr::get(f32Type, ArrayRef<float>(f32)), symbols);
    foldedGlobal->setAttr(kPackedDequantized,
                          b.getStringAttr(packedGlobal.getSymName()));
    cache[key] = foldedGlobal;
    return foldedGlobal;
  }

  /// The GEMM's rows: C's elements over N.
  static int64_t rowsOf(linalg::GenericOp op) {
    auto c = cast<MemRefType>(op.getDpsInits()[0].getType());
    int64_t n = c.getShape().back();
    return c.getNumElements() / std::max<int64_t>(n, 1);
  }

  LogicalResult fold(linalg::GenericOp op, SymbolTable &symbols) {
    auto cType = cast<MemRefType>(op.getDpsInits()[0].getType());
    if (!cType.hasStaticShape())
      return failure();
    // Up to 32 rows the kernel's dequantization in registers is the
    // fastest; from 64 its extra instructions per weight cost more than
    // dequantizing once per call (docs/runtime.md), which the product of
    // two activations does -- for a rank-2 input only: a rank-3 one keeps
    // the kernel (not loops).
    if (rowsOf(op) > kMaxDequantizedRows && cType.getRank() == 2)
      return failure();
    Value weight = op.getDpsInputs()[1];
    std::optional<DequantizedWeight> d = dequantizedWeight(weight, op, symbols);
    if (!d)
      return failure();
    memref::GlobalOp global = folded(*d, symbols);
    if (!global)
      return failure();
    OpBuilder b(op);
    Value get = memref::GetGlobalOp::create(b, op.getLoc(),
                                            cast<MemRefType>(global.getType()),
                                            global.getSymName());
    op->setOperand(1, get);
    // The loop and its buffer go with their last reader; then the int8
    // values and parameters, if nothing else reads them.
    if (llvm::all_of(weight.getUsers(),
                     [&](Operation *user) { return user == d->loop; })) {
      SmallVector<Value> params(d->loop.getDpsInputs());
      d->loop.erase();
      Operation *alloc = weight.getDefiningOp();
      SmallVector<Operation *> deallocs(alloc->getUsers());
      for (Operation *dealloc : deallocs)
        dealloc->erase();
      alloc->erase();
      for (Value param : params)
        if (auto get = param.getDefiningOp<memref::GetGlobalOp>();
            get && get->use_empty())
          get.erase();
      for (memref::GlobalOp g : {d->q, d->scales, d->zps})
        if (SymbolTable::symbolKnownUseEmpty(g, getOperation()))
          g.erase();
    }
    ++numFolded;
    return success();
  }

  llvm::StringMap<memref::GlobalOp> cache;
};

} // namespace
