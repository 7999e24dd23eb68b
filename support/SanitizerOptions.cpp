//===- SanitizerOptions.cpp - ASan defaults of the sanitized compiler -----===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Linked into every executable of a -DMIXC_SANITIZE=ON build that has the
// compiler (tools, unit tests, fuzzers; see the top-level CMakeLists.txt):
// the AddressSanitizer options that build needs, whoever runs it.
//
// Our code is instrumented, Debian's libLLVM and libMLIR are not. LLVM's
// BumpPtrAllocator (llvm/Support/Allocator.h) poisons the unused part of a
// new slab when it is compiled with ASan and unpoisons each allocation; the
// uninstrumented copy in libMLIR does neither. When one allocator (e.g. an
// MLIRContext's attribute storage) gets a slab from our code and later
// allocations from libMLIR, ASan reports a use-after-poison that is not one:
// `allow_user_poisoning=0` ignores such manual poisoning (heap, stack and
// global checks are unaffected). Container annotations are the same kind of
// one-sided bookkeeping: `detect_container_overflow=0`.
//
// Options given in ASAN_OPTIONS still apply, after these.
//
//===----------------------------------------------------------------------===//

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MIXC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MIXC_ASAN 1
#endif

#ifdef MIXC_ASAN
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_container_overflow=0";
}
#endif
