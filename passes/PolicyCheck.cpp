//===- PolicyCheck.cpp - checking resolved precisions against a policy ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/PolicyCheck.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mix;

namespace {

/// Rank of float precisions for "at least" comparisons.
int floatRank(PrecisionKind kind) {
  switch (kind) {
  case PrecisionKind::f64:
    return 3;
  case PrecisionKind::f32:
    return 2;
  case PrecisionKind::f16:
  case PrecisionKind::bf16:
    return 1;
  case PrecisionKind::int8:
  case PrecisionKind::i32:
    return 0;
  }
  return 0;
}

std::string opName(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

class Checker {
public:
  Checker(const Policy &policy, PrecisionAnalysis &precisions)
      : policy(policy), precisions(precisions) {}

  LogicalResult run(Operation *root);
  std::vector<Finding> takeFindings() { return std::move(findings); }

private:
  /// Adds a finding when the rule is enabled; returns it for extra notes.
  Finding *add(Rule rule, Operation *op, std::optional<PrecisionProperty> prop,
               PrecisionAttr precision, std::string message) {
    Severity severity = policy.getSeverity(rule);
    if (severity == Severity::off)
      return nullptr;
    findings.push_back(Finding{rule,
                               severity,
                               op,
                               prop,
                               precision ? precision.str() : std::string(),
                               std::move(message),
                               {}});
    return &findings.back();
  }

  /// The note explaining where a decision came from.
  static Finding::Note noteFor(const Decision &d, Operation *layer) {
    std::string precision = d.precision.str();
    Location loc = d.origin ? d.origin->getLoc() : layer->getLoc();
    switch (d.source) {
    case PrecisionSource::network:
    case PrecisionSource::block:
      return {loc, precision + " inherited from " + d.describe()};
    case PrecisionSource::layer:
      return {loc, precision + " set by the layer's own precision"};
    case PrecisionSource::property:
      return {loc, precision + " set by a property override"};
    case PrecisionSource::derived:
      return {loc, precision + " is the default accumulator/output for the "
                               "layer's precisions, decided here"};
    }
    return {loc, precision};
  }

  void addWithNote(Rule rule, Operation *op, PrecisionProperty prop,
                   const Decision &d, std::string message) {
    if (Finding *f = add(rule, op, prop, d.precision, std::move(message)))
      f->notes.push_back(noteFor(d, op));
  }

  LogicalResult checkBlock(BlockOp block);
  void checkLayer(LayerOpInterface layer, const LayerResolution &r);
  void checkSensitive(LayerOpInterface layer, const LayerResolution &r);
  void checkInt8(LayerOpInterface layer, const LayerResolution &r);
  void checkAccumulator(LayerOpInterface layer, const LayerResolution &r);
  void checkReductions(LayerOpInterface layer, const LayerResolution &r);
  void checkRedundantLayer(LayerOpInterface layer, const LayerResolution &r);
  void checkLists(LayerOpInterface layer, const LayerResolution &r);
  void checkRecurrentState(LayerOpInterface layer);
  void checkGradientOutputs(NetworkOp network);

  const Policy &policy;
  PrecisionAnalysis &precisions;
  std::vector<Finding> findings;
};
} // namespace

LogicalResult Checker::checkBlock(BlockOp block) {
  PrecisionAttr p = block.getPrecisionAttr();
  if (!p)
    return success();
  FailureOr<Decision> inherited = inheritedPrecision(block);
  if (failed(inherited))
    return failure();
  if (inherited->precision != p)
    return success();
  if (Finding *f =
          add(Rule::RedundantOverride, block, std::nullopt, p,
              "block " + block.getDisplayName() + " sets precision " + p.str() +
                  ", which it already inherits from " + inherited->describe()))
    f->notes.push_back(noteFor(*inherited, block));
  return success();
}

void Checker::checkSensitive(LayerOpInterface layer, const LayerResolution &r) {
  bool sensitive = layer.isNormalization() || layer.isLoss() ||
                   isa<SoftmaxOp, LogSoftmaxOp>(layer.getOperation());
  if (!sensitive)
    return;
  StringRef category = layer.isNormalization() ? "normalization layers"
                       : layer.isLoss()        ? "loss layers"
                                               : "softmax";
  std::string minimum = stringifyPrecisionKind(policy.sensitiveMinimum).str();
  for (PrecisionProperty prop :
       {PrecisionProperty::activations, PrecisionProperty::accumulator}) {
    const Decision &d = *r.get(prop);
    if (floatRank(d.precision.getKind()) >= floatRank(policy.sensitiveMinimum))
      continue;
    addWithNote(Rule::SensitiveOpPrecision, layer, prop, d,
                opName(layer) + " computes in " + d.precision.str() + " (" +
                    stringifyPrecisionProperty(prop).str() + "); " +
                    category.str() + " must compute in " + minimum +
                    " or wider");
  }
}

void Checker::checkInt8(LayerOpInterface layer, const LayerResolution &r) {
  if (layer.isInt8Capable())
    return;
  for (PrecisionProperty prop : kAllProperties) {
    const Decision *d = r.get(prop);
    if (!d || !d->precision.isInt8())
      continue;
    addWithNote(Rule::Int8NonGemmLayer, layer, prop, *d,
                opName(layer) + " resolves its " +
                    stringifyPrecisionProperty(prop).str() +
                    " to int8, but int8 is only for GEMM-like layers (dense, "
                    "matmul, conv2d, attention, lstm, gru)");
    return; // one finding per layer
  }
}

void Checker::checkAccumulator(LayerOpInterface layer,
                               const LayerResolution &r) {
  bool int8Compute = r.activations.precision.isInt8() &&
                     (!r.weights || r.weights->precision.isInt8());
  const Decision &acc = r.accumulator;
  PrecisionKind kind = acc.precision.getKind();
  if (int8Compute) {
    if (kind != PrecisionKind::i32)
      addWithNote(Rule::AccumulatorPrecision, layer,
                  PrecisionProperty::accumulator, acc,
                  opName(layer) +
                      " multiplies int8 by int8 but accumulates "
                      "in " +
                      acc.precision.str() +
                      "; int8 products must accumulate in exactly i32");
    return;
  }
  if (kind == PrecisionKind::i32)
    addWithNote(
        Rule::AccumulatorPrecision, layer, PrecisionProperty::accumulator, acc,
        opName(layer) + " computes in floating point but accumulates in i32; "
                        "i32 accumulation is only for int8 x int8");
  else if (floatRank(kind) < floatRank(PrecisionKind::f32))
    addWithNote(Rule::AccumulatorPrecision, layer,
                PrecisionProperty::accumulator, acc,
                opName(layer) + " accumulates in " + acc.precision.str() +
                    "; floating-point accumulation must be f32 or wider");
}

void Checker::checkReductions(LayerOpInterface layer,
                              const LayerResolution &r) {
  auto flagged = [&](PrecisionAttr p) {
    return llvm::is_contained(policy.reducedPrecisions, p.getKind());
  };
  if (layer.isReduction() && flagged(r.accumulator.precision))
    addWithNote(Rule::ReducedPrecisionReduction, layer,
                PrecisionProperty::accumulator, r.accumulator,
                opName(layer) + " sums in " + r.accumulator.precision.str() +
                    " (accumulator); long reductions lose precision and "
                    "overflow in reduced formats");
  StringRef fn = layer.rangeSensitiveFunction();
  if (!fn.empty() && flagged(r.activations.precision)) {
    StringRef why = fn == "log" ? "log's results lose relative precision "
                                  "and its small inputs underflow in reduced "
                                  "formats"
                                : " overflows reduced formats quickly";
    addWithNote(Rule::ReducedPrecisionReduction, layer,
                PrecisionProperty::activations, r.activations,
                opName(layer) + " evaluates " + fn.str() + " in " +
                    r.activations.precision.str() + " (activations); " +
                    (fn == "log" ? why.str() : fn.str() + why.str()));
  }
}

void Checker::checkRedundantLayer(LayerOpInterface layer,
                                  const LayerResolution &r) {
  Operation *op = layer;
  if (PrecisionAttr p = layer.getLayerPrecision()) {
    FailureOr<Decision> inherited = inheritedPrecision(op);
    if (succeeded(inherited) && inherited->precision == p)
      if (Finding *f = add(Rule::RedundantOverride, op, std::nullopt, p,
                           opName(layer) + " sets precision " + p.str() +
                               ", which it already inherits from " +
                               inherited->describe()))
        f->notes.push_back(noteFor(*inherited, op));
  }
  // What each property would be without its own override.
  for (PrecisionProperty prop : kAllProperties) {
    PrecisionAttr p = layer.getPropertyOverride(prop);
    if (!p)
      continue;
    PrecisionAttr without;
    switch (prop) {
    case PrecisionProperty::weights:
    case PrecisionProperty::activations:
      without = r.layer.precision;
      break;
    case PrecisionProperty::accumulator:
      without =
          defaultAccumulator(r.weights ? r.weights->precision : PrecisionAttr(),
                             r.activations.precision);
      break;
    case PrecisionProperty::output:
      without = defaultOutput(r.activations.precision);
      break;
    }
    if (without != p)
      continue;
    add(Rule::RedundantOverride, op, prop, p,
        opName(layer) + " overrides its " +
            stringifyPrecisionProperty(prop).str() + " to " + p.str() +
            ", which it would resolve to anyway");
  }
}

void Checker::checkLists(LayerOpInterface layer, const LayerResolution &r) {
  auto check = [&](Rule rule, const PrecisionList &list,
                   const std::string &owner, Operation *ownerOp) {
    for (PrecisionProperty prop : list.properties) {
      const Decision *d = r.get(prop);
      if (!d || list.permits(d->precision.getKind()))
        continue;
      Finding *f = add(rule, layer, prop, d->precision,
                       opName(layer) + " resolves its " +
                           stringifyPrecisionProperty(prop).str() + " to " +
                           d->precision.str() +
                           ", which the policy does not allow " + owner);
      if (!f)
        return;
      f->notes.push_back(noteFor(*d, layer));
      if (ownerOp && ownerOp != d->origin)
        f->notes.push_back({ownerOp->getLoc(), "the policy's list applies to " +
                                                   describeOp(ownerOp)});
    }
  };
  auto it = policy.ops.find(layer.getLayerKind());
  if (it != policy.ops.end())
    check(Rule::OpPrecisionList, it->second,
          "for op kind '" + layer.getLayerKind().str() + "'", nullptr);
  if (policy.blocks.empty())
    return;
  for (Operation *parent = layer->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto block = dyn_cast<BlockOp>(parent);
    if (!block || !block.getSymNameAttr())
      continue;
    auto entry = policy.blocks.find(block.getSymNameAttr().getValue());
    if (entry != policy.blocks.end())
      check(Rule::BlockPrecisionList, entry->second,
            "in block " + block.getDisplayName(), block);
  }
}

void Checker::checkLayer(LayerOpInterface layer, const LayerResolution &r) {
  checkSensitive(layer, r);
  checkInt8(layer, r);
  checkAccumulator(layer, r);
  checkReductions(layer, r);
  checkRedundantLayer(layer, r);
  checkLists(layer, r);
  checkRecurrentState(layer);
}

/// A recurrent layer's state precision is its own attribute (f32 when
/// absent), not inherited: only an explicit narrower one is reported.
void Checker::checkRecurrentState(LayerOpInterface layer) {
  Operation *lstm = layer.getOperation();
  PrecisionAttr state;
  if (auto l = dyn_cast<LstmOp>(lstm))
    state = l.getStatePrecisionAttr();
  else if (auto g = dyn_cast<GruOp>(lstm))
    state = g.getStatePrecisionAttr();
  if (!state)
    return;
  if (floatRank(state.getKind()) >= floatRank(PrecisionKind::f32))
    return;
  if (Finding *f = add(Rule::RecurrentStatePrecision, lstm, std::nullopt, state,
                       opName(lstm) + " carries its state in " + state.str() +
                           "; rounding the state every step accumulates "
                           "error over the sequence, keep it in f32 or wider"))
    f->notes.push_back(
        {lstm->getLoc(), state.str() + " set by the layer's state_precision"});
}

/// The weight gradients a gradient network returns (`grad.<weight>`, as
/// mix-differentiate names them) leave their last layer in at least f32
/// (its output).
void Checker::checkGradientOutputs(NetworkOp network) {
  auto ret = dyn_cast<ReturnOp>(network.getBody().front().getTerminator());
  if (!ret)
    return;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    auto name = network.getResultAttrOfType<StringAttr>(i, "mix.name");
    if (!name || !name.getValue().starts_with("grad."))
      continue;
    // The layer computing it, through the blocks that yield it.
    Operation *def = value.getDefiningOp();
    while (auto block = dyn_cast_or_null<BlockOp>(def)) {
      auto yield = cast<YieldOp>(block.getBody().front().getTerminator());
      def = yield.getValues()[cast<OpResult>(value).getResultNumber()]
                .getDefiningOp();
      value = yield.getValues()[cast<OpResult>(value).getResultNumber()];
    }
    auto layer = dyn_cast_or_null<LayerOpInterface>(def);
    if (!layer)
      continue;
    FailureOr<LayerResolution> r = precisions.resolve(layer);
    if (failed(r))
      continue;
    // (A narrow float accumulator is accumulator-precision's finding.)
    const Decision &d = r->output;
    if (floatRank(d.precision.getKind()) >= floatRank(PrecisionKind::f32))
      continue;
    addWithNote(Rule::GradientPrecision, layer, PrecisionProperty::output, d,
                opName(layer) + " returns the gradient of weight '" +
                    name.getValue().drop_front(5).str() + "' in " +
                    d.precision.str() +
                    " (output); weight gradients are kept in f32 or wider: "
                    "small gradients flush to zero and updates lose bits in "
                    "a narrower format");
  }
}

