//===- OnnxBlocks.cpp - module paths of node names -> mix.block -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The importer first builds the network flat, remembering the module path of
// the node each op came from (`/encoder/layer.0/attn/MatMul` -> encoder,
// layer.0, attn). Then, outermost first, every maximal run of consecutive
// ops that share the next path component is moved into a `mix.block` named
// after the path so far (`@encoder`, `@encoder.layer.0`, ...). A block is
// isolated from above: the values its ops use from outside become its
// operands, the values used after it its results.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;

namespace {

struct Outliner {
  const llvm::DenseMap<Operation *, unsigned> &pathOf;
  const std::vector<std::vector<std::string>> &paths;

  /// The path component of `op` at `depth`, or "" if it has none.
  llvm::StringRef component(Operation *op, unsigned depth) const {
    auto it = pathOf.find(op);
    if (it == pathOf.end())
      return "";
    const std::vector<std::string> &p = paths[it->second];
    return depth < p.size() ? llvm::StringRef(p[depth]) : "";
  }

  /// Moves `run` (consecutive ops of one block) into a new mix.block.
  BlockOp outline(llvm::ArrayRef<Operation *> run, llvm::StringRef name) {
    llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
    llvm::SetVector<Value> inputs;
    SmallVector<Value> outputs;
    for (Operation *op : run)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !inRun.contains(def))
          inputs.insert(operand);
      }
    for (Operation *op : run)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inRun.contains(user);
            }))
          outputs.push_back(result);
    OpBuilder builder(run.front());
    SmallVector<Type> resultTypes;
    for (Value v : outputs)
      resultTypes.push_back(v.getType());
    Location loc = run.front()->getLoc();
    auto block =
        BlockOp::create(builder, loc, resultTypes, inputs.getArrayRef(),
                        builder.getStringAttr(name), PrecisionAttr());
    Block *body = new Block();
    block.getBody().push_back(body);
    for (Operation *op : run)
      op->moveBefore(body, body->end());
    for (Value in : inputs) {
      BlockArgument arg = body->addArgument(in.getType(), loc);
      in.replaceUsesWithIf(arg, [&](OpOperand &use) {
        return block->isProperAncestor(use.getOwner());
      });
    }
    builder.setInsertionPointToEnd(body);
    YieldOp::create(builder, loc, outputs);
    for (auto [i, out] : llvm::enumerate(outputs))
      out.replaceUsesWithIf(block.getResult(i), [&](OpOperand &use) {
        return !block->isAncestor(use.getOwner());
      });
    return block;
  }

  /// Outlines the runs of `body` below `prefix` (the path at `depth`).
  void outlineBody(Block &body, unsigned depth,
                   llvm::ArrayRef<std::string> prefix) {
    SmallVector<std::pair<std::string, SmallVector<Operation *>>> runs;
    for (Operation &op : body) {
      llvm::StringRef key = component(&op, depth);
      if (key.empty()) {
        runs.emplace_back();
        continue;
      }
      if (runs.empty() || runs.back().first != key)
        runs.push_back({key.str(), {}});
      runs.back().second.push_back(&op);
    }
    for (auto &[key, ops] : runs) {
      if (key.empty() || ops.empty())
        continue;
      SmallVector<std::string> path(prefix.begin(), prefix.end());
      path.push_back(key);
      BlockOp block = outline(ops, llvm::join(path, "."));
      outlineBody(block.getBody().front(), depth + 1, path);
    }
  }
};

} // namespace

void mix::onnx_import::outlineBlocks(
    NetworkOp network, const llvm::DenseMap<Operation *, unsigned> &pathOf,
    const std::vector<std::vector<std::string>> &paths) {
  Outliner outliner{pathOf, paths};
  outliner.outlineBody(network.getBody().front(), 0, {});
}
