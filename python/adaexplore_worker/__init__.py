"""adaexplore's evaluation worker: loads a task and a candidate, checks, times and reports.

It holds no policy. The C++ side decides verdicts, tolerances, trial counts and timeouts and sends
them with each job; this package carries them out and reports facts. See docs/protocol.md.
"""

PROTOCOL_VERSION = 5
