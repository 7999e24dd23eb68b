//===- ReportTest.cpp - the numbers of the precision report ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The precision report of the edge INT8 example, built in the stages mixc
// uses, checked against numbers derived by hand from the model.
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/Report.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {
void runPhases(ModuleOp module, MixPhase from, MixPhase to) {
  MixPipelineOptions options;
  options.startAt = from;
  options.stopAfter = to;
  PassManager pm(module.getContext());
  REQUIRE(succeeded(buildMixPipeline(pm, options)));
  REQUIRE(succeeded(pm.run(module)));
}

const PrecisionReport::Layer &layer(const PrecisionReport &r,
                                    llvm::StringRef path) {
  for (const PrecisionReport::Layer &l : r.layers())
    if (l.path == path)
      return l;
  FAIL("no layer " << path.str());
  return r.layers().front();
}
} // namespace

TEST_CASE("the precision report of the edge INT8 example", "[report]") {
  Jit jit;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      readExample("edge_int8.mlir"), &jit.context, "edge_int8.mlir");
  REQUIRE(module);
  inlineWeights(*module, makeWeights(*module));

  PrecisionReport report;
  REQUIRE(succeeded(report.recordModel(*module)));
  runPhases(*module, MixPhase::resolve, MixPhase::casts);
  report.recordCasts(*module);
  runPhases(*module, MixPhase::quantize, MixPhase::quantize);
  report.recordQuantized(*module);

  // Float weights of an all-f32 build, 4 bytes each:
  //   conv1 16*1*3*3 = 144 + bias 16, bn1 4 * 16 = 64,
  //   conv2 32*16*3*3 = 4608 + bias 32, bn2 4 * 32 = 128,
  //   fc1 1568*64 = 100352 + bias 64, fc2 64*10 = 640 + bias 10
  //   = 106058 values = 424232 bytes.
  CHECK(report.f32WeightBytes() == 424232);
  // The int8 build: the 4 GEMM weights in int8 (144 + 4608 + 100352 + 640
  // = 105744 bytes), one f32 scale and one i32 zero point per output
  // channel (16 + 32 + 64 + 10 = 122 channels: 488 bytes each), biases and
  // batch-norm parameters in f32 (122 + 192 = 314 values: 1256 bytes).
  CHECK(report.weightBytes().at("int8") == 105744);
  CHECK(report.weightBytes().at("f32") == 488 + 1256);
  CHECK(report.weightBytes().at("i32") == 488);
  CHECK(report.totalWeightBytes() == 107976);
  // Per layer (the precision map shows them): fc1 reads 1568 x 64 int8
  // weights, 64 f32 scales, 64 i32 zero points and 64 f32 biases; a relu
  // reads none; the layers' bytes add up to the total.
  int64_t perLayer = 0;
  for (const PrecisionReport::Layer &l : report.layers()) {
    REQUIRE(l.weightBytes);
    perLayer += *l.weightBytes;
  }
  CHECK(perLayer == 107976);
  CHECK(*layer(report, "edge/classifier/dense#0").weightBytes ==
        1568 * 64 + 3 * 64 * 4);
  CHECK(*layer(report, "edge/classifier/relu#0").weightBytes == 0);
  // 107976 / 424232 = 25.45%: within the 26% the edge target allows.
  CHECK(report.weightRatio() == Approx(107976.0 / 424232.0).epsilon(1e-12));
  CHECK(report.weightRatio() <= 0.26);

  // Provenance: the first conv is int8 because of block @features; the
  // classifier's first dense because of its own precision; relu inherits
  // the network's f32.
  const PrecisionReport::Layer &conv = layer(report, "edge/features/conv2d#0");
  CHECK(conv.location == "edge_int8.mlir:22:11");
  REQUIRE(conv.properties.size() == 4);
  CHECK(conv.properties[0].name == "weights");
  CHECK(conv.properties[0].precision == "int8");
  CHECK(conv.properties[0].source == "block");
  CHECK(conv.properties[0].origin == "block @features");
  CHECK(conv.properties[2].name == "accumulator");
  CHECK(conv.properties[2].precision == "i32");
  CHECK(conv.properties[2].source == "derived");
  const PrecisionReport::Layer &fc1 = layer(report, "edge/classifier/dense#0");
  CHECK(fc1.properties[1].precision == "int8");
  CHECK(fc1.properties[1].source == "layer");
  const PrecisionReport::Layer &relu = layer(report, "edge/classifier/relu#0");
  REQUIRE(relu.properties.size() == 3); // no weights
  CHECK(relu.properties[0].precision == "f32");
  CHECK(relu.properties[0].origin == "network @edge");

  // The int32 proof: symmetric int8, 127 * 127 = 16129 per product.
  REQUIRE(conv.k);
  CHECK(*conv.k == 9);
  CHECK(*conv.worstCase == 9 * 16129);
  CHECK(*conv.margin == 2147483647 - 9 * 16129);
  CHECK(*layer(report, "edge/features/conv2d#1").k == 16 * 9);
  CHECK(*fc1.k == 1568);
  CHECK(*fc1.margin == 2147483647 - 1568 * 16129);
  CHECK(!relu.k);

  // Casts: int8 layers take f32 (quantization is separate) and everything
  // else is f32, so no conversion is needed anywhere.
  REQUIRE(report.scopes().size() == 3);
  CHECK(report.scopes()[0].name == "network @edge");
  for (const PrecisionReport::Scope &s : report.scopes())
    CHECK(s.casts == 0);

  // Both forms carry the numbers.
  std::string text;
  llvm::raw_string_ostream os(text);
  report.print(os);
  CHECK(text.find("25.5% of an all-f32 build (424232 bytes)") !=
        std::string::npos);
  std::string json;
  llvm::raw_string_ostream js(json);
  js << report.toJSON();
  CHECK(json.find("\"all_f32_bytes\":424232") != std::string::npos);
  CHECK(json.find("\"total_bytes\":107976") != std::string::npos);
}

