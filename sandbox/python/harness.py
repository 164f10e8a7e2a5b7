"""minedit's Python test harness. Runs inside the sandbox; src/runners/python.ts writes it as harness.py.
One file, long on purpose: it is shipped into every sandbox as one compiled blob, and its defences rely on
knowing its own code objects (they are trusted by identity; a second module would be a second surface).

Usage:  python3 -s harness.py unittest            (BigCodeBench: a TestCases(unittest.TestCase) class)
        python3 -s harness.py assert ENTRY_POINT  (HumanEval: def check(candidate), called as check(ENTRY_POINT))
        python3 -s harness.py stdio BUDGET_MS CASE_CAP TOTAL_CAP   (DeepCoder: see _stdio below; the rest
                                                  of this docstring is about the two other styles)
Only ever run inside the sandbox (the stdio style kills every other process of its pid namespace
between cases; it checks it has one, see _kill_others). Run directly by bwrap or, warm, by the fork
server (sandbox/python/forkserver.py), which runs it exactly as `python3 -s -c LOADER ARGS` would. Imports are what each style needs: unittest only
for the unittest style, and the stdio style imports neither ast, json, traceback nor unittest.
Files:  program.py (the candidate), in the working directory.
Stdin:  one line, a random nonce, then the task's tests (the text of a module, compiled as "tests.py"). It
        is read, and fd 0 replaced by /dev/null, before any candidate code runs. The tests are never a file
        (a fresh bwrap sandbox's init, which no flag makes non-dumpable, keeps the last block of every file
        it copies in: a subprocess of the program could read it through /proc/1/mem).

Results go to stdout as records the candidate cannot forge without the nonce, each on its own line:

    @@minedit:<tag>:<kind>:<json>      tag: HMAC-SHA256("<kind>:<json>") keyed with the nonce, its first 16
                                       bytes in hex (src/runners/python.ts, parseTaggedRecords)

The nonce itself is never written: the output is no secret (under Docker the run's stdout is a pipe, and
any process holding its write end can open the read end through /proc/self/fd and read the records).

    ready   after the inputs are read and the tests compiled, before candidate code runs;
            {"total": static estimate of the number of tests}
    loaded  (unittest) the tests are collected; {"total": n}
    fail    a test failed, written the moment the failure is seen (it cannot be taken back): {"name": str,
            "detail": str}; a test may have several
    test    one test finished; {"name": str, "ok": bool}
    result  the final outcome, written once, then the process ends with os._exit(0):
            {"status": "ok" | "program_error" | "tampered" | "tests_invalid", "passed": int,
             "total": int, "all_ok": bool, "memory_error": bool, "detail": str}
            all_ok is true only when every counted test passed and nothing failed outside a test.
The runner never counts a test with a `fail` record, or a `test` record with ok false, as passed.

Against a candidate that tries to pass without solving the task (docs/sandbox.md; each line is a test in
tests/sandbox/hostile.test.ts or reward-hacks.test.ts):
- sys.exit() / os._exit() / killing the process before or during the tests: no `result` record, which
  the runner scores as a failure, never a pass. SystemExit raised by the program is caught and reported.
- Patching the test machinery: every unittest class and module, builtins and json are snapshotted (each
  attribute's identity and, for functions, their code, defaults and closure) before the candidate runs,
  and checked after the program is loaded, after the tests are defined and after every test, with the
  instance dicts of the result and of each test case (a method set on an instance); the tests run with a
  result class defined here. A difference is status "tampered". A test passes only if its own code ran
  (see "the tests' own code" below), so a replaced test method or runner that skips it fails it.
  Checked the same way once the tests are defined: the names their module code bound (a `global` in the
  tests' text exempts a name), the classes it defined (an attribute replaced, or one shadowing a base
  class's callable: TestCases.assertTrue), and, in the library modules and classes those names lead to,
  the attributes the tests' text names (or comparisons use) holding the program's code (math.isclose,
  np.testing.assert_allclose, pd.DataFrame.equals replaced); the program may not set a library or test
  function's __code__, __defaults__ or __kwdefaults__. unittest's skip and expected-failure flags count
  only for tests the tests' decorators mark (set at run time, a skip is a failure).
- Objects that lie (docs/sandbox.md "reward hacks"): the tests' comparisons (==, !=, <, <=, >, >=, in, not
  in), arithmetic (+ - * / // % **) and abs() are rewritten (AST) into calls of this harness, as are
  `self.assertEqual` and the other comparing assert methods (which are also replaced on TestCase).
  Those go by who defined the methods involved: when one operand's type has the operator defined by
  the program (code not from the interpreter's library directories) and the other's does not, the other
  operand's type decides (int.__eq__(3, x) is NotImplemented for a foreign x: not equal), and an
  instance of a builtin subclass (a lying int/str/list/dict subclass) is compared by its builtin value;
  containers are compared element by element under the same rule (a lying element inside a list, dict
  or tuple does not make it equal). Library objects equal to a plain value (numpy, Decimal, a mock) must
  not also claim equality with a private sentinel or with other values of the expected type (probes in
  random order), which catches mock.ANY and objects configured to be equal to everything. When both
  operands are the program's (its own class compared with an instance the tests built from it), the
  program's __eq__ decides: that is the task's own semantics.
- Reading the test: the tests arrive on stdin, never as a file (so open(), linecache and
  inspect.getsource find nothing). A permanent audit hook (sys.addaudithook) refuses, to code other
  than this harness's, the tests' and a fixed set of library call sites: frames (sys._getframe,
  traceback.tb_frame, generators', coroutines' and async generators' frames whether running or not, as a
  frame taken from a suspended generator is the running one, its f_back the caller, once the generator is
  resumed from deeper in the stack; inspect.getgeneratorstate and getcoroutinestate, which only test it
  for None, may; sys._current_frames), the code objects
  of the tests' entry points and of this harness (function.__code__, frame.f_code), gc.get_objects /
  get_referrers / get_referents, sys.settrace / setprofile, new audit hooks, and compiling or building
  code that claims a library file name (except Jinja2 compiling a library's own template file, and gc
  calls at library sites that only test the result: pandas' chained-assignment check). Library call
  sites that use frames themselves (logging's findCaller, namedtuple, typing, enum, traceback's printing
  without locals, warnings, pandas and matplotlib stack levels) keep working: a library function may
  take a frame only if its own code names the frame API it uses, and a frame it fetches must not lie
  beyond the program's frame that called it;
  those that hand frames to their caller (inspect, traceback.walk_stack/walk_tb, dis, cgitb, pdb,
  types.coroutine's wrapper, ...) are judged by their caller. Signal handlers get None for the frame (the
  handler is wrapped). Nothing the hook does runs the program's code (with its guard held that code would
  run unaudited): it calls only builtin types' own methods on what an event hands it.
- Code passing for the library's: library code is trusted by its file name (a code object's co_filename
  under the interpreter's library directories), so the hook sees that only the interpreter names code so,
  from that file: compile() only of the file's own text (or Jinja2's template, above); code.__new__ /
  replace only by the library sites that rename code of their own (numpy's dispatchers, types.coroutine,
  attrs' and cloudpickle's templates), and never with a str subclass as a name; marshal.loads of code
  objects never by the program itself, and by a library (the import system reading a .pyc) only of
  bytecode claiming no library file name unless it is that library file's own content (a .pyc crafted in
  the scratch and imported is refused); marshal.load not for the program; _imp._fix_co_filename (which
  renames code in place) is replaced by a wrapper that renames code to a library file's name only for
  the import system loading that library's own bytecode. Every check of a file name takes only an exact
  str (a subclass's startswith could say anything) without "." or ".." parts (a library directory's path
  can lead back out to the scratch, where compile()'s check would find the program's own text).
- The tests' own code: test methods, setUp/tearDown(Class) and check() start with a harness call that
  accepts only a call from the harness's own test run (the running test instance, reached through
  unittest and library frames only); the program calling them with a fake `self` (to record what the
  test compares) is refused and the run counts as tampered. Failures in a test body (and in subTest
  blocks) are recorded by the harness before unittest sees them.
- Reaching the runner's objects: the harness's state, the record writer and the nonce live only in the
  constants of its functions' code objects (co_consts, behind function.__code__, which the hook refuses):
  every closure of _harness that the run uses is replaced by a sealed copy (_seal_closures: free
  variables and global names become constants, cells are empty, globals hold only the builtins), and
  _harness returns the sealed run before it starts, so no frame on the stack while candidate code runs
  holds them in its locals, cells or globals: even a program handed a frame (see what remains) walks
  f_back and f_locals to nothing of the harness's. Nothing the program can reach by attribute (classes,
  closures, __globals__, __defaults__) leads to them either.
- The process's memory: the harness makes itself non-dumpable before it reads anything (prctl
  PR_SET_DUMPABLE 0; a fork server's child already is), so no other process of the sandbox (a subprocess
  has no audit hook) can open its /proc/PID/mem or fds, and its own /proc/self/mem is root's; the hook
  also refuses the program opening any process's mem, pagemap, map_files or /proc directory (resolved
  through links and "..", with relative paths refused by name as os.open's dir_fd is not shown), making a
  link to them, and ctypes' audited calls (dlopen, dlsym, string_at, wstring_at, from_address,
  PyObj_FromPtr, call_function; library code may: scikit-learn's threadpoolctl loads BLAS with it; a
  from_buffer view of an object's own buffer and addressof are allowed). No copy of the secrets stays in
  memory: the nonce is kept masked (XOR with random bytes) and unmasked only into a buffer zeroed after
  each record's HMAC, stdin is read into a buffer that is zeroed, and the tests' text is read into a
  buffer, parsed from it with glibc's M_PERTURB on (freed memory overwritten) and zeroed; a fork server
  receives each request into a mapping its children do not inherit (forkserver.py).
- Printing a fake result: it would need the nonce (see above; never in argv, environment, files or the
  output).
- Raising unittest.SkipTest from the candidate: a test skipped at run time counts as failed; only tests
  skipped by decorator (known before running) are left out of the total.
What remains possible (tests and candidate share one interpreter by design, as BigCodeBench and HumanEval
run them): raw memory access the hook cannot see, which reads and writes anything in the process, the
harness's objects included (masking only keeps the nonce from being found by a plain search): ctypes
without an audited call (memmove, cast to py_object, c_char_p(address).value, a Union of a pointer and an
int, a function pointer resolved by a library or cached on a CDLL), numpy's __array_interface__ or
as_strided over an address (the bigcodebench runtime), crafted marshal data or bytecode (code.replace
of its own function with a bad co_code), cffi; a library function that returns its caller's frame (its
callers' frames are open to the program: the tests' locals, though none of the harness's) or runs a
callable for the program (third-party code is trusted by file name), or code the program execs in a
library module's namespace, or in a module it makes with a library file's __file__ (taken for a
dataclass's generated methods); Jinja2's output for a library template, trusted as that template's file
when the text and the generator are the library's (environment state the program changed, e.g. its
delimiters, is not examined); a library attribute the tests' text does not name; inspect.currentframe()
is refused even for the program's own frame (its f_back leads to the tests), as is a generator's frame
(inspect.getgeneratorlocals too); /proc/self/environ, io and the like are root's in a non-dumpable
process (psutil's io_counters fails); data the tests keep outside their functions (module or class
attributes, module-level helper functions) is readable and callable; a monkey-patch that restores itself
before the harness checks (mock's and numpy's assert helpers, asserts not called as self.assertX); a
program-defined object compared with another program-defined object; isinstance() fooled by a __class__
property; and threads racing the checks. Outside this process: in a fresh bwrap sandbox, bwrap's init
(pid 1) is dumpable and keeps the last block of each file it copied in (the tests' text included) in its
memory, which a subprocess can read through /proc/1/mem (src/sandbox/bwrap.ts's to fix). The sandbox,
not this file, is the security boundary.
"""

import sys

# Sealed functions (_s_*): the only harness functions the program can reach (as methods of unittest
# classes and of the result class, as constants of the tests' code, as signal/_imp replacements). They
# have no closure and empty globals; whatever they use is a constant of their code object, put there by
# _seal() from placeholders "\x00minedit:NAME" (NAME an attribute of the harness's private namespace K),
# so reaching it takes function.__code__, which the audit hook refuses to the program. K itself is never
# bound to a local name (a frame's f_locals would show it): each use is the constant, on the value stack.
# The closures of _harness they call are sealed the same way once everything is set (_seal_closures).


def _s_cmp(op, a, b):
    type_ = "\x00minedit:type"
    scalars = "\x00minedit:SCALARS"
    if type_(a) in scalars and type_(b) in scalars:
        return "\x00minedit:CMP_OPS"[op](a, b)
    return "\x00minedit:K".cmp(op, a, b)


def _s_arith(op, a, b):
    type_ = "\x00minedit:type"
    scalars = "\x00minedit:SCALARS"
    if type_(a) in scalars and type_(b) in scalars:
        return "\x00minedit:ARITH_OPS"[op](a, b)
    return "\x00minedit:K".arith(op, a, b)


def _s_abs(x, *more):
    return "\x00minedit:K".safe_abs(x, *more)


def _s_enter(owner):
    return "\x00minedit:K".enter(owner)


def _s_fail(error):
    return "\x00minedit:K".body_failed(error)


def _s_register(obj):
    return "\x00minedit:K".register(obj)


def _s_assert(self, *args, **kwargs):
    return "\x00minedit:K".run_assert("\x00minedit:METHOD", self, args, kwargs)


def _s_result_method(self, *args):
    return "\x00minedit:K".result_event("\x00minedit:METHOD", self, args)


