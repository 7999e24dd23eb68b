//===-- cpu.cpp - mixrt SIMD level detection and dispatch -----------------===//
//
// Detects AVX2 + FMA + F16C once and holds the process-wide level used by
// the bulk conversions and GEMMs.
//
//===----------------------------------------------------------------------===//

#include "internal.h"

#include <atomic>

namespace mixrt {
namespace {

SimdLevel detectCpuLevel() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c"))
    return SimdLevel::kAvx2;
#endif
  return SimdLevel::kPortable;
}

std::atomic<int> &currentLevel() {
  static std::atomic<int> level{static_cast<int>(CpuSimdLevel())};
  return level;
}

} // namespace

SimdLevel CpuSimdLevel() {
  static const SimdLevel level = detectCpuLevel();
  return level;
}

SimdLevel GetSimdLevel() {
  return static_cast<SimdLevel>(currentLevel().load(std::memory_order_relaxed));
}

absl::Status SetSimdLevel(SimdLevel level) {
  if (level != SimdLevel::kPortable && level != SimdLevel::kAvx2)
    return detail::invalidArgument("set_simd_level: unknown level ",
                                   static_cast<int>(level));
  if (static_cast<int>(level) > static_cast<int>(CpuSimdLevel()))
    return absl::UnimplementedError(
        "set_simd_level: this CPU lacks AVX2/FMA/F16C");
  currentLevel().store(static_cast<int>(level), std::memory_order_relaxed);
  return absl::OkStatus();
}

namespace detail {
bool useAvx2() { return GetSimdLevel() == SimdLevel::kAvx2; }
} // namespace detail

} // namespace mixrt

extern "C" {

mixrt_simd_level mixrt_cpu_simd_level(void) {
  return static_cast<mixrt_simd_level>(mixrt::CpuSimdLevel());
}

mixrt_simd_level mixrt_get_simd_level(void) {
  return static_cast<mixrt_simd_level>(mixrt::GetSimdLevel());
}

mixrt_status_code mixrt_set_simd_level(mixrt_simd_level level) {
  return mixrt::detail::guardC([&]() -> absl::Status {
    if (absl::Status s = mixrt::detail::checkEnum("set_simd_level", "level",
                                                  "mixrt_simd_level", level, 2);
        !s.ok())
      return s;
    return mixrt::SetSimdLevel(
        static_cast<mixrt::SimdLevel>(mixrt::detail::enumValue(level)));
  });
}

} // extern "C"
