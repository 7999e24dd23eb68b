//===- MemoryPlanTest.cpp - the static memory planner ---------------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// planMemory() against a brute-force check on generated lifetimes: no two
// buffers live at the same step share a byte, every buffer fits inside the
// workspace at an aligned offset, and the reported lower bound is the most
// bytes live at any step (computed step by step here).
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "passes/MemoryPlan.h"

#include <algorithm>
#include <random>
#include <vector>

using namespace mix;

namespace {

/// Every property a plan must have, checked the slow way.
void checkPlan(const std::vector<BufferLifetime> &buffers,
               const MemoryPlan &plan, int64_t alignment) {
  REQUIRE(plan.offsets.size() == buffers.size());
  int64_t total = 0;
  unsigned lastStep = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    total += buffers[i].bytes;
    lastStep = std::max(lastStep, buffers[i].last);
    CHECK(plan.offsets[i] >= 0);
    CHECK(plan.offsets[i] % alignment == 0);
    CHECK(plan.offsets[i] + buffers[i].bytes <= plan.workspaceBytes);
    for (size_t j = 0; j < i; ++j) {
      const BufferLifetime &a = buffers[i], &b = buffers[j];
      bool liveTogether = a.first <= b.last && b.first <= a.last;
      bool overlap = plan.offsets[i] < plan.offsets[j] + b.bytes &&
                     plan.offsets[j] < plan.offsets[i] + a.bytes;
      if (liveTogether && a.bytes > 0 && b.bytes > 0)
        CHECK_FALSE(overlap);
    }
  }
  CHECK(plan.totalBytes == total);
  int64_t peak = 0;
  for (unsigned step = 0; step <= lastStep; ++step) {
    int64_t live = 0;
    for (const BufferLifetime &b : buffers)
      if (b.first <= step && step <= b.last)
        live += b.bytes;
    peak = std::max(peak, live);
  }
  CHECK(plan.peakBytes == peak);
  CHECK(plan.workspaceBytes >= plan.peakBytes);
  CHECK(plan.workspaceBytes % alignment == 0);
}

} // namespace

TEST_CASE("memory plan: no buffers", "[memoryplan]") {
  MemoryPlan plan = planMemory({});
  CHECK(plan.workspaceBytes == 0);
  CHECK(plan.peakBytes == 0);
  CHECK(plan.totalBytes == 0);
}

TEST_CASE("memory plan: a chain reuses two slots", "[memoryplan]") {
  // Layer i reads buffer i-1 and writes buffer i: at most two live at once.
  std::vector<BufferLifetime> chain;
  for (unsigned i = 0; i < 100; ++i)
    chain.push_back({4096, i, i + 1});
  MemoryPlan plan = planMemory(chain);
  checkPlan(chain, plan, 64);
  CHECK(plan.peakBytes == 2 * 4096);
  CHECK(plan.workspaceBytes == 2 * 4096);
  CHECK(plan.totalBytes == 100 * 4096);
}

TEST_CASE("memory plan: residual blocks stay within 10% of the bound",
          "[memoryplan]") {
  // ResNet-shaped: per block, x -> a -> b -> (a + x) with x live across
  // the block; widths doubling every 4 blocks, sizes halving.
  std::vector<BufferLifetime> buffers;
  unsigned step = 0;
  int64_t size = 1 << 20;
  for (unsigned block = 0; block < 16; ++block) {
    if (block % 4 == 0 && block > 0)
      size /= 2;
    unsigned x = step;
    buffers.push_back({size, x, x + 3});     // block input
    buffers.push_back({size, x + 1, x + 2}); // conv a
    buffers.push_back({size, x + 2, x + 3}); // conv b
    buffers.push_back({size, x + 3, x + 4}); // sum, next block's input
    step = x + 4;
  }
  MemoryPlan plan = planMemory(buffers);
  checkPlan(buffers, plan, 64);
  CHECK(double(plan.workspaceBytes) <= 1.1 * double(plan.peakBytes));
}

TEST_CASE("memory plan: random lifetimes", "[memoryplan]") {
  std::mt19937 rng(20261202);
  for (int64_t alignment : {1, 16, 64}) {
    for (int round = 0; round < 200; ++round) {
      std::uniform_int_distribution<int> count(1, 40), step(0, 30),
          length(0, 8), bytes(0, 5000);
      std::vector<BufferLifetime> buffers(count(rng));
      for (BufferLifetime &b : buffers) {
        b.first = step(rng);
        b.last = b.first + length(rng);
        b.bytes = bytes(rng);
      }
      MemoryPlan plan = planMemory(buffers, alignment);
      checkPlan(buffers, plan, alignment);
      // Never more than one allocation per buffer (aligned) would take.
      int64_t separate = 0;
      for (const BufferLifetime &b : buffers)
        separate += (b.bytes + alignment - 1) / alignment * alignment;
      CHECK(plan.workspaceBytes <= separate);
    }
  }
}
