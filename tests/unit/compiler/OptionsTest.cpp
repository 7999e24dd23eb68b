//===- OptionsTest.cpp - command lines bound to option structs ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The tools' command lines parse into plain structs without global state:
// parsing twice in one process with different values gives each struct its
// own values, and nothing of the first parse leaks into the second.
//
//===----------------------------------------------------------------------===//

#include "compiler/Options.h"
#include "compiler/Driver.h"
#include "compiler/LintDriver.h"
#include "compiler/Pipeline.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace mix;

namespace {
std::string errorOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}
} // namespace

TEST_CASE("mixc command lines parse repeatedly into CompileOptions",
          "[options]") {
  llvm::Expected<CompileOptions> first = parseMixcCommandLine(
      {"model.mlir", "-o", "out/m", "--emit=asm", "-O3", "--split-k",
       "--per-tensor-weights", "--no-checks", "--policy", "p.json",
       "--calibration=c.json", "--entry", "@a", "--entry=b", "-v",
       "--target-cpu", "znver3"});
  REQUIRE(bool(first));
  CHECK(first->modelPath == "model.mlir");
  CHECK(first->outputStem == "out/m");
  CHECK(first->emit == EmitKind::assembly);
  CHECK(first->optLevel == 3);
  CHECK(first->pipeline.splitK == true);
  CHECK(first->pipeline.weightGranularity == WeightGranularity::tensor);
  CHECK(first->pipeline.checkedCasts == false);
  CHECK(first->pipeline.verifyPolicy == true);
  CHECK(first->pipeline.policyPath.getValue() == "p.json");
  CHECK(first->pipeline.calibrationPath.getValue() == "c.json");
  CHECK(first->entries == std::vector<std::string>{"a", "b"});
  CHECK(first->verbose);
  CHECK(first->targetCPU == "znver3");

  // The same options again with other values: nothing of the first parse
  // remains.
  llvm::Expected<CompileOptions> second =
      parseMixcCommandLine({"--no-policy", "other.mlir", "--emit", "mlir",
                            "-O0", "--weight-granularity=channel"});
  REQUIRE(bool(second));
  CHECK(second->modelPath == "other.mlir");
  CHECK(second->outputStem.empty());
  CHECK(second->emit == EmitKind::mlir);
  CHECK(second->optLevel == 0);
  CHECK(second->pipeline.splitK == false);
  CHECK(second->pipeline.weightGranularity == WeightGranularity::channel);
  CHECK(second->pipeline.checkedCasts == true);
  CHECK(second->pipeline.verifyPolicy == false);
  CHECK(second->pipeline.policyPath.getValue().empty());
  CHECK(second->entries.empty());
  CHECK_FALSE(second->verbose);

  // The first struct kept its values (the options are bound to it, not
  // global).
  CHECK(first->optLevel == 3);
  CHECK(first->pipeline.splitK == true);

  // Defaults.
  llvm::Expected<CompileOptions> defaults = parseMixcCommandLine({"m.mlir"});
  REQUIRE(bool(defaults));
  CHECK(defaults->emit == EmitKind::object);
  CHECK(defaults->optLevel == 2);
  CHECK(defaults->pipeline.stopAfter == MixPhase::llvm);
  CHECK(defaults->pipeline.verifyPolicy == true);
}

TEST_CASE("mixc command-line errors are one line", "[options]") {
  auto error = [](std::vector<const char *> args) {
    llvm::Expected<CompileOptions> options = parseMixcCommandLine(args);
    REQUIRE_FALSE(bool(options));
    return errorOf(options.takeError());
  };
  CHECK(error({}) == "no model given");
  CHECK(error({"a.mlir", "b.mlir"}) ==
        "more than one model given ('a.mlir' and 'b.mlir')");
  CHECK(error({"a.mlir", "--polcy=p.json"}) ==
        "unknown option '--polcy=p.json'; did you mean '--policy'?");
  CHECK(error({"a.mlir", "--emti=obj"}) ==
        "unknown option '--emti=obj'; did you mean '--emit'?");
  CHECK(error({"a.mlir", "--frobnicate"}) == "unknown option '--frobnicate'");
  CHECK(error({"a.mlir", "--emit=exe"}) ==
        "unknown --emit value 'exe' (expected obj, header, asm, llvm or mlir)");
  CHECK(error({"a.mlir", "--emit"}) ==
        "--emit needs a value: obj, header, asm, llvm or mlir");
  CHECK(error({"a.mlir", "--weights="}) == "--weights needs a file name");
  CHECK(error({"a.mlir", "-O4"}) ==
        "unknown optimization level '-O4' (expected -O0, -O1, -O2 or -O3)");
  CHECK(error({"a.mlir", "--weight-granularity=row"}) ==
        "unknown --weight-granularity value 'row' (expected channel or "
        "tensor)");
  CHECK(error({"a.mlir", "--split-k=true"}) ==
        "--split-k does not take a value");
  CHECK(error({"a.mlir", "--policy", "p.json", "--no-policy"}) ==
        "--policy and --no-policy exclude each other");
}

