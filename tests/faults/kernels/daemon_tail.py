# Appended to a correct kernel: at import, leaves a daemon outside the candidate's process group
# (a double fork with setsid) that writes its pid to PID_FILE and sleeps.
import os as _os, time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        with open("PID_FILE", "w") as _f:
            _f.write(str(_os.getpid()))
        _time.sleep(300)
    _os._exit(0)
_time.sleep(0.5)
