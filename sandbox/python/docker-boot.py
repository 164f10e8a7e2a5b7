"""minedit's boot for one fresh run in a container of its own (src/sandbox/docker-boot.ts): the container's
init, as bwrap's init is for a fresh bwrap sandbox.

Usage:  python3 -s -c <scratch_files.py, then this source> HEADER   (src/sandbox/python-source.ts)
    HEADER  JSON {"files": [[path, size], ...], "stdin": size, "argv": [...],
             "limits": {"memory", "nproc", "fsize", "cpu_s"?}}
Stdin:  the files' bytes, in order, then the program's stdin bytes.

It makes itself non-dumpable, writes the files under /tmp (the scratch), then forks: the child takes a pipe carrying the stdin bytes
as fd 0, the run's limits as hard rlimits (as `prlimit` sets them under bwrap: address space, file size,
CPU seconds, no core dumps; the process limit is the container's pids cgroup, which docker.ts sets, not
RLIMIT_NPROC, which would count every process of the uid on the host) and executes argv with the container's stdout and stderr; this
process feeds the pipe, waits for the child, kills whatever the run left (kill(-1), as pid 1), and exits
with the child's status, 128 + N for a signal N (as bwrap's init reports). Exit status 125: the set-up
failed before argv ran (the server reports the sandbox, not the program).
"""

import ctypes
import json
import os
import resource
import sys


def _boot():
    try:
        if os.getpid() != 1:
            raise OSError("not the container's init")
        # It holds the request (the files and stdin: a harness run's tests and nonce) in its memory: no
        # other process of the container may read it through /proc/1/mem (nor ptrace it, which the
        # syscall filter refuses anyway). The program gets a dumpable process of its own from execvp.
        if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
            raise OSError("prctl(PR_SET_DUMPABLE, 0) failed")
        header = json.loads(sys.argv[1])

        def read_exact(size):
            parts = []
            while size:
                chunk = os.read(0, min(size, 1 << 20))
                if not chunk:
                    raise OSError("the request was cut short")
                parts.append(chunk)
                size -= len(chunk)
            return b"".join(parts)

        for path, size in header["files"]:
            write_scratch_file(path, read_exact(size))  # (scratch_files.py, before this source)
        data = read_exact(header["stdin"])
        in_r, in_w = os.pipe()
        limits = header["limits"]
    except Exception as e:
        os.write(2, ("docker-boot: " + repr(e) + "\n").encode())
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            os.dup2(in_r, 0)
            os.closerange(3, 1 << 20)
            for which, value in (
                (resource.RLIMIT_AS, limits["memory"]),
                (resource.RLIMIT_FSIZE, limits["fsize"]),
                (resource.RLIMIT_CORE, 0),
            ):
                resource.setrlimit(which, (value, value))
            if limits.get("cpu_s") is not None:
                resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"] + 1))
            os.chdir("/tmp")
            os.execvp(header["argv"][0], header["argv"])
        except BaseException as e:  # noqa: B036 - nothing of the program ran: report the set-up
            os.write(2, ("docker-boot: cannot run " + repr(header["argv"][0]) + ": " + repr(e) + "\n").encode())
            os._exit(125)
    os.close(in_r)
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(in_w, view[:65536]) :]
    except OSError:
        pass  # the program closed its stdin: the rest is unread, its business
    os.close(in_w)
    status = 0
    while True:
        try:
            ended, code = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if ended == pid:
            status = code
            try:
                os.kill(-1, 9)
            except OSError:
                pass
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


_boot()
