"""The GPU's clocks, temperature, performance state and clock event reasons, read from NVML
(nvml.py) by the zygote when a child's timed runs begin (after the warm-ups, the child says so)
and when it gives the exclusive GPU lock back (the sandboxed child cannot reach NVML): a timing
during which the clocks moved is marked by the C++ side (eval/classify_speedup.cc). Where NVML
cannot be reached (a CPU machine) nothing is read.
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
        reasons = self._call(("nvmlDeviceGetCurrentClocksEventReasons",
                              "nvmlDeviceGetCurrentClocksThrottleReasons"), ctypes.c_ulonglong)
        return {"sm_mhz": self._call(("nvmlDeviceGetClockInfo",), ctypes.c_uint, _CLOCK_SM),
                "mem_mhz": self._call(("nvmlDeviceGetClockInfo",), ctypes.c_uint, _CLOCK_MEM),
                "temperature_c": self._call(("nvmlDeviceGetTemperature",), ctypes.c_uint,
                                            _TEMPERATURE_GPU),
                "pstate": self._call(("nvmlDeviceGetPerformanceState",), ctypes.c_uint),
                "throttle": (None if reasons is None
                             else [name for bit, name in _REASONS if reasons & bit])}

    def _call(self, names: tuple[str, ...], kind: type, *args: int) -> int | None:
        """The value the first of `names` the library has writes; None if none is there or it
        fails (drivers rename and drop entry points)."""
        for name in names:
            fn = getattr(self._lib, name, None)
            if fn is None:
                continue
            value = kind(0)
            try:
                status = fn(self._handle, *args, ctypes.byref(value))
            except (OSError, ctypes.ArgumentError):
                return None
            return int(value.value) if status == nvml.SUCCESS else None
        return None
