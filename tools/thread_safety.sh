#!/usr/bin/env bash
# Clang's thread-safety analysis over every source that holds a Mutex (core/mutex.h): each .cc
# that includes it, or whose own header does, compiled with clang++ -fsyntax-only and
# -Werror=thread-safety, the flags taken from the build's compile commands (default build-asan).
# The build's compiler is GCC, which ignores the annotations; this is where they are checked.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
clangxx=${CLANGXX:-clang++}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "thread_safety: no $build/compile_commands.json; build it first" >&2
  exit 2
fi
mapfile -t files < <(for cc in $(git ls-files --cached --others --exclude-standard 'src/*.cc'); do
  if grep -q '#include "core/mutex.h"' "$cc" "${cc%.cc}.h" 2>/dev/null; then echo "$cc"; fi
done)
if [ "${#files[@]}" -eq 0 ]; then
  echo "thread_safety: no source includes core/mutex.h" >&2
  exit 1
fi
# Each file's defines and include paths as the build compiles it, the project's warnings left out.
python3 - "$build/compile_commands.json" "${files[@]}" >"$build/thread_safety.args" <<'PY'
import json, os, shlex, sys
commands = {os.path.realpath(e["file"]): e for e in json.load(open(sys.argv[1]))}
for path in sys.argv[2:]:
    entry = commands.get(os.path.realpath(path))
    if entry is None:
        sys.exit(f"thread_safety: {path} is not in {sys.argv[1]}")
    args = shlex.split(entry["command"])[1:]
    keep = [a for a in args if a.startswith(("-D", "-I", "-isystem", "-std="))]
    print(shlex.join(keep + [path]))
PY
status=0
while read -r line; do
  eval "args=($line)"
  # shellcheck disable=SC2154
  "$clangxx" -fsyntax-only -Wthread-safety -Werror=thread-safety "${args[@]}" || status=1
done <"$build/thread_safety.args"
echo "thread_safety: ${#files[@]} file(s) checked: ${files[*]}"
exit "$status"
