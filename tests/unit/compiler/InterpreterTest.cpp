//===- InterpreterTest.cpp - the f64 reference interpreter ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Structure, weights, casts and errors against hand-computed values (the
// layers are in InterpreterLayersTest.cpp, the bundled examples in
// InterpreterExamplesTest.cpp). Inputs are chosen so that results are exact
// in f64 and compared with ==; where exp, log, tanh, erf or sqrt of a
// non-square are involved, values are compared with a relative tolerance of
// 1e-12 (libm's results are within an ulp or two; the interpreter and the
// expected value may evaluate the expression in a different order).
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"

using namespace mlir;
using namespace mix;
using namespace mix::test;

//===----------------------------------------------------------------------===//
// Structure, weights, casts
//===----------------------------------------------------------------------===//

TEST_CASE("nested blocks bind arguments and yield results", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<2xf32>, %z: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a, %b = mix.block @outer precision(f16) (%p = %x, %q = %z) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %s = mix.add %p, %q : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %inner = mix.block (%r = %s, %t = %p) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
      %u = mix.mul %r, %t : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %v = mix.relu %u : (tensor<2xf32>) -> tensor<2xf32>
      mix.yield %v : tensor<2xf32>
    }
    mix.yield %inner, %s : tensor<2xf32>, tensor<2xf32>
  }
  mix.return %b, %a : tensor<2xf32>, tensor<2xf32>
}
)mlir");
  auto out = m.ok({tensor({2}, {1, -2}), tensor({2}, {3, 0.5})});
  REQUIRE(out.size() == 2);
  CHECK(shapeOf(out[0]) == Shape{2});
  CHECK(out[0].data == std::vector<double>{4, -1.5});
  // relu((x + z) * x) = relu([4, 3]) and the block's results are reordered.
  CHECK(out[1].data == std::vector<double>{4, 3});
}

TEST_CASE("inline and external weights", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) () -> (tensor<2x2xf32>, tensor<3xf16>, tensor<2xi32>, tensor<2xf32>) {
  %s = mix.weight dense<2.5> : tensor<2x2xf32>
  %h = mix.weight dense<[0.1, -2.0, 65504.0]> : tensor<3xf16>
  %i = mix.weight dense<[7, -3]> : tensor<2xi32>
  %e = mix.weight external "ext" : tensor<2xf32>
  mix.return %s, %h, %i, %e : tensor<2x2xf32>, tensor<3xf16>, tensor<2xi32>, tensor<2xf32>
}
)mlir");
  WeightMap weights;
  // External values are used as given, not rounded to f32.
  weights["ext"] = tensor({2}, {0.1, -kInf});
  auto out = m.ok({}, weights);
  REQUIRE(out.size() == 4);
  CHECK(shapeOf(out[0]) == Shape{2, 2});
  CHECK(out[0].data == std::vector<double>{2.5, 2.5, 2.5, 2.5});
  // Inline f16 data holds f16 values: 0.1 in f16 is 0x2E66.
  CHECK(out[1].data == std::vector<double>{0.0999755859375, -2, 65504});
  CHECK(out[2].data == std::vector<double>{7, -3});
  CHECK(out[3].data == std::vector<double>{0.1, -kInf});
}

