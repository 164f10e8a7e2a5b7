"""minedit's fork server: warm interpreters inside the sandbox. src/sandbox/fork-server.ts starts it.

Why: a fresh bwrap sandbox, a fresh CPython and the harness's imports cost 70-90 ms per execution, more
than a whole unsandboxed rollout. This process starts ONCE per sandbox slot, imports what the harness
needs, and then serves one execution at a time by fork(): the child becomes `python3 -s -c CODE ARGS`
(or `python3 -s FILE ARGS`) with its own stdio pipes and limits, and afterwards this process returns the
sandbox to the state of a fresh one.

Usage, inside a bwrap sandbox (it refuses to run unless it is pid 2 of a pid namespace whose init is
bwrap):  python3 -s -c <scratch_files.py, then this source> SETTINGS OUT_FD ERR_FD CONTROL_FD
                                                                         (src/sandbox/python-source.ts)
or as the init of a container (src/sandbox/docker.ts; it refuses unless it is pid 1):
         python3 -s -c <the same source> SETTINGS docker SOCKET
    SETTINGS  JSON {"preload": [...], "runtime": [...], "dirs": [...], "inodes"?: N, "gvisor"?: true,
             "loader"?: "..."}:
             the harness's modules and the task runtime's (src/sandbox/runtimes.ts), imported up front in
             that order, the directories (relative to /tmp) every run of the runtime finds empty in its
             scratch, how many files and directories a run may make in /tmp and /dev/shm together (see
             "Files" below), whether the kernel is gVisor's (docker.ts with runsc; see RLIMIT_MSGQUEUE
             below), and the harness's loader (see "The harness" below).
    OUT_FD, ERR_FD  pipes to the server: every program's stdout and stderr, written there directly by
             the program (not relayed: a program that kills this process cannot take back what it wrote,
             e.g. the harness's `ready` record, which decides between a failure and an infrastructure error).
    /tmp/harness.py  the test harness; loaded (not run) for its _run_as_main and _write_some, and compiled
             for the runs (see "The harness" below), then deleted.
    docker SOCKET  the control channel is the unix socket SOCKET (the server's, bind-mounted read-only;
             it accepts this one connection and no other), where the harness arrives first (H, its
             source); the output pipes are this container's own stdout and stderr (fds 1 and 2, which
             Docker's attach stream carries to the server), so the program writes straight into them as
             under bwrap. As pid 1 the namespace's orphans are reaped here anyway, and kill(-1) reaches
             every other process.

    CONTROL_FD  the control channel (one unix socket, both directions). Not fds 0 and 1: bwrap's init (pid
             1, dumpable: same-uid processes may open its fds through /proc or pidfd_getfd) keeps its
             stdio open for its whole life and closes every other fd, so a channel there could be taken
             by any program of the sandbox, which could then answer this slot's requests itself. Under
             bwrap, fds 0 and 1 are /dev/null.

Control channel: requests in, replies out (in docker mode the socket is moved from fds 0 and 1 to
private fds at start, and 0 and 1 then point at /dev/null, so nothing reaches the channel by accident).
Nothing but this process holds it: every run's child closes it first. A frame is 1 byte kind, 4 bytes
big-endian length, payload; fork-server.ts treats any frame it does not expect as a broken sandbox.
  in:   Q  run: 4-byte header length, JSON header {"files": [[path, size], ...], "argv": [...],
           "stdin": size, "limits": {"wall_ms", "memory", "nproc", "fsize", "cpu_ms"?, "idle_ms"?}}, then
           the files'
           bytes and the stdin bytes in that order.
        K  (empty) stop the running program: it wrote more than the server keeps. Ignored between runs
           (it may cross the end of its run).
  out:  R  ready {"pid", "python", "rss", "vm", "credit", "preload_ms"}, once, after the imports: resident
           and virtual size in bytes, the address space the runtime's modules take (see the limits below)
           and how long importing them took
        S  started {"pid"}: the child exists; candidate code may run from now on
        X  end {"exit", "signal", "timed_out", "cpu_exceeded", "idle_exceeded", "wall_ms", "cpu_ms",
           "idle_ms", "clean", "problem", "marker"}, after the clean-up
Each Q is answered by S then X. Before X, once every process of the run is gone, 32 random bytes (hex in
"marker") are written to OUT_FD and ERR_FD: the server has all of a run's output when each stream ends
with them, and no program can forge them (they are drawn after it died). With "clean": false the
sandbox could not be made clean again ("problem" says why); this process exits after X and the server
starts a new sandbox.

What makes each execution see what a fresh sandbox would:
- Processes: this process is pid 2 and the child subreaper; bwrap is pid 1, the namespace's init. When the
  child ends or is killed, kill(-1, SIGKILL) (which in a pid namespace reaches every process but this one
  and init) is repeated and every orphan reaped until this process has no child left.
- Files: /tmp (the scratch, cwd, HOME, and sys.path[0]) and /dev/shm are emptied, permissions restored
  first so a chmod 000 directory cannot keep its contents, and the runtime's directories made again
  (also once after the imports, which may have written there). A run that makes more than "inodes"
  files and directories there is killed at the next look (where the mounts have no inode cap of their
  own; src/sandbox/whole-run-bounds.ts), and a scratch left with more than that is not emptied at all:
  the sandbox is replaced (a new one is ready sooner than tens of thousands of files are removed). SysV
  IPC objects are removed; POSIX
  message queues cannot be created at all (RLIMIT_MSGQUEUE 0), since they cannot be listed to remove.
- This process is non-dumpable (prctl PR_SET_DUMPABLE 0): a child of the same uid can neither ptrace it
  nor open its memory or fds through /proc. A child can still kill or stop it; the Node side never trusts
  this process for the wall limit: it kills the whole sandbox at the deadline and starts a new one.
- The child: a new session, a fresh stdin pipe and the output pipes as stdout and stderr, every other fd
  closed (the control channel first), cwd
  /tmp, the request's limits as hard rlimits (as `prlimit` sets them for a fresh sandbox; RLIMIT_NPROC
  one higher, as this process counts against it), still non-dumpable (unlike a fresh process: the
  harness runs in it and holds the run's nonce, which no other process of the run may read through
  /proc/PID/mem; the sandbox's syscall filter keeps it from making itself dumpable again), and the state a
  fresh `python3 -s` has, except that the modules imported here are already in sys.modules (random
  reseeds itself after fork, numpy's global generator is reseeded here as a fresh import seeds it; the
  hash seed is fixed by the environment anyway), and the environment variables the imports set are
  undone. Whatever a run changes in a preloaded module (options, monkeypatches, rcParams, open figures,
  sys.modules) is in its own copy of memory and dies with it. What the imports themselves leave — their
  warnings filters, import hooks (six, pkg_resources) — is what a fresh interpreter has once it imports
  them.
- Memory: the address-space limit is the request's plus what the runtime's preloaded modules occupy
  here ("credit"): those pages are inherited, not the program's, so preloading never makes a program hit
  the limit before a fresh interpreter that imports the same modules would.
- CPU time (`cpu_ms`, optional): the run's user + system time, every process of it counted, is the time
  limit; `wall_ms` is then only a backstop for programs that sleep or wait. While the run lasts, this
  process adds up the CPU of the run's live processes (/proc/PID/stat, with their reaped children's) and
  of the ones it reaped itself (getrusage(RUSAGE_CHILDREN) since the run began), and kills the run once
  the sum passes the limit ("cpu_exceeded", "timed_out"); it checks again no later than the limit could
  be reached by two busy threads (at least every 10 ms, at most every 250 ms). The child also gets an
  RLIMIT_CPU a second or two above the limit, in case this process is stopped. "cpu_ms" is what the run
  used, from getrusage once every process of it is reaped: it does not depend on how busy the machine is.
- Idle time (measured with `cpu_ms`; a limit with `idle_ms`): the time the run spent neither running nor
  waiting for a CPU, i.e. sleeping or blocked. Each time this process looks (as for the CPU time), it
  reads every live thread's /proc/PID/task/TID/schedstat (time run + time waited on a run queue): the
  idle time is the time since the run began less those counts summed over the run's threads (a thread
  that ended counts as busy until the look that finds it gone) and less the CPU time of the run's
  processes that ended (their parents' cutime/cstime, this process's getrusage). A CPU-starved run waits
  on the run queue, which is not idle, and so the idle limit, like the CPU limit, does not depend on how
  busy the machine is. Threads that run at once make the sum grow faster than time, so the count errs
  towards missing idle time, with two exceptions: a wait the kernel adds to a thread's count only when it
  runs again (a scheduling latency, credited at the next look), and the run-queue waits of processes that
  start and end between two looks (their CPU counts, their waits do not: a run that starts many short
  processes on a busy machine looks idle while they wait). The limit is calibrated from the gold (4 × its
  idle time, at least 3 s), which leaves room for both. Past `idle_ms` the run is killed
  ("idle_exceeded", "timed_out"): a program that sleeps or blocks for ever ends long before the wall
  backstop. "idle_ms" is the count at the last look: one is taken each time a process this one reaps
  ends, while it is a zombie (its count final and still readable), so a run that ends is counted to its
  end, one that is killed to the last periodic look; null where the kernel has no schedstat (gVisor),
  where neither is measured nor enforced.
- Threads: fork() copies only the calling thread, so a preload that leaves a thread running is refused
  (the sandbox then does not start, and the server says why).

The harness: a test run is `python3 -s -c LOADER STYLE ...` with the harness's bytecode in /tmp/harness.b64
(src/runners/python.ts), LOADER being the one-liner that unmarshals and executes it. When a request's code
is exactly the "loader" of SETTINGS, the child executes this process's own compiled copy of the harness
instead, as `__main__`, with the same argv: the same code runs (this interpreter compiled the same
source under the same name), and each run no longer pays for unmarshalling ~200 kB of code objects (2.7
ms in a process, 12 ms in a forked child where page faults are slow: about a tenth of a run's CPU). Nor
for the file: fork-server.ts leaves harness.b64 out of such a request (~270 kB to receive and write to
the scratch, ~70 page faults of this process's a run), so a warm run's scratch holds only the program's
files. The copy is unmarshalled from this process's compilation and never executed
here, so its code objects are not those of the functions this process calls (_run_as_main, below every
run's frames): the harness trusts its own functions by the identity of their code, and the frames under
a run stay strangers to it, as they are when it comes from harness.b64. What differs from the loader:
`__main__` does not get the loader's two names (`marshal`, `binascii`), which the harness does not use.
"""

