#!/usr/bin/env bash
# Configures build-fuzz, the sanitized build shared by scripts/fuzz.sh and
# scripts/sanitize-compiler.sh: clang-22 (libFuzzer), RelWithDebInfo,
# -DMIXC_SANITIZE=ON (ASan + UBSan in the runtime and, with the compiler,
# in the compiler libraries, tools and fuzzers), -DMIXC_BUILD_FUZZERS=ON.
#
#   scripts/configure-build-fuzz.sh ON|OFF   with or without the compiler
#
# An existing build-fuzz is only switched (MIXC_BUILD_COMPILER); objects
# built before are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
COMPILER="${1:?usage: configure-build-fuzz.sh ON|OFF}"
BUILD="$PWD/build-fuzz"
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S "$PWD" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMIXC_BUILD_FUZZERS=ON \
    -DMIXC_SANITIZE=ON -DMIXC_BUILD_BENCHMARKS=OFF \
    -DMIXC_BUILD_COMPILER="$COMPILER"
else
  cmake "$BUILD" -DMIXC_BUILD_COMPILER="$COMPILER" >/dev/null
fi
