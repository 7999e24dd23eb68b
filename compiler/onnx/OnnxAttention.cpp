//===- OnnxAttention.cpp - multi-head self-attention subgraphs ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The multi-head self-attention exporters write out of MatMul, Add, Reshape,
// Transpose, a scale, an optional mask Add, Softmax and the output
// projection is recognized before the nodes are translated one by one and
// becomes one mix.attention (docs/onnx.md, "Attention"). Anything that does
// not fit the pattern exactly leaves the nodes to their own handlers.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxAttributes.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mix;
using namespace mix::onnx_import;
using namespace mix::onnx_import::attrs;

namespace {

/// The graph's nodes with the producer and the consumers of each value.
struct Graph {
  const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes;
  llvm::StringMap<int> producer;
  const llvm::StringMap<unsigned> &uses;

  /// The node producing `value`, if it is of `opType` and `value` has
  /// exactly `useCount` uses; -1 otherwise.
  int from(llvm::StringRef value, llvm::StringRef opType,
           unsigned useCount = 1) const {
    auto it = producer.find(value);
    if (it == producer.end() || nodes[it->second].op_type() != opType ||
        uses.lookup(value) != useCount)
      return -1;
    return it->second;
  }
  const onnx::NodeProto &operator[](int i) const { return nodes[i]; }
};

/// True if the Transpose node `n` has the permutation `perm`.
bool hasPerm(const onnx::NodeProto &n, llvm::ArrayRef<int64_t> perm) {
  std::optional<std::vector<int64_t>> p = attrInts(n, "perm");
  return p && llvm::ArrayRef<int64_t>(*p) == perm;
}

} // namespace

std::optional<std::vector<int64_t>>
Importer::shapeOfValue(llvm::StringRef name) const {
  if (const Constant *c = constant(name))
    return c->shape;
  const onnx::TypeProto *type = types.lookup(name);
  if (!type)
    return std::nullopt;
  std::string error;
  RankedTensorType t = tensorType(*type, name, error);
  if (!t)
    return std::nullopt;
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}

