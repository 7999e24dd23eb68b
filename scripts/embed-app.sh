#!/usr/bin/env bash
# Builds and runs examples/embed-app the way an app would: installs mixc from
# BUILD_DIR into a prefix, generates the example's weights and calibration
# images, calibrates the int8 layers (mix-calibrate), builds the app with
# find_package(mixc) + mixc_add_model, runs it, and checks its output
# against the reference interpreter (mix-run) on the same data.
#
#   scripts/embed-app.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-${root}/build}" && pwd)"
work="${2:-${build}/embed-app}"
# Only what this script creates is removed: WORK_DIR may be any directory.
mkdir -p "${work}"
rm -rf "${work}/prefix" "${work}/data" "${work}/app"

echo "== installing mixc into ${work}/prefix"
cmake --install "${build}" --prefix "${work}/prefix" > "${work}/install.log"

echo "== generating weights, calibration images and the input image"
python3 "${root}/examples/embed-app/make_data.py" "${work}/data"

echo "== calibrating the int8 layers"
"${work}/prefix/bin/mix-calibrate" "${root}/examples/edge_int8.mlir" \
  --weights "${work}/data/weights.safetensors" \
  --samples "${work}/data/samples.safetensors" \
  -o "${work}/data/calibration.json"

echo "== building examples/embed-app against the installed package"
cmake -G Ninja -S "${root}/examples/embed-app" -B "${work}/app" \
  -DCMAKE_PREFIX_PATH="${work}/prefix" \
  -DEDGE_WEIGHTS="${work}/data/weights.safetensors" \
  -DEDGE_CALIBRATION="${work}/data/calibration.json" > "${work}/configure.log"
cmake --build "${work}/app" > "${work}/build.log"
echo "== mixc's precision report of the compiled model"
cat "${work}/app/edge_int8.report.txt"

echo "== running the app"
"${work}/app/edge_app" | tee "${work}/app.txt"

echo "== the reference interpreter on the same model, weights and image"
"${work}/prefix/bin/mix-run" "${root}/examples/edge_int8.mlir" \
  --weights "${work}/data/weights.safetensors" \
  --inputs "${work}/data/input.safetensors" \
  --lower-to=quantize --calibration "${work}/data/calibration.json" \
  > "${work}/reference.txt"
cat "${work}/reference.txt"
python3 "${root}/scripts/compare_outputs.py" "${work}/app.txt" \
  "${work}/reference.txt"
