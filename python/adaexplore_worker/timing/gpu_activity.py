"""Which processes keep a GPU busy, read from NVML (nvml.py): no CUDA context is made, so the
zygote (which never initialises CUDA) may use it.

    activity = GpuActivity.open("GPU-6d3c...")  # None where NVML or its per-process figures
    busy = activity.busy_pids(since_us)         # are not there (a CPU machine, say)

busy_pids gives the processes whose kernels ran on the device (SM utilisation above 0) in the
driver's samples taken after `since_us` (microseconds, the clock of time.time()).
"""

from __future__ import annotations

import ctypes
import time

from . import nvml

_SUCCESS, _NOT_FOUND, _INSUFFICIENT_SIZE = nvml.SUCCESS, 6, 7


class _Sample(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("timeStamp", ctypes.c_ulonglong),
                ("smUtil", ctypes.c_uint), ("memUtil", ctypes.c_uint),
                ("encUtil", ctypes.c_uint), ("decUtil", ctypes.c_uint)]


class GpuActivity:
    def __init__(self, lib: ctypes.CDLL, handle: ctypes.c_void_p) -> None:
        self._lib = lib
        self._handle = handle

    @staticmethod
    def open(uuid: str) -> GpuActivity | None:
        """The device with this UUID ("GPU-..." or the bare hex form), or None when NVML, the
        device or its per-process utilisation cannot be read."""
        found = nvml.open_device(uuid)
        if found is None:
            return None
        activity = GpuActivity(*found)
        if activity.busy_pids(int(time.time() * 1e6)) is None:
            return None
        return activity

    def busy_pids(self, since_us: int) -> set[int] | None:
        """The pids whose kernels ran in samples newer than `since_us`; None if NVML failed."""
        count = ctypes.c_uint(0)
        status = self._lib.nvmlDeviceGetProcessUtilization(
            self._handle, None, ctypes.byref(count), ctypes.c_ulonglong(since_us))
        if status == _NOT_FOUND:
            return set()
        if status not in (_SUCCESS, _INSUFFICIENT_SIZE):
            return None
        if count.value == 0:
            return set()
        samples = (_Sample * count.value)()
        status = self._lib.nvmlDeviceGetProcessUtilization(
            self._handle, samples, ctypes.byref(count), ctypes.c_ulonglong(since_us))
        if status == _NOT_FOUND:
            return set()
        if status != _SUCCESS:
            return None
        return {s.pid for s in samples[:count.value] if s.smUtil > 0 and s.timeStamp > since_us}
