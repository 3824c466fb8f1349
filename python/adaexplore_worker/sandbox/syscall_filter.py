"""The system calls a candidate may not make, as a seccomp filter built with libseccomp (through
pyseccomp, its ctypes binding): nothing a kernel needs to compute, launch and time, everything
that would change what the harness sees or reach beyond the machine's GPU.

Refused with EPERM: mounting and namespaces (a remount would undo the read-only file system, a
new user namespace would give back capabilities), tracing and reading other processes' memory,
kernel keyrings, BPF, modules, kexec, the clock, io_uring (it runs calls the filter never sees),
the terminal requests that type into a session or drive the console (TIOCSTI, TIOCLINUX), and
sockets of any family but AF_UNIX (the candidate's network namespace has only a loopback; this
closes it even where namespaces are not available). clone3 answers ENOSYS, so the C library
falls back to clone, whose flags the filter can read (a clone3 argument is a pointer it cannot).
Other architectures' system calls kill the process (libseccomp's default for a foreign arch).

`install` loads the filter into the calling thread and every thread and process it creates
afterwards; it needs no_new_privs (privileges.py sets it first) or CAP_SYS_ADMIN.
"""

from __future__ import annotations

import errno

DENIED = (
    "mount", "umount2", "pivot_root", "chroot", "setns", "unshare", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "syslog", "acct", "quotactl", "lookup_dcookie", "vhangup",
    "open_by_handle_at", "name_to_handle_at", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "sethostname", "setdomainname", "iopl", "ioperm",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
)
AF_UNIX = 1
# Terminal requests that act on the user's session: typing into its input (TIOCSTI) and the
# console's selection and keyboard (TIOCLINUX). The kernel reads the request as 32 bits.
TERMINAL_REQUESTS = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}
NAMESPACE_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
                   | 0x40000000)  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET


def install() -> list[str]:
    """Loads the filter; returns the names it refuses (for the containment facts). Raises
    OSError or ImportError where libseccomp is missing or the kernel refuses the filter."""
    import pyseccomp as seccomp

    deny = seccomp.ERRNO(errno.EPERM)
    f = seccomp.SyscallFilter(seccomp.ALLOW)
    refused = []
    for name in DENIED:
        try:
            f.add_rule(deny, name)
            refused.append(name)
        except (OSError, ValueError, RuntimeError):
            continue  # Not a system call on this architecture.
    for request in TERMINAL_REQUESTS.values():
        f.add_rule(deny, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    f.add_rule(deny, "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    f.add_rule(deny, "socketpair", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    for flag in _namespace_bits():
        f.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    try:
        f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (OSError, ValueError, RuntimeError):
        pass
    f.load()
    return [*refused, *(f"ioctl {name}" for name in TERMINAL_REQUESTS),
            "socket (all but AF_UNIX)", "clone (new namespaces)", "clone3"]


def _namespace_bits() -> list[int]:
    return [bit for bit in (1 << n for n in range(32)) if NAMESPACE_FLAGS & bit]
