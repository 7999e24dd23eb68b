//===- OutputFilesTest.cpp - tests of support/OutputFiles.h ---------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "support/OutputFiles.h"

#include <atomic>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
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
      names.push_back(e.path().lexically_relative(dir).string());
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

TEST_CASE("borrowed pieces are written after the contents, in order",
          "[outputfiles]") {
  TempDir dir;
  const std::string big(1 << 20, 'x'), tail = std::string("t\0il", 4);
  OutputFiles files;
  files.add(dir.file("w.bin"), "head:",
            {llvm::ArrayRef<char>(big.data(), big.size()),
             llvm::ArrayRef<char>(), llvm::ArrayRef<char>(tail.data(), 4)});
  files.add(dir.file("only.bin"), "", {llvm::ArrayRef<char>(tail.data(), 4)});
  REQUIRE(errorText(files.commit()) == "");
  CHECK(readText(dir.file("w.bin")) == "head:" + big + tail);
  CHECK(readText(dir.file("only.bin")) == tail);
}

TEST_CASE("an empty set commits nothing", "[outputfiles]") {
  TempDir dir;
  OutputFiles files;
  CHECK(errorText(files.commit()) == "");
  CHECK(dir.tree().empty());
}

TEST_CASE("a failing rename restores what was replaced", "[outputfiles]") {
  TempDir dir;
  writeText(dir.file("m.o"), "old object");
  writeText(dir.file("m.h"), "old header");
  OutputFiles::Options options;
  // The temporary file of m.h disappears before publication: its rename
  // fails after m.o was renamed into place.
  options.beforePublish = [&] {
    for (const auto &e : fs::directory_iterator(dir.file("")))
      if (e.path().filename().string().rfind(".m.h.mixc-tmp-", 0) == 0)
        fs::remove(e.path());
  };
  OutputFiles files(options);
  files.add(dir.file("m.o"), "new object");
  files.add(dir.file("m.h"), "new header");
  files.add(dir.file("new/deeper/m.json"), "{}");
  auto [message, code] = failure(files.commit());
  CHECK_THAT(message, Matches("cannot rename '.*/\\.m\\.h\\.mixc-tmp-[0-9]+-"
                              "......' to '.*/m\\.h': .*"));
  CHECK(code == std::errc::no_such_file_or_directory);
  // Both previous files are back, the temporary files, hard links and
  // created directories are gone.
  CHECK(readText(dir.file("m.o")) == "old object");
  CHECK(readText(dir.file("m.h")) == "old header");
  CHECK(dir.tree() == std::vector<std::string>{"m.h", "m.o"});
}

TEST_CASE("a destination that is a directory is refused before writing",
          "[outputfiles]") {
  TempDir dir;
  fs::create_directories(dir.file("busy/sub"));
  OutputFiles files;
  files.add(dir.file("new/first.o"), "1");
  files.add(dir.file("busy"), "2");
  auto [message, code] = failure(files.commit());
  CHECK(message ==
        "cannot write '" + dir.file("busy") + "': it is a directory");
  CHECK(code == std::errc::is_a_directory);
  CHECK(dir.tree() == std::vector<std::string>{"busy", "busy/sub"});
}

TEST_CASE("two paths of one file are refused", "[outputfiles]") {
  TempDir dir;
  fs::create_directories(dir.file("d"));
  fs::create_directory_symlink(".", dir.file("d/dirlink"));
  writeText(dir.file("d/existing"), "keep");
  fs::create_hard_link(dir.file("d/existing"), dir.file("d/hardlink"));

  SECTION("a file that does not exist yet, through a symlinked directory") {
    OutputFiles files;
    files.add(dir.file("d/out2"), "object");
    files.add(dir.file("d/dirlink/out2"), "json");
    auto [message, code] = failure(files.commit());
    CHECK(message == "the outputs '" + dir.file("d/out2") + "' and '" +
                         dir.file("d/dirlink/out2") + "' are the same file");
    CHECK(code == std::errc::invalid_argument);
  }
  SECTION("an existing file, through a hard link") {
    OutputFiles files;
    files.add(dir.file("d/hardlink"), "1");
    files.add(dir.file("d/existing"), "2");
    CHECK_THAT(failure(files.commit()).first,
               Matches("the outputs '.*/d/hardlink' and '.*/d/existing' are "
                       "the same file"));
  }
  SECTION("through '..'") {
    OutputFiles files;
    files.add(dir.file("d/new"), "1");
    files.add(dir.file("d/../d/new"), "2");
    CHECK_THAT(failure(files.commit()).first, Matches(".* are the same file"));
  }
  CHECK(readText(dir.file("d/existing")) == "keep");
  CHECK(dir.tree() ==
        std::vector<std::string>{"d", "d/dirlink", "d/existing", "d/hardlink"});
  CHECK(getFileIdentity(dir.file("d/x")) ==
        getFileIdentity(dir.file("d/dirlink/x")));
  CHECK(getFileIdentity(dir.file("d/x")) != getFileIdentity(dir.file("d/y")));
}

TEST_CASE("a symlink to a regular file is followed, not replaced",
          "[outputfiles]") {
  TempDir dir;
  writeText(dir.file("real.h"), "old");
  fs::create_symlink("real.h", dir.file("link.h"));
  OutputFiles files;
  files.add(dir.file("link.h"), "new");
  REQUIRE(errorText(files.commit()) == "");
  CHECK(fs::is_symlink(dir.file("link.h")));
  CHECK(readText(dir.file("real.h")) == "new");
  CHECK(dir.tree() == std::vector<std::string>{"link.h", "real.h"});
}

