#!/usr/bin/env bash
# Sets up, checks the formatting (scripts/check-format.sh: clang-format-22
# over every tracked C/C++ file; fix drift with scripts/check-format.sh --fix),
# builds and runs every test: the lit suite, the Catch2 unit tests (including
# the full 2^32 conversion sweeps), then the runtime tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the compiler's lit suite
# under ASan + UBSan (scripts/sanitize-compiler.sh, clang-22, build-fuzz/) and
# every libFuzzer target for a bounded time (scripts/fuzz.sh; a crash fails
# the run and prints its reproducer).
#
#   MIXC_JOBS           build and test parallelism (default 2)
#   MIXC_FUZZ_SECONDS   run time per fuzzer (default 45; 6 fuzzers)
#   MIXC_FUZZ_SEED      libFuzzer seed (default 1, so the suite repeats the
#                       same mutations and a failure is reproducible; run
#                       scripts/fuzz.sh alone, seed unset, to explore)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${MIXC_JOBS:-2}"

bash scripts/setup.sh
bash scripts/check-format.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"${JOBS}"

# Runtime-only sanitizer build (no LLVM flags, no compiler).
if [ ! -f build-asan/build.ninja ]; then
  cmake -G Ninja -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMIXC_BUILD_COMPILER=OFF -DMIXC_BUILD_BENCHMARKS=OFF -DMIXC_SANITIZE=ON
fi
ninja -C build-asan -j"${JOBS}"
ctest --test-dir build-asan --output-on-failure -j"${JOBS}" -LE sweep

# The compiler under sanitizers, then the fuzzers (their build reuses
# build-fuzz). Each prints its own timings.
MIXC_SANITIZE_JOBS="${JOBS}" bash scripts/sanitize-compiler.sh
MIXC_FUZZ_COMPILER=1 MIXC_FUZZ_JOBS="${JOBS}" \
  MIXC_FUZZ_SECONDS="${MIXC_FUZZ_SECONDS:-45}" \
  MIXC_FUZZ_SEED="${MIXC_FUZZ_SEED:-1}" bash scripts/fuzz.sh
echo "test.sh: all suites passed"
