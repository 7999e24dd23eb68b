//===- MemoryPlan.h - static placement of buffers in one workspace --------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// The arithmetic of mix-plan-memory, free of IR so that it can be tested on
// generated lifetimes: given buffers with a size and a live range (the
// first and last step that uses them, inclusive), give each an offset in
// one workspace such that two buffers live at the same step never overlap.
// Greedy by size (largest first, lowest fitting offset), as TFLite Micro's
// GreedyMemoryPlanner and TVM's unified static memory planner do.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_PASSES_MEMORYPLAN_H
#define MIXC_PASSES_MEMORYPLAN_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mix {

/// One buffer: `bytes` live from step `first` to step `last`, inclusive.
struct BufferLifetime {
  int64_t bytes = 0;
  unsigned first = 0;
  unsigned last = 0;
};

struct MemoryPlan {
  /// The offset of each buffer, a multiple of the alignment.
  std::vector<int64_t> offsets;
  /// The bytes the workspace needs: the end of the last buffer, rounded up
  /// to the alignment (0 without buffers).
  int64_t workspaceBytes = 0;
  /// The sum of all buffer sizes (what one allocation per buffer takes).
  int64_t totalBytes = 0;
  /// The liveness lower bound: the most bytes live at one step. No
  /// placement needs less.
  int64_t peakBytes = 0;
};

/// Places `buffers`; `alignment` is a power of two.
MemoryPlan planMemory(llvm::ArrayRef<BufferLifetime> buffers,
                      int64_t alignment = 64);

} // namespace mix

#endif // MIXC_PASSES_MEMORYPLAN_H
