//===- MemoryPlan.cpp - static placement of buffers in one workspace ------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "passes/MemoryPlan.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mix;

static int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

MemoryPlan mix::planMemory(llvm::ArrayRef<BufferLifetime> buffers,
                           int64_t alignment) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  if (buffers.empty())
    return plan;

  // The lower bound: a sweep over the steps where a buffer starts or ends.
  std::map<unsigned, int64_t> delta;
  for (const BufferLifetime &b : buffers) {
    plan.totalBytes += b.bytes;
    delta[b.first] += b.bytes;
    delta[b.last + 1] -= b.bytes;
  }
  int64_t live = 0;
  for (auto &[step, change] : delta) {
    live += change;
    plan.peakBytes = std::max(plan.peakBytes, live);
  }

  // Largest first; ties by start, then index, so plans are deterministic.
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes)
      return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });

  std::vector<size_t> placed;
  std::vector<std::pair<int64_t, int64_t>> taken; // [begin, end) in bytes
  for (size_t i : order) {
    const BufferLifetime &b = buffers[i];
    taken.clear();
    for (size_t j : placed) {
      const BufferLifetime &o = buffers[j];
      if (o.first <= b.last && b.first <= o.last && o.bytes > 0)
        taken.push_back({plan.offsets[j], plan.offsets[j] + o.bytes});
    }
    llvm::sort(taken);
    // The lowest aligned offset whose [offset, offset + bytes) meets no
    // taken range.
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + b.bytes <= begin)
        break;
      offset = std::max(offset, alignTo(end, alignment));
    }
    plan.offsets[i] = offset;
    plan.workspaceBytes =
        std::max(plan.workspaceBytes, alignTo(offset + b.bytes, alignment));
    placed.push_back(i);
  }
  return plan;
}
