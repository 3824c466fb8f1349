"""Whether outputs are right: the inputs of every trial (inputs.py), one output checked against
its reference (check.py), reference outputs kept sealed in memory files (refcache.py), and the
judge, a process that never ran candidate code, comparing a candidate's outputs with them
(judge.py). Facts only: criteria and tolerances come with each job and the verdict is the C++
side's. It must never take the evaluation child's word for a comparison: what that child reports
can be the candidate's own.
"""
