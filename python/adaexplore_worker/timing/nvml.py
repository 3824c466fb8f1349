"""NVML, the driver's management library, through ctypes: a device handle by UUID, without
making a CUDA context (the zygote, which never initialises CUDA, may use it too).

    found = nvml.open_device("GPU-6d3c...")  # (library, handle), or None where NVML or the
                                             # device cannot be reached (a CPU machine, say)
"""

from __future__ import annotations

import ctypes

SUCCESS = 0


def open_device(uuid: str) -> tuple[ctypes.CDLL, ctypes.c_void_p] | None:
    """The device with this UUID ("GPU-..." or the bare hex form)."""
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return None
    handle = ctypes.c_void_p()
    name = uuid if uuid.startswith(("GPU-", "MIG-")) else f"GPU-{uuid}"
    if (lib.nvmlInit_v2() != SUCCESS
            or lib.nvmlDeviceGetHandleByUUID(name.encode(), ctypes.byref(handle)) != SUCCESS):
        return None
    return lib, handle
