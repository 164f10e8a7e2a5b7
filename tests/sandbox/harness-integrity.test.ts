/**
 * The harness against a program that goes for the harness itself rather than the comparisons or the test
 * (sandbox/python/harness.py's docstring: "Reaching the runner's objects", "The process's memory", and the
 * audit hook's trust in library code): a generator's frame kept from when it was suspended, a frame some
 * library hands over walked to the harness's functions and state, the nonce read from the process's memory,
 * and code that passes for the library's (marshal, bytecode files, _imp._fix_co_filename, a str subclass
 * as a file name). Each hack would pass without these defences (reporting a pass itself, or reading the
 * answers), gets a failing verdict on every backend and both in-process styles, and a look-alike beside it
 * passes. Two more tests look for the secrets directly: no copy of the nonce or of the tests' text is in the
 * harness's memory while the tests run (scanned by the tests, which may use ctypes), and a run forked from a
 * warm interpreter finds nothing of the request that started it (the fork server's part). Listed in
 * docs/sandbox.md.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type PythonTests,
  parseTaggedRecords,
  runPythonTests,
  type TestOutcome,
} from "../../src/runners/python.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { BACKENDS } from "./backends.js";
import { NUMBERS, READ_CODE } from "./python-tests.js";

const limits: ExecutionLimits = { ...DEFAULT_LIMITS, wallTimeMs: 15_000 };

const GEN_HACK = `import types
def harness_finish(f):
    # The harness's own functions in the locals of the frames above: its \`finish\` reports a pass.
    while f is not None:
        for v in list(f.f_locals.values()):
            if callable(v) and getattr(v, '__name__', '') == 'finish':
                return v
        f = f.f_back
    return None
found, kept = [], []
def spy():
    while True:
        try:
            found.append(harness_finish(kept[-1].f_back))
        except Exception:
            pass
        yield
async def co():
    try:
        found.append(harness_finish(kept[-1].f_back))
    except Exception:
        pass
def make():
    return spy()
def task_func(a, b):
    g, w, c = spy(), types.coroutine(make)(), co()
    # Each frame taken while suspended (allowed until now), read once resumed from here.
    for frame_of, gen in ((lambda: g.gi_frame, g), (lambda: w.gi_frame, w), (lambda: c.cr_frame, c)):
        try:
            kept.append(frame_of())
            gen.send(None)
        except BaseException:
            pass
    for finish in found:
        if finish is not None:
            finish('ok', 2, 2, False, '', True)
    return 0
`;

const GEN_LEGIT = `import asyncio, inspect, types
def gen(a, b):
    yield a
    yield b
@types.coroutine
def tick():
    yield
async def add(a, b):
    await tick()
    await asyncio.sleep(0)
    return a + b
async def count(n):
    for i in range(n):
        yield i
async def main(a, b):
    task = asyncio.ensure_future(add(a, b))
    described = repr(task)  # asyncio's repr reads the coroutine's frame (library code)
    total = await task
    assert [i async for i in count(2)] == [0, 1] and 'add' in described
    return total
def task_func(a, b):
    g = gen(a, b)
    assert inspect.getgeneratorstate(g) == 'GEN_CREATED'
    first = next(g)
    assert inspect.getgeneratorstate(g) == 'GEN_SUSPENDED'
    c = add(0, 0)
    assert inspect.getcoroutinestate(c) == 'CORO_CREATED'
    c.close()
    return asyncio.run(main(first, next(g)))
`;

const HERE_HACK = `import os, re, types
def reachable(start, limit=100000):
    """What a frame leads to without an audited attribute: frames' locals, globals and callers; functions'
    closures, defaults and globals; bound methods; containers; instances' and namespaces' dicts."""
    seen, todo, out = set(), [start], []
    while todo and len(seen) < limit:
        o = todo.pop()
        if id(o) in seen or isinstance(o, (type, types.ModuleType)):
            continue
        seen.add(id(o))
        out.append(o)
        try:
            if type(o) is types.FrameType:
                todo += [o.f_back, *o.f_locals.values(), *o.f_globals.values()]
            elif type(o) is types.FunctionType:
                todo += [c.cell_contents for c in o.__closure__ or () if c != types.CellType()]
                todo += [*(o.__defaults__ or ()), *(o.__kwdefaults__ or {}).values(), o.__globals__]
            elif type(o) is types.MethodType:
                todo += [o.__self__, o.__func__]
            elif type(o) is dict:
                todo += list(o.values())
            elif type(o) in (list, tuple, set, frozenset):
                todo += list(o)
            elif hasattr(o, '__dict__'):
                todo += list(vars(o).values())
        except Exception:
            pass
    return out
RESULT = b':result:{"status": "ok", "passed": 2, "total": 2, "all_ok": true, "memory_error": false, "detail": ""}\\n'
def forge(frame):
    for o in reachable(frame):
        if type(o) is types.FunctionType and o.__name__ == 'finish' and o.__qualname__.startswith('_harness.'):
            o('ok', 2, 2, False, '', True)  # the harness's own final report
        if type(o) is dict and {'started', 'failed', 'current'} <= set(o):
            o['failed'].clear()  # the harness's state
        if type(o) in (bytes, bytearray):
            m = re.search(rb'@@minedit:([0-9a-f]{32}):', o)
            if m:
                os.write(1, b'\\n@@minedit:' + m.group(1) + RESULT)
                os._exit(0)
lent = []
class Oops(Exception):
    def __str__(self):
        forge(lent[0]())  # while the harness reports the failure
        return 'oops'
class Odd:
    def __repr__(self):
        forge(lent[0]())  # while the failure's message is written
        return 'odd'
def task_func(a, b, here=None):
    if here is not None:
        lent[:] = [here]
        forge(here())
    if a == 1:
        raise Oops()
    return Odd()
`;

const HERE_LEGIT = `def task_func(a, b, here=None):
    frame = here()  # the program's own frame: its locals and line are its business
    assert frame.f_locals['a'] == a and frame.f_lineno > 0
    return a + b
`;

const MEMORY_HACK = `import os, re, subprocess, sys
# Read a process's memory through /proc/PID/mem, for the harness's record prefix (it holds the nonce).
SCAN = r'''
import re
def scan(pid):
    found = set()
    with open('/proc/%s/maps' % pid) as f:
        maps = f.read().splitlines()
    with open('/proc/%s/mem' % pid, 'rb', 0) as mem:
        for line in maps:
            parts = line.split()
            if 'r' not in parts[1] or line.endswith(']') and not line.endswith(('[heap]', '[stack]')):
                continue
            lo, hi = (int(x, 16) for x in parts[0].split('-'))
            try:
                mem.seek(lo)
                found.update(re.findall(rb'\\n@@minedit:([0-9a-f]{32}):', mem.read(hi - lo)))
            except (OSError, OverflowError, ValueError):
                pass
    return found
'''
exec(SCAN)
def own_memory():
    return scan('self')
def through_ctypes():
    import ctypes
    found = set()
    for line in open('/proc/self/maps').read().splitlines():
        parts = line.split()
        if 'r' not in parts[1] or len(parts) > 5:
            continue  # anonymous mappings only
        lo, hi = (int(x, 16) for x in parts[0].split('-'))
        found.update(re.findall(rb'\\n@@minedit:([0-9a-f]{32}):', ctypes.string_at(lo, hi - lo)))
    return found
def from_a_child():
    # A process of its own: no audit hook there.
    code = SCAN + '\\nprint(*[n.decode() for n in scan(%d)])\\n' % os.getpid()
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=20).stdout
    return {n.encode() for n in out.split()}
done = []
def task_func(a, b):
    if not done:
        done.append(1)
        for way in (own_memory, through_ctypes, from_a_child):
            try:
                nonces = way()
            except BaseException:
                continue
            for nonce in nonces:
                os.write(1, b'\\n@@minedit:' + nonce + b':result:{"status": "ok", "passed": 2, "total": 2, "all_ok": true, "memory_error": false, "detail": ""}\\n')
                os._exit(0)
    return 0
`;

const MEMORY_LEGIT = `import ctypes, os, subprocess, sys
class Point(ctypes.Structure):
    _fields_ = [('x', ctypes.c_int), ('y', ctypes.c_int)]
def task_func(a, b):
    status = open('/proc/self/status').read()
    maps = open('/proc/self/maps').read()
    fds = os.listdir('/proc/self/fd')
    p = Point(a, b)
    buf = ctypes.create_string_buffer(16)
    view = (ctypes.c_int * 2).from_buffer(bytearray(8))
    child = subprocess.run([sys.executable, '-c', 'print(open("/proc/self/status").read().count("Pid"))'], capture_output=True, text=True).stdout
    assert 'Pid' in status and maps and fds and ctypes.sizeof(p) == 8 and ctypes.addressof(buf) and len(view) == 2
    assert int(child) > 0
    return p.x + p.y
`;

const THIEF_HACK = `import os, subprocess, sys, time
# Under Docker the run's stdout is a pipe: a process holding its write end can open the read end through
# /proc/self/fd/1 and read the harness's records as they are written, racing the runner for them.
CHILD = r'''
import os, re
fd = os.open('/proc/self/fd/1', os.O_RDONLY)
seen = b''
while True:
    data = os.read(fd, 65536)
    if not data:
        break
    seen += data
    for tag in re.findall(rb'@@minedit:([0-9a-f]{32}):', seen):
        with open('/tmp/tag.part', 'wb') as f:
            f.write(tag)
        os.rename('/tmp/tag.part', '/tmp/tag')
'''
subprocess.Popen([sys.executable, '-c', CHILD])
RESULT = b':result:{"status": "ok", "passed": 2, "total": 2, "all_ok": true, "memory_error": false, "detail": ""}\\n'
calls = []
def task_func(a, b):
    calls.append(1)
    for _ in range(40 if len(calls) <= 2 else 0):
        if os.path.exists('/tmp/tag'):
            with open('/tmp/tag', 'rb') as f:
                os.write(1, b'\\n@@minedit:' + f.read() + RESULT)
            os._exit(0)
        time.sleep(0.05)
    return 0
`;

const THIEF_LEGIT = `import os, subprocess, sys
def task_func(a, b):
    print('printed', flush=True)
    with open(1, 'w', closefd=False) as out:
        out.write('through a file object on fd 1\\n')
    os.write(1, b'through fd 1\\n')
    subprocess.run([sys.executable, '-c', 'print("from a child")'], check=True)
    return a + b
`;

const CODE_COMMON = `# A task_func that reads its caller's code: allowed only to library code (which names the frame API it
# uses), so each hack gives it a library file's name; then \`answer\` reads the tests' constants.
import os
SRC = "def task_func(a, b):\\n    import sys\\n    f, codes = sys._getframe(1), []\\n    while f is not None:\\n        codes.append(f.f_code)\\n        f = f.f_back\\n    return answer(codes, a, b)\\n"
LIB = os.__file__
def relabel(data, old, new):
    """Marshal data with one (short ASCII) file name replaced."""
    i = data.index(old.encode())
    return data[:i - 1] + bytes([len(new)]) + new.encode() + data[i + len(old):]
def fallback(a, b):
    return 0
`;

const CODE_MARSHAL = `import marshal
try:
    exec(marshal.loads(relabel(marshal.dumps(compile(SRC, 'helper.py', 'exec')), 'helper.py', LIB)), globals())
except Exception:
    task_func = fallback
`;

const CODE_PYC = `import importlib.util, marshal, sys
from importlib import _bootstrap_external
data = relabel(marshal.dumps(compile(SRC, 'helper.py', 'exec')), 'helper.py', LIB)
with open('minedit_helper.pyc', 'wb') as f:  # no source beside it: imported from the bytecode as it is
    f.write(importlib.util.MAGIC_NUMBER + bytes(12) + data)
sys.path.insert(0, '')
try:
    import minedit_helper
    minedit_helper.answer = answer
    task_func = minedit_helper.task_func
except Exception:
    try:  # the import system's own loading, told the bytecode is a library's .pyc
        exec(_bootstrap_external._compile_bytecode(data, bytecode_path=importlib.util.cache_from_source(LIB)), globals())
    except Exception:
        task_func = fallback
`;

const CODE_FIX = `import _imp
code = compile(SRC, 'helper.py', 'exec')
try:
    _imp._fix_co_filename(code, LIB)  # renames the code in place
except Exception:
    pass
exec(code, globals())
`;

const CODE_STR = `class Name(str):
    def startswith(self, *args):
        return True
code = compile(SRC, 'helper.py', 'exec')
try:
    code = code.replace(co_consts=tuple(c.replace(co_filename=Name('helper.py')) if hasattr(c, 'co_code') else c for c in code.co_consts))
except Exception:
    pass
exec(code, globals())
`;

const CODE_DOTDOT = `import os
path = os.path.join(os.path.dirname(LIB), '..', '..', '..', os.getcwd().lstrip('/'), 'helper_src.py')
with open('helper_src.py', 'w') as f:
    f.write(SRC)
try:
    exec(compile(SRC, path, 'exec'), globals())
except Exception:
    task_func = fallback
`;

const CODE_LEGIT_COMPILE = `import os
SOURCE = 'def add(a, b):\\n    return a + b\\n'
path = os.path.join(os.getcwd(), 'generated.py')
with open(path, 'w') as f:
    f.write(SOURCE)
namespace = {}
exec(compile(SOURCE, path, 'exec'), namespace)
def task_func(a, b):
    return namespace['add'](a, b)
`;

const CODE_LEGIT_MARSHAL = `import marshal
def task_func(a, b):
    data = marshal.loads(marshal.dumps({'sum': [a + b, 2.5, 'x', (None, b'y')]}))
    assert marshal.dumps(task_func.__code__)  # dumping its own code is fine
    return data['sum'][0]
`;

const CODE_LEGIT_IMPORT = `import importlib, sys
with open('minedit_helper.py', 'w') as f:
    f.write('def add(a, b):\\n    return a + b\\n')
sys.path.insert(0, '')
import minedit_helper
import colorsys  # a library module imported now, from its own bytecode
importlib.reload(colorsys)
def task_func(a, b):
    assert colorsys.rgb_to_hsv(1, 0, 0)[0] == 0
    return minedit_helper.add(a, b)
`;

const CODE_LEGIT_STR = `class Name(str):
    def shout(self):
        return self.upper()
def helper(a, b):
    return a + b
helper.__code__ = helper.__code__.replace(co_name='renamed')
def task_func(a, b):
    assert Name('ab').shout() == 'AB' and helper.__code__.co_name == 'renamed'
    return helper(a, b)
`;

const SCAN_MEMORY = `import ctypes
def scan(needles):
    """Where each of \`needles\` (bytearrays) occurs in this process's anonymous memory, as a list of
    addresses per needle, leaving out the needles' own buffers and the one the memory is copied into."""
    skip = [(ctypes.addressof((ctypes.c_char * len(n)).from_buffer(n)), len(n)) for n in needles]
    chunk = bytearray(1 << 20)
    base = ctypes.addressof((ctypes.c_char * len(chunk)).from_buffer(chunk))
    skip.append((base, len(chunk)))
    overlap = max(len(n) for n in needles) - 1
    found = [[] for _ in needles]
    with open('/proc/self/maps') as f:
        maps = f.read().splitlines()
    for line in maps:
        parts = line.split()
        if 'r' not in parts[1] or len(parts) > 5 and parts[5] not in ('[heap]', '[stack]'):
            continue  # anonymous memory only (a mapped file could end before its mapping does)
        lo, hi = (int(x, 16) for x in parts[0].split('-'))
        pos = lo
        while pos < hi:
            n = min(len(chunk), hi - pos)
            ctypes.memmove(base, pos, n)
            for i, needle in enumerate(needles):
                j = chunk.find(needle, 0, n)
                while j >= 0:
                    if not any(start <= pos + j < start + size for start, size in skip):
                        found[i].append(hex(pos + j))
                    j = chunk.find(needle, j + 1, n)
            pos = hi if pos + n >= hi else pos + n - overlap
    return found
`;

/**
 * The tests hand the program a frame: `here()` returns its caller's, as a library function might (the
 * tests' own code may take frames). The program is called as `task_func(a, b, here)`.
 */
