//===- Progress.cpp - what a long compilation is doing --------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Progress.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mix;

/// Erases the current terminal line: back to column 0, clear to its end.
static constexpr llvm::StringLiteral kEraseLine = "\r\x1b[K";

Progress::Progress(ProgressMode mode, llvm::raw_ostream &os, bool terminal,
                   std::chrono::milliseconds delay, llvm::StringRef tool)
    : mode(mode), os(os), tool(tool.str()),
      showStatus(mode == ProgressMode::automatic && terminal), delay(delay),
      start(std::chrono::steady_clock::now()) {
  if (showStatus)
    redraw = std::thread([this] { redrawLoop(); });
}

Progress::~Progress() {
  if (redraw.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    redraw.join();
  }
  clearLine();
}

std::string Progress::describeLocked() const {
  std::string text =
      phaseCount == 0
          ? phase
          : llvm::formatv("[{0}/{1}] {2}", phaseIndex, phaseCount, phase).str();
  if (!step.empty())
    text += ": " + step;
  if (!countWhat.empty())
    text += llvm::formatv(": {0} {1} of {2}", countWhat,
                          countDone.load(std::memory_order_relaxed), countTotal)
                .str();
  return text;
}

void Progress::printLine(const std::string &text) {
  os << tool << ": progress: " << text << "\n";
  os.flush();
}

void Progress::beginPhase(llvm::StringRef name, unsigned index,
                          unsigned count) {
  std::lock_guard<std::mutex> lock(mutex);
  phase = name.str();
  phaseIndex = index;
  phaseCount = count;
  step.clear();
  countWhat.clear();
  countTotal = 0;
  countDone.store(0, std::memory_order_relaxed);
  if (mode == ProgressMode::always)
    printLine(describeLocked());
}

void Progress::setStep(llvm::StringRef newStep) {
  std::lock_guard<std::mutex> lock(mutex);
  step = newStep.str();
  if (mode == ProgressMode::always)
    printLine(describeLocked());
}

void Progress::startCount(llvm::StringRef what, uint64_t total) {
  std::lock_guard<std::mutex> lock(mutex);
  countWhat = what.str();
  countTotal = total;
  countDone.store(0, std::memory_order_relaxed);
}

void Progress::tick() {
  uint64_t done = countDone.fetch_add(1, std::memory_order_relaxed) + 1;
  if (mode != ProgressMode::always)
    return;
  // A line each time the count passes a tenth of the total: which lines
  // appear depends on the total only, not on timing or threads.
  std::lock_guard<std::mutex> lock(mutex);
  if (countTotal == 0 || done > countTotal ||
      (done - 1) * 10 / countTotal == done * 10 / countTotal)
    return;
  printLine(llvm::formatv("[{0}/{1}] {2}{3}: {4} {5} of {6}", phaseIndex,
                          phaseCount, phase, step.empty() ? "" : ": " + step,
                          countWhat, done, countTotal)
                .str());
}

void Progress::clearLine() {
  std::lock_guard<std::mutex> lock(mutex);
  if (!lineShown)
    return;
  os << kEraseLine;
  os.flush();
  lineShown = false;
}

void Progress::redrawLoop() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, std::chrono::milliseconds(250));
    if (stopping)
      break;
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed < delay || phase.empty())
      continue;
    os << kEraseLine << tool << ": " << describeLocked()
       << llvm::formatv(" ({0:f1} s)",
                        std::chrono::duration<double>(elapsed).count());
    os.flush();
    lineShown = true;
  }
}
