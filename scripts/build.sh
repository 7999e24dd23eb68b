#!/usr/bin/env bash
# Configures and builds mixc into build/ (Release, Ninja, 2 jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${MIXC_BUILD_DIR:-build}"
JOBS="${MIXC_JOBS:-2}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@"
fi
ninja -C "$BUILD_DIR" -j"$JOBS"
