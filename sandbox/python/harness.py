"""minedit's Python test harness. Runs inside the sandbox; src/runners/python.ts writes it as harness.py.

Usage:  python3 -s harness.py unittest            (BigCodeBench: a TestCases(unittest.TestCase) class)
        python3 -s harness.py assert ENTRY_POINT  (HumanEval: def check(candidate), called as check(ENTRY_POINT))
        python3 -s harness.py stdio BUDGET_MS CASE_CAP TOTAL_CAP   (DeepCoder: see _stdio below; the rest
                                                  of this docstring is about the two other styles)
Only ever run inside the sandbox (the stdio style kills every other process of its pid namespace
between cases; it checks it has one, see _kill_others). Run directly by bwrap or, warm, by the fork
server (sandbox/python/forkserver.py), which runs it exactly as `python3 -s -c LOADER ARGS` would. Imports are what each style needs: unittest only
for the unittest style, and the stdio style imports neither ast, json, traceback nor unittest.
Files:  program.py (the candidate), tests.py (the task's tests), in the working directory.
Stdin:  one line, a random nonce. It is read, and fd 0 replaced by /dev/null, before any candidate code runs.

Results go to stdout as records the candidate cannot forge without the nonce, each on its own line:

    @@minedit:<nonce>:<kind>:<json>

    ready   after the inputs are read and the tests compiled, before candidate code runs;
            {"total": static estimate of the number of tests}
    loaded  (unittest) the tests are collected; {"total": n}
    test    one test finished; {"name": str, "ok": bool}
    result  the final outcome, written once, then the process ends with os._exit(0):
            {"status": "ok" | "program_error" | "tampered" | "tests_invalid", "passed": int,
             "total": int, "all_ok": bool, "memory_error": bool, "detail": str}
            all_ok is true only when every counted test passed and nothing failed outside a test.

Against a candidate that tries to pass without solving the task (SPEC §2.6):
- sys.exit() / os._exit() / killing the process before or during the tests: no `result` record, which
  the runner scores as a failure, never a pass. SystemExit raised by the program is caught and reported.
- Patching the test machinery: every unittest class and module, builtins and json are snapshotted (each
  attribute's identity and, for functions, their code, defaults and closure) before the candidate runs,
  and checked after the program is loaded, after the tests are defined and after every test; the tests
  run with a result class defined here. A difference is status "tampered".
- Printing a fake result: it would need the nonce, which is never in argv, environment, files or module
  globals (it lives only in the record writer's closure).
- Raising unittest.SkipTest from the candidate: a test skipped at run time counts as failed; only tests
  skipped by decorator (known before running) are left out of the total.
This is not a defence against arbitrary in-process introspection (walking gc objects, tracing frames,
threads racing the checks): tests and candidate share one interpreter by design (BigCodeBench and
HumanEval run them in one namespace). The sandbox, not this file, is the security boundary.
"""

import sys


