"""Which of the candidate sandbox's protections keeps compute-sanitizer's target from starting
CUDA (on the H100 of 2026-12-07 every run inside the sandbox ended "cudaGetDeviceCount ... Error
304: OS call failed" before the first instrumented call). Runs the tool (memcheck) on a target
that starts CUDA and launches one kernel, under the sandbox's write rules (Landlock: its devices,
/tmp, and the confined process's own /proc/<pid>, which CUDA's start writes) applied to the tool
and its target, then with /proc writable, then the target alone under the same rules, then as a
sanitizer job runs now (/proc writable, the target narrowing its writes back to its own folder,
which a write to the tool's folder checks). The first
run of 2026-12-07 (each protection alone; landlock then lacked the devices) found only Landlock
failing. Prints one line per variant: the exit status and the output's end.

    python3 bench/gpu/sanitizer_in_sandbox.py /usr/local/cuda/bin/compute-sanitizer
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from adaexplore_worker.sandbox import privileges, syscall_filter  # noqa: E402

TARGET = ("import torch; x = torch.ones(4, device='cuda'); torch.cuda.synchronize(); "
          "print('target ok', float((x * 2).sum()))")
WRITABLE = "/tmp/adx-sanitizer-probe"
PYTHON = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "python"))
# Narrowed, then a write to the tool's /proc folder (its parent's), which must be refused.
NARROWED = """
import os
from adaexplore_worker.sandbox import sandbox
sandbox.own_proc_only()
try:
    os.close(os.open(f"/proc/{os.getppid()}/comm", os.O_WRONLY))
    print("the tool's /proc/<pid>/comm: opened for writing (escaped)")
except OSError as e:
    print("the tool's /proc/<pid>/comm: held", e)
""" + TARGET.replace("; ", "\n")


def confine(layers, denied=None):
    def apply():
        privileges.set_no_new_privs()
        if "caps" in layers:
            privileges.drop_capabilities()
        devices = ["/dev/null", "/dev/shm", *(f"/dev/{n}" for n in os.listdir("/dev")
                                              if n.startswith("nvidia"))]
        own = [os.path.realpath("/proc/self")]  # As the sandbox's rules: this process's only.
        if "landlock" in layers:
            privileges.restrict_writes([WRITABLE, "/tmp", *devices, *own])
        if "landlock_proc" in layers:
            privileges.restrict_writes([WRITABLE, "/tmp", *devices, "/proc"])
        if "seccomp" in layers:
            if denied is not None:
                syscall_filter.DENIED = denied
            syscall_filter.install()
    return apply


def run(name, tool, layers, denied=None, prefix=(), target=TARGET):
    started = time.time()
    try:
        command = ([sys.executable, "-c", target] if tool == sys.executable else
                   [tool, "--tool", "memcheck", "--error-exitcode", "86", sys.executable, "-c",
                    target])
        p = subprocess.run([*prefix, *command], preexec_fn=confine(layers, denied),
                           capture_output=True, text=True, timeout=100, cwd=WRITABLE)
        tail = (p.stdout + p.stderr).strip().replace("\n", " | ")[-500:]
        print(f"{name:34} rc={p.returncode} {time.time() - started:5.1f}s {tail}", flush=True)
        return p.returncode
    except (subprocess.TimeoutExpired, OSError) as e:
        print(f"{name:34} {type(e).__name__}: {e}", flush=True)
        return None


def main():
    tool = sys.argv[1]
    os.makedirs(WRITABLE, exist_ok=True)
    full = syscall_filter.DENIED
    # The sandbox's write rules (its devices, /tmp, its own /proc/<pid>): the target, a process
    # of its own, has no /proc folder it may write.
    run("no protection", tool, [])
    run("landlock as the sandbox", tool, ["landlock"])
    run("landlock, /proc writable", tool, ["landlock_proc"])
    run("landlock as the sandbox, no tool", sys.executable, ["landlock"], None, ())
    run("all, /proc writable", tool, ["caps", "landlock_proc", "seccomp"], full)
    # As a sanitizer job runs now: /proc writable for the tool, the target narrowing its own
    # writes back to its /proc folder (sandbox.own_proc_only) before CUDA starts.
    os.environ["PYTHONPATH"] = PYTHON
    run("all, target narrowed", tool, ["caps", "landlock_proc", "seccomp"], full,
        target=NARROWED)


if __name__ == "__main__":
    main()
