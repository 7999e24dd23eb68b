#!/usr/bin/env bash
# Installs mixc from BUILD_DIR into a prefix and builds tests/package/cxx-app
# against it: a C++-only project (project(cxx_app CXX), the C language never
# enabled) using find_package(mixc CONFIG) + mixc_add_model. Runs the app,
# which checks the compiled model's results, and checks that C stayed off.
#
#   tests/package/run-cxx-app.sh BUILD_DIR WORK_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "$1" && pwd)"
work="$2"
# Only what this script creates is removed.
mkdir -p "${work}"
rm -rf "${work}/prefix" "${work}/app"

echo "== installing mixc into ${work}/prefix"
cmake --install "${build}" --prefix "${work}/prefix" > "${work}/install.log"

echo "== configuring and building the C++-only app"
cmake -G Ninja -S "${here}/cxx-app" -B "${work}/app" \
  -DCMAKE_PREFIX_PATH="${work}/prefix"
cmake --build "${work}/app"

# project(... CXX) must not have been widened to C by the package.
if grep -q '^CMAKE_C_COMPILER:' "${work}/app/CMakeCache.txt"; then
  echo "run-cxx-app: the mixc package enabled the C language" >&2
  exit 1
fi

echo "== running the app"
"${work}/app/cxx_app" | tee "${work}/app.txt"
grep -qx 'cxx-app: ok' "${work}/app.txt"