def _harness():
    import ast
    import builtins
    import gc
    import json
    import json.encoder
    import mmap
    import os
    import traceback
    import types

    # unittest (the heaviest import) only for the style that uses it.
    unittest_style = sys.argv[1:2] == ["unittest"]
    if unittest_style:
        import unittest
        import unittest.case
        import unittest.loader
        import unittest.result
        import unittest.suite
        import unittest.util

    # Everything used after candidate code has run is bound here, so rebinding module attributes later
    # does not reach the harness.
    write = os.write
    exit_now = os._exit
    dumps = json.dumps
    format_exception = traceback.format_exception_only
    format_tb = traceback.format_exception
    isinstance_ = isinstance
    issubclass_ = issubclass
    getattr_ = getattr
    len_ = len
    str_ = str
    type_ = type
    FunctionType = types.FunctionType
    if unittest_style:
        TestCase = unittest.case.TestCase
        TestResult = unittest.result.TestResult
        TestLoader = unittest.loader.TestLoader
        TestSuite = unittest.suite.TestSuite
    else:
        TestCase = TestResult = TestLoader = TestSuite = type("NoUnittest", (), {})
    stderr_fd = 2

    # --- the nonce and the private result channel ---------------------------------------------------
    data = b""
    while True:
        chunk = os.read(0, 4096)
        if not chunk:
            break
        data += chunk
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # A private copy of stdout: the candidate closing or redirecting fd 1 does not cut the channel.
    out_fd = os.dup(1)

    def make_emitter(fd, prefix):
        def emit(kind, payload):
            line = prefix + kind.encode() + b":" + dumps(payload, ensure_ascii=True).encode() + b"\n"
            while line:
                line = line[write(fd, line) :]

        return emit

    emit = make_emitter(out_fd, b"\n@@minedit:" + data.strip() + b":")
    del data

    # Address space held back and released before the final report, so a candidate that exhausted the
    # memory limit (RLIMIT_AS: address space, not resident memory) still lets it be written. An anonymous
    # mapping reserves the space without touching its pages, which zeroing a bytearray would (~8 ms).
    ballast = [mmap.mmap(-1, 8 << 20)]

    def release_ballast(memory_error):
        for block in ballast:
            block.close()
        ballast.clear()
        # Cyclic garbage is only worth collecting when memory ran out: a full collection costs milliseconds.
        if memory_error:
            gc.collect()

    def log(text):
        try:
            encoded = text.encode("utf-8", "replace")
            while encoded:
                encoded = encoded[write(stderr_fd, encoded) :]
        except Exception:
            pass

    def describe(exc_type, exc):
        try:
            return "".join(format_exception(exc_type, exc)).strip()[-500:]
        except BaseException:
            return getattr_(exc_type, "__name__", "exception")

    def finish(status, passed, total, memory_error, detail, all_ok=False):
        release_ballast(memory_error)
        try:
            sys.stderr.flush()
        except BaseException:
            pass
        emit(
            "result",
            {
                "status": status,
                "passed": passed,
                "total": total,
                "all_ok": all_ok,
                "memory_error": memory_error,
                "detail": detail,
            },
        )
        exit_now(0)

    # --- arguments and inputs -------------------------------------------------------------------------
    args = sys.argv[1:]
    style = args[0] if args else ""
    entry_point = args[1] if len_(args) > 1 else ""
    if style not in ("unittest", "assert") or (style == "assert" and not entry_point):
        finish("tests_invalid", 0, 0, False, "harness usage: harness.py unittest | assert ENTRY_POINT")
    with open("program.py", encoding="utf-8") as f:
        program_source = f.read()
    with open("tests.py", encoding="utf-8") as f:
        tests_source = f.read()

    # --- compile the tests (no candidate code has run yet) ----------------------------------------------
    try:
        tests_tree = ast.parse(tests_source, "tests.py")
    except SyntaxError as e:
        finish("tests_invalid", 0, 0, False, "tests do not compile: " + describe(type_(e), e))

    nested_asserts = False
    # Unusable tests are reported here, before candidate code runs, as "tests_invalid" (the runner masks
    # the sample). Once the candidate has run, anything missing counts against it: it could be the cause.
    if style == "unittest":
        estimate = 0
        defined = False
        for node in tests_tree.body:
            if isinstance_(node, ast.ClassDef) and node.name == "TestCases":
                defined = True
                estimate = sum(
                    1
                    for item in node.body
                    if isinstance_(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test")
                )
        if not defined:
            finish("tests_invalid", 0, 0, False, "tests define no TestCases class")
    else:
        # HumanEval's check(candidate) is one function of asserts. Each top-level assert in its body becomes
        # one counted test: it is wrapped so a failure is reported and the next assert still runs, and its
        # outcome is yielded (a generator, so the candidate has no name to hook), never recorded via a global.
        check = None
        for node in tests_tree.body:
            if isinstance_(node, ast.FunctionDef) and node.name == "check":
                check = node
        if check is None:
            finish("tests_invalid", 0, 0, False, "tests define no check(candidate) function")
        asserts = 0
        body = []
        for statement in check.body:
            if isinstance_(statement, ast.Assert):
                index = ast.Constant(asserts)
                handler = ast.ExceptHandler(
                    type=ast.Name("Exception", ast.Load()),
                    name="_minedit_error",
                    body=[
                        ast.Expr(
                            ast.Yield(ast.Tuple([index, ast.Constant(False), ast.Name("_minedit_error", ast.Load())], ast.Load()))
                        )
                    ],
                )
                wrapped = ast.Try(
                    body=[statement],
                    handlers=[handler],
                    orelse=[ast.Expr(ast.Yield(ast.Tuple([index, ast.Constant(True), ast.Constant(None)], ast.Load())))],
                    finalbody=[],
                )
                body.append(ast.copy_location(wrapped, statement))
                asserts += 1
            else:
                # Any other statement can fail the check too (a loop of asserts, an explicit `raise`).
                nested_asserts = True
                body.append(statement)
        check.body = body
        ast.fix_missing_locations(tests_tree)
        # Statements besides top-level asserts, or none at all: "check() completes" is one more test.
        extra_unit = nested_asserts or asserts == 0
        estimate = asserts + (1 if extra_unit else 0)
    try:
        tests_code = compile(tests_tree, "tests.py", "exec")
    except SyntaxError as e:
        finish("tests_invalid", 0, 0, False, "tests do not compile: " + describe(type_(e), e))

    # --- the test runner's result class, defined before candidate code --------------------------------
    outcome = {"failed": {}, "stopped": set(), "memory": False, "first_failure": ""}
    static_skips = set()

    def note_failure(test, text, exc_type=None):
        key = test.id() if isinstance_(test, TestCase) else str_(test)
        if key not in outcome["failed"]:
            outcome["failed"][key] = text
        if exc_type is not None and issubclass_(exc_type, MemoryError):
            outcome["memory"] = True
        if not outcome["first_failure"]:
            outcome["first_failure"] = key.rsplit(".", 1)[-1] + ": " + text

    class HarnessResult(TestResult):
        def addError(self, test, err):
            note_failure(test, describe(err[0], err[1]), err[0])
            self.report("ERROR", test, err)

        def addFailure(self, test, err):
            note_failure(test, describe(err[0], err[1]), err[0])
            self.report("FAIL", test, err)

        def report(self, kind, test, err):
            try:
                text = self._exc_info_to_string(err, test)
            except BaseException:  # noqa: B036 - a hostile exception's __str__ must not end the run
                text = describe(err[0], err[1])
            log(kind + ": " + str_(test) + "\n" + text[-2000:] + "\n")

        def addSubTest(self, test, subtest, err):
            if err is not None:
                note_failure(test, "subtest " + str_(subtest) + ": " + describe(err[0], err[1]), err[0])

        def addSkip(self, test, reason):
            if test.id() not in static_skips:
                note_failure(test, "skipped at run time: " + str_(reason))

        def addUnexpectedSuccess(self, test):
            note_failure(test, "unexpected success")

        def addExpectedFailure(self, test, err):
            pass

        def addSuccess(self, test):
            pass

        def stopTest(self, test):
            key = test.id()
            outcome["stopped"].add(key)
            if key not in static_skips:
                emit("test", {"name": key.rsplit(".", 1)[-1], "ok": key not in outcome["failed"]})
            tampered = check_integrity()
            if tampered:
                finish("tampered", 0, total_holder[0], False, "test runner tampered: " + tampered)

    total_holder = [estimate]

    # --- integrity snapshot -------------------------------------------------------------------------------
    def parts(value):
        if isinstance_(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance_(value, property):
            return (value.fget, value.fset, value.fdel)
        if isinstance_(value, FunctionType):
            return (value.__code__, value.__defaults__, value.__kwdefaults__, value.__closure__, value.__globals__)
        return ()

    watched_modules = [builtins, json, json.encoder]
    watched_classes = [json.JSONEncoder]
    if unittest_style:
        watched_modules += [unittest, unittest.case, unittest.result, unittest.suite, unittest.loader, unittest.util]
        watched_classes.insert(0, HarnessResult)
    for module in watched_modules[1:]:
        for value in list(vars(module).values()):
            if isinstance_(value, type) and value.__module__.startswith("unittest") and value not in watched_classes:
                watched_classes.append(value)
    def snapshot(namespace):
        return [(key, value, parts(value)) for key, value in list(namespace.items())]

    snapshots = []
    for module in watched_modules:
        snapshots.append(("module " + module.__name__, vars(module), snapshot(vars(module)), None))
    for cls in watched_classes:
        ns = cls.__dict__
        snapshots.append(("class " + cls.__qualname__, ns, snapshot(ns), frozenset(ns.keys())))
    module_identities = [(name, sys.modules.get(name)) for name in ("builtins", "json", "json.encoder")] + [
        (name, sys.modules.get(name)) for name in list(sys.modules) if name.startswith("unittest")
    ]

    def check_integrity():
        if sys.gettrace() is not None or sys.getprofile() is not None:
            return "a trace or profile function is installed"
        for name, module in module_identities:
            if sys.modules.get(name) is not module:
                return "sys.modules[" + repr(name) + "] replaced"
        for label, ns, entries, keys in snapshots:
            if keys is not None and frozenset(ns.keys()) != keys:
                return label + " gained or lost attributes"
            for key, value, value_parts in entries:
                current = ns.get(key, ns)
                if current is not value:
                    return label + "." + str_(key) + " replaced"
                now = parts(current)
                if len_(now) != len_(value_parts) or any(a is not b for a, b in zip(now, value_parts)):
                    return label + "." + str_(key) + " modified"
        for fn, code in harness_codes:
            if fn.__code__ is not code:
                return "harness function " + fn.__name__ + " modified"
        return ""

    harness_codes = [(fn, fn.__code__) for fn in (emit, finish, check_integrity, note_failure, describe, parts, log)]

    # --- run -------------------------------------------------------------------------------------------
    emit("ready", {"total": estimate})
    if style == "unittest":
        # As BigCodeBench: one module named __test__ holding program and tests, with sys/os pre-imported.
        module = types.ModuleType("__test__")
        module.__dict__.update(
            {"__builtins__": builtins, "__file__": "__test__.py", "__package__": None, "sys": sys, "os": os, "environ": os.environ}
        )
        sys.modules["__test__"] = module
        namespace = module.__dict__
    else:
        namespace = {"__name__": "__test__", "__builtins__": builtins}

    try:
        exec(compile(program_source, "program.py", "exec"), namespace)
    except BaseException as e:  # noqa: B036 - SystemExit and KeyboardInterrupt included on purpose
        memory = isinstance_(e, MemoryError)
        release_ballast(memory)
        log("program.py raised:\n" + "".join(format_tb(type_(e), e, e.__traceback__))[-4000:] + "\n")
        if isinstance_(e, SystemExit):
            detail = "the program called sys.exit(" + str_(e.code) + ") while loading"
        else:
            detail = "the program raised while loading: " + describe(type_(e), e)
        finish("program_error", 0, total_holder[0], memory, detail)
    tampered = check_integrity()
    if tampered:
        finish("tampered", 0, total_holder[0], False, "test runner tampered: " + tampered)

    namespace["__builtins__"] = builtins
    try:
        exec(tests_code, namespace)
    except BaseException as e:  # noqa: B036
        finish("program_error", 0, total_holder[0], isinstance_(e, MemoryError), "the tests raised while loading: " + describe(type_(e), e))
    tampered = check_integrity()
    if tampered:
        finish("tampered", 0, total_holder[0], False, "test runner tampered: " + tampered)

    if style == "unittest":
        cases = namespace.get("TestCases")
        if not (isinstance_(cases, type) and issubclass_(cases, TestCase)):
            finish("ok", 0, total_holder[0], False, "TestCases is not a unittest.TestCase class after loading")
        loader = TestLoader()
        names = loader.getTestCaseNames(cases)
        prefix = cases.__module__ + "." + cases.__qualname__ + "."
        class_skipped = getattr_(cases, "__unittest_skip__", False)
        for name in names:
            if class_skipped or getattr_(getattr_(cases, name), "__unittest_skip__", False):
                static_skips.add(prefix + name)
        counted = [prefix + name for name in names if prefix + name not in static_skips]
        total = len_(counted)
        total_holder[0] = total
        if total == 0:
            finish("ok", 0, 0, False, "TestCases has no runnable tests")
        emit("loaded", {"total": total})
        suite = loader.loadTestsFromTestCase(cases)
        result = HarnessResult()
        try:
            TestSuite.run(suite, result)
        except BaseException as e:  # noqa: B036 - a KeyboardInterrupt from the candidate ends the run
            note_failure(cases, "the test run was interrupted: " + describe(type_(e), e), type_(e))
        tampered = check_integrity()
        if tampered:
            finish("tampered", 0, total, False, "test runner tampered: " + tampered)
        # A test passed if it ran to its end and nothing was reported against it; a class-level failure
        # (setUpClass, tearDownClass) is reported against the class and fails the run as a whole.
        passed = sum(1 for key in counted if key in outcome["stopped"] and key not in outcome["failed"])
        all_ok = passed == total and not outcome["failed"]
        finish("ok", passed, total, outcome["memory"], outcome["first_failure"], all_ok)

    # assert style
    candidate = namespace.get(entry_point)
    total = total_holder[0]
    if candidate is None:
        finish("ok", 0, total, False, "the program does not define " + entry_point)
    check_fn = namespace["check"]
    passed = 0
    failure = ""
    memory = False
    completed = False
    try:
        if asserts == 0:
            check_fn(candidate)
        else:
            for index, ok, error in check_fn(candidate):
                if ok:
                    passed += 1
                else:
                    memory = memory or isinstance_(error, MemoryError)
                    text = "assert #" + str_(index + 1) + ": " + describe(type_(error), error)
                    log("FAIL: " + text + "\n")
                    failure = failure or text
                emit("test", {"name": "assert #" + str_(index + 1), "ok": ok})
                tampered = check_integrity()
                if tampered:
                    finish("tampered", 0, total, False, "test runner tampered: " + tampered)
        completed = True
    except BaseException as e:  # noqa: B036
        memory = memory or isinstance_(e, MemoryError)
        log("check() raised:\n" + "".join(format_tb(type_(e), e, e.__traceback__))[-4000:] + "\n")
        failure = failure or "check() raised: " + describe(type_(e), e)
    tampered = check_integrity()
    if tampered:
        finish("tampered", 0, total, False, "test runner tampered: " + tampered)
    if extra_unit:
        emit("test", {"name": "check() completes", "ok": completed})
        passed += 1 if completed else 0
    finish("ok", passed, total, memory, failure, passed == total and completed)



def _stdio():
    """The stdio style: every case of one rollout in this one sandboxed process, each in a forked child.

    Usage: python3 -s harness.py stdio BUDGET_MS CASE_CAP TOTAL_CAP; file main.py (the program).
    Stdin: the nonce line, the number of cases, then per case its input's byte length on a line and the
    input bytes. All of it is read before any candidate code runs.

    Per case, a child is forked: it makes pipes its fds 0, 1 and 2, closes every other fd (the record
    channel included), and executes main.py in a fresh __main__ module as `python3 main.py` would (exit
    status from SystemExit, a traceback and status 1 for an uncaught exception, non-daemon threads and
    atexit run before exit). This process feeds the input, collects the child's stdout (up to CASE_CAP
    bytes of stdout and stderr together, as a separate run's output limit; TOTAL_CAP over all cases) and
    the tail of its stderr, and kills it with SIGKILL at the shared deadline, BUDGET_MS after start. After
    each case every other process of the sandbox is killed (kill(-1)), so nothing a case started survives
    into the next one. Records (the output is compared by the runner, not here):

        ready   {"cases": n} once the inputs are read, before any candidate code runs
        case    {"index": i, "exit": int|null, "signal": int|null, "timed_out": bool, "truncated": bool,
                 "out": base64 stdout, "err": base64 stderr tail}
        result  {"status": "ok", "reached": number of cases run}; written once, last

    The child cannot forge records: it holds no fd of the channel, and this process makes itself
    non-dumpable (prctl PR_SET_DUMPABLE 0) first, so a process of the same uid can neither ptrace it nor
    open its fds or memory through /proc. Killing or stopping this process only loses records, which the
    runner scores as a failure.
    """
    import os
    import select
    import time
    from binascii import b2a_base64

    monotonic = time.monotonic
    started = monotonic()
    args = sys.argv[2:]
    budget = int(args[0]) / 1000.0
    case_cap = int(args[1])
    total_cap = int(args[2])
    deadline = started + budget

    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    except Exception as e:
        # Before ready: the runner reports the harness, not the candidate (and nothing runs unprotected).
        os.write(2, ("harness: cannot make itself non-dumpable: " + str(e) + "\n").encode())
        os._exit(3)

    data = bytearray()
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        data += chunk
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    out_fd = os.dup(1)
    pos = data.index(b"\n")
    prefix = b"\n@@minedit:" + bytes(data[:pos]).strip() + b":"
    pos += 1
    end = data.index(b"\n", pos)
    count = int(data[pos:end])
    pos = end + 1
    inputs = []
    for _ in range(count):
        end = data.index(b"\n", pos)
        size = int(data[pos:end])
        pos = end + 1
        inputs.append(bytes(data[pos : pos + size]))
        pos += size
    del data

    def emit(kind, body):
        line = prefix + kind + b":" + body + b"\n"
        while line:
            line = line[os.write(out_fd, line) :]

    def b64(raw):
        return b'"' + b2a_base64(raw, newline=False) + b'"'

    with open("main.py", "rb") as f:
        source = f.read()
    emit(b"ready", b'{"cases": %d}' % count)

    err_tail = 16 * 1024 + 4
    total_out = 0
    reached = 0
    for index, data_in in enumerate(inputs):
        if monotonic() >= deadline:
            break
        reached += 1
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            _stdio_child(source, in_r, out_w, err_w)
        for fd in (in_r, out_w, err_w):
            os.close(fd)
        pidfd = -1
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass
        os.set_blocking(in_w, False)
        poller = select.poll()
        poller.register(out_r, select.POLLIN)
        poller.register(err_r, select.POLLIN)
        if pidfd >= 0:
            poller.register(pidfd, select.POLLIN)
        pending = data_in
        if pending:
            poller.register(in_w, select.POLLOUT)
        else:
            os.close(in_w)
            in_w = -1
        out = []
        out_size = 0
        err = b""
        used = 0
        timed_out = truncated = exited = False
        status = None
        open_fds = {out_r, err_r}
        while open_fds or not exited:
            remaining = deadline - monotonic()
            if remaining <= 0:
                timed_out = True
                break
            wait_ms = remaining * 1000.0
            if pidfd < 0 and not exited:
                wait_ms = min(wait_ms, 10.0)
            events = poller.poll(max(1, int(wait_ms + 0.999)))
            for fd, event in events:
                if fd == in_w:
                    pending = _write_some(os, in_w, pending)
                    if not pending:
                        poller.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                elif fd == pidfd:
                    poller.unregister(pidfd)
                    os.close(pidfd)
                    pidfd = -2
                elif fd in open_fds:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        poller.unregister(fd)
                        open_fds.discard(fd)
                        continue
                    used += len(chunk)
                    if fd == out_r:
                        out.append(chunk)
                        out_size += len(chunk)
                    else:
                        err = (err + chunk)[-err_tail:]
            if used > case_cap or total_out + out_size > total_cap:
                truncated = True
                break
            if not exited:
                finished, code = os.waitpid(pid, os.WNOHANG)
                if finished:
                    exited = True
                    status = code
                    # The program has ended: what it left running ends too, as when a sandbox run ends.
                    _kill_others(os, pid)
        if not exited:
            _kill_others(os, pid)
            _, status = os.waitpid(pid, 0)
        for fd in list(open_fds) + [in_w, pidfd]:
            if fd >= 0:
                os.close(fd)
        exit_code = signal = None
        if truncated or timed_out:
            out = []
            signal = 9
        elif os.WIFSIGNALED(status):
            signal = os.WTERMSIG(status)
        else:
            exit_code = os.WEXITSTATUS(status)
        stdout = b"".join(out)
        total_out += len(stdout)
        emit(
            b"case",
            b'{"index": %d, "exit": %s, "signal": %s, "timed_out": %s, "truncated": %s, "out": %s, "err": %s}'
            % (
                index,
                b"null" if exit_code is None else b"%d" % exit_code,
                b"null" if signal is None else b"%d" % signal,
                b"true" if timed_out else b"false",
                b"true" if truncated else b"false",
                b64(stdout),
                b64(err),
            ),
        )
        if timed_out:
            break
    emit(b"result", b'{"status": "ok", "reached": %d}' % reached)
    os._exit(0)


def _write_some(os, fd, pending):
    """Write what a non-blocking pipe takes of `pending`; return the rest (b"" once the reader is gone:
    a program that closed its stdin leaves the rest unread, its business). Shared with the fork server."""
    try:
        return pending[os.write(fd, pending[:65536]) :]
    except OSError:
        return b""


def _kill_others(os, pid):
    """SIGKILL to the case's process group and, inside the sandbox, to every process but this one and its
    ancestors (the namespace's init, and the fork server when one runs this harness; see
    sandbox/python/forkserver.py): leftovers of a case do not outlive it.

    As pid 1 or 2 (the harness run directly by bwrap, or as a container's init) that is exactly kill(-1).
    Deeper in a tree (a fork server's child) the processes are listed from /proc — but only in a bwrap pid
    namespace (its init is `bwrap`): the harness run by hand on a host never signals anything but its own
    case's process group."""
    try:
        os.killpg(pid, 9)
    except OSError:
        pass
    if os.getpid() <= 2:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
        return
    try:
        with open("/proc/1/comm", "rb") as f:
            if f.read().strip() != b"bwrap":
                return
    except OSError:
        return
    keep = _ancestors(os)
    # A few rounds: a process forked while the list was read is caught by the next one. What still
    # escapes dies with the execution (the fork server kills everything after each one).
    killed = set()
    for _ in range(3):
        victims = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in keep]
        if not victims:
            break
        for victim in victims:
            try:
                os.kill(victim, 9)
                killed.add(victim)
            except OSError:
                pass
    # The killed are orphans the fork server reaps (it is the subreaper) when their SIGCHLD wakes it: wait
    # for that, briefly, so the next case starts with them gone from /proc rather than as zombies. The
    # case's own process is this harness's child, reaped by the caller.
    killed.discard(pid)
    import time

    give_up = time.monotonic() + 2
    while killed and time.monotonic() < give_up:
        killed = {victim for victim in killed if os.path.exists("/proc/%d" % victim)}
        if killed:
            time.sleep(0.001)


def _ancestors(os):
    """This process and every ancestor up to the namespace's init, from /proc/<pid>/stat."""
    chain = {os.getpid()}
    pid = os.getppid()
    while pid > 0 and pid not in chain:
        chain.add(pid)
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                stat = f.read()
            # The command name may contain spaces and parentheses: fields resume after the last ")".
            pid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError):
            break
    return chain