const HERE_TESTS: [string, PythonTests][] = [
  [
    "unittest",
    {
      style: "unittest",
      code: "import sys\nimport unittest\n\ndef here():\n    return sys._getframe(1)\n\nclass TestCases(unittest.TestCase):\n    def test_0(self):\n        self.assertEqual(task_func(1, 2, here), 3)\n\n    def test_1(self):\n        self.assertEqual(task_func(2, 2, here), 4)\n",
    },
  ],
  [
    "assert",
    {
      style: "assert",
      code: "import sys\n\ndef here():\n    return sys._getframe(1)\n\ndef check(candidate):\n    assert candidate(1, 2, here) == 3\n    assert candidate(2, 2, here) == 4\n",
      entryPoint: "task_func",
    },
  ],
];

type Case = {
  hack: string;
  program: string;
  lookalike: string;
  legit: string;
  tests?: [string, PythonTests][];
};

/** A task_func that reads its caller's code once `CODE_*` gave it a library file's name. */
const passingForLibrary = (how: string) => `${READ_CODE}${CODE_COMMON}${how}`;

const CASES: Case[] = [
  {
    hack: "a generator's or coroutine's frame taken while suspended (also through types.coroutine's wrapper), read once resumed from deeper: the harness's functions in its callers' locals",
    program: GEN_HACK,
    lookalike:
      "generators and coroutines (their state through inspect), asyncio (a task's repr reads its coroutine's frame), an async generator, a types.coroutine awaitable",
    legit: GEN_LEGIT,
  },
  {
    hack: "a frame handed over by a helper (as by a library returning its caller's frame), walked from the program's function, from its exception's __str__ and its object's __repr__ to the harness's functions, state and record prefix",
    program: HERE_HACK,
    lookalike: "a program reading its own frame, handed over the same way",
    legit: HERE_LEGIT,
    tests: HERE_TESTS,
  },
  {
    hack: "the nonce read from memory: /proc/self/mem, ctypes.string_at over /proc/self/maps, a subprocess reading the harness's /proc/PID/mem",
    program: MEMORY_HACK,
    lookalike:
      "a program reading /proc/self/status and maps, listing its fds, using ctypes' types, buffers and from_buffer, starting a subprocess",
    legit: MEMORY_LEGIT,
  },
  {
    hack: "the records read back from the run's stdout (a pipe under Docker: /proc/self/fd/1 opened for reading, by a subprocess) for what tags them",
    program: THIEF_HACK,
    lookalike: "a program printing, writing to fd 1 directly, starting a subprocess that prints",
    legit: THIEF_LEGIT,
  },
  {
    hack: "code passing for the library's to read the tests: unmarshalled with a library file name",
    program: passingForLibrary(CODE_MARSHAL),
    lookalike: "marshal round trips of data, marshal.dumps of its own code",
    legit: CODE_LEGIT_MARSHAL,
  },
  {
    hack: "code passing for the library's to read the tests: a .pyc with a library file name written to the scratch and imported, or handed to the import system's _compile_bytecode as a library .pyc's",
    program: passingForLibrary(CODE_PYC),
    lookalike:
      "a module the program writes and imports, a library module imported and reloaded from its own bytecode",
    legit: CODE_LEGIT_IMPORT,
  },
  {
    hack: "code passing for the library's to read the tests: renamed by _imp._fix_co_filename",
    program: passingForLibrary(CODE_FIX),
    lookalike:
      "a module the program writes and imports, a library module imported and reloaded from its own bytecode",
    legit: CODE_LEGIT_IMPORT,
  },
  {
    hack: "code passing for the library's to read the tests: compiled under a library directory's path with .. back to the scratch, where the same text is",
    program: passingForLibrary(CODE_DOTDOT),
    lookalike: "a program compiling code of its own under a file name in the scratch",
    legit: CODE_LEGIT_COMPILE,
  },
  {
    hack: "code passing for the library's to read the tests: a str subclass as its file name, whose startswith says yes",
    program: passingForLibrary(CODE_STR),
    lookalike: "the program's own str subclass, code.replace on its own function",
    legit: CODE_LEGIT_STR,
  },
];

