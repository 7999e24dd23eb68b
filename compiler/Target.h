//===- Target.h - the target machine of a mixc compilation ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Chooses the LLVM target machine mixc compiles for: the host (its CPU and
// CPU features) unless a triple or a CPU is given.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_TARGET_H
#define MIXC_COMPILER_TARGET_H

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <string>

namespace mix {

/// A target machine and what it was made from.
struct Target {
  llvm::Triple triple;
  std::string cpu;
  std::string features;
  std::unique_ptr<llvm::TargetMachine> machine;

  /// No operating system (`thumbv7em-none-eabihf`, `aarch64-none-elf`): code
  /// for it is freestanding and not position-independent.
  bool isBareMetal() const { return triple.isOSUnknown(); }

  /// The CPU has a single-precision fused multiply-add instruction (x86:
  /// FMA3, from `x86-64-v3`; Arm: VFPv4, e.g. Cortex-M7; AArch64: always).
  /// Without one, each `math.fma` is a call of libm's `fmaf`.
  bool hasFusedMultiplyAdd() const;
};

/// The target machine for `triple` (empty: the host) and `cpu` (empty or
/// "native": the host CPU with its features on the host's architecture,
/// else "generic"), optimizing at `optLevel` (0 to 3). Produces
/// position-independent code, except for bare-metal targets (no OS), where
/// code is linked at a fixed address and PIC would only add a GOT. Errors
/// name the option at fault ("unknown --target-cpu 'x' for TRIPLE").
llvm::Expected<Target> selectTarget(llvm::StringRef triple, llvm::StringRef cpu,
                                    unsigned optLevel);

/// The host's CPU features as "+avx2,+fma,-avx512f,..." (sorted).
std::string getHostFeatures();

} // namespace mix

#endif // MIXC_COMPILER_TARGET_H
