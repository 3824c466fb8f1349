"""Whether NVML's per-process utilisation sees a child's GPU work under the child's own pid here
(bench/gpu/hung_candidate.sh PART=nvml): a child spins a Triton kernel, the parent reads NVML."""

import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, "python")
from adaexplore_worker.timing.gpu_activity import GpuActivity  # noqa: E402


def spin(seconds: float, ready) -> None:
    import torch
    x = torch.randn(4096, 4096, device="cuda")
    ready.set()
    end = time.time() + seconds
    while time.time() < end:
        x = x @ x
        x = x / x.norm()
    torch.cuda.synchronize()


def main() -> None:
    ctx = mp.get_context("spawn")
    ready = ctx.Event()
    child = ctx.Process(target=spin, args=(6.0, ready))
    child.start()
    ready.wait(60)
    # The UUID, read in the parent without CUDA: from nvidia-smi.
    import subprocess
    uuid = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader", "-i",
                           os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]],
                          capture_output=True, text=True).stdout.strip()
    activity = GpuActivity.open(uuid)
    print("uuid", uuid, "opened", activity is not None, "child pid", child.pid,
          "parent", os.getpid())
    since = int(time.time() * 1e6)
    for _ in range(8):
        time.sleep(0.5)
        busy = activity.busy_pids(since) if activity else None
        print(f"t={time.time():.1f} busy {busy}")
    child.join()
    time.sleep(1.5)
    print("after the child ended:", activity.busy_pids(int(time.time() * 1e6) - 1_000_000)
          if activity else None)


if __name__ == "__main__":
    main()
