//===- compile_fail.cpp - precisions mix/dsl.h rejects at compile time ----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// One valid network, and one error per MIX_DSL_CASE_<name> macro: each is a
// rule of the dialect (docs/precision.md, "Legality checked by the
// verifier") that mix/dsl.h turns into a static_assert. Compiled by
// check-compile-fail.sh (ctest dsl.compile_fail.<name>).
//
//===----------------------------------------------------------------------===//

#include "mix/dsl.h"

using namespace mix::dsl;

model build() {
#if defined(MIX_DSL_CASE_i32_network)
  return network<i32>("n", input("x", {2, 4})).body([](tensor x) {
    return relu(x);
  });
#else
  return network<f32>("n", input("x", {2, 4}), input<i32>("labels", {2}))
      .body([](tensor x, tensor labels) {
        tensor w = weight("w", {4, 3});
        tensor y = dense<f16>(x, w).weights<int8>().accumulator<f32>();
#if defined(MIX_DSL_CASE_i32_layer)
        y = dense<i32>(x, w);
#elif defined(MIX_DSL_CASE_i32_weights)
        y = dense(x, w).weights<i32>();
#elif defined(MIX_DSL_CASE_int8_accumulator)
        y = dense(x, w).accumulator<int8>();
#elif defined(MIX_DSL_CASE_weights_without_weights)
        y = relu(y).weights<f16>();
#elif defined(MIX_DSL_CASE_i32_block)
        y = block<i32>("b", [&] { return relu(y); });
#elif defined(MIX_DSL_CASE_int8_input)
        (void)input<int8>("q", {2});
#elif defined(MIX_DSL_CASE_not_a_precision)
        y = relu(y).output<float>();
#elif defined(MIX_DSL_CASE_wrong_option)
        y = relu(y, num_heads(2));
#endif
        return std::make_tuple(y, cross_entropy_loss(y, labels));
      });
#endif
}

int main() { return build().ok() ? 0 : 1; }