TEST_CASE("mixc --help and --version need no model", "[options]") {
  llvm::Expected<CompileOptions> help = parseMixcCommandLine({"-h"});
  REQUIRE(bool(help));
  CHECK(help->help);
  llvm::Expected<CompileOptions> version = parseMixcCommandLine({"--version"});
  REQUIRE(bool(version));
  CHECK(version->version);

  std::string text;
  llvm::raw_string_ostream os(text);
  printMixcHelp(os);
  CHECK(llvm::StringRef(text).starts_with(
      "usage: mixc MODEL.mlir [-o OUT] [options]\n"));
  CHECK(llvm::StringRef(text).contains("  --emit=KIND "));
  CHECK(llvm::StringRef(text).contains("      obj "));
  CHECK(llvm::StringRef(text).contains("  -o OUT, --output "));
  CHECK(llvm::StringRef(text).contains("  --no-policy "));
}

TEST_CASE("mix-lint command lines parse repeatedly into LintOptions",
          "[options]") {
  llvm::Expected<LintOptions> first = parseLintCommandLine(
      {"--format", "sarif", "m.mlir", "--policy=p.json", "--explain"});
  REQUIRE(bool(first));
  CHECK(first->modelPath == "m.mlir");
  CHECK(first->format == LintFormat::sarif);
  CHECK(first->policyPath == "p.json");
  CHECK(first->explain);
  llvm::Expected<LintOptions> second = parseLintCommandLine({"-"});
  REQUIRE(bool(second));
  CHECK(second->modelPath == "-");
  CHECK(second->format == LintFormat::text);
  CHECK(second->policyPath.empty());
  CHECK_FALSE(second->explain);

  llvm::Expected<LintOptions> bad =
      parseLintCommandLine({"m.mlir", "--format=xml"});
  REQUIRE_FALSE(bool(bad));
  CHECK(errorOf(bad.takeError()) ==
        "unknown format 'xml' (expected text, json, sarif or html)");
}

TEST_CASE("an OptionsBinder binds struct fields and its own help",
          "[options]") {
  struct Options {
    std::string name;
    unsigned count = 1;
    double ratio = 0.5;
    bool flag = false;
    std::vector<std::string> items;
  };
  auto bind = [](OptionsBinder &b, Options &o) {
    b.heading("Group");
    b.opt("name", o.name, {"a name"}, llvm::cl::value_desc("NAME"),
          llvm::cl::desc("the name"));
    b.opt("count", o.count, {}, llvm::cl::desc("how many"));
    b.opt("ratio", o.ratio, {}, llvm::cl::desc("a ratio"));
    b.flag("flag", o.flag, true, llvm::cl::desc("a flag"));
    b.list("item", o.items, {}, llvm::cl::desc("repeatable"));
  };
  Options a, b;
  {
    OptionsBinder binder;
    bind(binder, a);
    REQUIRE_FALSE(
        errorOf(binder.parse({"--name", "x", "--count=7", "--ratio", "0.25",
                              "--flag", "--item", "1", "--item=2"}))
            .size());
    CHECK(binder.occurrences("item") == 2);
    CHECK(binder.occurrences("name") == 1);
  }
  {
    OptionsBinder binder;
    bind(binder, b);
    CHECK(errorOf(binder.parse({"--count=many"})) ==
          "invalid --count: 'many' is not an integer");
    CHECK(errorOf(binder.parse({"--ratio=x"})) ==
          "invalid --ratio: 'x' is not a number");
    CHECK(errorOf(binder.parse({"--name"})) == "--name needs a name");
    CHECK(errorOf(binder.parse({"model"})) == "unexpected argument 'model'");
    CHECK(binder.suggest("cuont") == "--count");
    CHECK(binder.suggest("zzzzzz").empty());
    std::string help;
    llvm::raw_string_ostream os(help);
    binder.printHelp(os, "usage: t\n");
    CHECK(help == "usage: t\n"
                  "Group:\n"
                  "  --name=NAME               the name\n"
                  "  --count=VALUE             how many\n"
                  "  --ratio=VALUE             a ratio\n"
                  "  --flag                    a flag\n"
                  "  --item=VALUE              repeatable\n");
  }
  CHECK(a.name == "x");
  CHECK(a.count == 7);
  CHECK(a.ratio == 0.25);
  CHECK(a.flag);
  CHECK(a.items == std::vector<std::string>{"1", "2"});
  CHECK(b.name.empty());
  CHECK(b.count == 1);
  CHECK_FALSE(b.flag);
}

TEST_CASE("MixPipelineOptions is a value type parsed like a pass pipeline",
          "[options]") {
  std::unique_ptr<MixPipelineOptions> parsed =
      MixPipelineOptions::createFromString(
          "stop-after=casts split-k=true weight-granularity=tensor "
          "checked=false policy=p.json");
  REQUIRE(parsed);
  CHECK(parsed->stopAfter == MixPhase::casts);
  CHECK(parsed->splitK == true);
  CHECK(parsed->weightGranularity == WeightGranularity::tensor);
  CHECK(parsed->checkedCasts == false);
  CHECK(parsed->policyPath.getValue() == "p.json");

  MixPipelineOptions copy(*parsed);
  CHECK(copy.stopAfter == MixPhase::casts);
  CHECK(copy.weightGranularity == WeightGranularity::tensor);
  copy.stopAfter = MixPhase::quantize;
  CHECK(parsed->stopAfter == MixPhase::casts);

  // A bad phase is an error, not ignored.
  CHECK_FALSE(MixPipelineOptions::createFromString("stop-after=lowering"));
  CHECK_FALSE(MixPipelineOptions::createFromString("weight-granularity=rows"));
}
