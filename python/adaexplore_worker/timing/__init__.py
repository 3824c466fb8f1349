"""Timing a call, and what bears on a timing: the timer with its L2 flush and head start
(timing.py, head_start.py), when a series of timed runs may stop (stopping.py), the GPU's own
timeline of its work (gpu_timeline.py), the GPU's clocks and busy processes read through NVML
(clocks.py, gpu_activity.py, nvml.py), and the marks on a task's own setup calls (setup_marks.py).
It measures and reports; it must never decide what a time means (speedups and their noise are the
C++ side's), nor depend on a job's phases (evaluation/ uses it, not the other way round).
"""