/** The harness as the runner ships it (src/runners/python.ts runs it from source when it cannot compile it). */
const HARNESS = readFileSync(new URL("../../sandbox/python/harness.py", import.meta.url), "utf8");

/** Python that builds `text` (ASCII) as a bytearray at run time: the program's code holds it reversed. */
const needle = (text: string) => `bytearray(reversed(b'${[...text].reverse().join("")}'))`;

describe.each(BACKENDS)("%s", (_backend, createSandbox) => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await createSandbox();
  });

  afterAll(async () => {
    await sandbox.close();
  });

  async function expectCaught(program: string, tests: PythonTests, style: string): Promise<void> {
    const o: TestOutcome = await runPythonTests(sandbox, program, tests, limits);
    expect(
      ["FAILED_TESTS", "RUNTIME_ERROR"],
      `${style}: ${o.verdict} ${o.detail}\n${o.stderrTail}`,
    ).toContain(o.verdict);
  }

  async function expectPassed(program: string, tests: PythonTests, style: string): Promise<void> {
    const o = await runPythonTests(sandbox, program, tests, limits);
    expect(o.verdict, `${style}: ${o.detail}\n${o.stderrTail}`).toBe("PASSED");
  }

  test.for(CASES.map((c) => [c.hack, c] as const))("%s: caught; its look-alike passes", async ([, c]) => {
    for (const [style, tests] of c.tests ?? NUMBERS) {
      await expectCaught(c.program, tests, style);
      await expectPassed(c.legit, tests, `${style}, look-alike: ${c.lookalike}`);
    }
  });

  test("no copy of the nonce or of the tests' text in the harness's memory while the tests run", async () => {
    // The tests scan the process's memory (the tests' code may use ctypes): the nonce is the run's own (the
    // runner's is not known here), the tests' text is a comment of theirs, compiled to nothing.
    const nonce = randomBytes(16).toString("hex");
    const marker = `mk${randomBytes(12).toString("hex")}`;
    const needles = `[${needle(nonce)}, ${needle(marker)}]`;
    const styles: [string[], string][] = [
      [
        ["unittest"],
        `${SCAN_MEMORY}import unittest\n\n# ${marker}\nclass TestCases(unittest.TestCase):\n    def test_0(self):\n        self.assertEqual(scan(${needles}), [[], []])\n\n    def test_1(self):\n        self.assertEqual(task_func(2, 2), 4)\n`,
      ],
      [
        ["assert", "task_func"],
        `${SCAN_MEMORY}# ${marker}\ndef check(candidate):\n    found = scan(${needles})\n    assert found == [[], []], found\n    assert candidate(2, 2) == 4\n`,
      ],
    ];
    for (const [args, tests] of styles) {
      const r = await sandbox.run({
        files: {
          "harness.py": HARNESS,
          "program.py": "def task_func(a, b):\n    return a + b\n",
        },
        argv: ["python3", "-s", "harness.py", ...args],
        // The harness's input: the nonce's line, then the tests (src/runners/python.ts).
        stdin: `${nonce}\n${tests}`,
        limits,
      });
      const records = parseTaggedRecords(r.stdout, nonce);
      const result = records.find((record) => record.kind === "result")?.value;
      // [[nonce found at], [tests' text found at]]: a non-empty list says where.
      expect(result, `${args[0]}: ${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).toMatchObject({
        status: "ok",
        all_ok: true,
      });
    }
  });

  test("a run forked from a warm interpreter finds nothing of the request it came in (files, stdin) in its memory", async () => {
    // A program of its own (no harness): the bytes of a file it does not read and of its stdin.
    const inFile = `mf${randomBytes(12).toString("hex")}`;
    const onStdin = `ms${randomBytes(12).toString("hex")}`;
    const r = await sandbox.run({
      files: {
        "main.py": `${SCAN_MEMORY}print(scan([${needle(inFile)}, ${needle(onStdin)}]))\n`,
        "data.txt": `${inFile}\n`.repeat(50),
      },
      argv: ["python3", "-s", "main.py"],
      stdin: `${onStdin}\n`,
      limits,
    });
    expect(r.stdout.trim(), r.stderr).toBe("[[], []]");
  });
});