TEST_CASE("character devices and FIFOs are written through", "[outputfiles]") {
  TempDir dir;
  SECTION("/dev/null, directly and through a symlink") {
    fs::create_symlink("/dev/null", dir.file("null-link"));
    for (const std::string &null :
         {std::string("/dev/null"), dir.file("null-link")}) {
      OutputFiles files;
      files.add(null, "report");
      files.add(dir.file("m.o"), "object");
      REQUIRE(errorText(files.commit()) == "");
      CHECK(fs::is_character_file("/dev/null"));
      CHECK(fs::is_symlink(dir.file("null-link")));
      CHECK(readText(dir.file("m.o")) == "object");
    }
    // Both at once name one file.
    OutputFiles files;
    files.add("/dev/null", "report");
    files.add(dir.file("null-link"), "text");
    CHECK(failure(files.commit()).first == "the outputs '/dev/null' and '" +
                                               dir.file("null-link") +
                                               "' are the same file");
  }
  SECTION("a FIFO with a reader") {
    REQUIRE(::mkfifo(dir.file("pipe").c_str(), 0600) == 0);
    std::string received;
    std::thread reader([&] { received = readText(dir.file("pipe")); });
    OutputFiles files;
    files.add(dir.file("pipe"), std::string(100000, 'x'));
    CHECK(errorText(files.commit()) == "");
    reader.join();
    CHECK(received == std::string(100000, 'x'));
    CHECK(fs::is_fifo(dir.file("pipe")));
  }
  SECTION("a FIFO whose reader goes away gives an error, not SIGPIPE") {
    REQUIRE(::mkfifo(dir.file("pipe").c_str(), 0600) == 0);
    std::thread reader([&] {
      int fd = ::open(dir.file("pipe").c_str(), O_RDONLY);
      char c;
      (void)::read(fd, &c, 1);
      ::close(fd);
    });
    OutputFiles files;
    files.add(dir.file("m.o"), "object");
    files.add(dir.file("pipe"), std::string(1 << 22, 'x'));
    auto [message, code] = failure(files.commit());
    reader.join();
    CHECK(message == "cannot write '" + dir.file("pipe") + "': Broken pipe");
    CHECK(code == std::errc::broken_pipe);
    // Nothing was published.
    CHECK(dir.tree() == std::vector<std::string>{"pipe"});
  }
}

TEST_CASE("stale temporary files of killed runs are removed", "[outputfiles]") {
  TempDir dir;
  // A pid that certainly no longer exists: a child that exited and was
  // reaped.
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  REQUIRE(child > 0);
  REQUIRE(::waitpid(child, nullptr, 0) == child);
  std::string dead = std::to_string(child);
  std::string alive = std::to_string(::getppid());
  writeText(dir.file(".m.o.mixc-tmp-" + dead + "-abcdef"), "stale");
  writeText(dir.file(".m.o.mixc-tmp-" + dead + "-abcdef.old"), "stale");
  writeText(dir.file(".m.o.mixc-tmp-" + alive + "-abcdef"), "running");
  writeText(dir.file(".x.o.mixc-tmp-" + dead + "-abcdef"), "other output");
  writeText(dir.file(".m.o.mixc-tmp-notapid-abcdef"), "not ours");
  OutputFiles files;
  files.add(dir.file("m.o"), "object");
  REQUIRE(errorText(files.commit()) == "");
  CHECK(dir.tree() ==
        std::vector<std::string>{".m.o.mixc-tmp-" + alive + "-abcdef",
                                 ".m.o.mixc-tmp-notapid-abcdef",
                                 ".x.o.mixc-tmp-" + dead + "-abcdef", "m.o"});
}

namespace {
std::atomic<int> termCount{0};
std::string headerSeenByHandler;
std::string *handlerHeaderPath = nullptr;
extern "C" void onTerm(int) {
  ++termCount;
  headerSeenByHandler = readText(*handlerHeaderPath);
}
} // namespace

TEST_CASE("a signal during publication is delivered after the last rename",
          "[outputfiles]") {
  TempDir dir;
  writeText(dir.file("m.o"), "old object");
  writeText(dir.file("m.h"), "old header");
  std::string header = dir.file("m.h");
  handlerHeaderPath = &header;
  struct sigaction action = {}, previous;
  action.sa_handler = onTerm;
  REQUIRE(::sigaction(SIGTERM, &action, &previous) == 0);
  termCount = 0;

  OutputFiles::Options options;
  std::vector<int> countAfterRename;
  options.afterRename = [&](size_t renamed) {
    if (renamed == 1)
      ::raise(SIGTERM);
    countAfterRename.push_back(termCount);
  };
  OutputFiles files(options);
  files.add(dir.file("m.o"), "new object");
  files.add(dir.file("m.h"), "new header");
  CHECK(errorText(files.commit()) == "");
  ::sigaction(SIGTERM, &previous, nullptr);
  // Held back during both renames, delivered once, when both were new.
  CHECK(countAfterRename == std::vector<int>{0, 0});
  CHECK(termCount == 1);
  CHECK(headerSeenByHandler == "new header");
  CHECK(readText(dir.file("m.o")) == "new object");
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
  OutputFiles::Options options;
  options.createDirectories = false;
  OutputFiles files(options);
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
