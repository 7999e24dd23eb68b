//===- LintDriverTest.cpp - mix-lint's library entry points ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/LintDriver.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace mix;

namespace {
/// A temporary file with the given contents, removed on destruction.
struct TempFile {
  TempFile(llvm::StringRef suffix, llvm::StringRef contents) {
    llvm::SmallString<128> p;
    int fd;
    REQUIRE(!llvm::sys::fs::createTemporaryFile("mixlint", suffix, fd, p));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    path = std::string(p);
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
  std::string path;
};

struct Run {
  int code;
  std::string out, err;
};

Run lint(std::vector<std::string> args) {
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  Run r;
  llvm::raw_string_ostream out(r.out), err(r.err);
  r.code = lintMain(argv, out, err);
  return r;
}

const char *kModel =
    R"mlir(mix.network @n precision(f32) (%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = mix.block @b precision(f16) (%a = %x) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    %s = mix.softmax %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
    mix.yield %s : tensor<2x4xf32>
  }
  mix.return %y : tensor<2x4xf32>
}
)mlir";
} // namespace

TEST_CASE("policy errors exit 1 with located findings and notes", "[lint]") {
  TempFile model(".mlir", kModel);
  Run r = lint({model.path});
  CHECK(r.code == kLintPolicyErrors);
  CHECK(r.err.empty());
  std::string loc = model.path + ":3:10";
  std::string block = model.path + ":2:8";
  CHECK(r.out ==
        loc +
            ": error: [sensitive-op-precision] 'mix.softmax' computes in "
            "f16 (activations); softmax must compute in f32 or wider\n" +
            block + ": note: f16 inherited from block @b\n" + loc +
            ": warning: [reduced-precision-reduction] 'mix.softmax' "
            "evaluates exp in f16 (activations); exp overflows reduced "
            "formats quickly\n" +
            block + ": note: f16 inherited from block @b\n" +
            "mix-lint: " + model.path + ": 1 error(s), 1 warning(s)\n");
}

TEST_CASE("a policy can turn the findings off", "[lint]") {
  TempFile model(".mlir", kModel);
  TempFile policy(".json", R"({"rules": {"sensitive-op-precision": "warning",
                                 "reduced-precision-reduction": "off"}})");
  Run r = lint({model.path, "--policy", policy.path});
  CHECK(r.code == kLintClean);
  CHECK(llvm::StringRef(r.out).ends_with("0 error(s), 1 warning(s)\n"));
}

TEST_CASE("json output is machine-readable", "[lint]") {
  TempFile model(".mlir", kModel);
  Run r = lint({model.path, "--format=json", "--explain"});
  CHECK(r.code == kLintPolicyErrors);
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(r.out);
  REQUIRE(bool(doc));
  llvm::json::Object *o = doc->getAsObject();
  REQUIRE(o);
  CHECK(o->getInteger("errors") == 1);
  CHECK(o->getInteger("warnings") == 1);
  llvm::json::Array *findings = o->getArray("findings");
  REQUIRE(findings);
  REQUIRE(findings->size() == 2);
  llvm::json::Object *first = (*findings)[0].getAsObject();
  CHECK(first->getString("rule") == "sensitive-op-precision");
  CHECK(first->getString("precision") == "f16");
  CHECK(first->getString("property") == "activations");
  llvm::json::Array *layers = o->getArray("layers");
  REQUIRE(layers);
  REQUIRE(layers->size() == 1);
  llvm::json::Object *props =
      (*layers)[0].getAsObject()->getObject("properties");
  CHECK(props->getObject("activations")->getString("source") == "block @b");
  CHECK(props->getObject("accumulator")->getString("precision") == "f32");
  CHECK(props->getObject("weights") == nullptr);
}

TEST_CASE("bad input exits 2 with one line", "[lint][errors]") {
  SECTION("missing model") {
    Run r = lint({"/nonexistent/model.mlir"});
    CHECK(r.code == kLintBadInput);
    CHECK(r.err == "mix-lint: error: cannot read model "
                   "'/nonexistent/model.mlir': No such file or directory\n");
    CHECK(r.out.empty());
  }
  SECTION("malformed IR") {
    TempFile model(".mlir", "mix.network @n precision(f32) (%x: tensor<2xf32>) "
                            "-> tensor<2xf32> {\n  mix.return %y : "
                            "tensor<2xf32>\n}\n");
    Run r = lint({model.path});
    CHECK(r.code == kLintBadInput);
    // The error line, then the source line and a caret under column 14.
    CHECK(r.err == "mix-lint: error: " + model.path +
                       ":2:14: use of undeclared SSA value name\n"
                       "  mix.return %y : tensor<2xf32>\n"
                       "             ^\n");
  }
  SECTION("no network") {
    TempFile model(".mlir", "module {}\n");
    Run r = lint({model.path});
    CHECK(r.code == kLintBadInput);
    CHECK(r.err == "mix-lint: error: " + model.path +
                       ": no 'mix.network' in the model\n");
  }
  SECTION("usage errors") {
    CHECK(lint({}).code == kLintBadInput);
    CHECK(lint({"a.mlir", "b.mlir"}).code == kLintBadInput);
    CHECK(lint({"a.mlir", "--format", "xml"}).code == kLintBadInput);
    CHECK(lint({"a.mlir", "--policy"}).code == kLintBadInput);
    CHECK(lint({"a.mlir", "--frobnicate"}).code == kLintBadInput);
    CHECK(lint({"--help"}).code == kLintClean);
  }
}
