#!/usr/bin/env bash
# Installs, idempotently, everything mixc needs to build, test and run its
# examples on a fresh Debian 12 machine. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  catch2 libabsl-dev libbenchmark-dev
  ninja-build cmake g++ gcc pkg-config python3 clang-format-22
  clang-22 libclang-rt-22-dev libfuzzer-22-dev lld-22
  libopenblas-dev libdnnl-dev
  libonnx-dev libonnx-testdata libprotobuf-dev python3-onnx
  chromium
)
# chromium: the headless browser of the precision map's tests (tests/html).

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
