#!/usr/bin/env bash
# Checks that every tracked C/C++ file (git ls-files '*.c' '*.h' '*.cpp') is
# formatted as the repository's .clang-format says, with clang-format 22
# pinned (the machine's default clang-format is older and formats
# differently). scripts/test.sh runs it first, so CI fails on drift.
#
#   scripts/check-format.sh          list the files that drift, exit 1 if any
#   scripts/check-format.sh --fix    reformat them in place (clang-format -i)
#
# To fix drift: run `scripts/check-format.sh --fix`, review `git diff`, commit.
# TableGen (.td) files are not clang-formatted. Files that must keep their own
# layout (generated or third-party code; none today) go in EXCLUDE below.
# CLANG_FORMAT overrides the binary (default: clang-format-22).
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT="${CLANG_FORMAT:-clang-format-22}"
# Extended regular expression of paths never checked.
EXCLUDE='^$'

fix=0
case "${1:-}" in
  "") ;;
  --fix) fix=1 ;;
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "check-format: unknown argument '$1' (use --fix or --help)" >&2
     exit 2 ;;
esac

if ! command -v "${CLANG_FORMAT}" > /dev/null; then
  echo "check-format: ${CLANG_FORMAT} not found (scripts/setup.sh installs" \
       "clang-format-22)" >&2
  exit 2
fi

mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' | grep -Ev "${EXCLUDE}")
if [ "${#files[@]}" -eq 0 ]; then
  echo "check-format: no tracked C/C++ files found" >&2
  exit 2
fi

if [ "${fix}" -eq 1 ]; then
  "${CLANG_FORMAT}" -i -- "${files[@]}"
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi

drift=()
for f in "${files[@]}"; do
  if ! "${CLANG_FORMAT}" --dry-run -Werror -- "$f" > /dev/null 2>&1; then
    drift+=("$f")
  fi
done
if [ "${#drift[@]}" -ne 0 ]; then
  echo "check-format: ${#drift[@]} of ${#files[@]} files are not formatted" \
       "as .clang-format says (${CLANG_FORMAT}):" >&2
  printf '  %s\n' "${drift[@]}" >&2
  echo "check-format: fix with scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
