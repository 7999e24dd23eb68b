//===- resnet.cpp - examples/resnet.mlir written with mix/dsl.h -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Prints the ResNet-style classifier of examples/resnet.mlir: the same
// network, op for op (the lit test Examples/dsl.test compares the two after
// mix-opt). Build and run it, then compile what it prints:
//
//   c++ -std=c++17 -I dsl/include examples/dsl/resnet.cpp -o resnet
//   ./resnet > resnet.mlir && mix-lint resnet.mlir --explain
//
//===----------------------------------------------------------------------===//

#include "mix/dsl.h"

#include <cstdio>
#include <string>

using namespace mix::dsl;

namespace {

/// conv2d -> batch_norm (forced to f32 inside f16 stages) with the weights
/// `prefix`.conv<i>.weight and `prefix`.bn<i>.{scale,bias,mean,var}.
template <class BatchNormPrecision>
tensor convBn(const tensor &x, const std::string &conv, const std::string &bn,
              int64_t filters, int64_t stride) {
  tensor c = conv2d(x, weight(conv, {filters, x.dim(1), 3, 3}), strides(stride),
                    padding(1));
  return batch_norm<BatchNormPrecision>(
      c, weight(bn + ".scale", {filters}), weight(bn + ".bias", {filters}),
      weight(bn + ".mean", {filters}), weight(bn + ".var", {filters}));
}

/// A residual stage at f16: two conv + batch_norm (f32) layers, a shortcut
/// (1x1 strided conv2d when the shape changes) and a relu.
tensor stage(const std::string &name, const tensor &in, int64_t filters,
             int64_t stride) {
  return block<f16>(name, [&] {
    tensor r1 = relu(convBn<f32>(in, name + ".conv1.weight", name + ".bn1",
                                 filters, stride));
    tensor n2 =
        convBn<f32>(r1, name + ".conv2.weight", name + ".bn2", filters, 1);
    tensor shortcut = in;
    if (stride != 1 || filters != in.dim(1))
      shortcut = conv2d(
          in, weight(name + ".shortcut.weight", {filters, in.dim(1), 1, 1}),
          strides(stride));
    return relu(add(n2, shortcut));
  });
}

} // namespace

model resnet() {
  return network<f32>("resnet", input("image", {2, 3, 16, 16}),
                      input<i32>("labels", {2}))
      .body([](tensor image, tensor labels) {
        tensor stem = block("stem", [&] {
          return relu(
              convBn<inherit>(image, "stem.conv.weight", "stem.bn", 16, 1));
        });
        tensor s1 = stage("stage1", stem, 16, 1);
        tensor s2 = stage("stage2", s1, 32, 2);
        // No precision: the classifier runs at the network's f32.
        return block("classifier", [&] {
          tensor pooled = global_avg_pool(s2);
          tensor logits = dense(pooled, weight("fc.weight", {32, 10}),
                                weight("fc.bias", {10}));
          tensor loss = cross_entropy_loss(logits, labels);
          return std::make_tuple(logits, loss);
        });
      });
}

int main() {
  model m = resnet();
  for (const std::string &error : m.errors())
    std::fprintf(stderr, "resnet: %s\n", error.c_str());
  std::fputs(m.text().c_str(), stdout);
  return m.ok() ? 0 : 1;
}
