#!/usr/bin/env bash
# Builds the compiler, its tools and the runtime with ASan + UBSan in
# build-fuzz (the build of scripts/fuzz.sh: clang-22, -DMIXC_SANITIZE=ON,
# see scripts/configure-build-fuzz.sh) and runs the lit suite with them.
# Debian's libLLVM/libMLIR stay uninstrumented; tests/lit/lit.cfg.py sets
# the sanitizer options of such a build (detect_container_overflow=0, the
# LeakSanitizer suppressions of fuzz/lsan.supp). Prints the time of the
# build and of the lit run.
#
#   MIXC_SANITIZE_JOBS  build and lit parallelism (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${MIXC_SANITIZE_JOBS:-1}"
BUILD=build-fuzz

bash scripts/configure-build-fuzz.sh ON
start=$SECONDS
ninja -C "$BUILD" -j"$JOBS" mix-opt mix-lint mixc mix-run mix-calibrate mixrt
built=$SECONDS
echo "sanitize-compiler: build took $((built - start)) s (-j$JOBS)"
status=0
LIT_OPTS="-j$JOBS" ctest --test-dir "$BUILD" -R '^lit$' --output-on-failure -j1 \
  || status=$?
echo "sanitize-compiler: lit took $((SECONDS - built)) s"
exit "$status"
