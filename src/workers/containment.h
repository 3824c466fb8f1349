#pragma once

// The candidate sandbox as the C++ side judges it. The worker enters a sandbox per candidate
// (python/adaexplore_worker/sandbox/sandbox.py) and checks it from inside at start; its hello and
// every result carry what it found as `containment`: one boolean per protection, `reasons` for
// those not in force, and `verified`, the attacks tried and whether each held. Whether that is
// enough is decided here: `--require-sandbox` (the default) needs every protection in
// kSandboxProtections.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace adaexplore {

// Every protection of a complete sandbox, by the name the worker reports it under.
inline constexpr std::string_view kSandboxProtections[] = {
    "pid_namespace",      // Sees and signals only its own process tree.
    "network_namespace",  // A loopback and nothing listening.
    "mount_view",         // A file system holding only what the evaluation needs.
    "no_capabilities",    // Not even root's uid overrides a permission.
    "no_new_privs",       // Nothing it executes gains any.
    "landlock",           // Writes only in its job folder, its cache, its private /dev and /tmp.
    "seccomp",            // No mount, namespace, ptrace, BPF, keyring, io_uring, non-UNIX socket.
};

// What the user runs where a protection is missing: the filter's binding and library, and the
// kernel settings the namespaces and Landlock need (docs/harness.md).
inline constexpr std::string_view kSandboxInstallHint =
    "the filter needs libseccomp's Python binding (./tools/setup.sh installs it: .venv/bin/pip "
    "install pyseccomp; apt install libseccomp2); the namespaces need "
    "kernel.unprivileged_userns_clone=1 or root, Landlock a kernel of 5.13 or later with "
    "lsm=landlock (docs/harness.md)";

// The protections `containment` lacks, each with the worker's reason ("seccomp: ImportError:
// no module named pyseccomp"); empty when the sandbox is complete.
std::vector<std::string> MissingProtections(const nlohmann::json& containment);

}  // namespace adaexplore
