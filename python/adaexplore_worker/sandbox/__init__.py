"""The sandbox a candidate's process runs in, made of the kernel's own mechanisms: a file system
holding only what an evaluation needs (mount_view.py), no capabilities and Landlock's write rules
(privileges.py), a seccomp filter (syscall_filter.py), entered by sandbox.py and checked from
inside at worker start (sandbox_selftest.py). It reports which protections are in force and never
decides whether that is enough (the C++ side does, --require-sandbox); only a forked child may
enter it, never the zygote.
"""