void Importer::findAttentions(llvm::DenseSet<int> &absorbed,
                              llvm::DenseMap<int, AttentionMatch> &found) {
  const auto &nodes = model.graph().node();
  // Scalars and shapes written as Constant nodes are needed now (the scale,
  // Split's sizes, Slice's bounds): fold them early (folding them again in
  // the walk defines the same constants).
  for (const onnx::NodeProto &node : nodes)
    if (node.op_type() == "Constant")
      fold(node);
  Graph g{nodes, {}, uses};
  for (auto [i, node] : llvm::enumerate(nodes))
    for (const std::string &out : node.output())
      g.producer[out] = int(i);

  for (auto [softmaxIndex, softmax] : llvm::enumerate(nodes)) {
    if (softmax.op_type() != "Softmax" || softmax.input_size() != 1 ||
        softmax.output_size() != 1 || absorbed.contains(int(softmaxIndex)))
      continue;
    std::optional<std::vector<int64_t>> probsShape =
        shapeOfValue(softmax.output(0));
    int64_t axis = attrInt(softmax, "axis", -1);
    if (!probsShape || probsShape->size() != 4 || (axis != -1 && axis != 3))
      continue;
    int64_t B = (*probsShape)[0], H = (*probsShape)[1], S = (*probsShape)[2];
    if ((*probsShape)[3] != S || H < 1)
      continue;

    llvm::SmallVector<int> inner = {int(softmaxIndex)};
    double scale = 1.0;
    // Mul or Div by a constant scalar producing `value` (used once): its
    // factor goes into `scale`, the other operand is returned.
    auto peelScales = [&](std::string value) {
      for (int step = 0; step < 4; ++step) {
        int n = g.from(value, "Mul");
        if (n >= 0 && g[n].input_size() == 2) {
          bool peeled = false;
          for (int side = 0; side < 2 && !peeled; ++side)
            if (std::optional<double> c = constantScalar(g[n].input(side))) {
              scale *= *c;
              value = g[n].input(1 - side);
              peeled = true;
            }
          if (!peeled)
            return value;
          inner.push_back(n);
          continue;
        }
        n = g.from(value, "Div");
        std::optional<double> c;
        if (n < 0 || g[n].input_size() != 2 ||
            !(c = constantScalar(g[n].input(1))) || *c == 0)
          return value;
        scale /= *c;
        value = g[n].input(0);
        inner.push_back(n);
      }
      return value;
    };

    // Scores: [Add(mask)] <- [scale] <- MatMul(q, k^T).
    AttentionMatch m;
    // Whether `value` is MatMul(q, k^T), possibly scaled (no state
    // changes): which side of the mask Add the scores are.
    auto isScores = [&](std::string value) {
      for (int step = 0; step < 4; ++step) {
        int n = g.from(value, "Mul");
        if (n < 0)
          n = g.from(value, "Div");
        if (n < 0 || g[n].input_size() != 2)
          break;
        bool div = g[n].op_type() == "Div";
        if (constantScalar(g[n].input(1)))
          value = g[n].input(0);
        else if (!div && constantScalar(g[n].input(0)))
          value = g[n].input(1);
        else
          return false;
      }
      return g.from(value, "MatMul") >= 0;
    };
    std::string scores = softmax.input(0);
    if (int add = g.from(scores, "Add"); add >= 0 && g[add].input_size() == 2) {
      int side = isScores(g[add].input(0)) ? 0 : 1;
      if (!isScores(g[add].input(side)) || isScores(g[add].input(1 - side)))
        continue;
      m.mask = g[add].input(1 - side);
      scores = g[add].input(side);
      inner.push_back(add);
    }
    scores = peelScales(scores);
    int qk = g.from(scores, "MatMul");
    if (qk < 0 || g[qk].input_size() != 2)
      continue;
    inner.push_back(qk);

    // q: [B, H, S, D] <- Transpose(0, 2, 1, 3) <- Reshape [B, S, H, D];
    // scales may sit anywhere in the chain.
    std::optional<int64_t> headDim;
    // The value reshaped into heads [B, S, H, D] (the projection), or "".
    auto reshapeOf = [&](std::string value) -> std::string {
      value = peelScales(value);
      int reshape = g.from(value, "Reshape");
      if (reshape < 0)
        return {};
      std::optional<std::vector<int64_t>> s = shapeOfValue(value);
      if (!s || s->size() != 4 || (*s)[0] != B || (*s)[1] != S ||
          (*s)[2] != H || (headDim && (*s)[3] != *headDim))
        return {};
      headDim = (*s)[3];
      inner.push_back(reshape);
      return peelScales(g[reshape].input(0));
    };
    // Transpose(perm) of `value`'s producer chain, used once: its input.
    auto transposeOf = [&](std::string value,
                           llvm::ArrayRef<int64_t> perm) -> std::string {
      value = peelScales(value);
      int t = g.from(value, "Transpose");
      if (t < 0 || !hasPerm(g[t], perm))
        return {};
      inner.push_back(t);
      return g[t].input(0);
    };
    std::string qHeads = transposeOf(g[qk].input(0), {0, 2, 1, 3});
    std::string qProj = qHeads.empty() ? "" : reshapeOf(qHeads);
    // k^T: [B, H, D, S] <- Transpose(0, 2, 3, 1) <- Reshape, or
    // Transpose(0, 1, 3, 2) <- Transpose(0, 2, 1, 3) <- Reshape.
    std::string kProj;
    {
      size_t mark = inner.size();
      double saved = scale;
      std::string heads = transposeOf(g[qk].input(1), {0, 2, 3, 1});
      if (!heads.empty())
        kProj = reshapeOf(heads);
      if (kProj.empty()) {
        inner.resize(mark);
        scale = saved;
        std::string t = transposeOf(g[qk].input(1), {0, 1, 3, 2});
        std::string heads2 = t.empty() ? "" : transposeOf(t, {0, 2, 1, 3});
        kProj = heads2.empty() ? "" : reshapeOf(heads2);
      }
    }
    if (qProj.empty() || kProj.empty() || !headDim)
      continue;
    int64_t D = *headDim, E = H * D;

    // The softmax feeds MatMul(probs, v) only.
    auto consumerOf = [&](llvm::StringRef value,
                          llvm::StringRef opType) -> int {
      if (uses.lookup(value) != 1)
        return -1;
      for (auto [i, n] : llvm::enumerate(nodes))
        if (llvm::is_contained(n.input(), value))
          return n.op_type() == opType ? int(i) : -1;
      return -1;
    };
    int pv = consumerOf(softmax.output(0), "MatMul");
    if (pv < 0 || g[pv].input_size() != 2 ||
        g[pv].input(0) != softmax.output(0))
      continue;
    inner.push_back(pv);
    // No scale on v (it would scale the result, not the scores).
    double scoresScale = scale;
    std::string vHeads = transposeOf(g[pv].input(1), {0, 2, 1, 3});
    std::string vProj = vHeads.empty() ? "" : reshapeOf(vHeads);
    if (vProj.empty() || scale != scoresScale)
      continue;

    // The context: Transpose(0, 2, 1, 3) -> Reshape [B, S, E] -> MatMul(wo)
    // [-> Add(bo)].
    int merge = consumerOf(g[pv].output(0), "Transpose");
    if (merge < 0 || !hasPerm(g[merge], {0, 2, 1, 3}))
      continue;
    int flat = consumerOf(g[merge].output(0), "Reshape");
    std::optional<std::vector<int64_t>> flatShape =
        flat < 0 ? std::nullopt : shapeOfValue(g[flat].output(0));
    if (!flatShape || *flatShape != std::vector<int64_t>{B, S, E} ||
        g[flat].input(0) != g[merge].output(0))
      continue;
    int outMatmul = consumerOf(g[flat].output(0), "MatMul");
    if (outMatmul < 0 || g[outMatmul].input_size() != 2 ||
        g[outMatmul].input(0) != g[flat].output(0))
      continue;
    const Constant *wo = constant(g[outMatmul].input(1));
    if (!wo || wo->shape != std::vector<int64_t>{E, E})
      continue;
    inner.append({merge, flat, outMatmul});
    m.wo = g[outMatmul].input(1);
    int last = outMatmul;
    if (int add = consumerOf(g[outMatmul].output(0), "Add"); add >= 0) {
      for (int side = 0; side < 2; ++side) {
        const Constant *b = constant(g[add].input(side));
        if (g[add].input(1 - side) == g[outMatmul].output(0) && b &&
            b->shape == std::vector<int64_t>{E}) {
          m.bo = g[add].input(side);
          last = add;
        }
      }
    }

    // The projections: MatMul(x, w [E, E]) [+ Add(b [E])], or a third of
    // one fused MatMul(x, w [E, 3E]) [+ Add(b [3E])] taken by Split or
    // Slice along the last axis.
    struct Projection {
      std::string x, w, b;
      std::optional<std::pair<int64_t, int64_t>> columns;
      std::string fused; // the fused projection's value
      int splitter = -1; // the Split or Slice node
    };
    // MatMul(x, w [E, width]) [+ Add(b [width])] producing `value` with
    // `useCount` uses.
    auto linear = [&](llvm::StringRef value, int64_t width,
                      unsigned useCount) -> std::optional<Projection> {
      Projection p;
      std::string mm = value.str();
      if (int add = g.from(value, "Add", useCount);
          add >= 0 && g[add].input_size() == 2) {
        bool ok = false;
        for (int side = 0; side < 2 && !ok; ++side) {
          const Constant *b = constant(g[add].input(side));
          if (b && b->shape == std::vector<int64_t>{width} &&
              g.from(g[add].input(1 - side), "MatMul") >= 0) {
            p.b = g[add].input(side);
            mm = g[add].input(1 - side);
            ok = true;
          }
        }
        if (!ok)
          return std::nullopt;
        inner.push_back(add);
        useCount = 1;
      }
      int n = g.from(mm, "MatMul", useCount);
      if (n < 0 || g[n].input_size() != 2)
        return std::nullopt;
      const Constant *w = constant(g[n].input(1));
      if (!w || w->shape != std::vector<int64_t>{E, width} ||
          constant(g[n].input(0)))
        return std::nullopt;
      inner.push_back(n);
      p.x = g[n].input(0);
      p.w = g[n].input(1);
      return p;
    };
    auto project = [&](llvm::StringRef value) -> std::optional<Projection> {
      auto it = g.producer.find(value);
      if (it == g.producer.end())
        return std::nullopt;
      const onnx::NodeProto &n = nodes[it->second];
      if (n.op_type() == "MatMul" || n.op_type() == "Add")
        return linear(value, E, 1);
      if (uses.lookup(value) != 1 || n.input_size() < 1)
        return std::nullopt;
      std::optional<std::vector<int64_t>> in = shapeOfValue(n.input(0));
      if (!in || *in != std::vector<int64_t>{B, S, 3 * E})
        return std::nullopt;
      Projection p;
      p.fused = n.input(0);
      p.splitter = it->second;
      if (n.op_type() == "Split") {
        int64_t splitAxis = attrInt(n, "axis", 0);
        if ((splitAxis != -1 && splitAxis != 2) || n.output_size() != 3)
          return std::nullopt;
        std::optional<std::vector<int64_t>> sizes =
            n.input_size() > 1 && !n.input(1).empty() ? constantInts(n.input(1))
                                                      : attrInts(n, "split");
        if (sizes && *sizes != std::vector<int64_t>{E, E, E})
          return std::nullopt;
        for (int o = 0; o < 3; ++o)
          if (n.output(o) == value)
            p.columns = std::make_pair(o * E, (o + 1) * E);
        return p;
      }
      if (n.op_type() == "Slice" && n.input_size() >= 3) {
        std::optional<std::vector<int64_t>> starts = constantInts(n.input(1)),
                                            ends = constantInts(n.input(2));
        std::optional<std::vector<int64_t>> axes =
            n.input_size() > 3 && !n.input(3).empty() ? constantInts(n.input(3))
                                                      : std::nullopt;
        std::optional<std::vector<int64_t>> steps =
            n.input_size() > 4 && !n.input(4).empty() ? constantInts(n.input(4))
                                                      : std::nullopt;
        if (!starts || !ends || starts->size() != 1 || ends->size() != 1 ||
            !axes || axes->size() != 1 ||
            ((*axes)[0] != -1 && (*axes)[0] != 2) ||
            (steps && *steps != std::vector<int64_t>{1}))
          return std::nullopt;
        int64_t begin = (*starts)[0], end = std::min((*ends)[0], 3 * E);
        if (begin < 0 || begin % E != 0 || end - begin != E)
          return std::nullopt;
        p.columns = std::make_pair(begin, end);
        return p;
      }
      return std::nullopt;
    };
    std::optional<Projection> q = project(qProj), k = project(kProj),
                              v = project(vProj);
    if (!q || !k || !v)
      continue;
    bool fused = !q->fused.empty();
    if (fused != !k->fused.empty() || fused != !v->fused.empty())
      continue;
    if (fused) {
      // One fused projection, split once (or sliced three times) into
      // three different thirds.
      if (q->fused != k->fused || q->fused != v->fused || !q->columns ||
          !k->columns || !v->columns || q->columns == k->columns ||
          q->columns == v->columns || k->columns == v->columns)
        continue;
      bool split = g[q->splitter].op_type() == "Split";
      if (split ? (q->splitter != k->splitter || q->splitter != v->splitter)
                : (q->splitter == k->splitter || q->splitter == v->splitter ||
                   k->splitter == v->splitter))
        continue;
      std::optional<Projection> whole = linear(q->fused, 3 * E, split ? 1 : 3);
      if (!whole)
        continue;
      inner.push_back(q->splitter);
      if (!split)
        inner.append({k->splitter, v->splitter});
      for (Projection *p : {&*q, &*k, &*v}) {
        p->x = whole->x;
        p->w = whole->w;
        p->b = whole->b;
      }
    }
    if (q->x != k->x || q->x != v->x)
      continue;
    std::optional<std::vector<int64_t>> xShape = shapeOfValue(q->x);
    if (!xShape || *xShape != std::vector<int64_t>{B, S, E})
      continue;
    // The scale: 1/sqrt(D) up to f32 rounding (a few ulps: it may be the
    // product of two rounded factors, sqrt(1/sqrt(D)) on q and on k).
    double want = 1.0 / std::sqrt(double(D));
    if (std::abs(scale - want) > 4 * 0x1p-24 * want)
      continue;
    // The mask broadcasts to the scores [B, H, S, S] (numpy's rules, as
    // ONNX's Add) as mix.attention's does: rank 2 or 4, or rank 3 with a
    // leading 1 (mix.attention reads a rank-3 mask as [B, S, S], numpy
    // aligns it with [H, S, S]: they agree only on size 1).
    if (!m.mask.empty()) {
      std::optional<std::vector<int64_t>> ms = shapeOfValue(m.mask);
      if (!ms || ms->size() < 2 || ms->size() > 4 ||
          (ms->size() == 3 && (*ms)[0] != 1))
        continue;
      const Constant *c = constant(m.mask);
      if (c && c->dtype != onnx::TensorProto::FLOAT &&
          c->dtype != onnx::TensorProto::DOUBLE &&
          c->dtype != onnx::TensorProto::FLOAT16 &&
          c->dtype != onnx::TensorProto::BFLOAT16)
        continue;
      int64_t target[] = {B, H, S, S};
      bool ok = true;
      for (size_t d = 0; d < ms->size(); ++d) {
        int64_t size = (*ms)[d], want = target[d + 4 - ms->size()];
        ok &= size == want || size == 1;
      }
      if (!ok)
        continue;
    }
    // Every intermediate is used inside the pattern only (checked by the
    // use counts above); no node may belong to two patterns.
    inner.push_back(last);
    llvm::sort(inner);
    inner.erase(std::unique(inner.begin(), inner.end()), inner.end());
    if (llvm::any_of(inner, [&](int n) { return absorbed.contains(n); }))
      continue;
    m.x = q->x;
    m.wq = q->w;
    m.wk = k->w;
    m.wv = v->w;
    m.bq = q->b;
    m.bk = k->b;
    m.bv = v->b;
    m.qColumns = q->columns;
    m.kColumns = k->columns;
    m.vColumns = v->columns;
    m.heads = H;
    // The module path the nodes share: the attention module.
    std::vector<std::string> common;
    bool first = true;
    for (int n : inner) {
      std::vector<std::string> p = modulePath(nodes[n].name());
      if (first) {
        common = p;
        first = false;
        continue;
      }
      size_t same = 0;
      while (same < common.size() && same < p.size() && common[same] == p[same])
        ++same;
      common.resize(same);
    }
    m.name = common.empty() ? nodes[last].name()
                            : "/" + llvm::join(common, "/") + "/Attention";
    for (int n : inner)
      if (n != last)
        absorbed.insert(n);
    found[last] = std::move(m);
  }
}

