#!/usr/bin/env bash
# Builds and runs examples/train-mlp the way an app would: installs mixc from
# BUILD_DIR into a prefix, writes the initial weights, builds the training
# program with find_package(mixc) + mixc_add_model(... OPTIONS --train),
# trains (the compiled training step: f16 body, dynamic loss scaling, Adam
# on f64 master weights), exports the weights, builds the inference network
# with them and checks its accuracy (>= 95% of the points).
#
#   scripts/train-mlp.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-${root}/build}" && pwd)"
work="${2:-${build}/train-mlp}"
# Only what this script creates is removed: WORK_DIR may be any directory.
mkdir -p "${work}"
rm -rf "${work}/prefix" "${work}/app" "${work}/init.safetensors" \
  "${work}/trained.safetensors"

echo "== installing mixc into ${work}/prefix"
cmake --install "${build}" --prefix "${work}/prefix" > "${work}/install.log"

echo "== writing the initial weights"
python3 "${root}/examples/train-mlp/make_weights.py" "${work}/init.safetensors"

echo "== building the training program (mixc --train)"
cmake -G Ninja -S "${root}/examples/train-mlp" -B "${work}/app" \
  -DCMAKE_PREFIX_PATH="${work}/prefix" \
  -DINITIAL_WEIGHTS="${work}/init.safetensors" > "${work}/configure.log"
cmake --build "${work}/app" > "${work}/build.log"

echo "== training"
"${work}/app/train_mlp" "${work}/trained.safetensors"

echo "== building the inference network with the trained weights"
cmake -S "${root}/examples/train-mlp" -B "${work}/app" \
  -DTRAINED_WEIGHTS="${work}/trained.safetensors" > "${work}/configure.log"
cmake --build "${work}/app" > "${work}/build.log"
"${work}/app/check_mlp"
