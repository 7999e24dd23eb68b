//===- DslTest.cpp - the typed C++ DSL of mix/dsl.h ----------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Shapes inferred layer to layer, the exact text of a small network,
// precision clauses, the DSL's own errors, and verifier errors surfaced by
// mix/dsl_mlir.h. The examples are compared with examples/*.mlir by
// tests/lit/Examples/dsl.test; what must not compile, by the
// dsl.compile_fail.* tests.
//
//===----------------------------------------------------------------------===//

#include "mix/dsl.h"
#include "mix/dsl_mlir.h"

#include "dialect/MixOps.h"
#include "mlir/IR/MLIRContext.h"

#include <catch2/catch.hpp>

using namespace mix::dsl;

namespace {

/// The shape of every tensor the body records, by name.
using shapes_t = std::vector<std::pair<std::string, shape_t>>;

} // namespace

TEST_CASE("shapes are inferred layer to layer", "[dsl]") {
  shapes_t got;
  auto note = [&](const char *name, const tensor &t) {
    got.push_back({name, t.shape()});
  };
  model m =
      network<f32>("shapes", input("image", {dynamic, 3, 32, 31}))
          .body([&](tensor image) {
            tensor c1 = conv2d(image, weight("c1", {8, 3, 5, 5}), strides(2),
                               padding(2, 1), dilations(1, 2));
            note("conv2d", c1);
            tensor g = conv2d(c1, weight("g", {16, 4, 3, 3}), groups(2),
                              padding(1, 1, 0, 0));
            note("conv2d groups", g);
            tensor p = max_pool2d(g, kernel(3), strides(2), ceil_mode());
            note("max_pool2d ceil", p);
            tensor q = max_pool2d(g, kernel(3), strides(2));
            note("max_pool2d", q);
            tensor a = avg_pool2d(g, kernel(2, 3), strides(2, 1), padding(1));
            note("avg_pool2d", a);
            tensor gp = global_avg_pool(a);
            note("global_avg_pool", gp);
            tensor f = flatten(q);
            note("flatten", f);
            tensor d = dense(f, weight("d", {f.dim(1), 10}), weight("b", {10}));
            note("dense", d);
            tensor r = reshape(d, {dynamic, 2, 5});
            note("reshape", r);
            tensor t = transpose(r, {0, 2, 1});
            note("transpose", t);
            tensor k = concat({t, t}, -1);
            note("concat", k);
            tensor s = reduce_sum(k, axes{1});
            note("reduce_sum", s);
            tensor s2 = reduce_mean(k, axes{1, 2}, keepdims(false));
            note("reduce_mean", s2);
            tensor b = add(k, weight({1, 4}, 0.5));
            note("add broadcast", b);
            tensor mm = matmul(k, transpose(k, {0, 2, 1}));
            note("matmul", mm);
            return mm;
          });
  INFO(m.text());
  INFO((m.errors().empty() ? std::string() : m.errors().front()));
  REQUIRE(m.ok());
  // (32 + 4 - 5) / 2 + 1 = 16; (31 + 2 - 9) / 2 + 1 = 13.
  // Window span 3: (16 + 1 - 3) / 1 + 1 = 15, (13 + 1 - 3) + 1 = 12.
  // ceil: ceil((15 - 3) / 2) + 1 = 7, ceil((12 - 3) / 2) + 1 = 6;
  // floor: 7 and 5. avg: (15 + 2 - 2) / 2 + 1 = 8, (12 + 2 - 3) + 1 = 12.
  shapes_t want = {
      {"conv2d", {dynamic, 8, 16, 13}},
      {"conv2d groups", {dynamic, 16, 15, 12}},
      {"max_pool2d ceil", {dynamic, 16, 7, 6}},
      {"max_pool2d", {dynamic, 16, 7, 5}},
      {"avg_pool2d", {dynamic, 16, 8, 12}},
      {"global_avg_pool", {dynamic, 16}},
      {"flatten", {dynamic, 560}},
      {"dense", {dynamic, 10}},
      {"reshape", {dynamic, 2, 5}},
      {"transpose", {dynamic, 5, 2}},
      {"concat", {dynamic, 5, 4}},
      {"reduce_sum", {dynamic, 1, 4}},
      {"reduce_mean", {dynamic}},
      {"add broadcast", {dynamic, 5, 4}},
      {"matmul", {dynamic, 5, 5}},
  };
  CHECK(got == want);

  // The verifiers agree with every shape.
  mlir::MLIRContext context;
  std::string error;
  auto module = parse(m, context, error);
  INFO(error);
  CHECK(module);
}

