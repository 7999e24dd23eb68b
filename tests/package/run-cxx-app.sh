#!/usr/bin/env bash
# Installs mixc from BUILD_DIR into a prefix and builds tests/package/cxx-app
# against it: a C++-only project (project(cxx_app CXX), the C language never
# enabled) using find_package(mixc CONFIG) + mixc_add_model. Runs the app,
# which checks the compiled models' results (one written with the DSL,
# mixc::dsl), and checks that C stayed off. Then builds
# tests/package/pkg-config-app, a C program, with the flags of
# `pkg-config --cflags --libs mixrt` of the same prefix, and runs it.
#
#   tests/package/run-cxx-app.sh BUILD_DIR WORK_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "$1" && pwd)"
work="$2"
# Only what this script creates is removed.
mkdir -p "${work}"
rm -rf "${work}/prefix" "${work}/app" "${work}/pc-app"

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

echo "== building a C app with pkg-config --cflags --libs mixrt"
pc="$(find "${work}/prefix" -name mixrt.pc -path '*/pkgconfig/*')"
if [ -z "${pc}" ]; then
  echo "run-cxx-app: mixrt.pc is not installed" >&2
  exit 1
fi
export PKG_CONFIG_PATH="$(dirname "${pc}")"
pkg-config --modversion mixrt
cflags="$(pkg-config --cflags mixrt)"
libs="$(pkg-config --libs mixrt)"
libdir="$(pkg-config --variable=libdir mixrt)"
echo "cflags: ${cflags}"
echo "libs: ${libs}"
mkdir -p "${work}/pc-app"
"${work}/prefix/bin/mixc" "${here}/cxx-app/tiny.mlir" -o "${work}/pc-app/tiny"
# shellcheck disable=SC2086 # the flags are words
cc -std=c99 -Wall -Werror -I "${work}/pc-app" ${cflags} \
  -c "${here}/pkg-config-app/main.c" -o "${work}/pc-app/main.o"
# shellcheck disable=SC2086
cc "${work}/pc-app/main.o" "${work}/pc-app/tiny.o" ${libs} -lm \
  -Wl,-rpath,"${libdir}" -o "${work}/pc-app/app"
"${work}/pc-app/app" | tee "${work}/pc-app.txt"
grep -q '^pkg-config-app: ok' "${work}/pc-app.txt"
