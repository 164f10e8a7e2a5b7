/**
 * The 14 in-domain corruption families (docs/tasks.md#corruption-families) and the optional in-domain variant
 * `edge_case_guard_blocks`: each fires exactly where it should on small hand-written programs (every
 * corrupted program spelled out), stays silent where it should not, makes a small token edit, and is
 * undone exactly by its recorded reversal. Over the 60 shipped seed solutions, no family proposes an
 * edit the engine has to drop (one that does not parse or changes no token).
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { applyCorruptions, findSites, revertCorruptions } from "../../src/core/corruption/engine.js";
import {
  IN_DOMAIN_FAMILIES,
  OPTIONAL_IN_DOMAIN_FAMILIES,
} from "../../src/core/corruption/in-domain/index.js";
import type { AppliedCorruption, CorruptionFamily, CorruptionSite } from "../../src/core/corruption/types.js";
import { tokenLevenshtein } from "../../src/core/distance.js";
import { programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar, pythonParser } from "../../src/core/python/grammar.js";

beforeAll(async () => {
  await loadPythonGrammar();
});

/** The in-domain families and their optional variants. */
const FAMILIES = [...IN_DOMAIN_FAMILIES, ...OPTIONAL_IN_DOMAIN_FAMILIES];

function family(name: string): CorruptionFamily {
  const found = FAMILIES.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no family ${name}`);
  return found;
}

function record(gold: string, name: string, site: CorruptionSite): AppliedCorruption {
  return {
    family: name,
    line: 1,
    column: 0,
    start: site.start,
    end: site.end,
    original: gold.slice(site.start, site.end),
    corrupted: site.replacement,
  };
}

/** Every program the family makes of `gold` with one edit. */
function corruptions(name: string, gold: string): string[] {
  const sites = findSites(gold, [family(name)]).get(name) ?? [];
  return sites.map((site) => applyCorruptions(gold, [record(gold, name, site)]));
}

/** The most tokens one corruption of the family changes in these examples (see each module's comment). */
const MAX_TOKEN_EDITS: Record<string, number> = {
  comparison_operators: 1,
  range_bounds: 2,
  sort_order: 4,
  accumulator_initialization: 3,
  arithmetic_operators: 1,
  edge_case_guards: 3,
  edge_case_guard_blocks: 9,
  list_indexing: 2,
  function_call_substitution: 1,
  copy_removal: 7,
  boolean_constants: 1,
  numeric_constants: 1,
  slice_bounds: 2,
  conditional_inversion: 3,
  range_step: 4,
};

type Case = { family: string; gold: string; expected: string[] };

function replaceLine(text: string, from: string, to: string): string {
  const lines = text.split("\n");
  const index = lines.indexOf(from);
  if (index < 0) throw new Error(`no line ${from}`);
  lines[index] = to;
  return lines.join("\n");
}

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`no ${from} in the example`);
  return text.replace(from, to);
}

const FIRES_ACCUMULATOR = [
  "def f(xs):",
  "    total = 0",
  "    items = []",
  "    seen = set()",
  '    text = ""',
  "    product = 1",
  "    counts = {}",
  "    i = 0",
  "    while i < len(xs):",
  "        total += xs[i]",
  "        items.append(xs[i])",
  "        seen.add(xs[i])",
  "        text = text + str(xs[i])",
  "        product *= xs[i]",
  "        counts[xs[i]] = 1",
  "        i += 1",
  "    unused = 0",
  "    return total, items, seen, text, product, counts",
  "",
].join("\n");
const FIRES_CALLS = [
  "import statistics",
  "from statistics import mean, median",
  "a = max(xs) + min(xs, key=f) + sum(xs) + len(xs) + sum(xs, 10)",
  "b = statistics.mean(xs) + mean(xs) + arr.argmax() + np.median(xs)",
  "",
].join("\n");
const FIRES_COPIES = [
  "import copy",
  "from copy import deepcopy as dc",
  "a = xs.copy()",
  "b = xs[:]",
  "c = list(xs)",
  "d = copy.deepcopy(xs)",
  "e = dc(self.items)",
  "f = df.copy(deep=True)",
  "xs[:] = []",
  "g = list(range(3))",
  "h = copy.copy(a + b)",
  "",
].join("\n");
const FIRES_NUMBERS = "a = 0 + 7 + 0x1F + 1_000 + 2.5 + .5 + 1e-9 + 3j\nb = -1\nc = -0.1\ns = '1'  # 2\n";
const FIRES_SLICES = "a = xs[1:n]\nb = xs[:-1]\nc = xs[i + 1:]\nd = xs[::2]\ne = xs[:]\n";
const FIRES_CONDITIONS =
  "if a and not b:\n    pass\nwhile (c or d):\n    pass\nx = y if z < 1 else w\nys = [v for v in vs if v]\nif(e):\n    pass\n";
const GUARDS = [
  "def f(items, n, flag, is_ok, seen, key):",
  "    if not items:",
  "        return []",
  "    if n < 0 or n > len(items):",
  '        raise ValueError("n")',
  "    out = []",
  "    for item in items:",
  "        if item is None:",
  "            continue",
  "        if len(out) == 10 and flag:",
  "            break",
  "        out.append(item)",
  "    if is_ok == False:",
  "        return out",
  "    if key not in seen:",
  "        return None",
  "    return out",
  "",
  "def g(x):",
  "    if x == 0:",
  "        return 1",
  "    elif x < 0:",
  "        print(x)",
  "        raise ValueError",
  "    else:",
  "        y = x",
  "    return y",
  "",
].join("\n");
const GUARDS_NESTED = [
  "def h(k, n, done, ready, a, b):",
  "    if not (0 <= k <= n):",
  "        raise ValueError",
  "    while True:",
  "        if done or not k:",
  "            break",
  "        if k >= -1:",
  "            return True",
  "        if(ready): return False",
  "        if (a or b):",
  "            return None",
  "    return False",
  "",
].join("\n");
const FIRES_STEPS = [
  "for i in range(n):",
  "    pass",
  "for i in range(0, n):",
  "    pass",
  "for i in range(0, n, 2):",
  "    pass",
  "for i in range(n, 0, -1):",
  "    pass",
  "for i in range(0, n, 1):",
  "    pass",
  "for i in range(0, n, s):",
  "    pass",
  "",
].join("\n");

const FIRES: Case[] = [
  {
    family: "comparison_operators",
    gold: "def f(a, b):\n    if a < b and b != 0:\n        return a <= b\n    return b > a >= 0\n",
    expected: [
      "def f(a, b):\n    if a <= b and b != 0:\n        return a <= b\n    return b > a >= 0\n",
      "def f(a, b):\n    if a < b and b == 0:\n        return a <= b\n    return b > a >= 0\n",
      "def f(a, b):\n    if a < b and b != 0:\n        return a < b\n    return b > a >= 0\n",
      "def f(a, b):\n    if a < b and b != 0:\n        return a <= b\n    return b >= a >= 0\n",
      "def f(a, b):\n    if a < b and b != 0:\n        return a <= b\n    return b > a > 0\n",
    ],
  },
  {
    family: "range_bounds",
    gold: "for i in range(n):\n    pass\nfor j in range(1, len(xs) + 1):\n    pass\nfor k in range(10, 0, -1):\n    pass\n",
    expected: [
      "for i in range(n + 1):\n    pass\nfor j in range(1, len(xs) + 1):\n    pass\nfor k in range(10, 0, -1):\n    pass\n",
      "for i in range(n - 1):\n    pass\nfor j in range(1, len(xs) + 1):\n    pass\nfor k in range(10, 0, -1):\n    pass\n",
      "for i in range(n):\n    pass\nfor j in range(1, len(xs) + 2):\n    pass\nfor k in range(10, 0, -1):\n    pass\n",
      "for i in range(n):\n    pass\nfor j in range(1, len(xs)):\n    pass\nfor k in range(10, 0, -1):\n    pass\n",
      "for i in range(n):\n    pass\nfor j in range(1, len(xs) + 1):\n    pass\nfor k in range(10, 1, -1):\n    pass\n",
    ],
  },
  {
    family: "sort_order",
    gold: "a = sorted(xs)\nb = sorted(xs, key=len, reverse=True)\nxs.sort()\nys.sort(reverse=False)\n",
    expected: [
      "a = sorted(xs, reverse=True)\nb = sorted(xs, key=len, reverse=True)\nxs.sort()\nys.sort(reverse=False)\n",
      "a = sorted(xs)\nb = sorted(xs, key=len, reverse=False)\nxs.sort()\nys.sort(reverse=False)\n",
      "a = sorted(xs)\nb = sorted(xs, key=len, reverse=True)\nxs.sort(reverse=True)\nys.sort(reverse=False)\n",
      "a = sorted(xs)\nb = sorted(xs, key=len, reverse=True)\nxs.sort()\nys.sort(reverse=True)\n",
    ],
  },
  {
    family: "accumulator_initialization",
    gold: FIRES_ACCUMULATOR,
    expected: [
      ["    total = 0", "    total = 1"],
      ["    items = []", "    items = [0]"],
      ["    seen = set()", "    seen = {0}"],
      ['    text = ""', '    text = " "'],
      ["    product = 1", "    product = 0"],
      ["    counts = {}", "    counts = {0: 0}"],
    ].map(([from, to]) => replaceLine(FIRES_ACCUMULATOR, from as string, to as string)),
  },
  {
    family: "arithmetic_operators",
    gold: 'x = a + b - c * d // e / f\ny += 2\ns = "-" * 3\nt = [0] + xs\n',
    expected: [
      "x = a - b - c * d // e / f",
      "x = a + b + c * d // e / f",
      "x = a + b - c // d // e / f",
      "x = a + b - c / d // e / f",
      "x = a + b - c * d * e / f",
      "x = a + b - c * d // e * f",
    ]
      .map((line) => `${line}\ny += 2\ns = "-" * 3\nt = [0] + xs\n`)
      .concat(['x = a + b - c * d // e / f\ny -= 2\ns = "-" * 3\nt = [0] + xs\n']),
  },
  {
    family: "edge_case_guards",
    gold: GUARDS,
    expected: [
      ["if not items:", "if items:"],
      ["n < 0 or", "n < 0 and"],
      ["n < 0 or", "n <= 0 or"],
      ["n < 0 or", "n >= 0 or"],
      ["n < 0 or", "n < 1 or"],
      ["n > len(items)", "n >= len(items)"],
      ["n > len(items)", "n <= len(items)"],
      ["item is None", "item is not None"],
      ["== 10 and flag", "== 10 or flag"],
      ["== 10 and flag", "== 10"],
      ["== 10 and flag", "!= 10 and flag"],
      ["== 10 and flag", "== 11 and flag"],
      ["== 10 and flag", "== 9 and flag"],
      ["== 10 and flag", "== 10 and not flag"],
      ["x == 0:", "x != 0:"],
      ["x == 0:", "x == 1:"],
      ["x < 0:", "x <= 0:"],
      ["x < 0:", "x >= 0:"],
      ["x < 0:", "x < 1:"],
      ["is_ok == False", "is_ok != False"],
      ["is_ok == False", "is_ok == True"],
      ["key not in seen", "key in seen"],
    ].map(([from, to]) => replaceOnce(GUARDS, from as string, to as string)),
  },
  {
    family: "edge_case_guards",
    gold: GUARDS_NESTED,
    expected: [
      ["not (0 <= k <= n)", "(0 <= k <= n)"],
      ["not (0 <= k <= n)", "not (0 < k <= n)"],
      ["not (0 <= k <= n)", "not (0 > k <= n)"],
      ["not (0 <= k <= n)", "not (0 <= k < n)"],
      ["not (0 <= k <= n)", "not (0 <= k > n)"],
      ["not (0 <= k <= n)", "not (1 <= k <= n)"],
      ["done or not k", "done and not k"],
      ["done or not k", "not k"],
      ["done or not k", "done"],
      ["done or not k", "not done or not k"],
      ["done or not k", "done or k"],
      ["k >= -1", "k > -1"],
      ["k >= -1", "k < -1"],
      ["k >= -1", "k >= -2"],
      ["if(ready)", "if not (ready)"],
      ["if (a or b)", "if not (a or b)"],
      ["if (a or b)", "if (a and b)"],
      ["if (a or b)", "if (b)"],
      ["if (a or b)", "if (a)"],
      ["if (a or b)", "if (not a or b)"],
      ["if (a or b)", "if (a or not b)"],
    ].map(([from, to]) => replaceOnce(GUARDS_NESTED, from as string, to as string)),
  },
  {
    family: "edge_case_guard_blocks",
    gold: [
      "def f(items, limit):",
      "    if not items:",
      "        return []",
      "    out = []",
      "    for item in items:",
      "        if item > limit:",
      "            break",
      "        out.append(item)",
      "    return out",
      "",
    ].join("\n"),
    expected: [
      // added at the top of the function
      "def f(items, limit):\n    if not items:\n        return None\n    if not items:\n        return []\n    out = []\n    for item in items:\n        if item > limit:\n            break\n        out.append(item)\n    return out\n",
      // first guard removed
      "def f(items, limit):\n    out = []\n    for item in items:\n        if item > limit:\n            break\n        out.append(item)\n    return out\n",
      // added at the top of the loop
      "def f(items, limit):\n    if not items:\n        return []\n    out = []\n    for item in items:\n        if not item:\n            continue\n        if item > limit:\n            break\n        out.append(item)\n    return out\n",
      // second guard removed
      "def f(items, limit):\n    if not items:\n        return []\n    out = []\n    for item in items:\n        out.append(item)\n    return out\n",
    ],
  },
  {
    family: "list_indexing",
    gold: 'for i in range(len(xs)):\n    a = xs[i] + xs[0] + xs[-1] + xs[i + 1] + counts[word] + row["k"] + m[i, 0] + xs[1:2]\n',
    expected: [
      "xs[i + 1] + xs[0] + xs[-1] + xs[i + 1]",
      "xs[i - 1] + xs[0] + xs[-1] + xs[i + 1]",
      "xs[i] + xs[1] + xs[-1] + xs[i + 1]",
      "xs[i] + xs[0] + xs[-1] + xs[i + 2]",
      "xs[i] + xs[0] + xs[-1] + xs[i]",
    ].map(
      (head) => `for i in range(len(xs)):\n    a = ${head} + counts[word] + row["k"] + m[i, 0] + xs[1:2]\n`,
    ),
  },
  {
    family: "function_call_substitution",
    gold: FIRES_CALLS,
    expected: [
      ["max(xs) +", "min(xs) +"],
      ["min(xs, key=f)", "max(xs, key=f)"],
      ["sum(xs) + len(xs)", "len(xs) + len(xs)"],
      ["sum(xs) + len(xs)", "sum(xs) + sum(xs)"],
      ["statistics.mean(xs)", "statistics.median(xs)"],
      ["+ mean(xs)", "+ median(xs)"],
      ["arr.argmax()", "arr.argmin()"],
      ["np.median(xs)", "np.mean(xs)"],
    ].map(([from, to]) => replaceOnce(FIRES_CALLS, from as string, to as string)),
  },
  {
    family: "copy_removal",
    gold: FIRES_COPIES,
    expected: [
      ["a = xs.copy()", "a = xs"],
      ["b = xs[:]", "b = xs"],
      ["c = list(xs)", "c = xs"],
      ["d = copy.deepcopy(xs)", "d = xs"],
      ["e = dc(self.items)", "e = self.items"],
      ["f = df.copy(deep=True)", "f = df"],
      ["h = copy.copy(a + b)", "h = (a + b)"],
    ].map(([from, to]) => replaceOnce(FIRES_COPIES, from as string, to as string)),
  },
  {
    family: "boolean_constants",
    gold: "flag = True\nwhile False:\n    pass\ns = 'True'  # False\n",
    expected: [
      "flag = False\nwhile False:\n    pass\ns = 'True'  # False\n",
      "flag = True\nwhile True:\n    pass\ns = 'True'  # False\n",
    ],
  },
  {
    family: "numeric_constants",
    gold: FIRES_NUMBERS,
    expected: [
      ["0 + 7", "1 + 7"],
      ["+ 7 +", "+ 8 +"],
      ["+ 7 +", "+ 6 +"],
      ["0x1F", "0x20"],
      ["0x1F", "0x1E"],
      ["1_000", "1_001"],
      ["1_000", "999"],
      ["2.5", "2.6"],
      ["2.5", "2.4"],
      [" .5 +", " .6 +"],
      [" .5 +", " .4 +"],
      ["b = -1", "b = -2"],
      ["c = -0.1", "c = -0.2"],
    ].map(([from, to]) => replaceOnce(FIRES_NUMBERS, from as string, to as string)),
  },
  {
    family: "slice_bounds",
    gold: FIRES_SLICES,
    expected: [
      ["xs[1:n]", "xs[2:n]"],
      ["xs[1:n]", "xs[0:n]"],
      ["xs[1:n]", "xs[1:n + 1]"],
      ["xs[1:n]", "xs[1:n - 1]"],
      ["xs[:-1]", "xs[:-2]"],
      ["xs[i + 1:]", "xs[i + 2:]"],
      ["xs[i + 1:]", "xs[i:]"],
    ].map(([from, to]) => replaceOnce(FIRES_SLICES, from as string, to as string)),
  },
  {
    family: "conditional_inversion",
    gold: FIRES_CONDITIONS,
    expected: [
      ["if a and not b", "if not a and not b"],
      ["if a and not b", "if a and b"],
      ["while (c or d)", "while not (c or d)"],
      ["while (c or d)", "while (not c or d)"],
      ["while (c or d)", "while (c or not d)"],
      ["if z < 1", "if not z < 1"],
      ["if v]", "if not v]"],
      ["if(e)", "if not (e)"],
    ].map(([from, to]) => replaceOnce(FIRES_CONDITIONS, from as string, to as string)),
  },
  {
    family: "range_step",
    gold: FIRES_STEPS,
    expected: [
      ["range(n):", "range(0, n, 2):"],
      ["range(0, n):", "range(0, n, 2):"],
      ["range(0, n, 2)", "range(0, n, 3)"],
      ["range(0, n, 2)", "range(0, n, 1)"],
      ["range(n, 0, -1)", "range(n, 0, -2)"],
      ["range(0, n, 1)", "range(0, n, 2)"],
    ].map(([from, to]) => replaceOnce(FIRES_STEPS, from as string, to as string)),
  },
];

const SILENT: Case[] = [
  { family: "comparison_operators", gold: 's = "a < b"  # a < b\nt = a in b and a is not b\n', expected: [] },
  { family: "range_bounds", gold: "range = lambda n: [n]\nfor i in range(3):\n    pass\n", expected: [] },
  {
    family: "range_bounds",
    gold: "for i in my.range(3):\n    pass\nys = range(*args)\nzs = range(a if b else c)\nr = range\n",
    expected: [],
  },
  {
    family: "sort_order",
    gold: "c = sorted(x for x in xs)\nd = sorted(xs, **opts)\ne = sorted(xs, reverse=flag)\n",
    expected: [],
  },
  { family: "sort_order", gold: "def sorted(v):\n    return v\nf = sorted(xs)\n", expected: [] },
  {
    family: "accumulator_initialization",
    gold: "x = 0\ny = []\nfor v in vs:\n    print(v)\ntotal = 0\nfor v in vs:\n    pass\ntotal += 1\n",
    expected: [],
  },
  { family: "arithmetic_operators", gold: '"a + b"  # a + b\nx = -a\ny = a % b ** c\n', expected: [] },
  {
    family: "edge_case_guards",
    gold: [
      "def g(xs):",
      "    if x < 1:",
      "        y = 1",
      "    if z:",
      "        a = 1",
      "        b = 2",
      "        return a + b",
      "    if m := f(xs):",
      "        return m",
      '    if "x" if a else b:',
      "        raise ValueError",
      "    while n < 3:",
      "        break",
      "    return [v for v in xs if v > 0]",
      "",
    ].join("\n"),
    expected: [],
  },
  {
    family: "edge_case_guard_blocks",
    gold: "def g():\n    if x:\n        y = 1\n    if z:\n        return 1\n    else:\n        return 2\ndef h(x): return x\nfor _ in xs:\n    pass\n",
    expected: [],
  },
  {
    family: "list_indexing",
    gold: "def f(x: List[int]) -> Dict[str, int]:\n    return d[key] + s[name] + xs[-2]\n",
    expected: [],
  },
  {
    family: "function_call_substitution",
    gold: "def max(a):\n    return a\nb = max(xs)\nc = mean(xs)\nd = any(xs)\ne = min()\n",
    expected: [],
  },
  {
    family: "copy_removal",
    gold: "a = xs.copy(1)\nb = copy.copy(x)\nc = list(map(f, xs))\ndel xs[:]\n",
    expected: [],
  },
  { family: "boolean_constants", gold: "s = 'True'  # False\nt = None\n", expected: [] },
  { family: "numeric_constants", gold: "s = '1'  # 2\nt = f\"{3}\"\nu = 1e-9 + 3j\nv = x\n", expected: [] },
  { family: "slice_bounds", gold: "d = xs[::2]\ne = xs[:]\nf = xs[i]\n", expected: [] },
  { family: "conditional_inversion", gold: "x = not a\nf(a and b)\nif n := 3:\n    pass\n", expected: [] },
  { family: "range_step", gold: "for i in range(0, n, s):\n    pass\nr = range(*a)\n", expected: [] },
];

test("the in-domain families are the 14 of docs/tasks.md#corruption-families, in order", () => {
  expect(IN_DOMAIN_FAMILIES.map((f) => f.name)).toEqual([
    "comparison_operators",
    "range_bounds",
    "sort_order",
    "accumulator_initialization",
    "arithmetic_operators",
    "edge_case_guards",
    "list_indexing",
    "function_call_substitution",
    "copy_removal",
    "boolean_constants",
    "numeric_constants",
    "slice_bounds",
    "conditional_inversion",
    "range_step",
  ]);
  expect(FAMILIES.every((f) => f.domain === "in-domain")).toBe(true);
  expect(OPTIONAL_IN_DOMAIN_FAMILIES.map((f) => f.name)).toEqual(["edge_case_guard_blocks"]);
  expect(Object.keys(MAX_TOKEN_EDITS).sort()).toEqual(FAMILIES.map((f) => f.name).sort());
});

describe.each(FIRES)("$family fires", ({ family: name, gold, expected }) => {
  test("on exactly the expected places", () => {
    expect(corruptions(name, gold).sort()).toEqual([...expected].sort());
  });

  test("with a small token edit that its reversal undoes exactly", () => {
    const goldTokens = programTokens(gold);
    const sites = findSites(gold, [family(name)]).get(name) ?? [];
    expect(sites.length).toBeGreaterThan(0);
    for (const site of sites) {
      const applied = [record(gold, name, site)];
      const corrupted = applyCorruptions(gold, applied);
      const distance = tokenLevenshtein(goldTokens, programTokens(corrupted));
      expect(distance).toBeGreaterThanOrEqual(1);
      expect(distance).toBeLessThanOrEqual(MAX_TOKEN_EDITS[name] ?? 0);
      expect(revertCorruptions(corrupted, applied)).toBe(gold);
    }
  });
});

describe.each(SILENT)("$family stays silent", ({ family: name, gold }) => {
  test(JSON.stringify(gold.slice(0, 40)), () => {
    const tree = pythonParser().parse(gold);
    if (tree === null) throw new Error("no tree");
    try {
      expect(family(name).findSites(tree.rootNode, gold)).toEqual([]);
    } finally {
      tree.delete();
    }
  });
});

describe("over the 60 seed solutions", () => {
  const solutions = readFileSync(new URL("../../datasets/seed/problems.jsonl", import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { problem_id: string; solution: string });

  test("no family proposes an edit that does not parse or changes no token", () => {
    expect(solutions).toHaveLength(60);
    const fires = new Map<string, number>();
    for (const { problem_id, solution } of solutions) {
      const usable = findSites(solution, FAMILIES);
      const tree = pythonParser().parse(solution);
      if (tree === null) throw new Error("no tree");
      try {
        for (const f of FAMILIES) {
          const raw = new Set(
            f.findSites(tree.rootNode, solution).map((s) => `${s.start}:${s.end}:${s.replacement}`),
          );
          const kept = usable.get(f.name) ?? [];
          expect({ problem_id, family: f.name, sites: kept.length }).toEqual({
            problem_id,
            family: f.name,
            sites: raw.size,
          });
          if (kept.length > 0) fires.set(f.name, (fires.get(f.name) ?? 0) + 1);
        }
      } finally {
        tree.delete();
      }
    }
    // Every family finds something in the seed set (the counts are in the engine's report).
    for (const f of FAMILIES) expect(fires.get(f.name) ?? 0, f.name).toBeGreaterThan(0);
  });
});
