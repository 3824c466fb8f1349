"""One evaluation, run by the forked child (child.py): the task and the candidate loaded (load.py,
shrink.py), then the phases in order, sharing one context.Context: the references (references.py),
the checked trials (trials.py), the timing (measure.py, gpu_series.py), the kernel trace
(trace.py), and what the candidate's code did after every call into it (runtime_checks.py);
errors.py describes what went wrong. Every input and reference output is made before the candidate
is imported. It reports facts and never decides a verdict, and it must never run in the zygote
(only its static parts: load.candidate_python, errors.unclassified): this is the only code that
initialises CUDA.
"""
