//===-- test_util.h - Helpers shared by the mixrt tests ---------*- C++ -*-===//

#ifndef MIXRT_TESTS_TEST_UTIL_H
#define MIXRT_TESTS_TEST_UTIL_H

#include "mixrt/mixrt.hpp"
#include "mixrt/ukernel.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace mixrt::test {

template <class To, class From> To bits(const From &from) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

inline float f32FromBits(uint32_t b) { return bits<float>(b); }
inline uint32_t bitsOf(float f) { return bits<uint32_t>(f); }
inline double f64FromBits(uint64_t b) { return bits<double>(b); }
inline uint64_t bitsOf(double d) { return bits<uint64_t>(d); }

/// Forces the microkernels' path (MIXRT_ISA's choice) for a scope; the
/// machine must have it.
class IsaScope {
public:
  explicit IsaScope(mixrt_ukernel_isa isa) : saved_(mixrt_ukernel_get_isa()) {
    REQUIRE(mixrt_ukernel_set_isa(isa) == MIXRT_STATUS_OK);
  }
  ~IsaScope() { (void)mixrt_ukernel_set_isa(saved_); }

private:
  mixrt_ukernel_isa saved_;
};

/// Every microkernel path this CPU runs, portable first.
inline std::vector<mixrt_ukernel_isa> availablePaths() {
  std::vector<mixrt_ukernel_isa> paths;
  for (int i = 0; i <= static_cast<int>(mixrt_ukernel_cpu_isa()); ++i)
    paths.push_back(static_cast<mixrt_ukernel_isa>(i));
  return paths;
}

/// Sets the process-wide SIMD level for a scope.
class SimdLevelScope {
public:
  explicit SimdLevelScope(SimdLevel level) : saved_(GetSimdLevel()) {
    ok_ = SetSimdLevel(level).ok();
  }
  ~SimdLevelScope() { (void)SetSimdLevel(saved_); }
  /// False if the CPU lacks the level.
  bool ok() const { return ok_; }

private:
  SimdLevel saved_;
  bool ok_ = false;
};

/// The levels this CPU can run.
inline std::vector<SimdLevel> availableSimdLevels() {
  std::vector<SimdLevel> levels = {SimdLevel::kPortable};
  if (CpuSimdLevel() == SimdLevel::kAvx2)
    levels.push_back(SimdLevel::kAvx2);
  return levels;
}

inline const char *simdLevelName(SimdLevel level) {
  return level == SimdLevel::kAvx2 ? "avx2" : "portable";
}

} // namespace mixrt::test

#endif // MIXRT_TESTS_TEST_UTIL_H
