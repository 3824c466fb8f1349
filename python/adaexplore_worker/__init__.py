"""adaexplore's evaluation worker: loads a task and a candidate, checks, times and reports.

It holds no policy. The C++ side decides verdicts, tolerances, trial counts and timeouts and sends
them with each job; this package carries them out and reports facts. See docs/protocol.md.

Its parts are subpackages, each saying in its __init__ what it is for: protocol/ (the schema and
its transport), process/ (the zygote and its children), evaluation/ (one evaluation's phases),
correctness/, timing/, integrity/, sandbox/ and kinds/ (the task kinds). Here: the entry points
(__main__, check_task, oneshot) and two leaves several parts share (task.py, probe.py).
"""

PROTOCOL_VERSION = 5
