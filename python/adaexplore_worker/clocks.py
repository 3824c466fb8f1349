"""The GPU's clocks, temperature, performance state and clock event reasons, read from NVML
(nvml.py) by the zygote when a child's timed runs begin (after the warm-ups, the child says so)
and when it gives the exclusive GPU lock back (the sandboxed child cannot reach NVML): a timing during which the clocks moved is
marked by the C++ side (eval/classify_speedup.cc). Where NVML cannot be reached (a CPU machine)
nothing is read.
"""

from __future__ import annotations

import ctypes
from typing import Any

from . import nvml

_CLOCK_SM, _CLOCK_MEM, _TEMPERATURE_GPU = 1, 2, 0
# nvmlClocksEventReasons (formerly throttle reasons), by bit.
_REASONS = ((0x1, "gpu_idle"), (0x2, "applications_clocks"), (0x4, "sw_power_cap"),
            (0x8, "hw_slowdown"), (0x10, "sync_boost"), (0x20, "sw_thermal"),
            (0x40, "hw_thermal"), (0x80, "hw_power_brake"), (0x100, "display_clocks"))


class GpuState:
    def __init__(self, lib: ctypes.CDLL, handle: ctypes.c_void_p) -> None:
        self._lib = lib
        self._handle = handle

    @staticmethod
    def open(uuid: str) -> GpuState | None:
        found = nvml.open_device(uuid) if uuid else None
        return GpuState(*found) if found is not None else None

    def read(self) -> dict[str, Any]:
        """What NVML says now; a figure it does not give is None."""
        value = ctypes.c_uint(0)

        def read_uint(fn: str, *args: int) -> int | None:
            status = getattr(self._lib, fn)(self._handle, *args, ctypes.byref(value))
            return int(value.value) if status == nvml.SUCCESS else None

        reasons = ctypes.c_ulonglong(0)
        status = self._lib.nvmlDeviceGetCurrentClocksThrottleReasons(self._handle,
                                                                     ctypes.byref(reasons))
        return {"sm_mhz": read_uint("nvmlDeviceGetClockInfo", _CLOCK_SM),
                "mem_mhz": read_uint("nvmlDeviceGetClockInfo", _CLOCK_MEM),
                "temperature_c": read_uint("nvmlDeviceGetTemperature", _TEMPERATURE_GPU),
                "pstate": read_uint("nvmlDeviceGetPerformanceState"),
                "throttle": ([name for bit, name in _REASONS if reasons.value & bit]
                             if status == nvml.SUCCESS else None)}
