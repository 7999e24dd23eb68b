#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in build-fuzz (clang-22, ASan +
# UBSan) and runs each one for a bounded time on a copy of its seed corpus
# (fuzz/corpus/<name>/ for <name>_fuzzer, with the dictionary
# fuzz/dict/<name>.dict if there is one), so the repository is not
# modified. Exits non-zero if any fuzzer finds a crash, printing the
# reproducer path; replay one with `build-fuzz/fuzz/bin/<name>_fuzzer FILE`.
#
#   MIXC_FUZZ_SECONDS   run time per fuzzer (default 60)
#   MIXC_FUZZ_COMPILER  1: also build the compiler (ASan + UBSan) and its
#                       fuzzers (fuzz/compiler/, fuzz/README.md)
#   MIXC_FUZZ_JOBS      build parallelism (default 1)
#   MIXC_FUZZ_SEED      libFuzzer's -seed (default: random). A fixed seed
#                       makes a run repeat the same mutations, so a crash
#                       found in CI is found again by the same command.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BUILD="$ROOT/build-fuzz"
SECONDS_PER_FUZZER="${MIXC_FUZZ_SECONDS:-60}"
JOBS="${MIXC_FUZZ_JOBS:-1}"
seed=()
if [ -n "${MIXC_FUZZ_SEED:-}" ]; then seed=(-seed="$MIXC_FUZZ_SEED"); fi
COMPILER=OFF
if [ "${MIXC_FUZZ_COMPILER:-0}" = "1" ]; then COMPILER=ON; fi

bash scripts/configure-build-fuzz.sh "$COMPILER"
ninja -C "$BUILD" -j"$JOBS" mixc_fuzzers
# Leaks of LLVM/MLIR globals are suppressed one by one (fuzz/lsan.supp).
export LSAN_OPTIONS="suppressions=$ROOT/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

status=0
shopt -s nullglob
for fuzzer in "$BUILD"/fuzz/bin/*_fuzzer; do
  name="$(basename "$fuzzer" _fuzzer)"
  # A compiler fuzzer left by an earlier MIXC_FUZZ_COMPILER=1 run is stale.
  if [ "$COMPILER" = OFF ] && [ -f "$ROOT/fuzz/compiler/${name}_fuzzer.cpp" ]; then
    continue
  fi
  work="$BUILD/fuzz/run/$name"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  if [ -d "$ROOT/fuzz/corpus/$name" ]; then
    cp -R "$ROOT/fuzz/corpus/$name/." "$work/corpus/"
  fi
  dict=()
  if [ -f "$ROOT/fuzz/dict/$name.dict" ]; then
    dict=(-dict="$ROOT/fuzz/dict/$name.dict")
  fi
  echo "fuzz: $name for ${SECONDS_PER_FUZZER}s${MIXC_FUZZ_SEED:+ (seed $MIXC_FUZZ_SEED)}"
  if ! (cd "$work" && "$fuzzer" -max_total_time="$SECONDS_PER_FUZZER" \
          -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" "${seed[@]}" \
          -artifact_prefix="$work/artifacts/" corpus >"$work/log" 2>&1); then
    status=1
    tail -n 40 "$work/log"
  fi
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
    "$work/log" || true
  for crash in "$work"/artifacts/*; do
    echo "fuzz: $name found a crash; reproducer: $crash"
    status=1
  done
done
exit "$status"
