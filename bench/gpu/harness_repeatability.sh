#!/usr/bin/env bash
# GPU run 2 for the harness (issue 2): Level-1 verdicts, a hang followed by a normal candidate,
# timing repeatability (5 evaluations of the same candidates) and the do_bench cross-check.
# Every step has its own time limit, so one slow step cannot take the others down.
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader \
  | tee -a "$OUT/steps.txt"

# Level 1 without the two problems run 1 already judged on the GPU.
mkdir -p /tmp/l1/kernels
for d in "$KK"/level1/*/; do
  case "$(basename "$d")" in 1_Square*|19_ReLU) ;; *) cp -r "$d" /tmp/l1/kernels/ ;; esac
done
stamp "level1 verdicts"
timeout 270 "${EVAL[@]}" --tasks-dir "$KB/level1" --kernels-dir /tmp/l1/kernels \
  >"$OUT/level1.jsonl" 2>>"$OUT/errors.txt"
stamp "hang, then a normal candidate on the same worker"
timeout 90 "${EVAL[@]}" --slots 1 --timeout 30 --task "$KB/level1/88_MinGPTNewGelu.py" \
  --kernel "$KK/faults/hang.py" --kernel "$KK/level1/88_MinGPTNewGelu/ok.py" \
  >"$OUT/faults.jsonl" 2>>"$OUT/errors.txt"
stamp "repeatability"
mkdir -p /tmp/rep/tasks /tmp/rep/kernels
for t in level2/12_Gemm_Multiply_LeakyReLU level2/86_Matmul_Divide_GELU \
         level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU level2/1_Conv2D_ReLU_BiasAdd \
         level1/88_MinGPTNewGelu level1/26_GELU_; do
  name=$(basename "$t")
  cp "$KB/$t.py" /tmp/rep/tasks/
  mkdir -p "/tmp/rep/kernels/$name" && cp "$KK/$t/ok.py" "/tmp/rep/kernels/$name/"
done
timeout 200 .device/bench-bin/eval_repeatability --python python3 --tasks-dir /tmp/rep/tasks \
  --kernels-dir /tmp/rep/kernels --repeat 5 --json-out "$OUT/repeat.json" \
  >"$OUT/repeat.txt" 2>>"$OUT/errors.txt"
stamp "do_bench cross-check"
cat "$OUT/level1.jsonl" .device/prev/level2.jsonl >/tmp/all.jsonl
timeout 150 python3 python/bench/do_bench_check.py /tmp/all.jsonl --out "$OUT/do_bench.json" \
  >"$OUT/do_bench.txt" 2>>"$OUT/errors.txt"
stamp "done"
echo "== level 1"; python3 python/bench/summarize.py "$OUT/level1.jsonl"
echo "== hang then normal"; python3 python/bench/summarize.py "$OUT/faults.jsonl"
echo "== repeatability"; cat "$OUT/repeat.txt"
echo "== do_bench"; cat "$OUT/do_bench.txt"
echo "== errors (tail)"; tail -5 "$OUT/errors.txt"
