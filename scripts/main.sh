#!/usr/bin/env bash
# The main job: set up, build, lint every bundled example (its per-layer
# precision table, and its precision map in build/maps/), then compile the edge INT8 example with mixc inside the
# build of examples/embed-app (find_package(mixc) + mixc_add_model), run the
# app and check its output against the reference interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
status=0
for model in examples/*.mlir; do
  echo "== ${model}"
  build/bin/mix-lint "${model}" --explain || status=$?
  # The same, drawn: the precision map (docs/cli.md#the-precision-map).
  map="build/maps/$(basename "${model}" .mlir).html"
  build/bin/mix-lint "${model}" --format=html -o "${map}" || status=$?
  echo "precision map: ${map}"
  echo
done
bash scripts/embed-app.sh build || status=$?
# Train a model with the compiled training step, then check the inference
# build of the trained weights (examples/train-mlp).
bash scripts/train-mlp.sh build || status=$?
exit "${status}"
