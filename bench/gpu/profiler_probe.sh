#!/usr/bin/env bash
# Issue 39, step 1 on the H200: which hardware profiler works here (Nsight Compute's CLI, or
# torch.profiler's CUPTI range metrics), what it reports for a copy and a bf16 matmul, and what
# it costs. Everything goes to $OUT/probe.log.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; exec > >(tee "$OUT/probe.log") 2>&1
echo "== tools"; which ncu nsys python3; ls -d /usr/local/cuda*/ 2>/dev/null; ls /usr/local/cuda*/bin 2>/dev/null | grep -i -E "ncu|nsight" ; find / -maxdepth 4 -name "ncu" -type f 2>/dev/null | head
nvidia-smi --query-gpu=name,driver_version --format=csv
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.version.cuda)"
python3 -m pip list 2>/dev/null | grep -i -E "cupti|nvidia-" | head -30
cat /proc/driver/nvidia/params 2>/dev/null | grep -i profil
cat > /tmp/k.py <<'EOF'
import sys, torch
which = sys.argv[1] if len(sys.argv) > 1 else "copy"
if which == "copy":
    x = torch.randn(1 << 28, device="cuda"); y = torch.empty_like(x)
    for _ in range(2): y.copy_(x)
else:
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
    for _ in range(2): c = a @ b
torch.cuda.synchronize()
EOF
M=dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,gpu__time_duration.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_blocks,launch__occupancy_limit_warps,launch__registers_per_thread,launch__block_size
NCU=$(which ncu || find / -maxdepth 6 -name ncu -type f 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  for w in copy mm; do
    echo "== ncu $w"; /usr/bin/time -f "ncu wall %e s" timeout 180 "$NCU" --metrics "$M" --csv --target-processes all python3 /tmp/k.py $w
  done
else echo "no ncu"; fi
echo "== torch.profiler experimental metrics"
timeout 120 python3 - <<'EOF'
import time, torch
try:
    from torch._C._profiler import _ExperimentalConfig
    cfg = _ExperimentalConfig(profiler_metrics=["dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed"], profiler_measure_per_kernel=True)
    x = torch.randn(1 << 26, device="cuda"); y = torch.empty_like(x); y.copy_(x); torch.cuda.synchronize()
    t = time.time()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA, torch.profiler.ProfilerActivity.CPU], experimental_config=cfg) as p:
        y.copy_(x); torch.cuda.synchronize()
    print("profiled in", time.time() - t)
    for e in p.events():
        print(repr(e.name)[:60], e.device_type, getattr(e, "device_time", None), [a for a in dir(e) if "metric" in a.lower()])
except Exception as e:
    print("experimental config failed:", type(e).__name__, e)
EOF
echo "== cupti python"; python3 -c "import cupti; print(cupti.__file__)" 2>&1 | tail -1
echo done