TEST_CASE("shapes of embedding, attention, norms and losses", "[dsl]") {
  shapes_t got;
  model m =
      network<f32>("t", input<i64>("tokens", {4, 6}), input<i32>("y", {24}))
          .body([&](tensor tokens, tensor y) {
            tensor e = embedding(tokens, weight("table", {100, 16}));
            got.push_back({"embedding", e.shape()});
            tensor a = attention(e, weight("q", {16, 16}),
                                 weight("k", {16, 16}), weight("v", {16, 16}),
                                 weight("o", {16, 16}), num_heads(2));
            got.push_back({"attention", a.shape()});
            tensor n = layer_norm(a, weight("g", {6, 16}), weight("b", {6, 16}),
                                  axis(1));
            got.push_back({"layer_norm", n.shape()});
            tensor l = cross_entropy_loss(reshape(n, {24, 16}), y);
            got.push_back({"loss", l.shape()});
            return l;
          });
  REQUIRE(m.ok());
  CHECK(got == shapes_t{{"embedding", {4, 6, 16}},
                        {"attention", {4, 6, 16}},
                        {"layer_norm", {4, 6, 16}},
                        {"loss", {}}});
  mlir::MLIRContext context;
  std::string error;
  CHECK(parse(m, context, error));
  CHECK(error.empty());
}

