//===- PrecisionMapTest.cpp - the precision map's page --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The page of the precision map: its data is the report's JSON, embedded so
// that no text of the model can end the <script> block or fill a
// placeholder; findings are placed at their layer or block. (Its drawing
// is tested in a browser: tests/html.)
//
//===----------------------------------------------------------------------===//

#include "JitUtil.h"

#include "compiler/PrecisionMap.h"
#include "mlir/Parser/Parser.h"

#include <catch2/catch.hpp>

using namespace mlir;
using namespace mix;
using namespace mix::test;

namespace {
size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}
} // namespace

TEST_CASE("the precision map embeds the report safely", "[report]") {
  Jit jit;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(R"mlir(
mix.network @n precision(f32) (%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = mix.block @half precision(f16) (%a = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %r = mix.softmax %a : (tensor<4xf32>) -> tensor<4xf32>
    mix.yield %r : tensor<4xf32>
  }
  mix.return %h : tensor<4xf32>
}
)mlir",
                                  &jit.context, "</script>.mlir");
  REQUIRE(module);
  PrecisionReport report;
  REQUIRE(succeeded(report.recordModel(*module)));

  // The default policy: softmax must compute in f32 or wider.
  FailureOr<std::vector<Finding>> findings =
      checkPolicy(*module, Policy::getDefault());
  REQUIRE(succeeded(findings));
  std::vector<MapFinding> placed = toMapFindings(*findings);
  REQUIRE(!placed.empty());
  CHECK(placed[0].at == "n/half/softmax#0");
  CHECK(placed[0].rule == "sensitive-op-precision");
  CHECK(placed[0].severity == "error");
  CHECK(placed[0].location == "</script>.mlir:4:10");

  std::string page = renderPrecisionMap(
      report, placed, {"mix-lint", "<b>@@DATA@@</script>.mlir", false});
  // Two script blocks end (the data and the code); the model's name and
  // locations appear escaped.
  CHECK(count(page, "</script>") == 2);
  CHECK(count(page, "<script") == 2);
  CHECK(page.find("<title>precision map: &lt;b&gt;&#64;&#64;DATA&#64;&#64;"
                  "&lt;/script&gt;.mlir (mix-lint)</title>") !=
        std::string::npos);
  CHECK(page.find("\"location\":\"\\u003c/script>.mlir:4:10\"") !=
        std::string::npos);
  // The model's name is in the data as it is, not replaced.
  CHECK(count(page, "@@DATA@@") == 1);
  CHECK(page.find("\"model\":\"\\u003cb>@@DATA@@\\u003c/script>.mlir\"") !=
        std::string::npos);
  CHECK(page.find("\"findings\":[{\"at\":\"n/half/softmax#0\"") !=
        std::string::npos);
}