TEST_CASE("cast rounds once to nearest even", "[interp]") {
  const char *source = R"mlir(
mix.network @net precision(f32) (%x: tensor<10xf64>) -> (tensor<10xf32>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf64>) {
  %a = mix.cast %x : tensor<10xf64> to tensor<10xf32>
  %b = mix.cast %x : tensor<10xf64> to tensor<10xf16>
  %c = mix.cast %x : tensor<10xf64> to tensor<10xbf16>
  %d = mix.cast %x : tensor<10xf64> to tensor<10xf64>
  mix.return %a, %b, %c, %d : tensor<10xf32>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf64>
}
)mlir";
  Model m(source);
  const double p = std::ldexp(1.0, -11);
  std::vector<double> x = {0.1,
                           65520.0,   // f16: half-way to 2^16
                           1 + p,     // f16: tie -> 1
                           1 + 3 * p, // f16: tie -> 1 + 2^-9
                           1 + p + std::ldexp(1.0, -30), // above the tie
                           std::ldexp(1.0, -25),         // f16: tie -> +0
                           -0.0,
                           kNaN,
                           -kNaN,
                           -kInf};
  auto out = m.ok({tensor({10}, x)});
  REQUIRE(out.size() == 4);

  const std::vector<double> &f32 = out[0].data;
  CHECK(f32[0] == static_cast<double>(0.1f));
  CHECK(f32[1] == 65520.0);
  CHECK(f32[2] == 1 + p);
  // f32 rounds 1 + 2^-11 + 2^-30 down to 1 + 2^-11 ...
  CHECK(f32[4] == 1 + p);
  CHECK(std::signbit(f32[6]));
  CHECK(std::isnan(f32[7]));
  CHECK(f32[9] == -kInf);

  const std::vector<double> &f16 = out[1].data;
  CHECK(f16[0] == 0.0999755859375);
  CHECK(f16[1] == kInf);
  CHECK(f16[2] == 1.0);
  CHECK(f16[3] == 1 + std::ldexp(1.0, -9));
  // ... but one direct rounding to f16 sees it above the tie (f32 first
  // would give 1.0).
  CHECK(f16[4] == 1 + std::ldexp(1.0, -10));
  CHECK(f16[5] == 0.0);
  CHECK(std::signbit(f16[6]));
  CHECK(f16[6] == 0.0);
  CHECK(std::isnan(f16[7]));
  CHECK_FALSE(std::signbit(f16[7]));
  CHECK(std::isnan(f16[8]));
  CHECK(std::signbit(f16[8]));
  CHECK(f16[9] == -kInf);

  const std::vector<double> &bf16 = out[2].data;
  // 0.1 = 0x3DCCCCCD in f32 -> bf16 0x3DCD (round up) = 0.10009765625.
  CHECK(bf16[0] == 0.10009765625);
  CHECK(bf16[1] == 65536.0);
  CHECK(bf16[2] == 1.0);
  CHECK(std::isnan(bf16[7]));

  // f64 to f64 is the identity.
  for (size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(x[i]))
      CHECK(out[3].data[i] == x[i]);
}

TEST_CASE("roundToType: ties, overflow and subnormals", "[interp]") {
  MLIRContext ctx;
  Builder b(&ctx);
  FloatType f16 = b.getF16Type(), bf16 = b.getBF16Type(), f32 = b.getF32Type();
  CHECK(roundToType(65504.0, f16) == 65504.0);
  CHECK(roundToType(65519.99, f16) == 65504.0);
  CHECK(roundToType(65520.0, f16) == kInf);
  CHECK(roundToType(-65520.0, f16) == -kInf);
  CHECK(roundToType(std::ldexp(1.0, -24), f16) == std::ldexp(1.0, -24));
  CHECK(roundToType(std::ldexp(3.0, -26), f16) == std::ldexp(1.0, -24));
  // bf16 keeps 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties up.
  CHECK(roundToType(1 + std::ldexp(1.0, -8), bf16) == 1.0);
  CHECK(roundToType(1 + std::ldexp(3.0, -8), bf16) == 1 + std::ldexp(1.0, -6));
  CHECK(roundToType(3.4e38, bf16) == kInf);
  CHECK(roundToType(1e-40, bf16) == std::ldexp(1.0, -133)); // subnormal
  CHECK(roundToType(1e39, f32) == kInf);
  CHECK(roundToType(0.1, f32) == static_cast<double>(0.1f));
}

TEST_CASE("checked cast reports an overflow", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<3xf32>) -> tensor<3xf16> {
  %y = mix.cast %x checked : tensor<3xf32> to tensor<3xf16>
  mix.return %y : tensor<3xf16>
}
)mlir");
  // Infinities and NaN are not overflows.
  auto out = m.ok({tensor({3}, {kInf, kNaN, 65519})});
  CHECK(out[0].data[0] == kInf);
  CHECK(std::isnan(out[0].data[1]));
  CHECK(out[0].data[2] == 65504);
  CHECK(m.error({tensor({3}, {1, -70000, 2})}) ==
        "test.mlir:3:8: checked cast: value -70000 at element 1 overflows f16");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_CASE("errors: inputs", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) (%x: tensor<2x3xf32>, %y: tensor<2xi32>) -> tensor<2x3xf32> {
  mix.return %x : tensor<2x3xf32>
}
)mlir");
  RefTensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(m.error({x}) ==
        "test.mlir:2:1: network @net expects 2 input(s), got 1");
  CHECK(m.error({tensor({3, 2}, x.data), tensor({2}, {0, 1})}) ==
        "test.mlir:2:1: input #0 of network @net has shape [3, 2], expected "
        "[2, 3] (tensor<2x3xf32>)");
  CHECK(m.error({x, tensor({2}, {0})}) ==
        "test.mlir:2:1: input #1 of network @net holds 1 values, but its "
        "shape [2] needs 2");
  CHECK(m.error({x, tensor({2}, {0, 1.5})}) ==
        "test.mlir:2:1: input #1 of network @net (tensor<2xi32>) holds 1.5 at "
        "element 1, which is not a value of i32");
  CHECK(m.error({x, tensor({2}, {2147483648.0, 0})}) ==
        "test.mlir:2:1: input #1 of network @net (tensor<2xi32>) holds "
        "2147483648 at element 0, which is not a value of i32");
  // Non-finite float inputs are fine and propagate.
  auto out = m.ok({tensor({2, 3}, {kNaN, kInf, -kInf, 0, 0, 0}),
                   tensor({2}, {-2147483648.0, 2147483647.0})});
  CHECK(std::isnan(out[0].data[0]));
  CHECK(out[0].data[1] == kInf);
}

