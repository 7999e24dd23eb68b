//===- Progress.h - what a long compilation is doing ----------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// mixc says what it is doing while it works. On a terminal, a compilation
// that has run for two seconds shows one status line, redrawn in place a
// few times a second and erased at the end:
//
//   mixc: [5/6] LLVM -O2: function 812 of 2003 (6.4 s)
//
// `--progress=always` prints the same information as plain lines (for logs
// and tests): one when a phase starts, one per step (a pass of the
// lowering), and one each time a count of functions passes a tenth of its
// total, so the lines do not depend on timing:
//
//   mixc: progress: [4/6] lower to the LLVM dialect: pass 3 of 22 (...)
//   mixc: progress: [5/6] LLVM -O2: function 201 of 2003
//
// The updates may come from several threads (MLIR's and LLVM's pass
// managers); each call is thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_PROGRESS_H
#define MIXC_COMPILER_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace mix {

/// `--progress`: when the status is shown.
enum class ProgressMode {
  automatic, ///< auto: a status line on a terminal, after two seconds
  always,    ///< always: plain lines, from the start, terminal or not
  never,     ///< never
};

class Progress {
public:
  /// `terminal`: whether `os` is displayed (automatic mode shows nothing
  /// otherwise). `delay`: how long a compilation runs before the status
  /// line appears (automatic mode). `tool`: the name the lines start with.
  Progress(ProgressMode mode, llvm::raw_ostream &os, bool terminal,
           std::chrono::milliseconds delay = std::chrono::seconds(2),
           llvm::StringRef tool = "mixc");
  /// Erases the status line.
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  /// Phase `index` (1-based) of `count` starts; its step and count reset.
  /// With `count` 0 the phase is shown without "[index/count] ".
  void beginPhase(llvm::StringRef name, unsigned index, unsigned count);
  /// The current step of the phase ("pass 3 of 22 (one-shot-bufferize)").
  void setStep(llvm::StringRef step);
  /// Counts units of work of the phase: `what` ("function") `total` of
  /// them, none done yet. tick() marks one more done.
  void startCount(llvm::StringRef what, uint64_t total);
  void tick();
  /// Erases the status line now, so that a message can be printed (the next
  /// redraw shows it again). Call with the output stream otherwise unused.
  void clearLine();

private:
  /// "[4/6] lower to the LLVM dialect: pass 3 of 22 (...)", under `mutex`.
  std::string describeLocked() const;
  /// The redraw thread of automatic mode.
  void redrawLoop();
  void printLine(const std::string &text);

  ProgressMode mode;
  llvm::raw_ostream &os;
  std::string tool;
  bool showStatus; // automatic mode on a terminal
  std::chrono::milliseconds delay;
  std::chrono::steady_clock::time_point start;

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool lineShown = false;
  std::string phase, step, countWhat;
  unsigned phaseIndex = 0, phaseCount = 0;
  uint64_t countTotal = 0;
  std::atomic<uint64_t> countDone{0};
  std::thread redraw;
};

} // namespace mix

#endif // MIXC_COMPILER_PROGRESS_H
