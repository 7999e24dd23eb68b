#!/usr/bin/env bash
# Builds the compiler, its tools and the runtime with ASan + UBSan in
# build-fuzz (the build of scripts/fuzz.sh: clang-22, -DMIXC_SANITIZE=ON,
# see scripts/configure-build-fuzz.sh) and runs the lit suite with them.
# Debian's libLLVM/libMLIR stay uninstrumented; the tools carry the ASan
# defaults such a build needs (support/SanitizerOptions.cpp) and
# tests/lit/lit.cfg.py turns on leak detection with fuzz/lsan.supp. Prints the
# time of the build and of each test run.
#
#   MIXC_SANITIZE_JOBS  build and lit parallelism (default 1)
#   MIXC_SANITIZE_UNIT  1: also build and run the Catch2 tests of the
#                       compiler, io and support libraries
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${MIXC_SANITIZE_JOBS:-1}"
UNIT="${MIXC_SANITIZE_UNIT:-0}"
BUILD=build-fuzz

bash scripts/configure-build-fuzz.sh ON
# What the lit suite runs: the tools, the runtime, and the programs of
# examples/dsl (tests/lit/Examples/dsl.test).
targets=(mix-opt mix-lint mix-lsp-server mixc mix-run mix-calibrate mix-bench mixrt mixrt_core
  mix-dsl-resnet mix-dsl-edge_int8 mix-dsl-transformer)
# The ONNX importer (MIXC_ENABLE_ONNX, on by default) and its tests. The
# target list is read whole before it is searched: `ninja ... | grep -q`
# under pipefail fails whenever grep exits before ninja has written
# everything (SIGPIPE), which silently left the importer unbuilt and failed
# every Import test of the sanitized lit run.
onnx=0
all_targets=$(ninja -C "$BUILD" -t targets all 2>/dev/null)
if grep -q '^mix-import-onnx:' <<<"$all_targets"; then
  onnx=1
  targets+=(mix-import-onnx mix-onnx-conformance)
fi
if [ "$UNIT" = "1" ]; then
  targets+=(mix_compiler_tests mix_io_tests mix_support_tests)
  if [ "$onnx" = "1" ]; then targets+=(mix_onnx_tests); fi
fi
start=$SECONDS
ninja -C "$BUILD" -j"$JOBS" "${targets[@]}"
built=$SECONDS
echo "sanitize-compiler: build took $((built - start)) s (-j$JOBS)"
status=0
LIT_OPTS="-j$JOBS" ctest --test-dir "$BUILD" -R '^lit$' --output-on-failure -j1 \
  || status=$?
echo "sanitize-compiler: lit took $((SECONDS - built)) s"
if [ "$UNIT" = "1" ]; then
  unit=$SECONDS
  LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    ctest --test-dir "$BUILD" -L '^(compiler|io|support)$' -E '^lit$' \
      --output-on-failure -j"$JOBS" || status=$?
  echo "sanitize-compiler: unit tests took $((SECONDS - unit)) s"
fi
exit "$status"