TEST_CASE("errors: external weights", "[interp]") {
  Model m(R"mlir(
mix.network @net precision(f32) () -> tensor<2x3xf32> {
  %w = mix.weight external "fc.weight" : tensor<2x3xf32>
  mix.return %w : tensor<2x3xf32>
}
)mlir");
  CHECK(m.error({}) ==
        "test.mlir:3:8: external weight 'fc.weight' is not in the weight map");
  WeightMap weights;
  weights["fc.weight"] = tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(m.error({}, weights) ==
        "test.mlir:3:8: external weight 'fc.weight' has shape [3, 2], but the "
        "model declares [2, 3] (tensor<2x3xf32>)");
  weights["fc.weight"] = tensor({2, 3}, {1, 2, 3});
  CHECK(m.error({}, weights) ==
        "test.mlir:3:8: external weight 'fc.weight' holds 3 values, but its "
        "shape [2, 3] needs 6");
}

TEST_CASE("errors: unsupported data and argument types", "[interp]") {
  Model resource(R"mlir(
mix.network @net precision(f32) () -> tensor<2xf32> {
  %w = mix.weight dense_resource<blob> : tensor<2xf32>
  mix.return %w : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
)mlir");
  CHECK(resource.error({}) == "test.mlir:3:8: the interpreter supports inline "
                              "weight data only as dense<...> elements");

  Model scalar(R"mlir(
mix.network @net precision(f32) (%x: f32) {
  mix.return
}
)mlir");
  CHECK(scalar.error({tensor({}, {1})}) ==
        "test.mlir:2:1: input #0 of network @net has type f32, which the "
        "interpreter does not support (only tensors)");
}

TEST_CASE("errors: indices, labels and unsupported ops", "[interp]") {
  Model emb(R"mlir(
mix.network @net precision(f32) (%ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %t = mix.weight dense<1.0> : tensor<4x2xf32>
  %e = mix.embedding %ids, %t : (tensor<3xi64>, tensor<4x2xf32>) -> tensor<3x2xf32>
  mix.return %e : tensor<3x2xf32>
}
)mlir");
  CHECK(emb.error({tensor({3}, {0, 4, 1})}) ==
        "test.mlir:4:8: mix.embedding: index 4 at element 1 is out of range "
        "[0, 4)");
  CHECK(emb.error({tensor({3}, {0, 3, -1})}) ==
        "test.mlir:4:8: mix.embedding: index -1 at element 2 is out of range "
        "[0, 4)");

  Model ce(R"mlir(
mix.network @net precision(f32) (%z: tensor<2x3xf32>, %y: tensor<2xi32>) -> tensor<f32> {
  %l = mix.cross_entropy_loss %z, %y : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  mix.return %l : tensor<f32>
}
)mlir");
  RefTensor z = tensor({2, 3}, {0, 0, 0, 0, 0, 0});
  CHECK(ce.error({z, tensor({2}, {2, 3})}) ==
        "test.mlir:3:8: mix.cross_entropy_loss: label 3 of row 1 is out of "
        "range [0, 3)");

  Model unknown(R"mlir(
mix.network @net precision(f32) (%x: tensor<2xf32>) -> tensor<2xf32> {
  %b = mix.block @b (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %y = "test.mystery"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    mix.yield %y : tensor<2xf32>
  }
  mix.return %b : tensor<2xf32>
}
)mlir",
                /*allowUnregistered=*/true);
  CHECK(unknown.error({tensor({2}, {1, 2})}) ==
        "test.mlir:4:10: the interpreter does not support 'test.mystery'");
}
