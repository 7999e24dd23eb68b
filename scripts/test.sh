#!/usr/bin/env bash
# Sets up, checks the formatting (scripts/check-format.sh: clang-format-22
# over every tracked C/C++ file; fix drift with scripts/check-format.sh --fix),
# builds and runs every test: the lit suite, the Catch2 unit tests (including
# the full 2^32 conversion sweeps), then the runtime tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer.
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
