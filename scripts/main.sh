#!/usr/bin/env bash
# The main job: set up, build, then resolve and lint every bundled example
# and print its per-layer precision table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
status=0
for model in examples/*.mlir; do
  echo "== ${model}"
  build/bin/mix-lint "${model}" --explain || status=$?
  echo
done
exit "${status}"