LogicalResult Checker::run(Operation *root) {
  root->walk([&](NetworkOp network) { checkGradientOutputs(network); });
  WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto block = dyn_cast<BlockOp>(op))
      return failed(checkBlock(block)) ? WalkResult::interrupt()
                                       : WalkResult::advance();
    auto layer = dyn_cast<LayerOpInterface>(op);
    if (!layer)
      return WalkResult::advance();
    FailureOr<LayerResolution> r = precisions.resolve(layer);
    if (failed(r))
      return WalkResult::interrupt();
    checkLayer(layer, *r);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

FailureOr<std::vector<Finding>>
mix::checkPolicy(Operation *root, const Policy &policy,
                 PrecisionAnalysis *precisions) {
  std::optional<PrecisionAnalysis> own;
  if (!precisions)
    precisions = &own.emplace(root);
  Checker checker(policy, *precisions);
  if (failed(checker.run(root)))
    return failure();
  return checker.takeFindings();
}

void mix::emitFinding(const Finding &finding) {
  InFlightDiagnostic diag = finding.severity == Severity::error
                                ? finding.op->emitError()
                                : finding.op->emitWarning();
  diag << "[" << getRuleName(finding.rule) << "] " << finding.message;
  for (const Finding::Note &note : finding.notes)
    diag.attachNote(note.loc) << note.message;
}