def _stdio_child(source, in_r, out_w, err_w):
    """In the forked child: become `python3 main.py` with the case's pipes as stdio. Never returns."""
    import os

    try:
        os.setpgid(0, 0)
        os.dup2(in_r, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        # Every other fd goes, the record channel first among them: candidate code cannot write records.
        os.closerange(3, 1 << 20)
    except BaseException:
        os._exit(125)
    _run_as_main(source, "/tmp/main.py", ["main.py"], "/tmp/main.py")


def _run_as_main(source, filename, argv, main_file):
    """Run `source` as the interpreter runs a program, then exit as it would. Never returns.

    A fresh `__main__` module (with `__file__` = main_file when not None, as for a script; none for
    `-c`), sys.argv = argv; the exit status from SystemExit, a traceback and status 1 for an uncaught
    exception; then, as interpreter shutdown: non-daemon threads joined, atexit handlers run, stdio
    flushed. Shared by the stdio style and the fork server (sandbox/python/forkserver.py)."""
    import os

    status = 1
    try:
        import builtins

        main = type(sys)("__main__")
        main.__dict__.update({"__builtins__": builtins, "__annotations__": {}})
        if main_file is not None:
            main.__dict__.update({"__file__": main_file, "__cached__": None, "__loader__": None})
        sys.modules["__main__"] = main
        sys.argv = argv
        import atexit

        atexit._clear()
        try:
            exec(compile(source, filename, "exec"), main.__dict__)
            status = 0
        except SystemExit as e:
            status = _exit_status(e)
        except BaseException as e:  # noqa: B036 - as the interpreter: report any uncaught exception
            try:
                sys.excepthook(type(e), e, e.__traceback__)
            except BaseException:
                pass
            status = 1
            if isinstance(e, KeyboardInterrupt):
                status = -2
        # As interpreter shutdown: wait for non-daemon threads, run atexit handlers, flush stdio.
        threading = sys.modules.get("threading")
        if threading is not None:
            try:
                threading._shutdown()
            except SystemExit as e:
                status = _exit_status(e)
            except BaseException:
                pass
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except BaseException:
                status = 120 if status == 0 else status
    finally:
        if status == -2:
            import _signal

            _signal.signal(2, _signal.SIG_DFL)
            os.kill(os.getpid(), 2)
        os._exit(status & 0xFF if status >= 0 else 1)


def _exit_status(e):
    """The exit status the interpreter gives a SystemExit: None is 0, an int is itself, else 1 (printed)."""
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:
        pass
    return 1


# The fork server loads this file as a library (under another name) for _run_as_main.
if __name__ == "__main__":
    if sys.argv[1:2] == ["stdio"]:
        _stdio()
    else:
        _harness()