def _s_audit(event, args):
    # K is never a local of a frame (a frame reached some other way must not lead to it): each use is a
    # constant, on the value stack only.
    if event not in "\x00minedit:AUDIT_EVENTS":
        return
    ident = "\x00minedit:K".get_ident()
    if ident in "\x00minedit:K".guard:
        return
    "\x00minedit:K".guard.add(ident)
    try:
        denied = "\x00minedit:K".audit_check(event, args)
    finally:
        "\x00minedit:K".guard.discard(ident)
    if denied:
        message = "minedit: " + denied + " is not available to the program under test"
        # What a file or a library refused is an OSError, as the kernel's own refusals are: code that
        # handles a library it cannot load (BigCodeBench/565 expects OSError from ctypes.CDLL) still can.
        if event == "open" or event == "os.symlink" or event.startswith("ctypes."):
            raise "\x00minedit:K".PermissionError(message)
        raise "\x00minedit:K".RuntimeError(message)


def _s_signal(signalnum, handler):
    return "\x00minedit:K".signal_install(signalnum, handler)


def _s_getsignal(signalnum):
    return "\x00minedit:K".signal_get(signalnum)


def _s_create_builtin(spec):
    return "\x00minedit:K".create_builtin(spec)


def _s_fix_co_filename(code, path):
    return "\x00minedit:K".fix_co_filename(code, path)


def _s_frameless_call(self, signum, frame):
    # A signal handler gets the interrupted frame, from which every frame above (the test's, the
    # harness's) is one f_back away: the program's handler gets None instead.
    del frame
    return self.handler(signum, None)


def _seal(fn, K, **extra):
    """A copy of `fn` whose placeholder constants are K's attributes (or `extra`), with no closure and
    empty builtins (a name it forgot to take from K fails loudly instead of using a patchable global)."""
    import types

    def sub(c):
        if type(c) is str and c.startswith("\x00minedit:"):
            name = c[9:]
            return extra[name] if name in extra else getattr(K, name)
        if type(c) is types.CodeType:
            return c.replace(co_consts=tuple(sub(x) for x in c.co_consts))
        return c

    return types.FunctionType(sub(fn.__code__), {"__builtins__": {}}, fn.__name__, fn.__defaults__, None)


def _op_in(a, b):
    return a in b


def _op_not_in(a, b):
    return a not in b


def _seal_closures(roots, is_ours):
    """Sealed copies of the harness's closures: every function `is_ours` accepts that `roots` lead to (as
    themselves, or in a tuple, list, dict or namespace among them or their closures' variables, at most
    two levels down) is replaced by a copy whose free variables and global names are constants of its code
    (bytecode LOAD_DEREF and LOAD_GLOBAL become LOAD_CONST, in nested code objects too), with a closure of
    empty cells and globals of its own that hold nothing but the builtins module. A frame of such a copy
    shows only its arguments and its own variables in f_locals and f_globals: the record writer, the
    harness's state and everything else it uses sit behind function.__code__ (which the audit hook refuses
    to the program), never in a frame or a cell, and a module attribute or builtin the program replaces
    later is not what the harness calls. Lists, dicts and namespaces are updated in place; returns
    {id(original): copy}. Runs once, before candidate code: every variable of the enclosing function must
    have its final value (one bound later would not be seen). Written for CPython 3.11's bytecode: what it
    cannot rewrite (a free variable assigned, an import, a class body) it refuses, loudly, before the run."""
    import builtins
    import opcode
    import types

    op = opcode.opmap
    LOAD_CONST, LOAD_DEREF, LOAD_GLOBAL = op["LOAD_CONST"], op["LOAD_DEREF"], op["LOAD_GLOBAL"]
    EXTENDED_ARG, NOP, PUSH_NULL = op["EXTENDED_ARG"], op["NOP"], op["PUSH_NULL"]
    # Free variables only ever read; no name looked up at run time (imports, class bodies, globals).
    WRITES = (op["STORE_DEREF"], op["DELETE_DEREF"], op["LOAD_CLASSDEREF"])
    REFUSED = (op["IMPORT_NAME"], op["LOAD_BUILD_CLASS"], op["STORE_GLOBAL"], op["DELETE_GLOBAL"], op["LOAD_NAME"])
    GLOBAL_UNITS = 1 + opcode._inline_cache_entries[LOAD_GLOBAL]
    copies = {}
    made = []
    seen = set()

    def value(v, depth=0):
        t = type(v)
        if t is types.FunctionType and is_ours(v):
            copy = copies.get(id(v))
            if copy is None:
                cells = tuple(types.CellType() for _ in v.__code__.co_freevars)
                # (Its globals hold only the builtins, for C code that looks them up in the caller's frame:
                # an extension module's initialisation, as _pickle's, through _imp.create_builtin.)
                copy = types.FunctionType(v.__code__, {"__builtins__": builtins}, v.__name__, v.__defaults__, cells)
                copy.__kwdefaults__ = v.__kwdefaults__
                copy.__qualname__ = v.__qualname__
                copies[id(v)] = copy
                made.append((v, copy))
            return copy
        if depth > 1 and t is not types.SimpleNamespace or id(v) in seen:
            return v
        if t is tuple:
            items = tuple(value(x, depth + 1) for x in v)
            return v if all(a is b for a, b in zip(items, v)) else items
        if t is list or t is dict or t is types.SimpleNamespace:
            seen.add(id(v))
            d = v if t is not types.SimpleNamespace else vars(v)
            for k in list(range(len(d))) if t is list else list(d):
                new = value(d[k], depth + 1)
                if new is not d[k]:
                    d[k] = new
        return v

    def at(ops, codes):
        """The positions (in code units) of the instructions whose opcode is one of `codes`."""
        for c in codes:
            i = ops.find(c)
            while i >= 0:
                yield i
                i = ops.find(c, i + 1)

    def seal_code(code, values, globs):
        consts = list(code.co_consts)
        slots = {}

        def const(key, v):
            if key not in slots:
                slots[key] = len(consts)
                consts.append(v)
            return slots[key]

        raw = bytearray(code.co_code)
        ops = bytes(raw[0::2])

        def arg_of(i):
            if not i or ops[i - 1] != EXTENDED_ARG:
                return raw[2 * i + 1]
            if i >= 2 and ops[i - 2] == EXTENDED_ARG:
                raise RuntimeError("cannot seal " + code.co_qualname + ": an argument beyond 65535")
            return raw[2 * i + 1] | raw[2 * i - 1] << 8

        for i in at(ops, REFUSED):
            raise RuntimeError("cannot seal " + code.co_qualname + ": " + opcode.opname[ops[i]])
        for i in at(ops, WRITES):
            if code._varname_from_oparg(arg_of(i)) in values:
                raise RuntimeError("cannot seal " + code.co_qualname + ": " + opcode.opname[ops[i]])
        for i in at(ops, (LOAD_DEREF,)):
            name = code._varname_from_oparg(arg_of(i))
            if name in values:
                k = const(("free", name), values[name])
                prefixed = i and ops[i - 1] == EXTENDED_ARG
                if k > 255 and not prefixed:
                    raise RuntimeError("cannot seal " + code.co_qualname + ": too many constants")
                if prefixed:
                    raw[2 * i - 2 : 2 * i] = bytes((EXTENDED_ARG, k >> 8))
                raw[2 * i : 2 * i + 2] = bytes((LOAD_CONST, k & 255))
        for i in at(ops, (LOAD_GLOBAL,)):
            arg = arg_of(i)
            name = code.co_names[arg >> 1]
            if name in globs:
                found = value(globs[name])
            elif name in vars(builtins):
                found = vars(builtins)[name]
            else:
                raise RuntimeError("cannot seal " + code.co_qualname + ": unknown global " + name)
            k = const(("global", name), found)
            start = i - 1 if i and ops[i - 1] == EXTENDED_ARG else i
            units = [(PUSH_NULL, 0)] if arg & 1 else []
            units += [(EXTENDED_ARG, k >> 8), (LOAD_CONST, k & 255)] if k > 255 else [(LOAD_CONST, k)]
            units += [(NOP, 0)] * (i + GLOBAL_UNITS - start - len(units))
            raw[2 * start : 2 * (i + GLOBAL_UNITS)] = bytes(b for unit in units for b in unit)
        for n, c in enumerate(code.co_consts):
            if type(c) is types.CodeType:
                consts[n] = seal_code(c, {name: values[name] for name in c.co_freevars if name in values}, globs)
        return code.replace(co_code=bytes(raw), co_consts=tuple(consts))

    for root in roots:
        value(root)
    done = 0
    while done < len(made):
        original, copy = made[done]
        done += 1
        values = {}
        for name, cell in zip(original.__code__.co_freevars, original.__closure__ or ()):
            try:
                values[name] = value(cell.cell_contents)
            except ValueError:
                pass  # never bound: left a free variable, an error if read
        copy.__code__ = seal_code(original.__code__, values, original.__globals__)
    return copies


