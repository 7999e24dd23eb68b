//===- ProgressTest.cpp - mixc's progress line ----------------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Progress.h"

#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace mix;

namespace {

/// A stream that says it is a terminal, as mixc's standard error does when
/// it is one, and counts its writes. Writes may come from the redraw
/// thread: the test reads the text only after the Progress writing it is
/// destroyed (its thread joined), and the count in between.
class TerminalStream : public llvm::raw_ostream {
public:
  explicit TerminalStream(std::string &text) : text(text) { SetUnbuffered(); }
  bool is_displayed() const override { return true; }
  std::atomic<int> writes{0};

private:
  void write_impl(const char *data, size_t size) override {
    text.append(data, size);
    ++writes;
  }
  uint64_t current_pos() const override { return text.size(); }
  std::string &text;
};

} // namespace

TEST_CASE("always: a line per phase, step and tenth of a count", "[progress]") {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    Progress progress(ProgressMode::always, os, /*terminal=*/false);
    progress.beginPhase("load", 1, 2);
    progress.beginPhase("code generation", 2, 2);
    progress.setStep("pass 1 of 1 (x)");
    progress.startCount("function", 20);
    for (int i = 0; i < 20; ++i)
      progress.tick();
    // Past the total: no more lines.
    progress.tick();
  }
  std::vector<std::string> expected = {
      "mixc: progress: [1/2] load",
      "mixc: progress: [2/2] code generation",
      "mixc: progress: [2/2] code generation: pass 1 of 1 (x)",
  };
  // 20 functions: a line at 2, 4, ..., 20 (each tenth).
  for (int done = 2; done <= 20; done += 2)
    expected.push_back("mixc: progress: [2/2] code generation: pass 1 of 1 "
                       "(x): function " +
                       std::to_string(done) + " of 20");
  std::string want;
  for (const std::string &line : expected)
    want += line + "\n";
  CHECK(text == want);
}

TEST_CASE("always: a count below ten prints every unit", "[progress]") {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    Progress progress(ProgressMode::always, os, false);
    progress.beginPhase("LLVM -O2", 5, 6);
    progress.startCount("function", 3);
    for (int i = 0; i < 3; ++i)
      progress.tick();
  }
  CHECK(text == "mixc: progress: [5/6] LLVM -O2\n"
                "mixc: progress: [5/6] LLVM -O2: function 1 of 3\n"
                "mixc: progress: [5/6] LLVM -O2: function 2 of 3\n"
                "mixc: progress: [5/6] LLVM -O2: function 3 of 3\n");
}

TEST_CASE("automatic: nothing when not a terminal, nothing when never",
          "[progress]") {
  for (ProgressMode mode : {ProgressMode::automatic, ProgressMode::never}) {
    std::string text;
    TerminalStream terminal(text);
    std::string plainText;
    llvm::raw_string_ostream plain(plainText);
    {
      Progress onTerminal(mode, terminal,
                          /*terminal=*/mode == ProgressMode::never,
                          std::chrono::milliseconds(0));
      Progress onPipe(mode, plain, /*terminal=*/false,
                      std::chrono::milliseconds(0));
      for (Progress *p : {&onTerminal, &onPipe}) {
        p->beginPhase("load", 1, 1);
        p->startCount("function", 2);
        p->tick();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
    }
    CHECK(plainText.empty());
    CHECK(text.empty());
  }
}

TEST_CASE("automatic on a terminal: one status line, redrawn, then erased",
          "[progress]") {
  std::string text;
  TerminalStream terminal(text);
  {
    Progress progress(ProgressMode::automatic, terminal, /*terminal=*/true,
                      std::chrono::milliseconds(0));
    progress.beginPhase("LLVM -O2", 5, 6);
    progress.startCount("function", 40);
    for (int i = 0; i < 17; ++i)
      progress.tick();
    // The redraw thread wakes every 250 ms: wait for its first line (10 s
    // at most, on a loaded machine), then a little for a second.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (terminal.writes == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  REQUIRE(terminal.writes > 0);
  // Each redraw erases the line first; the last write erases it for good.
  const std::string erase = "\r\x1b[K";
  CHECK(text.rfind(erase + "mixc: [5/6] LLVM -O2: function 17 of 40 (", 0) ==
        0);
  CHECK(text.size() >= erase.size());
  CHECK(text.compare(text.size() - erase.size(), erase.size(), erase) == 0);
  CHECK(text.find('\n') == std::string::npos);
}

TEST_CASE("another tool's name, and phases without a count", "[progress]") {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    Progress progress(ProgressMode::always, os, /*terminal=*/false,
                      std::chrono::seconds(2), "mix-calibrate");
    progress.beginPhase("calibrating", 0, 0);
    progress.setStep("1/2 files, 10 samples");
  }
  CHECK(text ==
        "mix-calibrate: progress: calibrating\n"
        "mix-calibrate: progress: calibrating: 1/2 files, 10 samples\n");
}
