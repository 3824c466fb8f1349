#!/usr/bin/env bash
# Builds what a run on the GPU machine needs into .device/ (git-ignored; name it in `carry`):
#   .device/bin   adaexplore, built here with an RPATH of $ORIGIN/../lib (an old-style DT_RPATH,
#                 which also serves the libraries' own dependencies)
#   .device/bench-bin  the benchmarks (eval_throughput, eval_repeatability, integrity_overhead),
#                 the same way
# Each folder travels only when `carry` names it, and `carry` holds 64 MiB in all: the sizes are
# printed at the end. The large optional parts have folders of their own.
#   .device/lib   the shared libraries they need that the GPU image lacks (never libc or
#                 libstdc++: the worker's Python must keep the image's own)
#   .device/kernelbench/<level>/  the KernelBench task files that bench/kernelbench_kernels uses
#   .device/showcase/     the Level-2 tasks of the reference run's showcase trees, and in
#                         .device/showcase/kernels/<task>.json each tree's kernels in step order
#                         (what bench/gpu/showcase_llm.py serves)
#   .device/l2suite/      those tasks and every Level-2 task of bench/kernelbench_kernels, with
#                         kernels/<task>.json likewise: for the hand-written ones, ok.py as the
#                         large and the small step, then each wrong_*.py as a later large step
#   .device/workload/     the users' workload (bench/gpu/workload_select.py): 49 real LLM-written
#                         kernels of the showcase trees and Level 3 with the hard cases in them
#   .device/scale/        a fixed set of candidates for throughput: tasks/<task>.py and
#                         kernels/<task>/*.py (every hand-written Level-2 file and the first three
#                         large-step kernels of each showcase tree)
#   .device/kb_all/<level>/  every KernelBench task of Levels 1-3 (bench/gpu/null_selftest.sh)
#   .device/wheels/       pytest and its dependencies (pure-Python wheels) for the GPU red team;
#                         flashinfer-bench and pydantic (FlashInfer-Trace tasks), for Python 3.12
#   .device/flashinfer_kernels/  FlashInfer 0.6.6 and apache-tvm-ffi wheels (the expert baseline:
#                         its norm kernels compile at first use with the image's nvcc; 0.7's
#                         wheel, 101 MB, is above what travels)
#   .device/flashinfer/   FlashInfer-Trace's rmsnorm and gemm definitions and workloads
#   .device/tritonbench-g/  the TritonBench-G operators and their index (bench/gpu/task_kinds.sh)
#   .device/wheels/sandbox/  pyseccomp (the sandbox's filter) and cupti-python (the GPU timeline);
#                         .device/lib/libseccomp.so.2 too
#   .device/gqa/          FlashInfer-Trace's GQA paged-decode definition, synthetic workloads
#   .device/nats/nats-server  the Debian NATS server (one static binary, 11 MB) for the scale-out
#                         runs
# The GPU image has no Debian -dev libraries, so the binaries cannot be built there.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${ADAEXPLORE_SHARED:-../shared}
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_RPATH='$ORIGIN/../lib' -DCMAKE_EXE_LINKER_FLAGS=-Wl,--disable-new-dtags >/dev/null
cmake --build build-device --target adaexplore eval_throughput eval_repeatability integrity_overhead
rm -rf .device/bin .device/bench-bin .device/nats .device/lib .device/kb_all .device/wheels \
  .device/flashinfer_kernels .device/kernelbench .device/showcase .device/l2suite .device/scale \
  .device/workload .device/flashinfer .device/tritonbench-g .device/gqa
mkdir -p .device/bin .device/bench-bin .device/nats .device/lib
cp build-device/adaexplore .device/bin/
cp build-device/bench/eval_throughput build-device/bench/eval_repeatability \
  build-device/bench/integrity_overhead .device/bench-bin/