def _harness():
    import _thread
    import ast
    import builtins
    import gc
    import json
    import json.encoder
    import mmap
    import operator
    import os
    import traceback
    import types
    import warnings

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
    id_ = id
    str_ = str
    type_ = type
    frozenset_ = frozenset
    FunctionType = types.FunctionType
    CodeType = types.CodeType
    getframe = sys._getframe
    urandom = os.urandom
    # OpenSSL's HMAC, not the hmac module's Python code, which a program could replace to see the key.
    hmac_digest = __import__("_hashlib").hmac_digest
    if unittest_style:
        TestCase = unittest.case.TestCase
        TestResult = unittest.result.TestResult
        TestLoader = unittest.loader.TestLoader
        TestSuite = unittest.suite.TestSuite
        test_id = TestCase.id
    else:
        TestCase = TestResult = TestLoader = TestSuite = type("NoUnittest", (), {})
    stderr_fd = 2

    # --- not dumpable, first ------------------------------------------------------------------------
    # A process that is not dumpable cannot be read by another process of the sandbox (a subprocess of the
    # program, which has no audit hook, through /proc/PID/mem or ptrace), and its own /proc/self/mem,
    # pagemap and map_files belong to root, so not even this process can open them. A fork server's child
    # already is (forkserver.py); a fresh interpreter becomes so here, before it reads anything.
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        # Before `ready`: the runner reports the harness, not the candidate, and nothing runs unprotected.
        os.write(2, b"harness: prctl(PR_SET_DUMPABLE, 0) failed\n")
        os._exit(3)

    def perturb(on):
        """glibc's M_PERTURB: while on, memory freed through malloc is overwritten (what the parser copies
        of the tests' text goes with it); small blocks of CPython's own allocator are not malloc's."""
        try:
            libc.mallopt(-6, 0xA5 if on else 0)  # M_PERTURB
        except AttributeError:
            pass  # not glibc

    # --- the nonce, the tests' text, and the private result channel --------------------------------------
    # Stdin is the nonce's line, then the tests' text. Neither ever sits in this process's memory as text:
    # stdin is read into one buffer (grown by copying, each old one zeroed), the nonce kept masked (XOR
    # with as many random bytes), the tests' text copied into a buffer of its own (parsed below, then
    # zeroed) and the first buffer zeroed; emit unmasks the nonce into a buffer of its own only to tag a
    # record, and zeroes that. (Not a file: in a fresh bwrap sandbox, bwrap's init, which stays dumpable,
    # keeps in its memory the last block of every file it copied in.)
    received = bytearray(1 << 16)
    got = 0
    while True:
        if got == len(received):
            grown = bytearray(2 * len(received))
            grown[:got] = received
            received[:] = bytes(len(received))
            received = grown
        n = os.readv(0, [memoryview(received)[got:]])
        if not n:
            break
        got += n
    newline = received.find(b"\n", 0, got)
    line_end = got if newline < 0 else newline
    start, end = 0, line_end
    while start < end and received[start] in b" \t\r\x0b\x0c":
        start += 1
    while end > start and received[end - 1] in b" \t\r\x0b\x0c":
        end -= 1
    mask = urandom(end - start)
    masked = bytes(received[start + i] ^ mask[i] for i in range(end - start))
    # (A slice of a bytearray is one copy; assigning a memoryview into one would make a second, freed
    # unzeroed.)
    tests_text = received[line_end + 1 : got]
    received[:] = bytes(len(received))
    del received, got, newline, line_end, start, end
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    # A private copy of stdout: the candidate closing or redirecting fd 1 does not cut the channel.
    out_fd = os.dup(1)
    HEAD = b"\n@@minedit:"

    def emit(kind, payload):
        """Writes one record: its tag is HMAC-SHA256 of "kind:json" keyed with the nonce (the first 16 bytes,
        in hex), so the nonce itself is never written: a program that reads the output back (under Docker
        the run's stdout is a pipe, and whoever holds its write end can open the read end through
        /proc/self/fd, a subprocess as well) learns nothing to tag a record of its own with. The key is
        unmasked into a buffer of its own for the moment of the call, and zeroed."""
        body = kind.encode() + b":" + dumps(payload, ensure_ascii=True).encode()
        key = bytearray(len_(masked))
        try:
            for i in range(len_(masked)):
                key[i] = masked[i] ^ mask[i]
            tag = hmac_digest(key, body, "sha256")[:16].hex().encode()
        finally:
            key[:] = bytes(len_(key))
        line = HEAD + tag + b":" + body + b"\n"
        done = 0
        while done < len_(line):
            done += write(out_fd, line[done:])

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
    # The tests' text (from stdin, above) is parsed from its buffer under M_PERTURB and the buffer zeroed:
    # no copy of it stays in this process's memory, and it is never a file the program could read (open,
    # linecache, inspect.getsource). What it compiles to (the tests' constants) must stay, of course.

    # --- compile the tests (no candidate code has run yet) ----------------------------------------------
    perturb(True)
    try:
        tests_tree = ast.parse(tests_text, "tests.py")
    except (SyntaxError, ValueError) as e:  # (ValueError: a NUL byte)
        finish("tests_invalid", 0, 0, False, "tests do not compile: " + describe(type_(e), e))
    finally:
        tests_text[:] = bytes(len_(tests_text))
        perturb(False)
    del tests_text

    nested_asserts = False
    asserts = 0
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
        # Statements besides top-level asserts, or none at all: "check() completes" is one more test.
        extra_unit = nested_asserts or asserts == 0
        estimate = asserts + (1 if extra_unit else 0)
    entries, marks = _rewrite_tests(ast, tests_tree, style)
    ast.fix_missing_locations(tests_tree)
    try:
        with warnings.catch_warnings():
            # Calls of placeholder constants ("'str' object is not callable") are replaced below.
            warnings.simplefilter("ignore")
            tests_code = compile(tests_tree, "tests.py", "exec")
    except SyntaxError as e:
        finish("tests_invalid", 0, 0, False, "tests do not compile: " + describe(type_(e), e))
    del tests_tree

    # --- the harness's private namespace: everything its sealed functions use ---------------------------
    K = types.SimpleNamespace()
    for name in (
        "type", "len", "isinstance", "issubclass", "id", "getattr", "hasattr", "repr", "str", "bool", "int",
        "float", "complex", "bytes", "list", "tuple", "dict", "set", "frozenset", "iter", "next", "abs",
        "callable", "object", "RuntimeError", "TypeError", "ValueError", "Exception", "BaseException",
        "PermissionError",
    ):  # fmt: skip
        setattr(K, name, getattr_(builtins, name))
    K.K = K
    K.get_ident = _thread.get_ident
    K.guard = set()
    SCALARS = frozenset_((int, bool, float, complex, str, bytes, type_(None), range, type, type_(...)))
    K.SCALARS = SCALARS
    contains = operator.contains
    K.CMP_OPS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, _op_in, _op_not_in)
    K.ARITH_OPS = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow)
    state = {
        "started": set(),  # ids of the tests whose own code began
        "failed": {},  # test id -> first failure seen by the harness (body, subTest, result class)
        "current": None,  # the test instance being run (unittest) / the entry point passed to check()
        "key": "",  # the id failures are charged to (a test, or "class X" during class fixtures)
        "expecting": False,  # the current test is @expectedFailure: unittest judges it
        "classes": (),  # the test classes being run (their setUpClass/tearDownClass are allowed)
        "registered": {},  # name -> class or function the tests' module code defined
        "tampered": "",
        "code_writes": 0,  # assignments to any function's __code__, __defaults__ or __kwdefaults__ (audit hook)
        "denied": [],  # what the audit hook refused (the first few), for the failure detail
        "memory": False,
        "first_failure": "",
        "stopped": set(),
    }
    static_skips = set()

    def charge(key, text, exc_type=None):
        """Records a failure of test `key` and reports it at once (a `fail` record cannot be retracted)."""
        if exc_type is not None and issubclass_(exc_type, MemoryError):
            state["memory"] = True
        if key in state["failed"]:
            return
        state["failed"][key] = text
        if not state["first_failure"]:
            state["first_failure"] = key.rsplit(".", 1)[-1] + ": " + text
        emit("fail", {"name": key.rsplit(".", 1)[-1], "detail": text[-300:]})

    def tamper(text):
        if not state["tampered"]:
            state["tampered"] = text

    # --- library provenance -----------------------------------------------------------------------------
    # Code is "library" when compiled from a file under the interpreter's own directories (the standard
    # library and site/dist-packages as on sys.path at start, never the scratch); compile() and code
    # objects claiming such a name are refused to the program (see audit_check).
    here = os.getcwd()
    stdlib = os.path.dirname(os.__file__)
    roots = [stdlib]
    for entry in sys.path:
        if entry and os.path.isabs(entry) and entry != here and not entry.startswith(here + "/") and not entry.startswith("/tmp"):
            roots.append(entry)
    # numpy (before 1.25) builds its dispatching functions with exec() under this name, at import.
    NUMPY_INTERNALS = "<__array_function__ internals>"
    LIB = tuple(sorted({r.rstrip("/") + "/" for r in roots})) + ("<frozen ", NUMPY_INTERNALS)
    str_startswith = str.startswith
    str_endswith = str.endswith

    def lib_name(name):
        """Whether a code object's file name `name` is a library file's: a str (a subclass's startswith could
        say anything) under the library roots, without a "." or ".." part (which could lead back out, to the
        scratch). The audit hook sees to it that only the interpreter gives code such a name, from that file
        (compile, code.__new__, marshal and _imp._fix_co_filename)."""
        return type_(name) is str and str_startswith(name, LIB) and "/../" not in name and "/./" not in name and "//" not in name

    def lib_code(code):
        return lib_name(code.co_filename)

    # Code objects by id (a code object holding K among its constants is unhashable); `keep` holds them.
    trusted_codes = set()
    entry_codes = {}  # id(code) -> "test" | "fixture" | "class" | "check"
    keep = []

    def add_codes(code, into):
        into.add(id_(code))
        keep.append(code)
        for c in code.co_consts:
            if type_(c) is CodeType:
                add_codes(c, into)

    C_CALLABLES = frozenset_(
        type_(x) for x in (object.__eq__, len, "".join, list.append, dict.__dict__["fromkeys"], (1).__eq__)
    )
    partial_type = __import__("functools").partial

    def foreign_code(obj, depth=0):
        """Whether calling `obj` (a method found on a type) runs code the program wrote."""
        t = type_(obj)
        if t in C_CALLABLES:
            return False
        if t is FunctionType:
            return not lib_code(obj.__code__)
        if t is staticmethod or t is classmethod:
            return foreign_code(obj.__func__, depth + 1)
        if t is partial_type:
            return depth > 3 or foreign_code(obj.func, depth + 1)
        if depth > 3:
            return True
        # Another callable or descriptor: its type's code decides (a mock's MagicProxy is library code).
        for name in ("__get__", "__call__"):
            m = defines(t, name)
            if m is not None and foreign_code(m, depth + 1):
                return True
        return False

    type_dict = type.__dict__["__dict__"].__get__
    type_mro = type.__dict__["__mro__"].__get__

    def defines(t, name):
        """The attribute `name` as t's MRO has it (the real one: a metaclass cannot show another)."""
        for klass in type_mro(t):
            d = type_dict(klass)
            if name in d:
                return d[name]
        return None

    def untrusted(x, names):
        """Whether x's type has one of the methods `names` written by the program."""
        t = type_(x)
        if t in SCALARS or t is list or t is tuple or t is dict or t is set or t is frozenset:
            return False
        for name in names:
            m = defines(t, name)
            if m is not None and foreign_code(m):
                return True
        return False

    BASES = (bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)

    def base_of(t):
        for klass in type_mro(t):
            if klass in BASES:
                return klass
        return None

    def launder(x, base=None):
        """x (an instance of a builtin type or subclass) as a plain builtin value, read through the builtin
        type's own methods (overrides of __iter__, __getitem__, items ... are not called)."""
        base = base or base_of(type_(x))
        if type_(x) is base and base not in (list, tuple, dict, set, frozenset):
            return x
        if base is int:
            return int.__index__(x) if type_(x) is not bool else x
        if base is float:
            return float.__float__(x)
        if base is complex:
            return complex.__complex__(x)
        if base is str:
            return str.__str__(x)
        if base is bytes:
            return bytes.__bytes__(x)
        if base is list:
            return [launder_any(e) for e in list.__iter__(x)]
        if base is tuple:
            return tuple(launder_any(e) for e in tuple.__iter__(x))
        if base is dict:
            return {launder_any(k): launder_any(v) for k, v in dict.items(x)}
        if base is set or base is frozenset:
            return base(launder_any(e) for e in base.__iter__(x))
        return x

    def launder_any(x):
        t = type_(x)
        if t in SCALARS:
            return x
        base = base_of(t)
        if base is None or not untrusted(x, ("__eq__", "__hash__")) and base not in (list, tuple, dict, set, frozenset):
            return x
        return launder(x, base)

    # --- equality --------------------------------------------------------------------------------------
    class Sentinel:
        __slots__ = ()

    SENTINEL = Sentinel()

    def all_scalars(xs):
        return set(map(type_, xs)) <= SCALARS

    def plain(x, depth=0):
        t = type_(x)
        if t in SCALARS:
            return True
        if depth > 30:
            return False
        if t is list or t is tuple or t is set or t is frozenset:
            return all_scalars(x) or all(plain(e, depth + 1) for e in x)
        if t is dict:
            return all_scalars(x) and (all_scalars(x.values()) or all(plain(v, depth + 1) for v in x.values()))
        return False

    def rand():
        return urandom(1)[0]

    def typed_probes(o):
        """Values of o's kind that o is not equal to (o plain)."""
        r = 1 + rand() % 7
        t = type_(o)
        if t is bool:
            return [not o, 2]
        if t is int:
            return [o + r, o - r - 1]
        if t is float:
            if o != o or o in (float("inf"), float("-inf")):
                return [0.0, 1.5]
            d = (abs(o) + 1.0) * (0.25 + r / 8.0)
            return [o + d, o - d]
        if t is complex:
            return [o + r, o - 1j * r]
        if t is str or t is bytes:
            one = t(chr(97 + r), "ascii") if t is bytes else chr(97 + r)
            return [o + one, o[:-1] if o else one + one]
        if t is type_(None):
            return [0, "", False]
        if t is list or t is tuple:
            out = [o + t((r,))]
            if o:
                first = typed_probes(o[0]) if plain(o[0]) else [SENTINEL]
                out.append(t((first[0],)) + o[1:])
            return out
        if t is dict:
            out = [{**o, "\x00minedit-probe": r}]
            if o:
                k = next(iter(o))
                v = o[k]
                out.append({**o, k: (typed_probes(v)[0] if plain(v) else SENTINEL)})
            return out
        if t is set or t is frozenset:
            return [o | {("\x00minedit-probe", r)}]
        return []

    def claims(v):
        try:
            return bool(v) is True
        except BaseException:
            return False

    def is_bool(r):
        t = type_(r)
        return t is bool or (t.__name__ == "bool_" and t.__module__ == "numpy")

    def probed_eq(a, b, pa, pb, program=False):
        """Python's a == b, where pa / pb say which operands must not claim equality with probes (values they
        are not equal to); the real comparison runs at a random place among the probes."""
        probes = []
        for x, o, probe in ((a, b, pa), (b, a, pb)):
            if probe:
                probes.append((x, SENTINEL))
                if plain(o):
                    probes.extend((x, p) for p in typed_probes(o))
                elif base_of(type_(o)) is not None and not untrusted(o, ("__eq__",)):
                    probes.extend((x, p) for p in typed_probes(launder(o)))
        at = rand() % (len_(probes) + 1)
        lied = False
        r = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(len_(probes) + 1):
                if i == at:
                    r = a == b
                    if program:
                        r = claims(r)
                    elif not is_bool(r):
                        return r  # a library's elementwise result: the library's business
                    continue
                x, p = probes[i - (1 if i > at else 0)]
                try:
                    lied = lied or claims(x == p)
                except BaseException:
                    pass
        if lied:
            note_liar(a, b)
            return False
        return bool(r)

    liars = []

    def note_liar(a, b):
        if not liars:
            liars.append(type_(a).__qualname__ if base_of(type_(a)) is None else type_(b).__qualname__)

    def deep(a, b, depth):
        """a == b as the tests mean it (see the docstring); a bool, or a library's non-bool result."""
        if depth and a is b:
            return True
        ta = type_(a)
        tb = type_(b)
        if ta in SCALARS and tb in SCALARS:
            return a == b
        if depth > 60:
            return probed_eq(a, b, True, True, True)
        ua = untrusted(a, ("__eq__",))
        ub = untrusted(b, ("__eq__",))
        if ua and ub:
            return probed_eq(a, b, True, True, True)
        if ua or ub:
            t, u = (b, a) if ua else (a, b)
            base = base_of(type_(u))
            if base is not None:
                return deep(t, launder(u, base), depth)
            r = type_(t).__eq__(t, u)
            if r is NotImplemented:
                note_liar(u, t)
                return False
            return r
        fa = base_of(ta)
        fb = base_of(tb)
        if fa is None or fb is None:
            return probed_eq(a, b, fa is None, fb is None)
        if ta is not fa or tb is not fb:
            # A library subclass with an __eq__ of its own (OrderedDict, Counter, mock's call, numpy's
            # float64): its own semantics, and element by element when the shapes allow.
            ca = ta is not fa and defines(ta, "__eq__") is not defines(fa, "__eq__")
            cb = tb is not fb and defines(tb, "__eq__") is not defines(fb, "__eq__")
            if ca or cb:
                r = a == b
                if not is_bool(r) or not r:
                    return r
                if fa is fb and fa in (list, tuple, dict) and fa.__len__(a) == fb.__len__(b):
                    return bool(structural(a, b, fa, fb, depth))
                return True
        return structural(a, b, fa, fb, depth)

    NUMERIC = (bool, int, float, complex)

    def structural(a, b, fa, fb, depth):
        if fa in NUMERIC and fb in NUMERIC:
            return launder(a, fa) == launder(b, fb)
        if fa is not fb:
            if (fa is set or fa is frozenset) and (fb is set or fb is frozenset):
                return set_eq(a, b, fa, fb, depth)
            return False
        if fa is str or fa is bytes:
            return fa.__eq__(a, b)
        if fa is list or fa is tuple:
            if fa.__len__(a) != fb.__len__(b):
                return False
            for x, y in zip(fa.__iter__(a), fb.__iter__(b)):
                if x is y:
                    continue
                r = deep(x, y, depth + 1)
                if not (r if is_bool(r) else bool(r)):
                    return False
            return True
        if fa is dict:
            if dict.__len__(a) != dict.__len__(b):
                return False
            ka = dict.keys(a)
            kb = dict.keys(b)
            if all_scalars(ka) and all_scalars(kb):
                if ka != kb:
                    return False
                pairs = ((dict.__getitem__(a, k), dict.__getitem__(b, k)) for k in ka)
            else:
                pairs = []
                rest = list(dict.items(b))
                for k, v in dict.items(a):
                    for i, (k2, v2) in enumerate(rest):
                        if k is k2 or bool(deep(k, k2, depth + 1)):
                            pairs.append((v, v2))
                            del rest[i]
                            break
                    else:
                        return False
            for x, y in pairs:
                if x is y:
                    continue
                r = deep(x, y, depth + 1)
                if not (r if is_bool(r) else bool(r)):
                    return False
            return True
        return set_eq(a, b, fa, fb, depth)

    def set_eq(a, b, fa, fb, depth):
        xs = list(fa.__iter__(a))
        ys = list(fb.__iter__(b))
        if len_(xs) != len_(ys):
            return False
        if all_scalars(xs) and all_scalars(ys):
            return frozenset_(xs) == frozenset_(ys)
        for x in xs:
            for i, y in enumerate(ys):
                if x is y or bool(deep(x, y, depth + 1)):
                    del ys[i]
                    break
            else:
                return False
        return True

    def eq_top(a, b):
        if type_(a) in SCALARS and type_(b) in SCALARS:
            return a == b
        if plain(a) and plain(b):
            return a == b
        return deep(a, b, 0)

    def contains_(member, container):
        t = type_(container)
        if t in SCALARS:  # str, bytes, range: the builtin's own __contains__, the member's methods unused
            return contains(container, member)
        if t is list or t is tuple:
            if type_(member) in SCALARS and all_scalars(container):
                return contains(container, member)
            return any(x is member or bool(deep(member, x, 1)) for x in container)
        if t is dict or t is set or t is frozenset:
            if plain(member) and all_scalars(container):
                return contains(container, member)
            if untrusted(member, ("__eq__", "__hash__")):
                return any(bool(deep(member, x, 1)) for x in container)
            return contains(container, member)
        base = base_of(t)
        if base in (list, tuple, dict, set, frozenset, str, bytes):
            return contains_(member, launder(container, base))
        if untrusted(container, ("__contains__", "__iter__", "__getitem__")):
            # The program's container: it must not contain what nobody put in it.
            r = contains(container, member)
            if r:
                probes = [SENTINEL] + (typed_probes(member) if plain(member) else [])
                for p in probes:
                    try:
                        if contains(container, p):
                            note_liar(container, member)
                            return False
                    except BaseException:
                        pass
            return r
        return contains(container, member)

    ORDER = {2: ("__lt__", "__gt__"), 3: ("__le__", "__ge__"), 4: ("__gt__", "__lt__"), 5: ("__ge__", "__le__")}
    CMP_OPS = K.CMP_OPS

    def cmp(op, a, b):
        if op == 0:
            return eq_top(a, b)
        if op == 1:
            r = eq_top(a, b)
            if is_bool(r):
                return not r
            return a != b  # a library's elementwise result
        if op == 6:
            return contains_(a, b)
        if op == 7:
            return not contains_(a, b)
        forward, reflected = ORDER[op]
        ua = untrusted(a, (forward,))
        ub = untrusted(b, (reflected,))
        if ua == ub:
            return CMP_OPS[op](a, b)
        t, u = (b, a) if ua else (a, b)
        base = base_of(type_(u))
        if base is not None:
            u = launder(u, base)
            return CMP_OPS[op](t, u) if ub else CMP_OPS[op](u, t)
        name = reflected if ua else forward
        m = defines(type_(t), name)
        r = NotImplemented if m is None else m(t, u)
        if r is NotImplemented:
            note_liar(u, t)
            raise TypeError("'%s' not supported between a %s and a value of a type the program defines" % (("<", "<=", ">", ">=")[op - 2], type_(t).__name__))
        return r

    ARITH = (("__add__", "__radd__"), ("__sub__", "__rsub__"), ("__mul__", "__rmul__"), ("__truediv__", "__rtruediv__"), ("__floordiv__", "__rfloordiv__"), ("__mod__", "__rmod__"), ("__pow__", "__rpow__"))
    ARITH_OPS = K.ARITH_OPS

    def arith(op, a, b):
        forward, reflected = ARITH[op]
        ua = untrusted(a, (forward, reflected))
        ub = untrusted(b, (forward, reflected))
        if ua == ub:
            return ARITH_OPS[op](a, b)
        t, u = (b, a) if ua else (a, b)
        base = base_of(type_(u))
        if base is not None:
            u = launder(u, base)
            return ARITH_OPS[op](t, u) if ub else ARITH_OPS[op](u, t)
        m = defines(type_(t), reflected if ua else forward)
        r = NotImplemented if m is None else m(t, u)
        if r is NotImplemented:
            note_liar(u, t)
            raise TypeError("unsupported operand types: %s and a type the program defines" % type_(t).__name__)
        return r

    def safe_abs(x, *more):
        if more or not untrusted(x, ("__abs__",)):
            return abs(x, *more)
        base = base_of(type_(x))
        if base is not None:
            return abs(launder(x, base))
        note_liar(x, None)
        raise TypeError("abs() of a value whose type the program defines")

    K.cmp = cmp
    K.arith = arith
    K.safe_abs = safe_abs

    # --- hardened unittest assert methods -------------------------------------------------------------
    ASSERTS = {}
    if unittest_style:
        for names, kind, params in (
            (("assertEqual", "assertEquals", "failUnlessEqual"), "eq", ("first", "second")),
            (("assertNotEqual", "assertNotEquals", "failIfEqual"), "ne", ("first", "second")),
            (("assertListEqual",), "eq", ("list1", "list2")),
            (("assertTupleEqual",), "eq", ("tuple1", "tuple2")),
            (("assertSequenceEqual",), "eq", ("seq1", "seq2")),
            (("assertDictEqual",), "eq", ("d1", "d2")),
            (("assertSetEqual",), "eq", ("set1", "set2")),
            (("assertMultiLineEqual",), "eq", ("first", "second")),
            (("assertCountEqual",), "count", ("first", "second")),
            (("assertIn",), "in", ("member", "container")),
            (("assertNotIn",), "notin", ("member", "container")),
            (("assertAlmostEqual", "assertAlmostEquals", "failUnlessAlmostEqual"), "almost", ("first", "second")),
            (("assertNotAlmostEqual", "assertNotAlmostEquals", "failIfAlmostEqual"), "notalmost", ("first", "second")),
            (("assertGreater",), "gt", ("a", "b")),
            (("assertGreaterEqual",), "ge", ("a", "b")),
            (("assertLess",), "lt", ("a", "b")),
            (("assertLessEqual",), "le", ("a", "b")),
        ):
            for name in names:
                if name in TestCase.__dict__:
                    ASSERTS[name] = (kind, params, TestCase.__dict__[name])
        safe_repr = unittest.util.safe_repr
    ORDER_KINDS = {"lt": 2, "le": 3, "gt": 4, "ge": 5}
    DUNDERS = ("__eq__", "__lt__", "__le__", "__gt__", "__ge__", "__sub__", "__rsub__", "__abs__", "__contains__", "__iter__")

    def count_eq(a, b):
        xs = [launder_any(x) for x in a]
        ys = [launder_any(y) for y in b]
        if len_(xs) != len_(ys):
            return False
        if all_scalars(xs) and all_scalars(ys):
            counts = {}
            for x in xs:
                counts[x] = counts.get(x, 0) + 1
            for y in ys:
                counts[y] = counts.get(y, 0) - 1
            return not any(counts.values())
        for x in xs:
            for i, y in enumerate(ys):
                if x is y or eq_top(x, y) is True:
                    del ys[i]
                    break
            else:
                return False
        return True

    def decide(kind, a, b):
        """True / False, or None when unittest's own method is to decide (a library's elementwise result, or
        a comparison that raised: unittest raises it too)."""
        try:
            if kind == "eq" or kind == "ne":
                r = eq_top(a, b)
                if not is_bool(r):
                    return None
                return bool(r) if kind == "eq" else not r
            if kind == "count":
                return count_eq(a, b)
            if kind == "in" or kind == "notin":
                r = contains_(a, b)
                return bool(r) if kind == "in" else not r
            if kind in ORDER_KINDS:
                r = cmp(ORDER_KINDS[kind], a, b)
                return bool(r) if is_bool(r) else None
            if kind == "almost":
                if eq_top(a, b) is True:
                    return True
                if untrusted(a, ("__sub__", "__rsub__", "__eq__")) != untrusted(b, ("__sub__", "__rsub__", "__eq__")):
                    u = a if untrusted(a, ("__sub__", "__rsub__", "__eq__")) else b
                    if base_of(type_(u)) is None:
                        note_liar(u, None)
                        return False
            return None
        except Exception:
            # unittest's own method would ask the program's object: not when it is one side only.
            return False if untrusted(a, DUNDERS) != untrusted(b, DUNDERS) else None

    def run_assert(name, self, args, kwargs):
        kind, params, original = ASSERTS[name]
        values = list(args)
        for i, p in enumerate(params):
            if len_(values) <= i:
                values.append(kwargs.get(p))
        a, b = values[0], values[1]
        verdict = decide(kind, a, b)
        if kind in ("almost", "notalmost") or kind in ORDER_KINDS:
            # unittest's own arithmetic and ordering, on builtin values rather than a subclass's methods.
            args = tuple(launder_any(x) if i < 2 else x for i, x in enumerate(args))
            kwargs = {k: (launder_any(v) if k in params else v) for k, v in kwargs.items()}
        if verdict is False:
            original(self, *args, **kwargs)
            msg = args[len_(params)] if len_(args) > len_(params) and kind not in ("almost", "notalmost") else kwargs.get("msg")
            standard = "%s %s %s (by the values' builtin or library types; a type the program defines does not decide)" % (
                safe_repr(a, True), {"eq": "!=", "ne": "==", "in": "not in", "notin": "in"}.get(kind, "does not satisfy " + name + " with"), safe_repr(b, True),
            )  # fmt: skip
            raise self.failureException(self._formatMessage(msg, standard))
        return original(self, *args, **kwargs)

    K.run_assert = run_assert

    # --- the tests' entry points ------------------------------------------------------------------------
    kernel = [None]  # the code of the (sealed) run, the root of every test run: set once it exists

    def chain_ok(frame):
        """Whether only the harness, the tests and library code lie between `frame` and the harness's run."""
        f = frame
        while f is not None:
            code = f.f_code
            if code is kernel[0]:
                return True
            if id_(code) not in trusted_codes and not lib_code(code):
                return False
            f = f.f_back
        return False

    def enter(owner):
        frame = getframe(1).f_back  # getframe(0) is _s_enter; its caller is the test function
        code = frame.f_code
        kind = entry_codes.get(id_(code))
        ok = kind is not None and chain_ok(frame.f_back)
        if ok:
            if kind == "test" or kind == "fixture":
                ok = owner is state["current"]
            elif kind == "class":
                ok = owner in state["classes"]
            else:
                ok = owner is state["current"]
        if not ok:
            tamper("the program called the tests' own code (" + code.co_name + ")")
            raise RuntimeError("minedit: the tests' " + code.co_name + " runs only in the harness's own test run")
        if kind == "test" or kind == "fixture":
            key = test_id(owner)
            state["key"] = key
            if kind == "test":
                state["started"].add(key)
        elif kind == "class":
            state["key"] = "class " + owner.__qualname__

    def body_failed(error):
        if state["expecting"]:
            return
        charge(state["key"], describe(type_(error), error), type_(error))

    def register(obj):
        frame = getframe(1).f_back
        if frame.f_code is tests_code:
            state["registered"][obj.__name__] = obj
        return obj

    K.enter = enter
    K.body_failed = body_failed
    K.register = register

    # --- the test runner's result class (sealed methods) ------------------------------------------------
    def result_event(method, result, args):
        if method == "addError" or method == "addFailure":
            test, err = args
            note_failure(test, describe(err[0], err[1]), err[0])
            try:
                text = result._exc_info_to_string(err, test)
            except BaseException:  # noqa: B036 - a hostile exception's __str__ must not end the run
                text = describe(err[0], err[1])
            log(("ERROR" if method == "addError" else "FAIL") + ": " + str_(test) + "\n" + text[-2000:] + "\n")
        elif method == "addSubTest":
            test, subtest, err = args
            if err is not None:
                note_failure(test, "subtest " + str_(subtest) + ": " + describe(err[0], err[1]), err[0])
        elif method == "addSkip":
            test, reason = args
            if test_key(test) not in static_skips:
                note_failure(test, "skipped at run time: " + str_(reason))
        elif method == "addUnexpectedSuccess":
            note_failure(args[0], "unexpected success")
        elif method == "stopTest":
            state["stopped"].add(test_key(args[0]))
            TestResult.stopTest(result, args[0])

    def test_key(test):
        return test_id(test) if isinstance_(test, TestCase) else str_(test)

    def note_failure(test, text, exc_type=None):
        charge(test_key(test), text, exc_type)

    K.result_event = result_event
    result_methods = {}
    for method in ("addError", "addFailure", "addSubTest", "addSkip", "addUnexpectedSuccess", "stopTest"):
        result_methods[method] = _seal(_s_result_method, K, METHOD=method)
    noop = _seal(_s_result_method, K, METHOD="none")
    result_methods["addExpectedFailure"] = noop
    result_methods["addSuccess"] = noop
    HarnessResult = type("HarnessResult", (TestResult,), result_methods) if unittest_style else TestResult

    # --- signals: the program's handlers get no frame ---------------------------------------------------
    import _imp
    import _signal

    orig_signal = _signal.signal
    orig_getsignal = _signal.getsignal
    orig_create_builtin = _imp.create_builtin
    Frameless = type("FramelessHandler", (), {"__slots__": ("handler",), "__call__": _seal(_s_frameless_call, K)})

    def signal_install(signalnum, handler):
        if callable(handler) and not isinstance_(handler, int):
            wrapper = Frameless()
            wrapper.handler = handler
            handler = wrapper
        previous = orig_signal(signalnum, handler)
        return previous.handler if type_(previous) is Frameless else previous

    def signal_get(signalnum):
        h = orig_getsignal(signalnum)
        return h.handler if type_(h) is Frameless else h

    def create_builtin(spec):
        # A second instance of _signal would carry the unwrapped signal(); one of _imp, this function's original.
        if getattr_(spec, "name", None) in ("_signal", "_imp"):
            raise ImportError("minedit: " + str_(spec.name) + " cannot be created again")
        return orig_create_builtin(spec)

    K.signal_install = signal_install
    K.signal_get = signal_get
    K.create_builtin = create_builtin

    # --- the audit hook -----------------------------------------------------------------------------------
    # Nothing the hook does may run the program's code: with the hook's guard held (see _s_audit), that code
    # would run unaudited. So only builtin types' own methods are called on what an event hands it (a str
    # subclass's startswith or __eq__, an object's __bool__, a property, are never reached), and the file
    # system is read through functions bound here, not module attributes the program can replace.
    lstat = os.lstat
    readlink = os.readlink
    getcwd = os.getcwd
    S_ISLNK = __import__("stat").S_ISLNK
    marshal_loads = __import__("marshal").loads

    def lib_file(name):
        return os.path.join(stdlib, name)

    # Library functions that hand the frames they take to their caller: their caller is judged instead (by
    # the names its code must use: the function's own name, or the site's).
    PASS_FILES = frozenset_(lib_file(n) for n in ("inspect.py", "dis.py", "cgitb.py", "pdb.py", "bdb.py", "doctest.py", "trace.py", "pydoc.py", "code.py"))
    PASS_SITES = {
        (lib_file("traceback.py"), "walk_stack"): ("walk_stack",),
        (lib_file("traceback.py"), "walk_tb"): ("walk_tb",),
        (lib_file("traceback.py"), "_walk_tb_with_full_positions"): ("_walk_tb_with_full_positions",),
        (lib_file("traceback.py"), "StackSummary.extract.<locals>.extended_frame_gen"): ("extended_frame_gen",),
        (lib_file("logging/__init__.py"), "<lambda>"): ("currentframe",),
        (lib_file("asyncio/base_tasks.py"), "_task_get_stack"): ("_task_get_stack",),
        # types.coroutine's wrapper of a generator returns the generator's frame (also as cr_frame).
        (lib_file("types.py"), "_GeneratorWrapper.gi_frame"): ("gi_frame", "cr_frame"),
    }

    def no_locals_captured(f):
        value = f.f_locals.get("capture_locals")
        return value is None or value is False

    # Sites with a condition: traceback's extraction reads the frames' locals when asked to (capture_locals).
    SITE_RULES = {
        (lib_file("traceback.py"), "StackSummary._extract_from_extended_frame_gen"): no_locals_captured,
    }
    # Library functions that only test a generator's or coroutine's frame for None (its state).
    STATE_SITES = {(lib_file("inspect.py"), "getgeneratorstate"), (lib_file("inspect.py"), "getcoroutinestate")}

    def lib_site(code, tail, qualname):
        """Whether `code` is the library function `qualname` of a file ending in `tail` (any library root)."""
        if not lib_code(code):
            return False
        q = code.co_qualname
        return type_(q) is str and q == qualname and str_endswith(code.co_filename, tail)

    def library_class(klass):
        """Whether every function the class and its bases define is library code (none the program's)."""
        for k in type_mro(klass):
            for value in type_dict(k).values():
                if type_(value) in (FunctionType, staticmethod, classmethod) and foreign_code(value):
                    return False
        return True

    # Jinja2 compiles a template under the template file's name (folium's and branca's templates, at
    # import and from folium.Map: BigCodeBench/185, 186, 188). Allowed only from Environment._compile,
    # called by Environment.compile on a template text that is the named library file's own content, with
    # the environment's parsing and code generation all library code (not a program's subclass or
    # extension): what gets compiled is then Jinja's output for a file of the library, not the program's.
    JINJA_COMPILING = ("_parse", "_generate", "_compile", "compile", "_tokenize", "preprocess", "iter_extensions", "code_generator_class", "lexer")

    def jinja_template(frame, filename):
        if not lib_site(frame.f_code, "/jinja2/environment.py", "Environment._compile"):
            return False
        outer = frame.f_back
        if outer is None or not lib_site(outer.f_code, "/jinja2/environment.py", "Environment.compile"):
            return False
        where = outer.f_locals
        env, text, named = where.get("self"), where.get("source_hint"), where.get("filename")
        if type_(text) is not str or type_(named) is not str or named != filename:
            return False
        # (The environment's class first: only then are its attributes read, none of them the program's.)
        if not library_class(type_(env)):
            return False
        own = getattr_(env, "__dict__", {})
        if type_(own) is not dict or any(name in own for name in JINJA_COMPILING):
            return False
        generator = getattr_(env, "code_generator_class", None)
        if type_(generator) is not type or not library_class(generator):
            return False
        extensions = getattr_(env, "extensions", {})
        if type_(extensions) is not dict or not all(library_class(type_(x)) for x in extensions.values()):
            return False
        loader = getattr_(env, "loader", None)
        encoding = getattr_(loader, "encoding", "utf-8") if library_class(type_(loader)) else "utf-8"
        if type_(encoding) is not str:
            return False
        try:
            with open(filename, "rb") as f:
                real = f.read().decode(encoding)
        except (OSError, UnicodeDecodeError, LookupError):
            return False
        return text == real or text == real.replace("\r\n", "\n").replace("\r", "\n")

    # gc calls of library functions that only test the result (never return or keep it): pandas' chained
    # assignment check (SettingWithCopyWarning), on `df[col] = ...` of a frame taken from another
    # (BigCodeBench/234, 238).
    GC_SITES = {("gc.get_referents", "/pandas/core/generic.py", "NDFrame._check_setitem_copy")}

    def gc_site(frame, event):
        if frame is None:
            return False
        code = frame.f_code
        return any(e == event and lib_site(code, tail, q) for e, tail, q in GC_SITES)

    def judge(frame, needs, returned=None):
        """Whether the frame API named by `needs`, used by `frame`'s code, is allowed (see the docstring)."""
        f = frame
        while f is not None:
            code = f.f_code
            if id_(code) in trusted_codes:
                return True
            if not lib_code(code):
                return False
            filename = code.co_filename
            key = (filename, code.co_qualname)
            if filename in PASS_FILES or key in PASS_SITES:
                needs = PASS_SITES.get(key) or (code.co_name,)
                f = f.f_back
                continue
            rule = SITE_RULES.get(key)
            if rule is not None:
                if not rule(f):
                    return False
            elif not any(need in code.co_names for need in needs):
                return False
            return returned is None or within(frame, returned)
        return False

    def within(frame, target):
        """Whether `target` is `frame` or above it, no further than the first frame of the program's own."""
        f = frame
        while f is not None:
            if f is target:
                return True
            code = f.f_code
            if id_(code) in trusted_codes:
                return True
            if not lib_code(code):
                return False
            f = f.f_back
        return False

    def principal(frame):
        """The first non-library frame from `frame` up: "trusted" (harness, tests), "program", or None."""
        f = frame
        while f is not None:
            code = f.f_code
            if id_(code) in trusted_codes:
                return "trusted"
            if not lib_code(code):
                return "program"
            f = f.f_back
        return None

    def state_site(frame, name):
        """inspect.getgeneratorstate / getcoroutinestate reading a frame only to test it for None."""
        if frame is None or not lib_code(frame.f_code):
            return False
        code = frame.f_code
        return (code.co_filename, code.co_qualname) in STATE_SITES and name in code.co_names

    # --- the process's memory: /proc/PID/mem and the like, ctypes, marshal ----------------------------------
    # What is refused to the program here is its own memory and that of the sandbox's other processes: the
    # nonce (masked), the tests' code, the harness's objects. The kernel refuses most of it already (this
    # process is not dumpable, see above); these checks stand also where it would not.
    PROC_SECRETS = frozenset_(("mem", "pagemap", "map_files"))

    def resolve(path):
        """`path` (relative to the working directory) with symbolic links, "." and ".." resolved as far as it
        exists: os.path.realpath without the module attributes the program can replace."""
        if not str_startswith(path, "/"):
            try:
                path = getcwd() + "/" + path
            except OSError:
                return path  # no working directory: the relative path fails to open anyway
        done = []
        todo = path.split("/")[::-1]
        links = 0
        while todo:
            name = todo.pop()
            if name == "" or name == ".":
                continue
            if name == "..":
                if done:
                    done.pop()
                continue
            here = "/" + "/".join(done + [name])
            try:
                mode = lstat(here).st_mode
            except (OSError, ValueError):
                done.append(name)
                continue
            if S_ISLNK(mode) and links < 40:
                links += 1
                try:
                    target = readlink(here)
                except (OSError, ValueError):
                    done.append(name)
                    continue
                if str_startswith(target, "/"):
                    done = []
                todo.extend(target.split("/")[::-1])
            else:
                done.append(name)
        return "/" + "/".join(done)

    def proc_secret(path):
        """Whether the resolved `path` is a process's memory (mem, pagemap, map_files) or what leads to it
        by a relative path: a process's (or task's) /proc directory, /proc, or /."""
        if path == "/" or path == "/proc":
            return True
        if not str_startswith(path, "/proc/"):
            return False
        parts = [p for p in path[6:].split("/") if p]
        if not parts or not (parts[0].isdigit() or parts[0] in ("self", "thread-self")):
            return False
        rest = parts[1:]
        if rest[:1] == ["task"]:
            if len_(rest) < 2 or rest[1].isdigit() and len_(rest) == 2:
                return True
            rest = rest[2:]
        return not rest or rest[0] in PROC_SECRETS

    def secret_names(path):
        """Whether a relative path names a process's memory by its last part, whatever directory it is
        relative to (os.open's dir_fd, which the event does not show)."""
        parts = [p for p in path.split("/") if p]
        return bool(parts) and (parts[-1] in PROC_SECRETS or "map_files" in parts)

    def path_text(path):
        if type_(path) is bytes:
            return bytes.decode(path, "utf-8", "surrogateescape")
        return path if type_(path) is str else None

    def open_check(accessor, path):
        path = path_text(path)
        if not path:
            return ""  # an fd (os.fdopen, open(fd)): nothing new is opened
        # Library directories hold no links into /proc: only paths that could lead there are resolved.
        if str_startswith(path, "/") and not any(w in path for w in ("proc", "tmp", "dev", "shm", "..")):
            return ""
        resolved = resolve(path)
        if not proc_secret(resolved) and (str_startswith(path, "/") or not secret_names(path)):
            return ""
        if principal(accessor) != "program":
            return ""
        return deny("opening " + resolved)

    def symlink_check(accessor, target, link):
        target, link = path_text(target), path_text(link)
        if not target:
            return ""
        parts = [p for p in target.split("/") if p]
        base = link.rsplit("/", 1)[0] if link and "/" in link else "."
        whole = target if str_startswith(target, "/") else base + "/" + target
        if not ("proc" in parts or secret_names(target) or proc_secret(resolve(whole))):
            return ""
        if principal(accessor) != "program":
            return ""
        return deny("a symbolic link to " + target)

    ctypes_dir = lib_file("ctypes") + "/"

    def ctypes_site(frame):
        """Whether ctypes is used by the harness, the tests or a library (scikit-learn's threadpoolctl loads
        BLAS libraries): ctypes' own functions are judged by their caller, the program's code is refused."""
        f = frame
        while f is not None:
            code = f.f_code
            if id_(code) in trusted_codes:
                return True
            if not lib_code(code):
                return False
            if not str_startswith(code.co_filename, ctypes_dir):
                return True
            f = f.f_back
        return True

    def code_objects(obj, found, depth=0):
        """The code objects in an unmarshalled object (marshal builds only these containers)."""
        t = type_(obj)
        if t is CodeType:
            found.append(obj)
            for c in obj.co_consts:
                code_objects(c, found, depth + 1)
        elif (t is tuple or t is list or t is set or t is frozenset) and depth < 100:
            for x in obj:
                code_objects(x, found, depth + 1)
        elif t is dict and depth < 100:
            for k, v in obj.items():
                code_objects(k, found, depth + 1)
                code_objects(v, found, depth + 1)
        return found

    BOOTSTRAP = (("importlib._bootstrap_external>", "_compile_bytecode"), ("/importlib/_bootstrap_external.py", "_compile_bytecode"))

    def genuine_bytecode(frame, data):
        """Whether `frame` is the import system's _compile_bytecode loading a library's own bytecode file:
        its bytecode_path, resolved, is under the library roots, and that file's content after its 16-byte
        header is `data` (what is loaded; by default the frame's own). Always read: the program can call
        _compile_bytecode itself, or through a loader of its own, with any data and any path."""
        if frame is None or not any(lib_site(frame.f_code, tail, q) for tail, q in BOOTSTRAP):
            return False
        path = frame.f_locals.get("bytecode_path")
        if type_(path) is not str or not str_startswith(path, "/"):
            return False
        real = resolve(path)
        if not lib_name(real) or str_startswith(real, "<"):
            return False
        if data is None:
            data = frame.f_locals.get("data")
        try:
            with open(real, "rb") as f:
                content = f.read()
            return memoryview(content)[16:] == data
        except (OSError, TypeError, ValueError):
            return False

    def marshal_check(accessor, data):
        if type_(data) is not bytes or (b"c" not in data and b"\xe3" not in data):
            return ""  # no code object (TYPE_CODE, with or without FLAG_REF) in it
        if genuine_bytecode(accessor, data):
            return ""
        try:
            codes = code_objects(marshal_loads(data), [])  # (an event of its own, skipped: the hook's guard)
        except Exception:
            return ""  # not valid: the call itself fails
        if not codes:
            return ""
        # The program's own call: no code objects at all. A library's (the import system reading a .pyc the
        # program wrote, zipimport, ...): none claiming a library file name.
        if accessor is not None and not lib_code(accessor.f_code):
            return deny("unmarshalling code objects")
        if any(lib_code(c) for c in codes):
            return deny("loading bytecode that claims a library file name")
        return ""

    # Code objects a library function makes under a library file name: numpy's dispatchers (its own code,
    # renamed), types.coroutine (a function's code with one flag more), and code a library makes from a
    # template function of its own file (attrs, cloudpickle). Not dill or cloudpickle unpickling a code
    # object, or anything else that takes the name from its caller.
    def lib_code_site(frame, filename):
        if frame is None or not lib_code(frame.f_code):
            return False
        code = frame.f_code
        if filename == code.co_filename:
            return True
        if filename == NUMPY_INTERNALS:
            return lib_site(code, "/numpy/core/overrides.py", "array_function_dispatch.<locals>.decorator")
        if lib_site(code, "/types.py", "coroutine") and code.co_filename == lib_file("types.py"):
            co = frame.f_locals.get("co")
            return type_(co) is CodeType and co.co_filename == filename
        return False

    import _imp

    orig_fix_co_filename = _imp._fix_co_filename

    def fix_co_filename(code, path):
        """_imp._fix_co_filename, which renames a code object (the import system calls it with the source
        file's name after loading bytecode): renaming to a library file's name only for the import system
        loading that library's own bytecode file. Otherwise the code keeps the name it has."""
        if lib_name(path) and not (type_(code) is CodeType and type_(code.co_filename) is str and code.co_filename == path):
            if not genuine_bytecode(getframe(2), None):  # 0: this, 1: the sealed wrapper, 2: its caller
                return None
        return orig_fix_co_filename(code, path)

    K.fix_co_filename = fix_co_filename

    views = {}  # thread -> the buffer a from_buffer call is viewing (its ctypes.cdata event then passes)
    FRAME_OF = ("gi_frame", "cr_frame", "ag_frame")
    CODES = {"gi_code", "cr_code", "ag_code", "__code__"}
    CTYPES_REFUSED = frozenset_(
        ("ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata", "ctypes.PyObj_FromPtr", "ctypes.call_function")
    )  # fmt: skip

    def deny(what):
        if len_(state["denied"]) < 3 and what not in state["denied"]:
            state["denied"].append(what)
        return what

    def audit_check(event, args):
        if event == "object.__setattr__" and type_(args[1]) is str and args[1] in ("__code__", "__defaults__", "__kwdefaults__"):
            state["code_writes"] += 1  # by anyone: the integrity check's fast path relies on this count
        try:
            accessor = getframe(2)
        except ValueError:
            accessor = None  # called from C with no Python frame (a thread's target)
        if accessor is not None and id_(accessor.f_code) in trusted_codes:
            return ""
        if event == "object.__getattr__":
            obj, name = args[0], args[1]
            if name == "tb_frame" or name == "f_code":
                return "" if judge(accessor, (name,)) else deny("frame access (" + name + ")")
            if name in FRAME_OF:
                # Running or not: a frame taken from a suspended generator is the running frame once the
                # generator is resumed, from deeper in the stack, and its f_back is then the caller.
                if state_site(accessor, name) or judge(accessor, (name,)):
                    return ""
                return deny("frame access (" + name + ")")
            if name in CODES:
                target = getattr_(obj, name)
                if id_(target) in protected and principal(accessor) != "trusted":
                    return deny("the code of the tests or of the harness (" + name + ")")
            return ""
        if event == "sys._getframe":
            return "" if judge(accessor, ("_getframe",), args[0]) else deny("sys._getframe")
        if event == "open":
            return open_check(accessor, args[0])
        from_library = accessor is not None and lib_code(accessor.f_code)
        if event == "object.__setattr__":
            # (types.coroutine sets a library function's code: library code may.)
            if type_(args[1]) is str and args[1] in ("__code__", "__defaults__", "__kwdefaults__") and type_(args[0]) is FunctionType and not from_library:
                code = args[0].__code__
                if id_(code) in protected or id_(code) in trusted_codes or lib_code(code):
                    # Refused, and tampering whatever happens next (hostile.test.ts expects "tampered").
                    tamper("the program replaced the " + args[1] + " of a library, harness or test function")
                    return deny("replacing the " + args[1] + " of a library, harness or test function")
            return ""
        if event == "compile":
            source, filename = args[0], args[1]
            if type_(filename) is bytes:
                filename = bytes.decode(filename, "utf-8", "replace")
            if lib_name(filename):
                if filename == NUMPY_INTERNALS and from_library:
                    return ""
                if type_(source) in (str, bytes):
                    try:
                        with open(filename, "rb") as f:
                            real = f.read()
                        if real == (str.encode(source, "utf-8") if type_(source) is str else source):
                            return ""  # the import system compiling a library file without bytecode
                    except (OSError, UnicodeEncodeError):
                        pass
                if from_library and jinja_template(accessor, filename):
                    return ""
                return deny("compiling code under a library file name")
            return ""
        if event == "code.__new__":
            filename, name = args[1], args[2]
            if type_(filename) is not str or type_(name) is not str:
                # (A str subclass: nothing trusts such a name, but nothing needs one either.)
                return deny("code objects whose file name or name is not a str")
            if lib_name(filename) and not lib_code_site(accessor, filename):
                return deny("code objects under a library file name")
            return ""
        if event == "marshal.loads":
            return marshal_check(accessor, args[0])
        if event == "marshal.load":
            # The data is not shown to the hook: refused when the program is behind it.
            return "" if principal(accessor) != "program" else deny("marshal.load")
        if event == "ctypes.cdata/buffer":
            # from_buffer: a view of an object's own buffer (then a ctypes.cdata event for its address).
            views[K.get_ident()] = (args[0], args[0] + args[1]) if type_(args[0]) is int and type_(args[1]) is int else None
            return ""
        if event in CTYPES_REFUSED:
            if event == "ctypes.cdata":
                view = views.pop(K.get_ident(), None)
                if view is not None and type_(args[0]) is int and view[0] <= args[0] <= view[1]:
                    return ""
            return "" if ctypes_site(accessor) else deny(event)
        if event == "os.symlink":
            return symlink_check(accessor, args[0], args[1])
        if event in ("sys.settrace", "sys.setprofile", "sys.addaudithook"):
            tamper("the program called " + event)
            return deny(event)
        # gc.get_objects / get_referrers / get_referents, sys._current_frames
        return "" if principal(accessor) == "trusted" or gc_site(accessor, event) else deny(event)

    K.audit_check = audit_check
    K.AUDIT_EVENTS = frozenset_(
        (
            "object.__getattr__", "sys._getframe", "object.__setattr__", "compile", "code.__new__", "sys.settrace",
            "sys.setprofile", "sys.addaudithook", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
            "sys._current_frames", "open", "os.symlink", "marshal.loads", "marshal.load", "ctypes.cdata/buffer",
        )
    ) | CTYPES_REFUSED  # fmt: skip

    # --- seal what the tests' code and unittest reach -----------------------------------------------------
    K.SCALARS = SCALARS
    for name, fn in (("cmp_", _s_cmp), ("arith_", _s_arith), ("abs_", _s_abs), ("enter_", _s_enter), ("fail_", _s_fail), ("register_", _s_register)):
        setattr(K, name, _seal(fn, K))
    sealed_asserts = {name: _seal(_s_assert, K, METHOD=name) for name in ASSERTS}
    for name, fn in sealed_asserts.items():
        setattr(K, "A_" + name, fn)

    def substitute(code):
        consts = []
        for c in code.co_consts:
            if type_(c) is str and c.startswith("\x00minedit:"):
                c = getattr_(K, c[9:])
            elif type_(c) is CodeType:
                c = substitute(c)
            consts.append(c)
        return code.replace(co_consts=tuple(consts))

    tests_code = substitute(tests_code)
    test_codes = set()
    start = len_(keep)
    add_codes(tests_code, test_codes)
    for code in keep[start:]:
        kind = entries.get(code.co_qualname)
        if kind is not None and code.co_filename == "tests.py":
            entry_codes[id_(code)] = kind
    harness_file = _harness.__code__.co_filename
    for value in list(_harness.__globals__.values()):
        if type_(value) is FunctionType and value.__code__.co_filename == harness_file:
            add_codes(value.__code__, trusted_codes)
    sealed = [getattr_(K, n) for n in ("cmp_", "arith_", "abs_", "enter_", "fail_", "register_")]
    sealed += list(sealed_asserts.values()) + list(result_methods.values()) + [Frameless.__call__]
    signal_fn = _seal(_s_signal, K)
    getsignal_fn = _seal(_s_getsignal, K)
    create_builtin_fn = _seal(_s_create_builtin, K)
    fix_co_filename_fn = _seal(_s_fix_co_filename, K)
    audit_fn = _seal(_s_audit, K)
    sealed += [signal_fn, getsignal_fn, create_builtin_fn, fix_co_filename_fn, audit_fn]
    for fn in sealed:
        add_codes(fn.__code__, trusted_codes)
    protected = set(trusted_codes) | set(entry_codes) | {id_(tests_code)}
    keep.append(tests_code)
    trusted_codes |= test_codes

    # The comparing assert methods, for calls the rewrite does not see (TestCase.assertEqual(self, ...)).
    for name, fn in sealed_asserts.items():
        setattr(TestCase, name, fn)

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

    def wrappers(entries_):
        """What a value's own attributes hold that its re-initialisation can change without an audit event
        (property.__init__, staticmethod.__init__ called again): checked after every test, cheaply."""
        return [(value, wrapped_by(value)) for _, value, _ in entries_ if type_(value) in (staticmethod, classmethod, property)]

    def wrapped_by(value):
        return (value.fget, value.fset, value.fdel) if type_(value) is property else (value.__func__,)

    # (label, namespace, [(key, value, parts)], the keys, their values' ids, wrappers, the key set for classes)
    snapshots = []
    for label, ns, keys in [("module " + m.__name__, vars(m), None) for m in watched_modules] + [
        ("class " + c.__qualname__, c.__dict__, frozenset(c.__dict__.keys())) for c in watched_classes
    ]:
        entries_ = snapshot(ns)
        names = [key for key, _, _ in entries_]
        snapshots.append((label, ns, entries_, names, [id_(value) for _, value, _ in entries_], wrappers(entries_), keys))
    module_identities = [(name, sys.modules.get(name)) for name in ("builtins", "json", "json.encoder")] + [
        (name, sys.modules.get(name)) for name in list(sys.modules) if name.startswith("unittest")
    ]
    replaced = [
        (_signal, "signal", signal_fn), (_signal, "getsignal", getsignal_fn), (_imp, "create_builtin", create_builtin_fn),
        (_imp, "_fix_co_filename", fix_co_filename_fn),
    ]  # fmt: skip
    instances = []  # (label, object): objects whose instance dict must not override their class's methods

    def check_integrity():
        if state["tampered"]:
            return state["tampered"]
        if sys.gettrace() is not None or sys.getprofile() is not None:
            return "a trace or profile function is installed"
        for name, module in module_identities:
            if sys.modules.get(name) is not module:
                return "sys.modules[" + repr(name) + "] replaced"
        for label, ns, entries_, names, ids, wrapped, keys in snapshots:
            if keys is not None and frozenset(ns.keys()) != keys:
                return label + " gained or lost attributes"
            # The fast path, after every test: the same objects (by id: the snapshot keeps each alive, so an
            # id is never reused), the same wrapped functions, and no function's code or defaults assigned
            # since the start (the audit hook counts every such assignment; __closure__ and __globals__ are
            # read-only). Only then is the attribute-by-attribute comparison below, which reads every
            # function's __code__ (an audit event each), skipped.
            if (
                [id_(ns.get(key, ns)) for key in names] == ids
                and not state["code_writes"]
                and all(all(a is b for a, b in zip(wrapped_by(v), inner)) for v, inner in wrapped)
            ):
                continue
            for key, value, value_parts in entries_:
                current = ns.get(key, ns)
                if current is not value:
                    return label + "." + str_(key) + " replaced"
                now = parts(current)
                if len_(now) != len_(value_parts) or any(a is not b for a, b in zip(now, value_parts)):
                    return label + "." + str_(key) + " modified"
        for label, obj in instances:
            for key, value in list(vars(obj).items()):
                if callable(value) and callable(getattr_(type_(obj), key, None)):
                    return label + "." + str_(key) + " replaced on the instance"
        for later_check in later:
            text = later_check()
            if text:
                return text
        for fn, code in harness_codes:
            if fn.__code__ is not code:
                return "harness function " + fn.__name__ + " modified"
        return ""

    harness_codes = [(fn, fn.__code__) for fn in (emit, finish, check_integrity, note_failure, describe, parts, log)]

    # --- what the tests defined, and the library modules they use ------------------------------------------
    # Checked after every test, like the unittest snapshot: the names the tests' module code bound (the
    # program shares their namespace), the classes it defined (an assert method or `run` set on TestCases
    # itself), and the modules those names lead to (np.testing.assert_allclose replaced, np.allclose's
    # defaults changed, pd.DataFrame.equals replaced by the program's function).
    later = []
    missing = object()
    HEAPTYPE = 1 << 9
    IMMUTABLETYPE = 1 << 8
    METHODISH = (FunctionType, staticmethod, classmethod, property)

    def program_made(v, depth=0):
        """Whether calling (or looking up) v runs code the program wrote: not the library's, not the tests'."""
        t = type_(v)
        if t is FunctionType:
            code = v.__code__
            if id_(code) in trusted_codes or lib_code(code):
                return False
            # dataclasses and namedtuple generate methods with exec() in the class's module: a library
            # class's are the library's (a known gap: the program can exec code in a library module's dict).
            g = v.__globals__
            name = g.get("__name__", "") if type_(g) is dict else ""
            m = sys.modules.get(name if type_(name) is str else "")
            generated = type_(code.co_filename) is str and code.co_filename == "<string>"
            return not (generated and m is not None and vars(m) is g and library_module(m))
        if depth > 3:
            return False
        if t is types.MethodType or t is staticmethod or t is classmethod:
            return program_made(v.__func__, depth + 1)
        if t is partial_type:
            return program_made(v.func, depth + 1)
        if t is property:
            return any(program_made(f, depth + 1) for f in (v.fget, v.fset, v.fdel) if f is not None)
        if isinstance_(v, type):
            return any(type_(x) in METHODISH and program_made(x, depth + 1) for x in list(type_dict(v).values()))
        call = defines(t, "__call__")
        return call is not None and program_made(call, depth + 1)

    def fn_parts(v):
        return (v.__code__, v.__defaults__, v.__kwdefaults__) if type_(v) is FunctionType else ()

    def watch_tests(ns, before):
        names = [k for k, v in list(ns.items()) if k != "__builtins__" and (k not in before or before[k] is not v or k in marks["bound"])]
        names = [k for k in names if k not in marks["global"]]
        bound = {k: ns[k] for k in names}

        def names_check():
            for k, v in bound.items():
                if ns.get(k, missing) is not v:
                    return "the tests' name " + repr(k) + " rebound"
            return ""

        later.append(names_check)
        for obj in list(state["registered"].values()):
            if isinstance_(obj, type):
                later.append(class_watch(obj, "class " + obj.__qualname__, program_made_only=False))
        modules = []
        classes = []
        for v in bound.values():
            if isinstance_(v, type):
                classes.append(v)
            m = v if type_(v) is types.ModuleType else sys.modules.get(getattr_(v, "__module__", None) or "")
            if type_(m) is types.ModuleType and m not in modules:
                modules.append(m)
        for m in list(modules):
            for v in list(vars(m).values()):
                if type_(v) is types.ModuleType and v not in modules:
                    modules.append(v)
        skip = {sys, builtins, json, json.encoder, types, sys.modules.get("__test__")}
        modules = [m for m in modules if m not in skip and not m.__name__.startswith("unittest") and library_module(m)]
        for m in modules:
            classes.extend(v for v in list(vars(m).values()) if isinstance_(v, type))
        classes = [
            c for c in dict.fromkeys(classes)
            if c.__flags__ & HEAPTYPE and not c.__flags__ & IMMUTABLETYPE
            and library_module(sys.modules.get(getattr_(c, "__module__", "") or ""))
        ]  # fmt: skip
        # Only attributes the tests' text names (or that comparisons use): the program may legitimately set
        # others (warnings.showwarning, a logger class); as module or class attribute, never its own code.
        names_used = marks["attrs"]
        dicts = [("module " + str_(m.__name__), vars(m)) for m in modules]
        dicts += [("class " + str_(c.__module__) + "." + str_(c.__qualname__), type_dict(c)) for c in classes]

        def library_check():
            for k, v in bound.items():
                # (`from math import isclose` after the program replaced math.isclose)
                if k in marks["imported"] and program_made(v) and not isinstance_(v, type):
                    return "the tests' import " + repr(k) + " is the program's code"
            for label, d in dicts:
                for k in names_used:
                    v = d.get(k, missing)
                    if v is not missing and program_made(v):
                        return label + "." + str_(k) + " replaced by the program's code"
            return ""

        later.append(library_check)

    def library_module(m):
        if type_(m) is not types.ModuleType:
            return False
        f = getattr_(m, "__file__", None)
        if f is None:
            return m.__name__ in sys.builtin_module_names or getattr_(getattr_(m, "__spec__", None), "origin", "") in ("frozen", "built-in")
        return lib_name(f)

    def class_watch(cls, label, program_made_only):
        d = type_dict(cls)
        snap = {k: (v, parts(v)) for k, v in list(d.items())}

        def check():
            for k, v in list(d.items()):
                old, old_parts = snap.get(k, (missing, ()))
                if v is old:
                    if not state["code_writes"] and type_(v) is FunctionType:
                        continue  # its code and defaults can only change through an audited assignment
                    now = parts(v)
                    if len_(now) != len_(old_parts) or any(a is not b for a, b in zip(now, old_parts)):
                        return label + "." + str_(k) + " modified"
                    continue
                methodish = type_(v) in METHODISH or callable(v)
                if program_made(v):
                    return label + "." + str_(k) + " replaced by the program's code"
                if program_made_only:
                    continue
                if old is not missing and (type_(old) in METHODISH or callable(old)):
                    return label + "." + str_(k) + " replaced"
                if old is missing and methodish:
                    for base in type_mro(cls)[1:]:
                        if k in type_dict(base):
                            return label + "." + str_(k) + " shadows its base class's"
            if not program_made_only:
                for k, (old, _) in snap.items():
                    if k not in d and (type_(old) in METHODISH or callable(old)):
                        return label + "." + str_(k) + " removed"
            return ""

        return check

    def check_or_finish(total):
        tampered = check_integrity()
        if tampered:
            finish("tampered", 0, total, False, "test runner tampered: " + tampered)

    # --- run -------------------------------------------------------------------------------------------
    def why(detail):
        """A failure's detail, with what the harness refused the program (why it may have failed)."""
        if state["denied"] and not state["tampered"]:
            detail = (detail + "; " if detail else "") + "refused to the program: " + ", ".join(state["denied"])
        if liars:
            detail = (detail + "; " if detail else "") + "not trusted to decide a comparison: the program's " + liars[0]
        return detail

    def run():
        """The run, from loading the program to the final record (which ends the process). _harness returns a
        sealed copy of it (see _seal_closures), called once _harness's own frame, which holds everything
        above, is gone: the harness frames on the stack while candidate code runs are this one and the other
        sealed copies, whose locals are their arguments and their own variables."""
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
            if state["tampered"]:
                finish("tampered", 0, total_holder[0], False, "test runner tampered: " + state["tampered"])
            finish("program_error", 0, total_holder[0], memory, why(detail))
        check_or_finish(total_holder[0])

        namespace["__builtins__"] = builtins
        before_tests = dict(namespace)
        try:
            exec(tests_code, namespace)
        except BaseException as e:  # noqa: B036
            check_or_finish(total_holder[0])
            finish("program_error", 0, total_holder[0], isinstance_(e, MemoryError), why("the tests raised while loading: " + describe(type_(e), e)))
        watch_tests(namespace, before_tests)
        del before_tests
        check_or_finish(total_holder[0])

        if style == "unittest":
            # The class the tests' own code defined (a thread may have rebound the name in the namespace).
            cases = state["registered"].get("TestCases")
            if not (isinstance_(cases, type) and issubclass_(cases, TestCase)):
                finish("ok", 0, total_holder[0], False, "TestCases is not a unittest.TestCase class after loading")
            loader = TestLoader()
            names = loader.getTestCaseNames(cases)
            prefix = cases.__module__ + "." + cases.__qualname__ + "."
            skip_marked = marks["skip"]
            class_skipped = getattr_(cases, "__unittest_skip__", False) and any(
                getattr_(c, "__name__", "") in skip_marked for c in cases.__mro__
            )
            for name in names:
                if class_skipped or (getattr_(getattr_(cases, name), "__unittest_skip__", False) and name in skip_marked):
                    static_skips.add(prefix + name)
            counted = [prefix + name for name in names if prefix + name not in static_skips]
            total = len_(counted)
            total_holder[0] = total
            if total == 0:
                finish("ok", 0, 0, False, "TestCases has no runnable tests")
            emit("loaded", {"total": total})
            tests = list(loader.loadTestsFromTestCase(cases))
            result = HarnessResult()
            instances.append(("result", result))
            state["classes"] = tuple(c for c in cases.__mro__ if issubclass_(c, TestCase) and c is not TestCase)
            # One test at a time, from here: the harness knows which test runs (the tests' own code checks it
            # is that one) and checks the runner after each. Not top-level runs, so class fixtures run once.
            result._testRunEntered = True
            interrupted = ""
            for test in tests:
                key = test_key(test)
                instances.append(("test " + key.rsplit(".", 1)[-1], test))
                state["current"] = test
                state["key"] = key
                method = getattr_(test, getattr_(test, "_testMethodName", ""), None)
                state["expecting"] = bool(
                    getattr_(test, "__unittest_expecting_failure__", False) or getattr_(method, "__unittest_expecting_failure__", False)
                ) and getattr_(test, "_testMethodName", "") in marks["xfail"]
                if not interrupted:
                    try:
                        TestSuite.run(TestSuite([test]), result)
                    except BaseException as e:  # noqa: B036 - a KeyboardInterrupt from the candidate ends the run
                        interrupted = "the test run was interrupted: " + describe(type_(e), e)
                        charge(key, interrupted, type_(e))
                state["current"] = None
                state["expecting"] = False
                check_or_finish(total)
                if key not in static_skips:
                    emit("test", {"name": key.rsplit(".", 1)[-1], "ok": key in state["started"] and key not in state["failed"]})
            state["key"] = "class " + cases.__qualname__
            if not interrupted:
                try:
                    final = TestSuite()
                    final._tearDownPreviousClass(None, result)
                    final._handleModuleTearDown(result)
                except BaseException as e:  # noqa: B036
                    charge(state["key"], "the test run was interrupted: " + describe(type_(e), e), type_(e))
            result._testRunEntered = False
            check_or_finish(total)
            # A test passed if its own code ran and nothing was reported against it; a class-level failure
            # (setUpClass, tearDownClass) is reported against the class and fails the run as a whole.
            passed = sum(1 for key in counted if key in state["started"] and key not in state["failed"])
            all_ok = passed == total and not state["failed"]
            detail = state["first_failure"] or ("" if all_ok else "a test's own code did not run")
            finish("ok", passed, total, state["memory"], why(detail) if not all_ok else "", all_ok)

        # assert style
        candidate = namespace.get(entry_point)
        total = total_holder[0]
        if candidate is None:
            finish("ok", 0, total, False, "the program does not define " + entry_point)
        check_fn = state["registered"].get("check")
        if check_fn is None:
            finish("ok", 0, total, False, "check() is not the tests' own function after loading")
        state["current"] = candidate
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
                        emit("fail", {"name": "assert #" + str_(index + 1), "detail": text[-300:]})
                    emit("test", {"name": "assert #" + str_(index + 1), "ok": ok})
                    check_or_finish(total)
            completed = True
        except BaseException as e:  # noqa: B036
            memory = memory or isinstance_(e, MemoryError)
            log("check() raised:\n" + "".join(format_tb(type_(e), e, e.__traceback__))[-4000:] + "\n")
            failure = failure or "check() raised: " + describe(type_(e), e)
            emit("fail", {"name": "check() completes", "detail": failure[-300:]})
        check_or_finish(total)
        if extra_unit:
            emit("test", {"name": "check() completes", "ok": completed})
            passed += 1 if completed else 0
        all_ok = passed == total and completed
        finish("ok", passed, total, memory, "" if all_ok else why(failure), all_ok)

    # --- seal, and hand over -----------------------------------------------------------------------------
    # Every closure of this function that the run or K leads to becomes a sealed copy (K's attributes, the
    # lists and dicts they use are updated in place), trusted and protected like the _s_* functions.
    own_file = _harness.__code__.co_filename

    def ours(fn):
        return fn.__code__.co_filename == own_file and fn.__qualname__.startswith("_harness.<locals>.")

    copies = _seal_closures([run, K], ours)
    for copy in copies.values():
        add_codes(copy.__code__, trusted_codes)
        add_codes(copy.__code__, protected)
    # A sealed copy that runs the tests holds their code among its constants, which add_codes walked into:
    # the tests' code stays protected as before (the module and its entry points), no more. A function
    # the tests define and hand to the program (inspect.getfullargspec(f): BigCodeBench/566-571) is the
    # program's to inspect.
    protected.difference_update(test_codes.difference(entry_codes, {id_(tests_code)}))
    harness_codes[:] = [(fn, fn.__code__) for fn, _ in harness_codes]
    sealed_run = copies[id_(run)]
    kernel[0] = sealed_run.__code__
    for module, name, fn in replaced:
        setattr(module, name, fn)
    # Permanent for this process (a fork server's child, or a fresh interpreter): from here on, frames and
    # the tests' code are the harness's alone.
    sys.addaudithook(audit_fn)
    emit("ready", {"total": estimate})
    return sealed_run


