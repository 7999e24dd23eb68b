//===- Target.cpp - the target machine of a mixc compilation --------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Target.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <map>
#include <mutex>
#include <optional>

using namespace mix;

static llvm::Error makeTargetError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

/// Sorted, so that the output does not depend on hash order.
std::string mix::getHostFeatures() {
  std::map<std::string, bool> sorted;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    sorted[feature.getKey().str()] = feature.getValue();
  llvm::SubtargetFeatures features;
  for (const auto &[name, enabled] : sorted)
    features.AddFeature(name, enabled);
  return features.getString();
}

llvm::Expected<Target> mix::selectTarget(llvm::StringRef triple,
                                         llvm::StringRef cpu,
                                         unsigned optLevel) {
  initializeTargets();
  Target target;
  llvm::Triple host(llvm::sys::getProcessTriple());
  target.triple =
      triple.empty() ? host : llvm::Triple(llvm::Triple::normalize(triple));
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (!llvmTarget)
    return makeTargetError("unknown --target-triple '" + triple +
                           "': " + error);

  // The host CPU (with the host's features) unless another CPU or another
  // architecture is asked for.
  bool hostArch = target.triple.getArch() == host.getArch();
  if (cpu.empty() || cpu == "native") {
    if (hostArch) {
      target.cpu = llvm::sys::getHostCPUName().str();
      target.features = getHostFeatures();
    } else {
      target.cpu = "generic";
    }
  } else {
    target.cpu = cpu.str();
    std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
        llvmTarget->createMCSubtargetInfo(target.triple, "", ""));
    if (!subtarget || !subtarget->isCPUStringValid(target.cpu))
      return makeTargetError("unknown --target-cpu '" + target.cpu + "' for " +
                             target.triple.str());
  }

  llvm::CodeGenOptLevel level;
  switch (optLevel) {
  case 0:
    level = llvm::CodeGenOptLevel::None;
    break;
  case 1:
    level = llvm::CodeGenOptLevel::Less;
    break;
  case 2:
    level = llvm::CodeGenOptLevel::Default;
    break;
  default:
    level = llvm::CodeGenOptLevel::Aggressive;
    break;
  }
  // Position-independent code links into executables (PIE) and shared
  // libraries alike. A bare-metal image is linked at fixed addresses (its
  // linker script places flash and RAM): static code there needs no GOT,
  // which embedded linker scripts often do not provide.
  llvm::Reloc::Model reloc =
      target.isBareMetal() ? llvm::Reloc::Static : llvm::Reloc::PIC_;
  target.machine.reset(llvmTarget->createTargetMachine(
      target.triple, target.cpu, target.features, llvm::TargetOptions(), reloc,
      std::nullopt, level));
  if (!target.machine)
    return makeTargetError("cannot create a target machine for " +
                           target.triple.str());
  return std::move(target);
}

bool mix::Target::hasFusedMultiplyAdd() const {
  const llvm::MCSubtargetInfo *subtarget = machine->getMCSubtargetInfo();
  switch (triple.getArch()) {
  case llvm::Triple::x86:
  case llvm::Triple::x86_64:
    return subtarget->checkFeatures("+fma");
  case llvm::Triple::arm:
  case llvm::Triple::armeb:
  case llvm::Triple::thumb:
  case llvm::Triple::thumbeb:
    return subtarget->checkFeatures("+vfp4d16sp");
  case llvm::Triple::aarch64:
  case llvm::Triple::aarch64_be:
    return subtarget->checkFeatures("+fp-armv8");
  default:
    return false;
  }
}