strip .device/bin/* .device/bench-bin/*
cp /usr/sbin/nats-server .device/nats/
for lib in $(ldd .device/bin/adaexplore | awk '/=>/ {print $3}'); do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libpthread*|libdl*|librt*) ;;
    *) cp -L "$lib" .device/lib/ ;;
  esac
done
for level in level1 level2 level3; do
  mkdir -p ".device/kb_all/$level"
  cp "$shared/data/kernelbench/$level/"*.py ".device/kb_all/$level/"
done
.venv/bin/pip download --quiet --only-binary=:all: --python-version 3.12 --no-deps \
  -d .device/wheels pytest pluggy iniconfig packaging
.venv/bin/pip download --quiet --only-binary=:all: --python-version 3.12 --no-deps \
  -d .device/wheels/flashinfer flashinfer-bench==0.1.2 pydantic==2.14.4 pydantic-core==2.50.5 \
  annotated-types==0.8.0 typing-inspection==0.4.5 docstring-parser==0.18.0
.venv/bin/pip download --quiet --only-binary=:all: --python-version 3.12 --no-deps \
  -d .device/flashinfer_kernels flashinfer-python==0.6.6 apache-tvm-ffi==0.1.9
# The candidate sandbox's system-call filter: libseccomp's binding, and the library itself for
# an image that lacks it (bench/gpu/sandbox_cost.sh installs it only then).
.venv/bin/pip download --quiet --only-binary=:all: --python-version 3.12 --no-deps \
  -d .device/wheels/sandbox pyseccomp==0.1.2
# The GPU scope's timeline (timing/gpu_timeline.py): cupti-python, its CUDA libraries the image's own.
.venv/bin/pip download --quiet --only-binary=:all: --python-version 3.12 --no-deps \
  --platform manylinux2014_x86_64 -d .device/wheels/sandbox cupti-python==13.0.1
cp -L "$(ldconfig -p | awk '/libseccomp.so.2 .*x86-64/ {print $NF; exit}')" .device/lib/
fit="$shared/data/flashinfer-trace-v0.1.2"
for part in definitions workloads; do
  for op in rmsnorm gemm; do
    mkdir -p ".device/flashinfer/$part/$op"
    cp "$fit/$part/$op/"* ".device/flashinfer/$part/$op/"
  done
done
# The GQA paged-decode definition with the dataset's synthetic workloads (their blobs are the
# only ones stored): bench/gpu/gpu_time_speedups.sh's FlashInfer decode kernel.
def=gqa_paged/gqa_paged_decode_h32_kv8_d128_ps1
mkdir -p .device/gqa/definitions/gqa_paged .device/gqa/workloads/gqa_paged .device/gqa/blob/workloads
cp "$fit/definitions/$def.json" .device/gqa/definitions/gqa_paged/
cp "$fit/synthetic/workloads/$def.jsonl" .device/gqa/workloads/gqa_paged/
cp -r "$fit/synthetic/blob/workloads/gqa_paged" .device/gqa/blob/workloads/
mkdir -p .device/tritonbench-g
cp -r "$shared/data/tritonbench-g/tasks" "$shared/data/tritonbench-g/TritonBench_G_v1.index.json" \
  .device/tritonbench-g/
for dir in bench/kernelbench_kernels/level*/*/; do
  level=$(basename "$(dirname "$dir")")
  task=$(basename "$dir")
  mkdir -p ".device/kernelbench/$level"
  cp "$shared/data/kernelbench/$level/$task.py" ".device/kernelbench/$level/"
done
python3 - "$shared/data" <<'EOF'
import glob, json, os, shutil, sys
data = sys.argv[1]
os.makedirs(".device/showcase/kernels", exist_ok=True)
for tree_path in sorted(glob.glob(f"{data}/adaexplore-release/showcase/kb-l2-p*-200.json")):
    tree = json.load(open(tree_path))
    problem = os.path.basename(tree_path).split("-")[2][1:]
    task = glob.glob(f"{data}/kernelbench/level2/{problem}_*.py")[0]
    shutil.copy(task, ".device/showcase/")
    # With the reference run's own verdict (its A6000, its 5e-2 gate): bench/gpu/issue20_*.
    nodes = [{"step": s["step"], "created_by": s["created_by"], "code": s["code"],
              "release_correct": bool((s.get("score") or {}).get("correct")),
              "release_compiled": bool((s.get("score") or {}).get("compiled"))}
             for s in tree["steps"] if s["created_by"] != "dummy_root"]
    name = os.path.splitext(os.path.basename(task))[0]
    json.dump(nodes, open(f".device/showcase/kernels/{name}.json", "w"))
shutil.copytree(".device/showcase", ".device/l2suite")
for folder in sorted(glob.glob("bench/kernelbench_kernels/level2/*/")):
    name = os.path.basename(folder.rstrip("/"))
    shutil.copy(f"{data}/kernelbench/level2/{name}.py", ".device/l2suite/")
    ok = open(f"{folder}ok.py").read()
    nodes = [{"step": 1, "created_by": "large_step", "code": ok},
             {"step": 2, "created_by": "small_step", "code": ok}]
    for i, wrong in enumerate(sorted(glob.glob(f"{folder}wrong_*.py"))):
        nodes.append({"step": 3 + i, "created_by": "large_step", "code": open(wrong).read()})
    json.dump(nodes, open(f".device/l2suite/kernels/{name}.json", "w"))
os.makedirs(".device/scale/tasks")
for task in sorted(glob.glob(".device/l2suite/*.py")):
    name = os.path.splitext(os.path.basename(task))[0]
    shutil.copy(task, ".device/scale/tasks/")
    os.makedirs(f".device/scale/kernels/{name}")
    hand = f"bench/kernelbench_kernels/level2/{name}"
    if os.path.isdir(hand):
        for f in glob.glob(f"{hand}/*.py"):
            shutil.copy(f, f".device/scale/kernels/{name}/")
        continue
    nodes = json.load(open(f".device/l2suite/kernels/{name}.json"))
    large = [n["code"] for n in nodes if n["created_by"] == "large_step" and n["code"]][:3]
    for i, code in enumerate(large):
        open(f".device/scale/kernels/{name}/k{i}.py", "w").write(code)
EOF
python3 bench/gpu/workload_select.py "$shared/data" .device/workload
du -sh .device/* | sort -h  # What each folder adds to a `carry` (64 MiB in all, the tree included).
