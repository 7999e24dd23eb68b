//===- edge_int8.cpp - examples/edge_int8.mlir written with mix/dsl.h -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Prints the edge INT8 classifier of examples/edge_int8.mlir (the lit test
// Examples/dsl.test checks that the two are the same network):
//
//   c++ -std=c++17 -I dsl/include examples/dsl/edge_int8.cpp -o edge_int8
//   ./edge_int8 > edge_int8.mlir && mixc edge_int8.mlir --weights ...
//
//===----------------------------------------------------------------------===//

#include "mix/dsl.h"

#include <cstdio>
#include <string>

using namespace mix::dsl;

namespace {

/// conv2d (int8, from the block) -> batch_norm, relu, max_pool2d (f32:
/// int8 is for GEMM-like layers only).
tensor features(const tensor &x, int i, int64_t filters) {
  std::string p = "features.conv" + std::to_string(i);
  std::string bn = "features.bn" + std::to_string(i);
  tensor c = conv2d(x, weight(p + ".weight", {filters, x.dim(1), 3, 3}),
                    weight(p + ".bias", {filters}), padding(1));
  tensor n = batch_norm<f32>(
      c, weight(bn + ".scale", {filters}), weight(bn + ".bias", {filters}),
      weight(bn + ".mean", {filters}), weight(bn + ".var", {filters}));
  tensor r = relu<f32>(n);
  return max_pool2d<f32>(r, kernel(2), strides(2));
}

} // namespace

model edge_int8() {
  return network<f32>("edge", input("image", {1, 1, 28, 28}))
      .body([](tensor image) {
        tensor f = block<int8>("features", [&] {
          return features(features(image, 1, 16), 2, 32);
        });
        // The block inherits f32; the dense layers override it with int8.
        return block("classifier", [&] {
          tensor flat = flatten(f); // [1, 32 * 7 * 7]
          tensor h =
              dense<int8>(flat, weight("classifier.fc1.weight", {1568, 64}),
                          weight("classifier.fc1.bias", {64}));
          tensor r = relu(h);
          tensor z = dense<int8>(r, weight("classifier.fc2.weight", {64, 10}),
                                 weight("classifier.fc2.bias", {10}));
          return softmax(z);
        });
      });
}

int main() {
  model m = edge_int8();
  for (const std::string &error : m.errors())
    std::fprintf(stderr, "edge_int8: %s\n", error.c_str());
  std::fputs(m.text().c_str(), stdout);
  return m.ok() ? 0 : 1;
}
