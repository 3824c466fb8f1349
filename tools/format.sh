#!/usr/bin/env bash
# Formats (default) or checks (--check) every C++ file with the repository's .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'src/*.cc' 'src/*.h' \
  'bench/*.cc' 'bench/*.h')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}"
else
  clang-format -i "${files[@]}"
fi
