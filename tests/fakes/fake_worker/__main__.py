"""A fake evaluation worker for the C++ pool tests: speaks the real protocol, needs no torch.

Startup behaviour comes from FAKE_WORKER_STARTUP: ok (default), bad_version, hello_error,
exit_before_hello, garbage_then_hello. Each job's behaviour is its candidate source:
  result            a normal result
  result:<status>   a result with that facts status
  slow:<seconds>    sleep (blocking the loop), then a result
  waits:<seconds>   as if waiting that long for the GPU lock: a progress notice each second
                    with the job's whole limit remaining, then a result
  die               the worker exits (as if the candidate killed it)
  die_once:<path>   exits the first time (creating <path>), answers normally after
  die_in_reference  the worker exits before the candidate is imported (phase reference)
  stopped           the worker says a stop signal came from outside, then exits
  signalled         a result: its process was killed by SIGKILL (by whom, unknown)
  signalled_once:<path>  that the first time (creating <path>), a normal result after
  hang              never answers
  garbage           a malformed line, then a result
"""

import argparse
import json
import os
import select
import sys
import time


def send(fd, message):
    data = (json.dumps(message) + "\n").encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--scratch", default="/tmp")
    parser.add_argument("--slots", type=int, default=1)
    parser.add_argument("--ahead", type=int, default=0)
    parser.add_argument("--judge-threads", type=int, default=4)
    parser.add_argument("--sandbox", action="store_true")
    parser.add_argument("--require-sandbox", action="store_true")
    args = parser.parse_args()
    fd = args.fd
    startup = os.environ.get("FAKE_WORKER_STARTUP", "ok")
    hello = {"type": "hello", "protocol": 5, "pid": os.getpid(), "python": "3", "torch": "fake",
             "triton": "fake", "device": {"kind": "cpu", "name": "fake-cpu"},
             "slots": args.slots, "ahead": args.ahead, "import_s": 0.0}
    if startup == "exit_before_hello":
        sys.exit(3)
    if startup == "bad_version":
        hello["protocol"] = 99
    if startup == "hello_error":
        hello["error"] = "CUDA is not available in this worker"
    if startup == "garbage_then_hello":
        os.write(fd, b"this is not json\n")
    send(fd, hello)
    buffer = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("type") == "shutdown":
                return
            if message.get("type") != "eval":
                continue
            job_id = message["id"]
            behaviour = message["candidate"]["source"].strip()
            send(fd, {"type": "started", "id": job_id, "pid": os.getpid()})
            if behaviour == "die_in_reference":
                send(fd, {"type": "progress", "id": job_id, "phase": "reference"})
                os._exit(1)
            send(fd, {"type": "progress", "id": job_id, "phase": "check"})
            status = "ok"
            if behaviour == "stopped":
                send(fd, {"type": "stopping", "external": True,
                          "reason": "SIGTERM from pid 1 (kill), not a candidate's process"})
                os._exit(143)
            if behaviour == "signalled" or (behaviour.startswith("signalled_once:")
                                            and not os.path.exists(behaviour.split(":", 1)[1])):
                if behaviour != "signalled":
                    open(behaviour.split(":", 1)[1], "w").close()
                send(fd, {"type": "result", "id": job_id,
                          "facts": {"status": "crash", "signal": 9, "phase": "check"}})
                continue
            if behaviour == "die":
                os._exit(1)
            if behaviour.startswith("die_once:"):
                marker = behaviour.split(":", 1)[1]
                if not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)
            if behaviour == "hang":
                continue
            if behaviour.startswith("waits:"):
                end = time.monotonic() + float(behaviour.split(":", 1)[1])
                while time.monotonic() < end:
                    send(fd, {"type": "progress", "id": job_id, "phase": "check",
                              "remaining_s": message["timeout_s"]})
                    time.sleep(min(1.0, max(0.0, end - time.monotonic())))
            if behaviour.startswith("slow:"):
                time.sleep(float(behaviour.split(":", 1)[1]))
            if behaviour.startswith("result:"):
                status = behaviour.split(":", 1)[1]
            if behaviour == "garbage":
                os.write(fd, b"{not json\n")
            send(fd, {"type": "result", "id": job_id,
                      "facts": {"status": status, "trials": [], "wall_s": 0.01,
                                "notes": [json.dumps(message.get("options", {}))]}})


main()
