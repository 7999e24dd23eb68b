//===- PlanMemory.cpp - mix-plan-memory -----------------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Turns the allocations of each bufferized network function into views of
// one workspace argument (placement: MemoryPlan.h), so the planned function
// makes no heap call, and adds the allocating convenience entry.
//
//===----------------------------------------------------------------------===//

#include "dialect/MixAttrNames.h"
#include "passes/MemoryPlan.h"
#include "passes/NetworkSymbols.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mix {
#define GEN_PASS_DEF_MIXPLANMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace mix

using namespace mlir;
using namespace mix;
using namespace mix::symbols;

namespace {

constexpr int64_t kAlignment = 64;

/// Bytes of one element as the LLVM lowering stores it.
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

/// Union-find over buffer indices: buffers written in place share a slot.
struct Slots {
  explicit Slots(size_t n) : parent(n) {
    for (size_t i = 0; i < n; ++i)
      parent[i] = i;
  }
  size_t find(size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  std::vector<size_t> parent;
};

struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes;
  int64_t elementBytes;
  unsigned first;
  unsigned last;
};

/// The top-level steps of `body` that use `root` or a view of it; false if
/// the buffer escapes (returned, passed to a call).
bool collectUses(Value root, Block &body,
                 const DenseMap<Operation *, unsigned> &steps, unsigned &first,
                 unsigned &last) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<func::ReturnOp, func::CallOp, memref::DeallocOp>(user))
        return false;
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        return false;
      unsigned step = steps.lookup(top);
      first = std::min(first, step);
      last = std::max(last, step);
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          for (Value result : user->getResults())
            worklist.push_back(result);
    }
  }
  return true;
}

/// The buffer `v` views (through view-like ops), or `v`.
Value viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether `generic` may write output `out` into the memory of input `in`:
/// every iterator parallel, the identity map for the output and for every
/// operand reading `in`'s buffer, which must be `in`'s value itself, not
/// another view of it (a fused loop may read it twice, say
/// `z + transpose(z)`), and no read of that buffer inside the body (a fused
/// slice, gather or pad loads from it at other indices), so element i is
/// read before element i is written and nothing else reads it.
bool canWriteInPlace(linalg::GenericOp generic, OpOperand *in, OpOperand *out) {
  if (generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(out).isIdentity())
    return false;
  Value root = viewRoot(in->get());
  bool readInBody = false;
  generic.getRegion().walk([&](Operation *op) {
    for (Value v : op->getOperands())
      readInBody |= viewRoot(v) == root;
  });
  return !readInBody &&
         llvm::all_of(generic->getOpOperands(), [&](OpOperand &operand) {
           return viewRoot(operand.get()) != root ||
                  (operand.get() == in->get() &&
                   generic.getMatchingIndexingMap(&operand).isIdentity());
         });
}

/// The step of the last loop of the epilogue mix-use-microkernels may fuse
/// into the int8 convolution `conv`: the rescale loop right after it
/// (marked "rescale" or "checked_rescale"), then a loop (a relu), then a
/// quantize (marked "quantize_f32" or "checked_quantize"); allocations,
/// constants and globals in between aside. `conv`'s own step without one.
/// The loop after `op`, allocations, constants and globals aside.
linalg::GenericOp nextLoop(Operation *op) {
  op = op->getNextNode();
  while (op && isa<memref::AllocOp, arith::ConstantOp, memref::GetGlobalOp>(op))
    op = op->getNextNode();
  return dyn_cast_or_null<linalg::GenericOp>(op);
}

/// The loop before `op`, allocations, constants, globals and fills aside.
linalg::GenericOp previousLoop(Operation *op) {
  op = op->getPrevNode();
  while (op && isa<memref::AllocOp, arith::ConstantOp, memref::GetGlobalOp,
                   linalg::FillOp>(op))
    op = op->getPrevNode();
  return dyn_cast_or_null<linalg::GenericOp>(op);
}

/// The unmarked loop right before the depthwise loop `dw` that converts an
/// int8 tensor into the buffer `dw` reads (the int8 depthwise convolution's
/// `(f32)(x - zp)`), or null.
linalg::GenericOp int8DepthwiseConversion(linalg::GenericOp dw) {
  linalg::GenericOp convert = previousLoop(dw);
  if (!convert || convert->hasAttr(attr::kUkernel) ||
      convert.getNumDpsInputs() != 2 || convert.getNumDpsInits() != 1)
    return {};
  auto q = dyn_cast<MemRefType>(convert.getDpsInputs()[0].getType());
  if (!q || !q.getElementType().isInteger(8))
    return {};
  Value written = viewRoot(convert.getDpsInits()[0]);
  bool reads = false;
  dw.getRegion().walk([&](memref::LoadOp load) {
    reads |= viewRoot(load.getMemRef()) == written;
  });
  return reads ? convert : linalg::GenericOp();
}

