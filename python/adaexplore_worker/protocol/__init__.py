"""The worker protocol: the typed schema of every message the C++ side sends (job.py) and every
fact the worker reports (facts.py), read by one set of rules (decode.py) and listed for the golden
files (fields.py), and its transport, JSON lines over a file descriptor (channel.py). The C++ side
declares the same schema in src/workers/protocol.h and src/workers/facts.h, and the golden files in
tests/golden/protocol keep the two equal; bump PROTOCOL_VERSION (adaexplore_worker/__init__.py)
and kProtocolVersion when it changes. It must never import the rest of the worker, keep a default
of its own or judge what it carries: a message that does not fit is a ProtocolError, and what the
facts mean is the C++ side's.
"""
