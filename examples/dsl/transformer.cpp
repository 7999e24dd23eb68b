//===- transformer.cpp - examples/transformer.mlir with mix/dsl.h ---------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Prints the decoder-only transformer of examples/transformer.mlir (the lit
// test Examples/dsl.test checks that the two are the same network).
//
//===----------------------------------------------------------------------===//

#include "mix/dsl.h"

#include <cstdio>
#include <string>

using namespace mix::dsl;

namespace {

constexpr int64_t kEmbed = 32, kHidden = 64, kVocab = 50;

/// layer_norm with the weights `name`.gamma and `name`.beta, at precision P.
template <class P = inherit>
tensor norm(const tensor &x, const std::string &name) {
  return layer_norm<P>(x, weight(name + ".gamma", {kEmbed}),
                       weight(name + ".beta", {kEmbed}));
}

/// Transformer block `name` at f16: causal attention and a feed-forward
/// block, each behind a layer_norm forced to f32, with residuals.
tensor decoderBlock(const std::string &name, const tensor &in) {
  return block<f16>(name, [&] {
    tensor n1 = norm<f32>(in, name + ".ln1");
    auto w = [&](const char *which) {
      return weight(name + ".attn." + which, {kEmbed, kEmbed});
    };
    tensor a = attention(n1, w("wq"), w("wk"), w("wv"), w("wo"), num_heads(4),
                         causal());
    tensor r1 = add(in, a);
    tensor n2 = norm<f32>(r1, name + ".ln2");
    // Feed-forward block: inherits f16 from the transformer block.
    tensor ff = block(name + ".ffn", [&] {
      tensor u = dense(n2, weight(name + ".ffn.w1", {kEmbed, kHidden}),
                       weight(name + ".ffn.b1", {kHidden}));
      tensor g = gelu(u, approximate());
      return dense(g, weight(name + ".ffn.w2", {kHidden, kEmbed}),
                   weight(name + ".ffn.b2", {kEmbed}));
    });
    return add(r1, ff);
  });
}

} // namespace

model transformer() {
  return network<f32>("transformer", input<i32>("tokens", {2, 8}),
                      input<i32>("targets", {16}))
      .body([](tensor tokens, tensor targets) {
        tensor emb = embedding(tokens, weight("embed.table", {kVocab, kEmbed}));
        tensor h = decoderBlock("layer1", decoderBlock("layer0", emb));
        return block("lm_head", [&] {
          tensor n = norm(h, "head.ln");
          tensor logits = dense(n, weight("head.proj", {kEmbed, kVocab}));
          tensor probs = softmax(logits);
          tensor flat = reshape(logits, {16, kVocab});
          tensor loss = cross_entropy_loss(flat, targets);
          return std::make_tuple(probs, loss);
        });
      });
}

int main() {
  model m = transformer();
  for (const std::string &error : m.errors())
    std::fprintf(stderr, "transformer: %s\n", error.c_str());
  std::fputs(m.text().c_str(), stdout);
  return m.ok() ? 0 : 1;
}