/// The rescale loop right after the int8 convolution `conv`, or null.
linalg::GenericOp epilogueRescale(linalg::GenericOp conv) {
  linalg::GenericOp rescale = nextLoop(conv);
  auto kind =
      rescale ? rescale->getAttrOfType<StringAttr>(attr::kUkernel) : nullptr;
  return kind && (kind.getValue() == "rescale" ||
                  kind.getValue() == "checked_rescale")
             ? rescale
             : linalg::GenericOp();
}

unsigned epilogueEnd(linalg::GenericOp conv,
                     const DenseMap<Operation *, unsigned> &steps) {
  auto marked = [](linalg::GenericOp op, StringRef a, StringRef b) {
    auto kind = op ? op->getAttrOfType<StringAttr>(attr::kUkernel) : nullptr;
    return kind && (kind.getValue() == a || kind.getValue() == b);
  };
  linalg::GenericOp rescale = epilogueRescale(conv);
  if (!rescale)
    return steps.lookup(conv);
  unsigned end = steps.lookup(rescale);
  linalg::GenericOp op = nextLoop(rescale);
  if (op && !op->hasAttr(attr::kUkernel)) {
    end = steps.lookup(op);
    op = nextLoop(op);
  }
  if (marked(op, "quantize_f32", "checked_quantize"))
    end = steps.lookup(op);
  return end;
}

