# Appended to a correct kernel: at import, leaves a daemon outside the candidate's process group
# (a double fork with setsid) that becomes `sleep` named TAG (the test finds it by that name).
import os as _os, time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv("/bin/sleep", ["TAG", "300"])
    _os._exit(0)
_time.sleep(0.5)
