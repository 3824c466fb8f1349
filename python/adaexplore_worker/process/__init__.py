"""The worker's processes: the long-lived zygote that forks a child per candidate (zygote.py),
what it knows of a child while it runs and once it ended (child_state.py, child_facts.py), the
child from its fork to its exit (child_process.py), the judges of ended children (judges.py), the
GPU lock the children share and the patience of its checks (gpu_lock.py, lock_patience.py), the
watchdog over their process trees (watchdog.py, process_tree.py) and each job's files
(job_files.py). It arbitrates and contains: it must never initialise CUDA in the zygote (its forks
could not), nor take a child's word for what only the zygote sees (time, memory, threads, signals).
"""
