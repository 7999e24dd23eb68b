#!/usr/bin/env bash
# Compiles one case of compile_fail.cpp (-DMIX_DSL_CASE_<case>) and checks
# the result: case `none` must compile; every other case must fail with
# MESSAGE in the compiler's diagnostics (a static_assert of mix/dsl.h).
#
#   check-compile-fail.sh CXX DSL_INCLUDE_DIR SOURCE CASE MESSAGE
set -uo pipefail
cxx="$1" include="$2" source="$3" case="$4" message="$5"
log="$(mktemp)"
trap 'rm -f "${log}"' EXIT
"${cxx}" -std=c++17 -fsyntax-only -I "${include}" "-DMIX_DSL_CASE_${case}" \
  "${source}" > "${log}" 2>&1
status=$?
if [ "${case}" = none ]; then
  if [ "${status}" -ne 0 ]; then
    echo "compile_fail.cpp without an error case does not compile:" >&2
    cat "${log}" >&2
    exit 1
  fi
  echo "case none compiles"
  exit 0
fi
if [ "${status}" -eq 0 ]; then
  echo "case ${case} compiled, but it must be rejected with: ${message}" >&2
  exit 1
fi
if ! grep -qF -- "${message}" "${log}"; then
  echo "case ${case} failed without the message '${message}':" >&2
  cat "${log}" >&2
  exit 1
fi
if ! grep -qF -- "static assertion failed" "${log}" &&
   ! grep -qF -- "static_assert failed" "${log}"; then
  echo "case ${case} failed, but not by a static_assert:" >&2
  cat "${log}" >&2
  exit 1
fi
echo "case ${case} is rejected: ${message}"