void Importer::convertAttention(const onnx::NodeProto &node,
                                const AttentionMatch &m) {
  RankedTensorType type = floatTypeOf(node, node.output(0));
  Value x = value(m.x);
  if (!type || !x)
    return;
  auto projection = [&](llvm::StringRef name,
                        std::optional<std::pair<int64_t, int64_t>> columns) {
    const Constant *c = constant(name);
    return c ? weight(node, *c, /*transpose=*/false, columns) : Value();
  };
  // One op per statement: the IR must not depend on the order the host
  // compiler evaluates function arguments in.
  Value wq = projection(m.wq, m.qColumns);
  Value wk = projection(m.wk, m.kColumns);
  Value wv = projection(m.wv, m.vColumns);
  Value wo = projection(m.wo, std::nullopt);
  Value bq = m.bq.empty() ? Value() : projection(m.bq, m.qColumns);
  Value bk = m.bk.empty() ? Value() : projection(m.bk, m.kColumns);
  Value bv = m.bv.empty() ? Value() : projection(m.bv, m.vColumns);
  Value bo = m.bo.empty() ? Value() : projection(m.bo, std::nullopt);
  Value mask = m.mask.empty() ? Value() : operand(node, m.mask);
  if (!wq || !wk || !wv || !wo || (!m.bq.empty() && !bq) ||
      (!m.bk.empty() && !bk) || (!m.bv.empty() && !bv) ||
      (!m.bo.empty() && !bo) || (!m.mask.empty() && !mask))
    return;
  auto op = AttentionOp::create(
      builder, loc, type, x, wq, wk, wv, wo, bq, bk, bv, bo, mask,
      builder.getI64IntegerAttr(m.heads), builder.getBoolAttr(false),
      PrecisionAttr(), PrecisionAttr(), PrecisionAttr(), PrecisionAttr(),
      PrecisionAttr(), ResolvedAttr());
  define(node.output(0), op.getResult());
}
