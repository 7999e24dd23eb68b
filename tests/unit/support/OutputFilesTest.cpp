//===- OutputFilesTest.cpp - tests of support/OutputFiles.h ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "support/OutputFiles.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mix;
using Catch::Matchers::Matches;
namespace fs = std::filesystem;

namespace {

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
  TempDir() {
    static int counter = 0;
    dir = fs::temp_directory_path() /
          ("mixc-support-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string &name) const {
    return (dir / name).string();
  }
  /// Every file and directory below the directory, relative, sorted.
  std::vector<std::string> tree() const {
    std::vector<std::string> names;
    for (const auto &e : fs::recursive_directory_iterator(dir))
      names.push_back(fs::relative(e.path(), dir).string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  fs::path dir;
};

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

/// The message of `error`, empty for success.
std::string errorText(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

/// The message and error code of `error`, which must be a failure.
std::pair<std::string, std::error_code> failure(llvm::Error error) {
  REQUIRE(static_cast<bool>(error));
  std::pair<std::string, std::error_code> result;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    result = {e.message(), e.convertToErrorCode()};
  });
  return result;
}

} // namespace

TEST_CASE("commit writes every file and creates directories", "[outputfiles]") {
  TempDir dir;
  writeText(dir.file("m.o"), "stale");
  OutputFiles files;
  CHECK(files.empty());
  files.add(dir.file("m.o"), "object");
  files.add(dir.file("a/b/m.h"), std::string("hea\0der", 7));
  CHECK_FALSE(files.empty());
  CHECK(files.paths() ==
        std::vector<std::string>{dir.file("m.o"), dir.file("a/b/m.h")});
  // Nothing touches the disk before commit().
  CHECK(dir.tree() == std::vector<std::string>{"m.o"});

  REQUIRE(errorText(files.commit()) == "");
  CHECK(readText(dir.file("m.o")) == "object");
  CHECK(readText(dir.file("a/b/m.h")) == std::string("hea\0der", 7));
  CHECK(dir.tree() == std::vector<std::string>{"a", "a/b", "a/b/m.h", "m.o"});
}

TEST_CASE("an empty set commits nothing", "[outputfiles]") {
  TempDir dir;
  OutputFiles files;
  CHECK(errorText(files.commit()) == "");
  CHECK(dir.tree().empty());
}

TEST_CASE("a failing rename rolls everything back", "[outputfiles]") {
  TempDir dir;
  // The second destination is a directory that is not empty: its rename
  // fails after the first file was renamed into place.
  fs::create_directories(dir.file("busy/sub"));
  OutputFiles files;
  files.add(dir.file("new/deeper/first.o"), "1");
  files.add(dir.file("busy"), "2");
  auto [message, code] = failure(files.commit());
  CHECK_THAT(message, Matches("cannot rename '.*/busy\\.tmp\\.......' to "
                              "'.*/busy': .*"));
  CHECK((code == std::errc::is_a_directory ||
         code == std::errc::directory_not_empty));
  // The renamed output, the temporary files and the created directories are
  // gone; the directory that was there stays.
  CHECK(dir.tree() == std::vector<std::string>{"busy", "busy/sub"});
}

TEST_CASE("directories that cannot be created", "[outputfiles]") {
  TempDir dir;
  writeText(dir.file("afile"), "x");
  OutputFiles files;
  files.add(dir.file("ok.o"), "1");
  files.add(dir.file("afile/sub/m.h"), "2");
  auto [message, code] = failure(files.commit());
  CHECK(
      message.rfind("cannot create directory '" + dir.file("afile/sub") + "': ",
                    0) == 0);
  CHECK(code == std::errc::not_a_directory);
  CHECK(dir.tree() == std::vector<std::string>{"afile"});
}

TEST_CASE("without createDirectories a missing directory fails",
          "[outputfiles]") {
  TempDir dir;
  OutputFiles files(OutputFiles::Options{/*createDirectories=*/false});
  files.add(dir.file("ok.o"), "1");
  files.add(dir.file("no/such/m.h"), "2");
  auto [message, code] = failure(files.commit());
  CHECK(message == "cannot create a temporary file for '" +
                       dir.file("no/such/m.h") +
                       "': No such file or directory");
  CHECK(code == std::errc::no_such_file_or_directory);
  // The temporary file of ok.o was removed too.
  CHECK(dir.tree().empty());
}