TEST_CASE("the text of a small network", "[dsl]") {
  model m = network<f32>("tiny", input("image", {2, 4})).body([](tensor image) {
    tensor w = weight({4, 3}, {0.5, -1.0, 0.25, 1.0, 0.5, -0.5, -0.25, 1.0, 1.0,
                               0.125, -0.5, 2.0});
    tensor d = dense<bf16>(image, w, weight({3}, 0.0))
                   .accumulator<f32>()
                   .output<f32>();
    return block<f16>(
        "act", [&] { return clip<f32>(d, 0.0, 6.0).activations<f16>(); });
  });
  REQUIRE(m.ok());
  CHECK(m.text() ==
        "mix.network @tiny precision(f32) (%image: tensor<2x4xf32>) -> "
        "tensor<2x3xf32> {\n"
        "  %w0 = mix.weight dense<[[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], "
        "[-0.25, 1.0, 1.0], [0.125, -0.5, 2.0]]> : tensor<4x3xf32>\n"
        "  %w1 = mix.weight dense<0.0> : tensor<3xf32>\n"
        "  %dense2 = mix.dense %image, %w0, %w1 precision(bf16, accumulator "
        "= f32, output = f32) : (tensor<2x4xf32>, tensor<4x3xf32>, "
        "tensor<3xf32>) -> tensor<2x3xf32>\n"
        "  %b5 = mix.block @act precision(f16) (%a3 = %dense2) : "
        "(tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        "    %clip4 = mix.clip %a3 precision(f32, activations = f16) {min = "
        "0.0 : f64, max = 6.0 : f64} : (tensor<2x3xf32>) -> "
        "tensor<2x3xf32>\n"
        "    mix.yield %clip4 : tensor<2x3xf32>\n"
        "  }\n"
        "  mix.return %b5 : tensor<2x3xf32>\n"
        "}\n");
  mlir::MLIRContext context;
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(m, context, error);
  REQUIRE(module);
  auto networks = module->getOps<mix::NetworkOp>();
  REQUIRE(std::distance(networks.begin(), networks.end()) == 1);
  CHECK((*networks.begin()).getSymName() == "tiny");
}

TEST_CASE("rounding and trigonometric layers", "[dsl]") {
  model m = network<f32>("trig", input("x", {2, 3})).body([](tensor x) {
    tensor s = sin<f16>(x);
    tensor f = floor(x);
    tensor a = atanh(f);
    return round(add(s, a));
  });
  REQUIRE(m.ok());
  INFO(m.text());
  CHECK(m.text().find("  %sin0 = mix.sin %x precision(f16) : (tensor<2x3xf32>) "
                      "-> tensor<2x3xf32>\n") != std::string::npos);
  CHECK(m.text().find("  %floor1 = mix.floor %x : ") != std::string::npos);
  CHECK(m.text().find("  %atanh2 = mix.atanh %floor1 : ") != std::string::npos);
  CHECK(m.text().find("  %round4 = mix.round %add3 : ") != std::string::npos);
  mlir::MLIRContext context;
  std::string error;
  CHECK(parse(m, context, error));
  INFO(error);
}

TEST_CASE("values reach nested blocks through bindings", "[dsl]") {
  model m = network<f16>("nest", input("x", {1, 8}), input("y", {1, 8}))
                .body([](tensor x, tensor y) {
                  return block("outer", [&] {
                    tensor r = relu(x);
                    return block<bf16>("inner", [&] { return add(r, y); });
                  });
                });
  REQUIRE(m.ok());
  // y enters outer (bound on its use in inner), then inner.
  CHECK(m.text().find("mix.block @outer (%a0 = %x, %a3 = %y)") !=
        std::string::npos);
  CHECK(m.text().find("mix.block @inner precision(bf16) (%a2 = %relu1, "
                      "%a4 = %a3)") != std::string::npos);
  mlir::MLIRContext context;
  std::string error;
  CHECK(parse(m, context, error));
  CHECK(error.empty());
}

TEST_CASE("shape errors the DSL finds", "[dsl]") {
  tensor escaped;
  model m = network<f32>("bad", input("x", {2, 64})).body([&](tensor x) {
    tensor d = dense(x, weight("w", {32, 10}));
    tensor b = block("b", [&] {
      escaped = relu(d);
      return escaped;
    });
    (void)max_pool2d(x, kernel(2));
    return add(b, escaped);
  });
  CHECK(m.errors() ==
        std::vector<std::string>{
            "mix.dense in network @bad: input [2, 64] has K = 64 but weight "
            "[32, 10] has 32 rows",
            "mix.max_pool2d in network @bad: input must have rank 4, got [2, "
            "64]",
            "a use of %relu3 in network @bad: the value is defined in block "
            "@b, which does not enclose this use (a block's values leave it "
            "only as its results)"});
  mlir::MLIRContext context;
  std::string error;
  CHECK_FALSE(parse(m, context, error));
  CHECK(error.find("mix::dsl: mix.dense in network @bad: input [2, 64] has "
                   "K = 64") == 0);
}

TEST_CASE("verifier errors are reported, not crashes", "[dsl]") {
  mlir::MLIRContext context;
  std::string error;

  // An int8 axis outside the weight's rank: the verifier's rule.
  model axisOutOfRange =
      network<f32>("axis", input("x", {2, 4})).body([](tensor x) {
        return dense(x, weight("w", {4, 3})).weights<int8_per_axis<2>>();
      });
  REQUIRE(axisOutOfRange.ok());
  CHECK_FALSE(parse(axisOutOfRange, context, error));
  INFO(error);
  CHECK(error.find("dsl:3:13: error: 'mix.dense' op weights precision "
                   "int8<symmetric, axis = 2> quantizes along axis 2, but the "
                   "weights tensor has rank 2\n") == 0);

  // A network name the C header cannot use.
  model badName = network<f32>("my-net", input("x", {2, 4})).body([](tensor x) {
    return relu(x);
  });
  REQUIRE(badName.ok());
  CHECK(badName.text().find("mix.network @\"my-net\"") == 0);
  CHECK_FALSE(parse(badName, context, error));
  CHECK(error.find("is not a C identifier") != std::string::npos);
}

TEST_CASE("models append networks", "[dsl]") {
  model m =
      network<f32>("a", input("x", {2})).body([](tensor x) { return relu(x); });
  m += network<bf16>("b", input("x", {2})).body([](tensor x) {
    return sigmoid(x);
  });
  REQUIRE(m.ok());
  mlir::MLIRContext context;
  std::string error;
  auto module = parse(m, context, error);
  REQUIRE(module);
  auto networks = module->getOps<mix::NetworkOp>();
  CHECK(std::distance(networks.begin(), networks.end()) == 2);
}