TEST_CASE("the report counts casts per block", "[report]") {
  Jit jit;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %r = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield %r : tensor<4xf32>
  }
  %y = mix.relu %h : (tensor<4xf32>) -> tensor<4xf32>
  mix.return %y : tensor<4xf32>
}
)mlir",
                                                             &jit.context);
  REQUIRE(module);
  PrecisionReport report;
  REQUIRE(succeeded(report.recordModel(*module)));
  runPhases(*module, MixPhase::resolve, MixPhase::casts);
  report.recordCasts(*module);
  // f32 -> f16 entering the block; f16 -> f32 for the relu after it.
  REQUIRE(report.scopes().size() == 2);
  CHECK(report.scopes()[0].name == "network @n");
  CHECK(report.scopes()[0].casts == 1);
  CHECK(report.scopes()[1].name == "block @n/half");
  CHECK(report.scopes()[1].casts == 1);
  // The precision each scope sets itself.
  CHECK(report.scopes()[0].precision == "f32");
  CHECK(report.scopes()[1].precision == "f16");
  // Per layer, the casts on its inputs (neither value comes from a layer:
  // a network argument and a block's result).
  REQUIRE(report.layers().size() == 2);
  const PrecisionReport::Layer &inner = report.layers()[0];
  CHECK(inner.path == "n/half/relu#0");
  REQUIRE(inner.castsIn.size() == 1);
  CHECK(inner.castsIn[0].from == "f32");
  CHECK(inner.castsIn[0].to == "f16");
  CHECK(inner.castsIn[0].producer.empty());
  const PrecisionReport::Layer &outer = report.layers()[1];
  REQUIRE(outer.castsIn.size() == 1);
  CHECK(outer.castsIn[0].from == "f16");
  CHECK(outer.castsIn[0].to == "f32");
}

