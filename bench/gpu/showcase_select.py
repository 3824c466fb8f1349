"""Picks large-step kernels of the reference run's showcase trees (.device/showcase): per tree up
to PER_KIND the release scored correct and up to PER_KIND it compiled but scored wrong, written
as SEL/tasks/<task>.py and SEL/kernels/<task>/s<step>_<c|w>.py; prints what it chose.

    python3 bench/gpu/showcase_select.py SEL PER_KIND
"""
import glob
import json
import os
import shutil
import sys

sel, per_kind = sys.argv[1], int(sys.argv[2])
for path in sorted(glob.glob(".device/showcase/kernels/*.json")):
    task = os.path.splitext(os.path.basename(path))[0]
    shutil.copy(f".device/showcase/{task}.py", f"{sel}/tasks/")
    os.makedirs(f"{sel}/kernels/{task}")
    large = [n for n in json.load(open(path)) if n["created_by"] == "large_step" and n["code"]]
    chosen = ([n for n in large if n["release_correct"]][:per_kind] +
              [n for n in large if n["release_compiled"] and not n["release_correct"]][:per_kind])
    for n in chosen:
        kind = "c" if n["release_correct"] else "w"
        open(f"{sel}/kernels/{task}/s{n['step']:03d}_{kind}.py", "w").write(n["code"])
    print(task, " ".join(f"s{n['step']}{'c' if n['release_correct'] else 'w'}" for n in chosen))