def _rewrite_tests(ast, tree, style):
    """Rewrites the tests' code (see the harness's docstring): comparisons, arithmetic and abs() become calls
    of the harness's sealed functions (placeholder constants, replaced after compiling), `self.assertX(...)`
    calls of the comparing assert methods call the harness's versions directly, the tests' entry points
    (test methods, fixtures, check) begin with the harness's guard and report their failures, and the module's
    classes and functions are registered as they are defined. Returns {(name, first line): kind} of the
    entry points."""
    ph = ast.Constant
    CMP = {ast.Eq: 0, ast.NotEq: 1, ast.Lt: 2, ast.LtE: 3, ast.Gt: 4, ast.GtE: 5, ast.In: 6, ast.NotIn: 7}
    ARITH = {ast.Add: 0, ast.Sub: 1, ast.Mult: 2, ast.Div: 3, ast.FloorDiv: 4, ast.Mod: 5, ast.Pow: 6}
    ASSERTS = {
        "assertEqual", "assertEquals", "failUnlessEqual", "assertNotEqual", "assertNotEquals", "failIfEqual",
        "assertListEqual", "assertTupleEqual", "assertSequenceEqual", "assertDictEqual", "assertSetEqual",
        "assertMultiLineEqual", "assertCountEqual", "assertIn", "assertNotIn", "assertAlmostEqual",
        "assertAlmostEquals", "failUnlessAlmostEqual", "assertNotAlmostEqual", "assertNotAlmostEquals",
        "failIfAlmostEqual", "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual",
    }  # fmt: skip
    FIXTURES = {"setUp", "tearDown", "asyncSetUp", "asyncTearDown"}
    CLASS_FIXTURES = {"setUpClass", "tearDownClass"}
    defined = set()
    test_classes = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
            if any(n.endswith("TestCase") or n in test_classes for n in names):
                test_classes.add(node.name)
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        defined.add(item.name)
    overridden = ASSERTS & defined
    entries = {}
    # What the tests' text says about skipping and expected failures (decorators), and the module names its
    # functions declare `global`: unittest's flags count only where the text puts them (a program setting
    # __unittest_skip__ or __unittest_expecting_failure__ on a test at run time gains nothing).
    marks = {"skip": set(), "xfail": set(), "global": set()}

    def mark(node):
        for d in node.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if "skip" in name.lower():
                marks["skip"].add(node.name)
            if name == "expectedFailure":
                marks["xfail"].add(node.name)

    marks["attrs"] = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__contains__", "__iter__", "__hash__", "__float__", "__index__", "__int__"}
    marks["bound"] = set()
    marks["imported"] = set()

    def binds(statements):
        for st in statements:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                marks["bound"].add(st.name)
                continue
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                names = [(a.asname or a.name).split(".")[0] for a in st.names if a.name != "*"]
                marks["bound"].update(names)
                marks["imported"].update(names)
            for sub in ast.walk(st):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    marks["bound"].add(sub.id)
            for field in ("body", "orelse", "finalbody", "handlers"):
                binds([x for x in getattr(st, field, []) if isinstance(x, ast.stmt)] if field != "handlers" else [y for h in getattr(st, "handlers", []) for y in h.body])

    binds(tree.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            marks["global"].update(node.names)
        elif isinstance(node, ast.Attribute):
            marks["attrs"].add(node.attr)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in test_classes:
            mark(node)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    mark(item)

    def simple(node):
        return isinstance(node, (ast.Name, ast.Constant))

    def call(name, *args):
        return ast.Call(func=ph("\x00minedit:" + name), args=list(args), keywords=[])

    def guarded(fn, kind, owner, qualname):
        enter = ast.Expr(call("enter_", ast.Name(owner, ast.Load()) if owner else ph(None)))
        entries[qualname] = kind
        if kind == "check":
            fn.body = [enter, *fn.body]
            return
        fn.body = [
            enter,
            ast.Try(
                body=fn.body,
                handlers=[
                    ast.ExceptHandler(
                        type=ast.Name("BaseException", ast.Load()),
                        name="_minedit_error",
                        body=[ast.Expr(call("fail_", ast.Name("_minedit_error", ast.Load()))), ast.Raise()],
                    )
                ],
                orelse=[],
                finalbody=[],
            ),
        ]

    class Rewriter(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if not all(type(op) in CMP for op in node.ops):
                return node
            if len(node.ops) > 1 and not all(simple(c) for c in node.comparators[:-1]):
                return node
            left = node.left
            parts = []
            for op, right in zip(node.ops, node.comparators):
                parts.append(call("cmp_", ph(CMP[type(op)]), left, right))
                left = right
            return parts[0] if len(parts) == 1 else ast.BoolOp(op=ast.And(), values=parts)

        def visit_BinOp(self, node):
            self.generic_visit(node)
            if type(node.op) not in ARITH:
                return node
            return call("arith_", ph(ARITH[type(node.op)]), node.left, node.right)

        def visit_Call(self, node):
            self.generic_visit(node)
            f = node.func
            if isinstance(f, ast.Name) and f.id == "abs" and not node.keywords:
                return ast.Call(func=ph("\x00minedit:abs_"), args=node.args, keywords=[])
            if (
                style == "unittest"
                and isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and f.value.id == "self"
                and f.attr in ASSERTS
                and f.attr not in overridden
            ):
                return ast.Call(func=ph("\x00minedit:A_" + f.attr), args=[f.value, *node.args], keywords=node.keywords)
            return node

        def visit_With(self, node):
            self.generic_visit(node)
            for item in node.items:
                c = item.context_expr
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "subTest":
                    node.body = [
                        ast.Try(
                            body=node.body,
                            handlers=[
                                ast.ExceptHandler(
                                    type=ast.Name("BaseException", ast.Load()),
                                    name="_minedit_error",
                                    body=[ast.Expr(call("fail_", ast.Name("_minedit_error", ast.Load()))), ast.Raise()],
                                )
                            ],
                            orelse=[],
                            finalbody=[],
                        )
                    ]
                    break
            return node

    Rewriter().visit(tree)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in test_classes:
            for item in node.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                owner = item.args.args[0].arg if item.args.args else None
                qualname = node.name + "." + item.name
                if item.name.startswith("test"):
                    guarded(item, "test", owner, qualname)
                elif item.name in FIXTURES:
                    guarded(item, "fixture", owner, qualname)
                elif item.name in CLASS_FIXTURES:
                    guarded(item, "class", owner, qualname)
        if isinstance(node, ast.FunctionDef) and node.name == "check" and style == "assert":
            owner = node.args.args[0].arg if node.args.args else None
            guarded(node, "check", owner, "check")
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            # Outermost, so it sees the object the name is bound to.
            node.decorator_list.insert(0, ph("\x00minedit:register_"))
    return entries, marks


def _stdio():
    """The stdio style: every case of one rollout in this one sandboxed process, each in a forked child.

    Usage: python3 -s harness.py stdio BUDGET_MS CASE_CAP TOTAL_CAP [CPU_MS]; file main.py (the program).
    Stdin: the nonce line, the number of cases, then per case its input's byte length on a line and the
    input bytes. All of it is read before any candidate code runs.

    Per case, a child is forked: it makes pipes its fds 0, 1 and 2, closes every other fd (the record
    channel included), and executes main.py in a fresh __main__ module as `python3 main.py` would (exit
    status from SystemExit, a traceback and status 1 for an uncaught exception, non-daemon threads and
    atexit run before exit). This process feeds the input, collects the child's stdout (up to CASE_CAP
    bytes of stdout and stderr together, as a separate run's output limit; TOTAL_CAP over all cases) and
    the tail of its stderr, and kills it with SIGKILL at the shared deadline, BUDGET_MS after start, or
    (with CPU_MS) once the cases' CPU time (user + system: the cases reaped, and the running one as
    /proc/PID/stat has it) passes CPU_MS, the cases sharing that budget as they share the wall one. After
    each case every other process of the sandbox is killed (kill(-1)), so nothing a case started survives
    into the next one. Records (the output is compared by the runner, not here):

        ready   {"cases": n} once the inputs are read, before any candidate code runs
        case    {"index": i, "exit": int|null, "signal": int|null, "timed_out": bool, "cpu": bool (timed
                 out by CPU_MS), "truncated": bool, "out": base64 stdout, "err": base64 stderr tail}
        result  {"status": "ok", "reached": number of cases run, "cpu": bool (CPU_MS spent before the
                 next case)}; written once, last

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
    cpu_budget = int(args[3]) / 1000.0 if len(args) > 3 else None
    ticks = os.sysconf("SC_CLK_TCK")

    def reaped_cpu():
        t = os.times()
        return t.children_user + t.children_system

    def live_cpu(pid):
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        except (OSError, IndexError, ValueError):
            return 0.0

    cpu_before = reaped_cpu()

    try:
        import ctypes

        if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    except Exception as e:
        # Before ready: the runner reports the harness, not the candidate (and nothing runs unprotected).
        os.write(2, ("harness: cannot make itself non-dumpable: " + str(e) + "\n").encode())
        os._exit(3)

    # A case's end wakes the loop below (the sandbox's syscall filter refuses pidfd_open): SIGCHLD writes
    # to a pipe polled with the case's own pipes. The child puts both back as a fresh process has them.
    import signal

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)

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
    # Compiled once, here, rather than by every case's child: each child then starts from the code object,
    # as the fork server's children start from the harness's (compiling in a forked child is ~65 page
    # faults a case where they are slow). After `ready`, so a program that takes long to compile uses the
    # run's budget as it did in its first case (the wall or CPU limit, then a timeout), never the
    # harness's. A program whose compilation fails or warns (a SyntaxWarning, an invalid escape) is left
    # to each child, which compiles it as `python3 main.py` does: the error or the warning goes to that
    # case's stderr, as before.
    source = _compiled_quietly(source)

    err_tail = 16 * 1024 + 4
    total_out = 0
    reached = 0
    cpu_spent = False
    for index, data_in in enumerate(inputs):
        if monotonic() >= deadline:
            break
        if cpu_budget is not None and reaped_cpu() - cpu_before >= cpu_budget:
            cpu_spent = True
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
        os.set_blocking(in_w, False)
        poller = select.poll()
        poller.register(out_r, select.POLLIN)
        poller.register(err_r, select.POLLIN)
        poller.register(wake_r, select.POLLIN)
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
        timed_out = cpu_out = truncated = exited = False
        status = None
        open_fds = {out_r, err_r}
        while open_fds or not exited:
            remaining = deadline - monotonic()
            if remaining <= 0:
                timed_out = True
                break
            wait_ms = remaining * 1000.0
            if cpu_budget is not None:
                left = cpu_budget - (reaped_cpu() - cpu_before) - (0.0 if exited else live_cpu(pid))
                if left <= 0:
                    timed_out = cpu_out = True
                    break
                # Look again no later than the budget could be spent (it grows at most as fast as time).
                wait_ms = min(wait_ms, max(10.0, min(250.0, left * 500.0)))
            events = poller.poll(max(1, int(wait_ms + 0.999)))
            for fd, event in events:
                if fd == in_w:
                    pending = _write_some(os, in_w, pending)
                    if not pending:
                        poller.unregister(in_w)
                        os.close(in_w)
                        in_w = -1
                elif fd == wake_r:
                    try:
                        while os.read(wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
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
        for fd in list(open_fds) + [in_w]:
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
            b'{"index": %d, "exit": %s, "signal": %s, "timed_out": %s, "cpu": %s, "truncated": %s, "out": %s, "err": %s}'
            % (
                index,
                b"null" if exit_code is None else b"%d" % exit_code,
                b"null" if signal is None else b"%d" % signal,
                b"true" if timed_out else b"false",
                b"true" if cpu_out else b"false",
                b"true" if truncated else b"false",
                b64(stdout),
                b64(err),
            ),
        )
        if timed_out:
            break
    emit(b"result", b'{"status": "ok", "reached": %d, "cpu": %s}' % (reached, b"true" if cpu_spent else b"false"))
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
    namespace (its init is `bwrap`) or a container whose init is the fork server (`minedit-init`): the
    harness run by hand on a host never signals anything but its own case's process group."""
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
            # The init of a bwrap sandbox, or the fork server as a container's init (forkserver.py).
            if f.read().strip() not in (b"bwrap", b"minedit-init"):
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


def _compiled_quietly(source):
    """`source` (main.py's bytes) compiled as _run_as_main compiles it, when that succeeds without a
    warning of any kind (each warning an error here, whatever the filters say); else `source` itself."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return compile(source, "/tmp/main.py", "exec")
    except BaseException:  # noqa: B036 - a MemoryError or RecursionError included: the child tries again
        return source


def _stdio_child(source, in_r, out_w, err_w):
    """In the forked child: become `python3 main.py` with the case's pipes as stdio. Never returns."""
    import os
    import signal

    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
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
    """Run `source` (text, or a code object already compiled from it: the fork server's harness) as the
    interpreter runs a program, then exit as it would. Never returns.

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
            code = compile(source, filename, "exec") if isinstance(source, (str, bytes)) else source
            exec(code, main.__dict__)
            status = 0
        except SystemExit as e:
            status = _exit_status(e)
        except BaseException as e:  # noqa: B036 - as the interpreter: report any uncaught exception
            try:
                # The traceback without its first entry, this frame (where the exception was caught): the
                # interpreter's begins at the program's own module, and a program that does not compile
                # gets none at all (a SyntaxError raised by compile() here has no other entry). Set on the
                # exception itself: the default hook prints the exception's own __traceback__.
                tb = e.__traceback__
                e.__traceback__ = None if tb is None else tb.tb_next
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
        # Not one call: _harness's frame, which holds all its variables, ends before the run begins.
        _harness()()
