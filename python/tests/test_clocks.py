"""What clocks.GpuState reads from NVML, against a stand-in for the library (the real one runs
on the H200: bench/gpu/stream_escape_adaptive.sh)."""

from __future__ import annotations

import ctypes

from adaexplore_worker.timing.clocks import GpuState


class FakeNvml:
    """Answers as NVML does, writing through the pointer it is given; `failing` names calls
    that fail."""

    def __init__(self, failing: tuple[str, ...] = ()) -> None:
        self.failing = failing

    def _answer(self, name: str, value: int):
        def call(_handle, *args):
            if name in self.failing:
                return 999  # NVML_ERROR_UNKNOWN
            args[-1]._obj.value = value(*args[:-1]) if callable(value) else value
            return 0
        return call

    def __getattr__(self, name: str):
        # Only the old name of the clock event reasons' entry point, as older drivers have it.
        answers = {"nvmlDeviceGetClockInfo": lambda clock: {1: 1980, 2: 3201}[clock],
                   "nvmlDeviceGetTemperature": 41, "nvmlDeviceGetPerformanceState": 0,
                   "nvmlDeviceGetCurrentClocksThrottleReasons": 0x1 | 0x20}
        if name not in answers:
            raise AttributeError(name)  # As ctypes.CDLL does for a missing symbol.
        return self._answer(name, answers[name])


def test_a_reading_names_clocks_temperature_state_and_reasons() -> None:
    state = GpuState(FakeNvml(), ctypes.c_void_p())  # type: ignore[arg-type]
    assert state.read() == {"sm_mhz": 1980, "mem_mhz": 3201, "temperature_c": 41, "pstate": 0,
                            "throttle": ["gpu_idle", "sw_thermal"]}


def test_a_figure_nvml_does_not_give_is_none() -> None:
    state = GpuState(FakeNvml(failing=("nvmlDeviceGetTemperature",
                                       "nvmlDeviceGetCurrentClocksThrottleReasons")),
                     ctypes.c_void_p())  # type: ignore[arg-type]
    reading = state.read()
    assert reading["temperature_c"] is None and reading["throttle"] is None
    assert reading["sm_mhz"] == 1980


def test_no_device_no_reader() -> None:
    assert GpuState.open("") is None


def test_a_library_without_an_entry_point_gives_none_for_it() -> None:
    class Older(FakeNvml):
        def __getattr__(self, name: str):
            if name == "nvmlDeviceGetPerformanceState":
                raise AttributeError(name)
            return super().__getattr__(name)

    reading = GpuState(Older(), ctypes.c_void_p()).read()  # type: ignore[arg-type]
    assert reading["pstate"] is None and reading["sm_mhz"] == 1980
