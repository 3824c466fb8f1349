"""The GPU's clocks, temperature, performance state and throttle reasons, read from NVML
(nvml.py) before the first timed run and after the last: a timing during which the clocks
moved is marked by the C++ side (eval/classify_speedup.cc). Where NVML cannot be reached (a CPU
machine, a sandbox that hides the driver's files) nothing is read and the timing says so.
"""

from __future__ import annotations

import ctypes
from typing import Any

import torch

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
    def open(device: torch.device) -> GpuState | None:
        try:
            uuid = str(torch.cuda.get_device_properties(device).uuid)
        except Exception:  # noqa: BLE001 - no device properties: nothing to read.
            return None
        found = nvml.open_device(uuid)
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