TEST_CASE("the report names the layer a cast's value comes from", "[report]") {
  Jit jit;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = mix.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %h = mix.block @half precision(f16) (%a = %r) : (tensor<4xf32>) -> tensor<4xf32> {
    %s = mix.relu %a : (tensor<4xf32>) -> tensor<4xf32>
    %t = mix.relu %a precision(bf16) : (tensor<4xf32>) -> tensor<4xf32>
    %u = mix.add %s, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    mix.yield %u : tensor<4xf32>
  }
  mix.return %h : tensor<4xf32>
}
)mlir",
                                                             &jit.context);
  REQUIRE(module);
  PrecisionReport report;
  REQUIRE(succeeded(report.recordModel(*module)));
  runPhases(*module, MixPhase::resolve, MixPhase::casts);
  report.recordCasts(*module);
  REQUIRE(report.layers().size() == 4);
  // Through the block's binding %a = %r: the value is the first relu's.
  const PrecisionReport::Layer &s = report.layers()[1];
  REQUIRE(s.castsIn.size() == 1);
  CHECK(s.castsIn[0].from == "f32");
  CHECK(s.castsIn[0].to == "f16");
  CHECK(s.castsIn[0].producer == "n/relu#0");
  const PrecisionReport::Layer &t = report.layers()[2];
  REQUIRE(t.castsIn.size() == 1);
  CHECK(t.castsIn[0].to == "bf16");
  CHECK(t.castsIn[0].producer == "n/relu#0");
  // The add (f16) reads the bf16 relu's result through a cast.
  const PrecisionReport::Layer &u = report.layers()[3];
  REQUIRE(u.castsIn.size() == 1);
  CHECK(u.castsIn[0].from == "bf16");
  CHECK(u.castsIn[0].to == "f16");
  CHECK(u.castsIn[0].producer == "n/half/relu#1");
}

TEST_CASE("the report attributes the object's code to layers and precisions",
          "[report]") {
  Jit jit;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      R"mlir(
mix.network @n precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    %r = mix.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %s = mix.relu %r : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %s : tensor<2x4xf32>
  }
  %y = mix.add %h, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  mix.return %y : tensor<2x4xf32>
}
)mlir",
      &jit.context, "m.mlir");
  REQUIRE(module);
  PrecisionReport report;
  REQUIRE(succeeded(report.recordModel(*module)));
  REQUIRE(report.layers().size() == 3);

  // Two f16 relus share one function, the f32 add has two, a cast function
  // is called from the network's return (no layer).
  ObjectCode code;
  code.textBytes = 200;
  code.functionBytes = {{"mixc_layer_0", 40}, {"mixc_layer_1", 30},
                        {"mixc_layer_2", 20}, {"mixc_layer_3", 25},
                        {"mixc_net_n", 50},   {"_mlir_ciface_n", 9},
                        {"mixc_alloc_n", 11}};
  std::map<std::string, std::vector<std::string>> calls = {
      {"mixc_layer_0", {"m.mlir:4:10", "m.mlir:5:10"}},
      {"mixc_layer_1", {"m.mlir:8:8"}},
      {"mixc_layer_2", {"m.mlir:8:8"}},
      {"mixc_layer_3", {"m.mlir:9:3"}}};
  report.recordCode(code, calls, "x86_64-unknown-linux-gnu, cpu x86-64-v3");

  REQUIRE(report.hasCode());
  CHECK(report.codeBytes() == 200);
  const auto &groups = report.codeGroups();
  CHECK(groups.at("f16").bytes == 40);
  CHECK(groups.at("f16").functions == 1);
  CHECK(groups.at("f16").layers == 2);
  CHECK(groups.at("f32").bytes == 50);
  CHECK(groups.at("f32").functions == 2);
  CHECK(groups.at("f32").layers == 1);
  CHECK(groups.at("networks").bytes == 70);
  CHECK(groups.at("networks").functions == 3);
  CHECK(groups.at("other").bytes == 25);
  // 200 - (40 + 30 + 20 + 25 + 50 + 9 + 11) between and after functions.
  CHECK(report.codeAlignmentBytes() == 15);
  CHECK(report.layerCodeBytes(layer(report, "n/half/relu#0")) == 40);
  CHECK(report.layerCodeBytes(layer(report, "n/half/relu#1")) == 40);
  CHECK(report.layerCodeBytes(layer(report, "n/add#0")) == 50);

  std::string text;
  llvm::raw_string_ostream os(text);
  report.print(os);
  CHECK_THAT(text, Catch::Contains("    code          40 bytes: mixc_layer_0 "
                                   "(shared by 2 layers)\n"));
  CHECK_THAT(text, Catch::Contains("    code          50 bytes: mixc_layer_1, "
                                   "mixc_layer_2\n"));
  CHECK_THAT(text,
             Catch::Contains(
                 "Code (x86_64-unknown-linux-gnu, cpu x86-64-v3):\n"
                 "                  code  functions  layers    weights\n"
                 "  f16               40          1       2          -\n"
                 "  f32               50          2       1          -\n"
                 "  networks          70          3       -          -\n"
                 "  other             25          1       -          -\n"
                 "  alignment         15          -       -          -\n"
                 "  total            200          7       -          0\n"));
}