import sys


def _serve():
    import ctypes
    import json
    import os
    import resource
    import select
    import signal
    import time

    libc = ctypes.CDLL(None, use_errno=True)

    def fatal(message):
        os.write(2, ("forkserver: " + message + "\n").encode())
        os._exit(3)

    docker = sys.argv[2:3] == ["docker"]
    try:
        with open("/proc/1/comm", "rb") as f:
            init = f.read().strip()
    except OSError:
        init = b""
    # kill(-1) below must only ever reach a sandbox's processes: refuse to run anywhere else. The init of
    # a pid namespace is never the host's init here, so pid 1 means a namespace of its own.
    if docker:
        if os.getpid() != 1:
            fatal("refusing to run outside a container (must be its pid 1)")
        # The name the harness's _kill_others knows a sandbox's init by (as "bwrap" under bwrap).
        libc.prctl(15, b"minedit-init", 0, 0, 0)  # PR_SET_NAME
    elif os.getpid() != 2 or init != b"bwrap":
        fatal("refusing to run outside a bwrap sandbox (must be pid 2 under bwrap)")
    # Past the sandbox's memory (its cgroup) the kernel is to kill the run's processes, not this server:
    # each child is forked with the highest OOM score, which this process sets on itself for the fork
    # and takes back after. Opened now: once non-dumpable, its /proc files are no longer its own to open.
    try:
        oom_fd = os.open("/proc/self/oom_score_adj", os.O_RDWR)
        own_oom_score = os.read(oom_fd, 16).strip() or b"0"
    except OSError:
        oom_fd = None  # (best effort: a kernel without the file still runs the programs)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        fatal("prctl(PR_SET_DUMPABLE, 0) failed")
    if not docker and libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        fatal("prctl(PR_SET_CHILD_SUBREAPER, 1) failed")

    harness = {"__name__": "minedit_harness", "__builtins__": __builtins__}
    if docker:
        import socket

        control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            control.connect(sys.argv[3])
        except OSError as e:
            fatal("cannot reach the server's control socket: " + str(e))
        # The channel becomes fds 0 and 1, as bwrap's pipes are; 1 and 2 first become the output pipes.
        data_out = os.dup(1)
        data_err = os.dup(2)
        os.dup2(control.fileno(), 0)
        os.dup2(control.fileno(), 1)
        control.close()

        def read_fully(size):
            parts = []
            while size:
                chunk = os.read(0, min(size, 1 << 20))
                if not chunk:
                    fatal("the harness frame was cut short")
                parts.append(chunk)
                size -= len(chunk)
            return b"".join(parts)

        head = read_fully(5)
        if head[:1] != b"H":
            fatal("expected the harness frame first")
        harness_code = compile(read_fully(int.from_bytes(head[1:], "big")).decode("utf-8"), "harness.py", "exec")
    else:
        with open("/tmp/harness.py", encoding="utf-8") as f:
            harness_code = compile(f.read(), "harness.py", "exec")
        os.remove("/tmp/harness.py")
    exec(harness_code, harness)
    # The runs' copy (see "The harness" above): other code objects than the library's just executed.
    import marshal

    run_harness = marshal.loads(marshal.dumps(harness_code))
    del harness_code
    run_as_main = harness["_run_as_main"]
    write_some = harness["_write_some"]
    settings = json.loads(sys.argv[1])
    gvisor = settings.get("gvisor") is True
    loader = settings.get("loader")
    harness_run = None if loader is None else (loader, run_harness)
    if not docker:
        data_out = int(sys.argv[2])
        data_err = int(sys.argv[3])
    scratch_dirs = ["/tmp/" + d for d in settings["dirs"]]
    # Files and directories a run may make in /tmp and /dev/shm together (checked at every look), where
    # the scratch mounts themselves have no inode cap (bwrap's --tmpfs; see whole-run-bounds.ts).
    inode_cap = settings.get("inodes")
    for path in scratch_dirs:
        os.makedirs(path, exist_ok=True)

    def memory():
        """(resident, virtual) size of this process in bytes."""
        with open("/proc/self/statm") as f:
            virtual, resident = f.read().split()[:2]
        page = os.sysconf("SC_PAGE_SIZE")
        return int(resident) * page, int(virtual) * page

    for name in settings["preload"]:
        __import__(name)
    before_runtime = memory()[1]
    environment = dict(os.environ)
    preload_started = time.monotonic()
    for name in settings["runtime"]:
        __import__(name)
    preload_ms = (time.monotonic() - preload_started) * 1000.0
    if dict(os.environ) != environment:
        # A run's environment is the sandbox's, as in a fresh interpreter (scikit-learn sets KMP_* for
        # Intel's OpenMP at import; Debian's builds use GNU's).
        os.environ.clear()
        os.environ.update(environment)
    credit = max(0, memory()[1] - before_runtime)
    if len(os.listdir("/proc/self/task")) != 1:
        fatal("preloading left threads running; fork() would copy only one of them")
    numpy = sys.modules.get("numpy")
    # Everything imported so far is shared by every run: keep the collector away from it, so a run's
    # collections (the program's own, or gc.collect()) do not walk the preloaded modules, and the forked
    # pages stay shared (the prefork idiom gc.freeze() exists for).
    import gc

    gc.freeze()
    rss, vm = memory()

    # Orphans of a run are reparented here: reap them as they die (SIGCHLD wakes the poll loop), as the
    # init of a fresh sandbox would, so a killed leftover does not linger as a zombie in /proc.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)

    if docker:
        ctl_in = os.dup(0)
        ctl_out = os.dup(1)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
    else:
        # bwrap hands the channel over on a fd of its own (not 0 and 1, which bwrap's init keeps).
        ctl_in = ctl_out = int(sys.argv[4])
    monotonic = time.monotonic

    def send(kind, payload):
        view = memoryview(kind + len(payload).to_bytes(4, "big") + payload)
        while view:
            view = view[os.write(ctl_out, view) :]

    def send_json(kind, value):
        send(kind, json.dumps(value).encode())

    def read_exact(size):
        parts = []
        while size:
            chunk = os.read(ctl_in, min(size, 1 << 20))
            if not chunk:
                os._exit(0)  # the server closed the channel: this sandbox is done
            parts.append(chunk)
            size -= len(chunk)
        return b"".join(parts)

    def kill_all():
        """Kill every process but init and this one and reap them all; False if some survive 5 s."""
        give_up = monotonic() + 5
        while True:
            try:
                os.kill(-1, 9)
            except OSError:
                pass
            while True:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    return True
                if pid == 0:
                    break
            if monotonic() > give_up:
                return False
            time.sleep(0.0005)

    def drain(fd):
        try:
            while os.read(fd, 4096):
                pass
        except BlockingIOError:
            pass

    def reap_orphans(pid):
        """Reap every child that has ended; the wait status of `pid` if it was among them, else None."""
        found = None
        while True:
            try:
                ended, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return found
            if ended == 0:
                return found
            if ended == pid:
                found = status

    # The scratch directories' own modes, restored if a program changed them (it owns them).
    scratch_modes = {top: os.stat(top).st_mode & 0o7777 for top in ("/tmp", "/dev/shm")}

    def empty_directory(top):
        """Remove everything under `top`. Directories get their permissions back first (a program may
        have made one unreadable to keep its contents); depth-first with an explicit stack, so a deep tree
        cannot exhaust the recursion limit. Whatever still fails makes the sandbox unclean (replaced)."""
        if os.stat(top).st_mode & 0o7777 != scratch_modes[top]:
            os.chmod(top, scratch_modes[top])
        stack = [(top + "/" + name, False) for name in os.listdir(top)]
        while stack:
            path, emptied = stack.pop()
            if emptied:
                os.rmdir(path)
            elif os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                stack.append((path, True))
                stack.extend((path + "/" + name, False) for name in os.listdir(path))
            else:
                os.unlink(path)
        return not os.listdir(top)

    IPC_RMID = 0
    ipc_removers = (
        ("/proc/sysvipc/shm", lambda ident: libc.shmctl(ident, IPC_RMID, None)),
        ("/proc/sysvipc/sem", lambda ident: libc.semctl(ident, 0, IPC_RMID)),
        ("/proc/sysvipc/msg", lambda ident: libc.msgctl(ident, IPC_RMID, None)),
    )

    def remove_ipc():
        left = 0
        for table, remove in ipc_removers:
            try:
                with open(table) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                remove(int(row.split()[1]))
            with open(table) as f:
                left += len(f.read().splitlines()) - 1
        return left == 0

    def scratch_inodes():
        """Files and directories in the scratch and /dev/shm now (their mounts' roots included)."""
        used = 0
        for top in ("/tmp", "/dev/shm"):
            stat = os.statvfs(top)
            used += stat.f_files - stat.f_ffree
        return used

    def clean_up():
        """Return the sandbox to its state before the run; why not, or "" when it is clean."""
        if not kill_all():
            return "processes survived SIGKILL for 5 s"
        try:
            # Emptying takes ~15 µs a file (~0.25 s at the cap). A run that got past the cap before a
            # look killed it (no capped mounts) may have left far more: then this sandbox is replaced,
            # and its scratch goes with its mount namespace, in the kernel, not in this slot's time.
            left = scratch_inodes()
            if inode_cap is not None and left > inode_cap:
                return "%d files left in the scratch (a new sandbox is sooner ready than this one emptied)" % left
            for top in ("/tmp", "/dev/shm"):
                if not empty_directory(top):
                    return top + " could not be emptied"
            for path in scratch_dirs:
                os.makedirs(path)
            if not remove_ipc():
                return "SysV IPC objects could not be removed"
            os.chdir("/tmp")
        except Exception as e:  # anything: the report must still go out, and the sandbox is replaced
            return "clean-up failed: " + repr(e)
        return ""

    def write_files(files):
        for path, data in files:
            # From the request's mapping with os.write: no file object's buffer keeps a copy of the bytes.
            write_scratch_file(path, b"")  # checks the path, makes its directories (scratch_files.py)
            fd = os.open("/tmp/" + path, os.O_WRONLY | os.O_TRUNC)
            try:
                done = 0
                while done < len(data):
                    done += os.write(fd, data[done:])
            finally:
                os.close(fd)

    clock_tick = float(os.sysconf("SC_CLK_TCK"))
    me = os.getpid()

    def reaped_cpu():
        """CPU seconds of every child this process has reaped (and of what they reaped)."""
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def live_cpu():
        """CPU seconds of the live processes of the sandbox (this one and init excepted), each with its
        reaped children's."""
        total = 0
        for name in os.listdir("/proc"):
            if not name.isdigit() or name == "1" or int(name) == me:
                continue
            try:
                with open("/proc/" + name + "/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile: reaped_cpu() has it once this process reaps it
            total += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
        return total / clock_tick

    # gVisor (runsc) has no schedstat: there the idle time is not measured and its limit not enforced
    # (the wall backstop still is).
    schedstat = os.path.exists("/proc/self/task/%d/schedstat" % os.getpid())

    def live_threads():
        """({thread id: seconds it ran or waited to run} for every live thread of the sandbox's processes
        (this one and init excepted), from /proc/PID/task/TID/schedstat; the CPU seconds of the children
        those processes reaped, from /proc/PID/stat)."""
        threads = {}
        reaped = 0
        for name in os.listdir("/proc"):
            if not name.isdigit() or name == "1" or int(name) == me:
                continue
            try:
                tids = os.listdir("/proc/" + name + "/task")
                with open("/proc/" + name + "/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                reaped += int(fields[13]) + int(fields[14])  # cutime, cstime
            except (OSError, IndexError, ValueError):
                continue  # ended meanwhile
            for tid in tids:
                try:
                    with open("/proc/" + name + "/task/" + tid + "/schedstat", "rb") as f:
                        ran, waited = f.read().split()[:2]
                except (OSError, ValueError):
                    continue
                threads[tid] = (int(ran) + int(waited)) / 1e9
        return threads, reaped / clock_tick

    class IdleClock:
        """The run's idle time so far (see the module docstring), updated by look(): the time since the
        run began less what its threads ran or waited for a CPU, all of them together, and the CPU of
        its processes that ended (reaped by the run or by this process). Cumulative, so a wait the kernel
        adds to a thread's count only once the thread runs again is credited late, not lost; a thread that
        ended since the previous look counts as busy until this one."""

        def __init__(self, since, cpu_before):
            self.since = since
            self.cpu_before = cpu_before
            self.last = since
            self.seen = {}  # thread id -> its count at the previous look
            self.ended = 0.0  # the counts of the threads that ended, each with its allowance
            self.idle = 0.0

        def look(self):
            now = monotonic()
            threads, reaped = live_threads()
            for tid, count in self.seen.items():
                if tid not in threads:
                    self.ended += count + (now - self.last)
            self.seen = threads
            self.last = now
            busy = self.ended + sum(threads.values()) + reaped + (reaped_cpu() - self.cpu_before)
            self.idle = max(0.0, (now - self.since) - busy)
            return self.idle

    def run_one(header, files, stdin, wiped):
        started = monotonic()
        deadline = started + header["limits"]["wall_ms"] / 1000.0
        cpu_limit = header["limits"].get("cpu_ms")
        cpu_limit = None if cpu_limit is None else cpu_limit / 1000.0
        idle_limit = header["limits"].get("idle_ms")
        idle_limit = None if idle_limit is None else idle_limit / 1000.0
        idle_exceeded = False
        cpu_before = reaped_cpu()
        cpu_exceeded = False
        write_files(files)
        in_r, in_w = os.pipe()
        pending = stdin
        if not wiped:
            # Without MADV_WIPEONFORK (see receive) the child would get the request's bytes: the files'
            # are zeroed first, and as much of stdin as the pipe takes is written now and zeroed.
            for _, data in files:
                data[:] = bytes(len(data))
            os.set_blocking(in_w, False)
            pending = write_some(os, in_w, pending)
            stdin[: len(stdin) - len(pending)] = bytes(len(stdin) - len(pending))
        if oom_fd is not None:
            os.write(oom_fd, b"1000")
        pid = os.fork()
        if pid == 0:
            _become_child(header, in_r, data_out, data_err, run_as_main, harness_run, libc, credit, numpy, gvisor, docker)
        if oom_fd is not None:
            os.write(oom_fd, own_oom_score)
        os.close(in_r)
        measure_idle = schedstat and (cpu_limit is not None or idle_limit is not None)
        idle_clock = IdleClock(started, cpu_before) if measure_idle else None
        send_json(b"S", {"pid": pid})
        os.set_blocking(in_w, False)
        poller = select.poll()
        poller.register(wake_r, select.POLLIN)
        poller.register(ctl_in, select.POLLIN)
        if pending:
            poller.register(in_w, select.POLLOUT)
        else:
            os.close(in_w)
            in_w = -1
        timed_out = stopped = inodes_exceeded = False
        status = None
        while status is None:
            remaining = deadline - monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if cpu_limit is not None:
                used = reaped_cpu() - cpu_before + live_cpu()
                if used > cpu_limit:
                    timed_out = cpu_exceeded = True
                    break
                remaining = min(remaining, max(0.01, min(0.25, (cpu_limit - used) / 2)))
            if inode_cap is not None:
                if scratch_inodes() > inode_cap:
                    inodes_exceeded = True
                    break
                remaining = min(remaining, 0.25)
            if idle_clock is not None:  # (measured: with a CPU or idle limit, where schedstat exists)
                idle = idle_clock.look()
                if idle_limit is not None:
                    if idle > idle_limit:
                        timed_out = idle_exceeded = True
                        break
                    remaining = min(remaining, max(0.01, min(0.25, idle_limit - idle)))
            for fd, _event in poller.poll(max(1, int(remaining * 1000.0 + 0.999))):
                if fd == in_w:
                    pending = write_some(os, in_w, pending)
                    if not pending:
                        poller.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                elif fd == wake_r:
                    drain(wake_r)
                    if idle_clock is not None:
                        # A last look while what ended is a zombie, whose count is final and still
                        # readable: without it the idle time would stop at the look before, up to an
                        # interval (250 ms) short.
                        idle_clock.look()
                    status = reap_orphans(pid)
                elif fd == ctl_in:
                    # The server asks to stop the program (it wrote more than the output limit).
                    if read_exact(1) != b"K" or read_exact(4) != bytes(4):
                        fatal("unexpected frame during a run")
                    poller.unregister(ctl_in)
                    stopped = True
            if stopped or inodes_exceeded:
                break
        if status is None:
            status = reap_orphans(pid)
        # The program has ended (or must): what it left running ends too, as when a sandbox run ends.
        if status is None:
            os.kill(pid, 9)
            _, status = os.waitpid(pid, 0)
        if in_w >= 0:
            os.close(in_w)
        wall_ms = (monotonic() - started) * 1000.0
        exit_code = signal = None
        if os.WIFSIGNALED(status):
            signal = os.WTERMSIG(status)
        else:
            exit_code = os.WEXITSTATUS(status)
        if timed_out or stopped or inodes_exceeded:
            exit_code, signal = None, 9
        # Every process of the run is reaped (clean_up kills and reaps what is left): all its CPU is here.
        problem = clean_up()
        if inodes_exceeded:
            # Every writer of the stream is gone: the reason lands before the marker, in the run's stderr.
            note = "\nminedit: killed: the run made more than %d files in its scratch\n" % inode_cap
            os.write(data_err, note.encode())
        cpu_ms = (reaped_cpu() - cpu_before) * 1000.0
        if cpu_limit is not None and signal == 24:  # SIGXCPU: the RLIMIT_CPU backstop fired
            timed_out = cpu_exceeded = True
            exit_code, signal = None, 9
        # Every writer of the output pipes is dead: a marker no program could know ends each stream.
        marker = os.urandom(32)
        for fd in (data_out, data_err):
            view = memoryview(marker)
            while view:
                view = view[os.write(fd, view) :]
        send_json(
            b"X",
            {
                "exit": exit_code,
                "signal": signal,
                "timed_out": timed_out,
                "cpu_exceeded": cpu_exceeded,
                "idle_exceeded": idle_exceeded,
                "wall_ms": wall_ms,
                "cpu_ms": cpu_ms,
                "idle_ms": None if idle_clock is None else idle_clock.idle * 1000.0,
                "clean": problem == "",
                "problem": problem,
                "marker": marker.hex(),
            },
        )
        return problem == ""

    # The imports ran with /tmp as cwd and may have written there (a font cache): start as every run does.
    problem = clean_up()
    if problem:
        fatal("the sandbox could not be cleaned after the imports: " + problem)
    send_json(
        b"R",
        {
            "pid": os.getpid(),
            "python": sys.version.split()[0],
            "rss": rss,
            "vm": vm,
            "credit": credit,
            "preload_ms": preload_ms,
        },
    )
    # A request's bytes (the tests' text, stdin with the harness's nonce) must not reach the run it starts,
    # nor any later one: the child is forked from this process, and a program that reads its own memory
    # would find them. So they are read straight into an anonymous private mapping of their own (no bytes
    # object in between), which fork() does not copy (MADV_WIPEONFORK: the child finds zeros there), used
    # from it (memoryviews: the files written with os.write, stdin through the child's pipe), and unmapped
    # after the run. Where the kernel lacks MADV_WIPEONFORK (gVisor), run_one zeroes them before the fork.
    import mmap

    MADV_WIPEONFORK = 18

    def receive(size):
        """The next `size` bytes of the channel, in a mapping of their own; and whether fork() wipes it."""
        request = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        try:
            request.madvise(MADV_WIPEONFORK)
            wiped = True
        except (OSError, ValueError):
            wiped = False
        view = memoryview(request)
        got = 0
        while got < size:
            n = os.readv(ctl_in, [view[got : min(size, got + (1 << 20))]])
            if not n:
                os._exit(0)  # the server closed the channel: this sandbox is done
            got += n
        view.release()
        return request, wiped

    while True:
        kind = read_exact(1)
        size = int.from_bytes(read_exact(4), "big")
        if kind == b"K":
            read_exact(size)
            continue  # a stop request that crossed the end of its run
        if kind != b"Q":
            fatal("unknown request kind " + repr(kind))
        request, wiped = receive(size)
        view = memoryview(request)
        header_size = int.from_bytes(view[:4], "big")
        header = json.loads(bytes(view[4 : 4 + header_size]))
        position = 4 + header_size
        files = []
        for path, size in header["files"]:
            files.append((path, view[position : position + size]))
            position += size
        stdin = view[position : position + header["stdin"]]
        clean = run_one(header, files, stdin, wiped)
        del files, stdin
        view.release()
        request.close()
        if not clean:
            os._exit(0)


def _become_child(header, in_r, out_w, err_w, run_as_main, harness_run, libc, credit, numpy, gvisor, docker):
    """In the forked child: take the request's stdio, limits and a session of its own, then run its argv as
    `python3 -s` would. Never returns; exit status 125 when the set-up itself fails (before candidate code:
    the harness then never reports `ready`, which the runner scores as an infrastructure error).
    `harness_run`: (the harness's loader, the compiled harness it stands for), or None; `credit`: bytes of
    address space the preloaded runtime occupies, added to the memory limit; `numpy`: the preloaded numpy,
    or None."""
    import os
    import resource

    try:
        import signal

        # As a fresh process: default SIGCHLD, no wakeup fd (the fork server's own reaping).
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        os.dup2(in_r, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # Every other fd goes, the control channel first among them.
        os.closerange(3, 1 << 20)
        os.chdir("/tmp")
        limits = header["limits"]
        if numpy is not None:
            # As a fresh import does: the legacy global generator seeded from the OS (else every run
            # forked from this server would draw the same numbers).
            numpy.random.seed()
        for which, value in (
            (resource.RLIMIT_AS, limits["memory"] + credit),
            # Under Docker the container's pids cgroup is the process limit: RLIMIT_NPROC counts every
            # process of the uid on the host, other containers' and sandboxes' too (forkserver "docker").
            *(() if docker else ((resource.RLIMIT_NPROC, limits["nproc"] + 1),)),
            (resource.RLIMIT_FSIZE, limits["fsize"]),
            (resource.RLIMIT_CORE, 0),
            (resource.RLIMIT_MSGQUEUE, 0),
        ):
            # Under the host's hard limit, which an unprivileged process cannot raise.
            hard = resource.getrlimit(which)[1]
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            try:
                resource.setrlimit(which, (value, value))
            except (OSError, ValueError):
                # gVisor (runsc) refuses to set RLIMIT_MSGQUEUE at all; everything else must hold.
                if which != resource.RLIMIT_MSGQUEUE or not gvisor:
                    raise
        if limits.get("cpu_ms") is not None:
            # Whole seconds, a backstop only (SIGXCPU, then SIGKILL a second later): the fork server
            # measures and enforces the limit itself.
            seconds = -(-limits["cpu_ms"] // 1000) + 1
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            if hard != resource.RLIM_INFINITY:
                seconds = min(seconds, hard - 1)
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
        argv = header["argv"]
        if argv[2] == "-c":
            source, filename, main_argv, main_file = argv[3], "<string>", ["-c"] + argv[4:], None
            if harness_run is not None and source == harness_run[0]:
                source = harness_run[1]  # the harness, compiled: see "The harness" in this file's docstring
            sys.path[0] = ""
        else:
            with open(argv[2], "rb") as f:
                source = f.read()
            filename = main_file = "/tmp/" + argv[2]
            main_argv = argv[2:]
            sys.path[0] = os.path.dirname(filename)
    except BaseException:
        os._exit(125)
    run_as_main(source, filename, main_argv, main_file)


_serve()
