#!/usr/bin/env python3
"""measure.py OUT -- COMMAND...: runs COMMAND with its stdout in OUT (stderr passed through) and prints
{"seconds", "cpuSeconds", "maxRssKiB", "status"}: wall time from fork to exit, user + system CPU time of
the process and its waited-for descendants, and the peak resident set size that wait4
reports for it (the largest of the process and its waited-for descendants: for minedit, one process whose
worker threads share it; for a multiprocessing pool, its largest process)."""

import json
import os
import sys
from time import perf_counter


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out, command = sys.argv[1], sys.argv[3:]
    with open(out, "wb") as stdout:
        started = perf_counter()
        pid = os.fork()
        if pid == 0:
            os.dup2(stdout.fileno(), 1)
            try:
                os.execvp(command[0], command)
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        seconds = perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime  # the process and its waited-for descendants (a pool's workers)
    json.dump(
        {"seconds": seconds, "cpuSeconds": cpu, "maxRssKiB": usage.ru_maxrss, "status": os.waitstatus_to_exitcode(status)},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