struct MixPlanMemoryPass
    : public mix::impl::MixPlanMemoryPassBase<MixPlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func.getSymName().starts_with(kNetworkPrefix) && !func.isExternal() &&
          func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()))
        if (failed(plan(func)))
          return signalPassFailure();
  }

  LogicalResult plan(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError()
             << "internal error: mix-plan-memory expects one block";
    Block &body = func.getBody().front();
    DenseMap<Operation *, unsigned> steps;
    for (auto [i, op] : llvm::enumerate(body))
      steps[&op] = i;

    // The buffers: static, identity-layout allocations at the top level.
    std::vector<Buffer> buffers;
    DenseMap<Value, size_t> bufferOf;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace())
        continue;
      unsigned first = steps.lookup(alloc), last = first;
      unsigned useFirst = UINT_MAX, useLast = 0;
      if (!collectUses(alloc.getResult(), body, steps, useFirst, useLast))
        continue;
      if (useFirst != UINT_MAX) {
        first = useFirst;
        last = useLast;
      }
      int64_t eb = elementBytes(type.getElementType());
      bufferOf[alloc.getResult()] = buffers.size();
      buffers.push_back({alloc, type.getNumElements() * eb, eb, first, last});
    }

    // What an int8 convolution reads stays live through the rescale, relu
    // and static quantize right after it: mix-use-microkernels may run them
    // in the convolution's call (mixrt_ukernel_conv2d_s8_rescale), which
    // writes their output while it still reads the input. So does an int8
    // depthwise convolution's int8 input (and zero point), which
    // mixrt_ukernel_depthwise_s8_rescale reads in place of the loops' f32
    // copy while it writes the rescale's (or relu's) output.
    for (auto generic : body.getOps<linalg::GenericOp>()) {
      auto kind = generic->getAttrOfType<StringAttr>(attr::kUkernel);
      if (!int8Epilogues || !kind ||
          (kind.getValue() != "conv2d_s8" &&
           kind.getValue() != "depthwise_f32"))
        continue;
      SmallVector<Value> reads(generic.getDpsInputs());
      if (kind.getValue() == "depthwise_f32") {
        linalg::GenericOp convert = int8DepthwiseConversion(generic);
        if (!convert || !epilogueRescale(generic))
          continue;
        llvm::append_range(reads, convert.getDpsInputs());
      }
      unsigned end = epilogueEnd(generic, steps);
      // The rescale's scales too (not its sums, which it may overwrite in
      // place): the loops behind the call read them again.
      if (auto rescale = epilogueRescale(generic))
        for (OpOperand *operand : rescale.getDpsInputOperands())
          if (operand->getOperandNumber() != 0)
            reads.push_back(operand->get());
      // (The depthwise call does not read the loops' f32 copy its body
      // loads: the loops behind the call convert it again.)
      if (kind.getValue() == "conv2d_s8")
        generic.getRegion().walk([&](Operation *inner) {
          for (Value v : inner->getOperands())
            if (!generic->isAncestor(v.getParentRegion()->getParentOp()))
              reads.push_back(v);
        });
      for (Value v : reads) {
        auto b = bufferOf.find(viewRoot(v));
        if (b != bufferOf.end())
          buffers[b->second].last = std::max(buffers[b->second].last, end);
      }
    }

    // In place: an elementwise generic writing a fresh buffer whose input
    // dies at it.
    Slots slots(buffers.size());
    std::vector<BufferLifetime> slotLife(buffers.size());
    for (auto [i, b] : llvm::enumerate(buffers))
      slotLife[i] = {b.bytes, b.first, b.last};
    for (auto generic : body.getOps<linalg::GenericOp>()) {
      unsigned step = steps.lookup(generic);
      for (OpOperand &out : generic.getDpsInitsMutable()) {
        auto o = bufferOf.find(out.get());
        if (o == bufferOf.end())
          continue;
        size_t os = slots.find(o->second);
        if (slotLife[os].first != step || os != o->second)
          continue;
        for (OpOperand *in : generic.getDpsInputOperands()) {
          auto i = bufferOf.find(in->get());
          if (i == bufferOf.end())
            continue;
          size_t is = slots.find(i->second);
          if (is == os || slotLife[is].last != step ||
              slotLife[is].bytes != slotLife[os].bytes ||
              buffers[i->second].elementBytes !=
                  buffers[o->second].elementBytes ||
              !canWriteInPlace(generic, in, &out))
            continue;
          slots.parent[os] = is;
          slotLife[is].last = std::max(slotLife[is].last, slotLife[os].last);
          ++numInPlace;
          break;
        }
      }
    }

    // Place the slots.
    std::vector<size_t> slotIndex(buffers.size(), SIZE_MAX);
    std::vector<BufferLifetime> lifetimes;
    for (size_t i = 0; i < buffers.size(); ++i)
      if (slots.find(i) == i) {
        slotIndex[i] = lifetimes.size();
        lifetimes.push_back(slotLife[i]);
      }
    MemoryPlan plan = planMemory(lifetimes, kAlignment);
    int64_t intermediates = 0;
    for (const Buffer &b : buffers)
      intermediates += b.bytes;

    // The workspace argument, the views.
    MLIRContext *ctx = func.getContext();
    auto wsType =
        MemRefType::get({plan.workspaceBytes}, IntegerType::get(ctx, 8));
    if (failed(func.insertArgument(func.getNumArguments(), wsType, {},
                                   func.getLoc())))
      return failure();
    Value ws = body.getArgument(body.getNumArguments() - 1);
    for (auto [i, b] : llvm::enumerate(buffers)) {
      OpBuilder builder(b.alloc);
      Location loc = b.alloc.getLoc();
      Value offset = arith::ConstantIndexOp::create(
          builder, loc, plan.offsets[slotIndex[slots.find(i)]]);
      Value view = memref::ViewOp::create(builder, loc, b.alloc.getType(), ws,
                                          offset, ValueRange{});
      b.alloc.replaceAllUsesWith(view);
      b.alloc.erase();
      ++numPlanned;
    }
    Builder b(ctx);
    func->setAttr(
        kMemoryPlanAttrName,
        b.getDictionaryAttr({
            b.getNamedAttr("workspace",
                           b.getI64IntegerAttr(plan.workspaceBytes)),
            b.getNamedAttr("intermediates", b.getI64IntegerAttr(intermediates)),
            b.getNamedAttr("peak", b.getI64IntegerAttr(plan.peakBytes)),
        }));
    if (!allocatingEntry)
      return success();
    return addConvenienceEntry(func, wsType);
  }

  /// @mixc_alloc_NAME(inputs..., outputs...): one workspace from the heap
  /// around a call of the planned function.
  LogicalResult addConvenienceEntry(func::FuncOp planned, MemRefType wsType) {
    StringRef name = planned.getSymName().drop_front(kNetworkPrefix.size());
    std::string entryName = (kConvenienceEntryPrefix + name).str();
    auto module = planned->getParentOfType<ModuleOp>();
    if (module.lookupSymbol(entryName))
      return planned.emitOpError()
             << "internal error: @" << entryName << " exists already";
    ArrayRef<Type> all = planned.getFunctionType().getInputs();
    auto type = FunctionType::get(planned.getContext(), all.drop_back(), {});
    OpBuilder builder(planned);
    builder.setInsertionPointAfter(planned);
    Location loc = planned.getLoc();
    auto entry = func::FuncOp::create(builder, loc, entryName, type);
    entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   builder.getUnitAttr());
    Block *block = entry.addEntryBlock();
    builder.setInsertionPointToStart(block);
    SmallVector<Value> args(block->getArguments());
    Value ws = memref::AllocOp::create(builder, loc, wsType,
                                       builder.getI64IntegerAttr(kAlignment));
    args.push_back(ws);
    func::CallOp::create(builder, loc, planned, args);
    // buffer-deallocation-pipeline frees the workspace after the call.
    func::ReturnOp::create(builder, loc);
    // The planned function keeps its C interface (for the header's
    // NAME_run_with_workspace); the convenience entry is the public one.
    return success();
  }
};

} // namespace
