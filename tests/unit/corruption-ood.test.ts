/**
 * The 20 held-out (OOD) corruption families of docs/tasks.md#corruption-families: each fires exactly where its module comment says
 * (the expected corrupted programs are written out), stays silent elsewhere (strings, comments, f-string
 * fields, shapes that do not match), and every single-site edit parses, changes tokens, stays small and is
 * undone by its reversal. The same checks run over the 60 seed solutions, with CPython's `ast.parse`
 * confirming that every corrupted program is valid Python 3.11 and its tokens match ours.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { OOD_FAMILIES } from "../../src/core/corruption/ood/index.js";
import type { CorruptionFamily, CorruptionSite } from "../../src/core/corruption/types.js";
import { normalizedTokenDistance, tokenLevenshtein } from "../../src/core/distance.js";
import { programTokens } from "../../src/core/normalize.js";
import { loadPythonGrammar, pythonParser } from "../../src/core/python/grammar.js";

type FiringCase = {
  source: string;
  /** The corrupted program of each site, in site order. */
  expected: string[];
  /** Whether the family, run on each corrupted program, finds a site that restores the gold tokens. */
  selfInverse?: boolean;
};

type FamilyCases = {
  fires: FiringCase[];
  /** Programs on which the family finds no site at all. */
  silent: string[];
  /** Most token edits one site may make (the family's natural edit size), here and on the seed solutions. */
  maxTokenEdits: number;
  /** The edit's size depends on the program (a whole filter clause): the bound holds for these cases only. */
  sizeVaries?: true;
};

const CASES: Record<string, FamilyCases> = {
  min_max_swap: {
    fires: [
      {
        source: "m = max(a, b)\nn = min(xs, key=len)\n",
        expected: ["m = min(a, b)\nn = min(xs, key=len)\n", "m = max(a, b)\nn = max(xs, key=len)\n"],
        selfInverse: true,
      },
    ],
    silent: [
      "def max(a, b):\n    return a\nm = max(1, 2)\n",
      "from numpy import *\nm = max(xs)\n",
      "m = x.max()\n",
      "f = max\n",
      "s = 'max(a, b)'  # min(a)\n",
      "m = max()\n",
      'print(f"{max(a, b)}")\n',
    ],
    maxTokenEdits: 1,
  },
  abs_wrapping: {
    fires: [
      { source: "y = x + 1\n", expected: ["y = abs(x + 1)\n"], selfInverse: true },
      { source: "y = abs(v)\n", expected: ["y = v\n"] },
      { source: "c = a * b + 1\n", expected: ["c = abs(a * b + 1)\n"], selfInverse: true },
      { source: "w = (hi - lo) / n\n", expected: ["w = abs((hi - lo) / n)\n"], selfInverse: true },
      {
        source: "d = abs(a - b) * c\n",
        expected: ["d = abs(abs(a - b) * c)\n", "d = (a - b) * c\n"],
      },
      { source: "p = n ** abs(-k)\n", expected: ["p = abs(n ** abs(-k))\n", "p = n ** (-k)\n"] },
    ],
    silent: [
      's = "a" + b\n',
      "n = [0] * k\n",
      'm = "%d" % n\n',
      "f = a | b\n",
      "t = abs(x, y)\n",
      "w = abs(v for v in xs)\n",
      'print(f"{a + b}")\n',
      "x = -y\n",
      's = prefix + "".join(parts)\n',
      "w = word[0].upper() + word[1:]\n",
      'r = a + (b if c else "")\n',
      "n = 24 * 60\n",
      "m = a @ b\n",
    ],
    maxTokenEdits: 3,
  },
  append_extend_toggle: {
    fires: [
      {
        source: "xs.append(v)\nys.extend(more)\n",
        expected: ["xs.extend(v)\nys.extend(more)\n", "xs.append(v)\nys.append(more)\n"],
        selfInverse: true,
      },
    ],
    silent: ["f = xs.append\n", "append(v)\n", "xs.append(v, w)\n", "xs.append(*vs)\n", "xs.append()\n"],
    maxTokenEdits: 1,
  },
  enumerate_start_shift: {
    fires: [
      {
        source: "for i, v in enumerate(xs):\n    pass\n",
        expected: ["for i, v in enumerate(xs, 1):\n    pass\n"],
      },
      {
        source: "e = enumerate(xs, 1)\n",
        expected: ["e = enumerate(xs, 2)\n", "e = enumerate(xs, 0)\n"],
        selfInverse: true,
      },
      { source: "e = enumerate(xs, start=0)\n", expected: ["e = enumerate(xs, start=1)\n"] },
      { source: "e = enumerate(xs, -1)\n", expected: ["e = enumerate(xs, -2)\n"] },
      {
        source: "e = enumerate(xs, k + 1)\n",
        expected: ["e = enumerate(xs, k + 2)\n", "e = enumerate(xs, k)\n"],
      },
      {
        source: "e = enumerate(xs, k)\n",
        expected: ["e = enumerate(xs, k + 1)\n", "e = enumerate(xs, k - 1)\n"],
      },
      { source: "e = enumerate(x for x in xs)\n", expected: ["e = enumerate((x for x in xs), 1)\n"] },
      { source: "e = enumerate(\n    xs,\n)\n", expected: ["e = enumerate(\n    xs, 1,\n)\n"] },
    ],
    silent: [
      "e = xs.enumerate()\n",
      "e = enumerate(*args)\n",
      "e = enumerate\n",
      "e = enumerate(xs, 1, start=2)\n",
      "e = enumerate(xs, begin=1)\n",
      "e = enumerate(xs, a or b)\n",
      "def enumerate(xs):\n    return xs\ne = enumerate(xs)\n",
    ],
    maxTokenEdits: 4,
  },
  break_continue_swap: {
    fires: [
      {
        source: "for x in xs:\n    if x:\n        break\n    continue\n",
        expected: [
          "for x in xs:\n    if x:\n        continue\n    continue\n",
          "for x in xs:\n    if x:\n        break\n    break\n",
        ],
        selfInverse: true,
      },
      {
        source: "while a:\n    for x in xs:\n        pass\n    else:\n        break\n",
        expected: ["while a:\n    for x in xs:\n        pass\n    else:\n        continue\n"],
        selfInverse: true,
      },
      {
        source:
          "def f(xs):\n    for x in xs:\n        try:\n            g(x)\n        except E:\n            continue\n",
        expected: [
          "def f(xs):\n    for x in xs:\n        try:\n            g(x)\n        except E:\n            break\n",
        ],
      },
    ],
    // `break` outside a loop, in a loop's `else:` at top level, or behind a def boundary is not a site
    // (several of these programs are themselves rejected by CPython; the family must not offer them).
    silent: [
      "break\n",
      "for x in xs:\n    pass\nelse:\n    break\n",
      "for x in xs:\n    def f():\n        continue\n",
      "while a:\n    class C:\n        break\n",
      "# break\ns = 'continue'\n",
    ],
    maxTokenEdits: 1,
  },
  dict_get_default: {
    fires: [
      { source: "v = d.get(k)\n", expected: ["v = d.get(k, 0)\n"] },
      { source: "v = d.get(k, 0)\n", expected: ["v = d.get(k, 1)\n"], selfInverse: true },
      {
        source: "v = d.get(k, 5)\n",
        expected: ["v = d.get(k, 6)\n", "v = d.get(k, 4)\n"],
        selfInverse: true,
      },
      { source: "v = d.get(k, -1)\n", expected: ["v = d.get(k, -2)\n"], selfInverse: true },
      { source: 'v = d.get(k, "")\n', expected: ["v = d.get(k, None)\n"], selfInverse: true },
      { source: "v = d.get(k, 'abc')\n", expected: ["v = d.get(k, '')\n"] },
      { source: "v = d.get(k, None)\n", expected: ['v = d.get(k, "")\n'], selfInverse: true },
      { source: "v = d.get(k, [])\n", expected: ["v = d.get(k, None)\n"] },
      { source: "v = d.get(k, 0.5)\n", expected: ["v = d.get(k, 1.5)\n"] },
      { source: "v = d.get(k, 1e-9)\n", expected: ["v = d.get(k, None)\n"] },
      { source: "v = d.get(k, 2.)\n", expected: ["v = d.get(k, 3.0)\n", "v = d.get(k, 1.0)\n"] },
      { source: "v = d.get(k, True)\n", expected: ["v = d.get(k, False)\n"], selfInverse: true },
      { source: "v = d.get(k, fallback)\n", expected: ["v = d.get(k, None)\n"] },
    ],
    silent: [
      "v = q.get()\n",
      "v = d.get(k, default=1)\n",
      "v = d.get\n",
      "v = get(k, 0)\n",
      "v = d.get(k, 0, 1)\n",
    ],
    maxTokenEdits: 2,
  },
  string_case_swap: {
    fires: [
      {
        source: "a = s.lower()\nb = t.upper()\n",
        expected: ["a = s.upper()\nb = t.upper()\n", "a = s.lower()\nb = t.lower()\n"],
        selfInverse: true,
      },
      {
        source: "w = s.capitalize()\nok = s.islower()\n",
        expected: ["w = s.title()\nok = s.islower()\n", "w = s.capitalize()\nok = s.isupper()\n"],
        selfInverse: true,
      },
      { source: "c = u.casefold()\n", expected: ["c = u.upper()\n"] },
    ],
    silent: [
      "f = str.lower\n",
      "k = sorted(w, key=str.upper)\n",
      "x = s.lower(1)\n",
      "# s.lower()\n",
      'y = "s.lower()"\n',
      "z = lower(s)\n",
      "w = s.swapcase()\n",
    ],
    maxTokenEdits: 1,
  },
  strip_variant: {
    fires: [
      { source: "a = s.strip()\n", expected: ["a = s.lstrip()\n", "a = s.rstrip()\n"], selfInverse: true },
      {
        source: 'b = s.rstrip("\\n")\n',
        expected: ['b = s.strip("\\n")\n', 'b = s.lstrip("\\n")\n'],
        selfInverse: true,
      },
    ],
    silent: ["f = s.strip\n", "x = s.strip(a, b)\n", "x = strip(s)\n", "x = s.strip(chars=c)\n"],
    maxTokenEdits: 1,
  },
  join_separator: {
    fires: [
      { source: 't = ", ".join(xs)\n', expected: ['t = ",".join(xs)\n'], selfInverse: true },
      { source: 't = ",".join(xs)\n', expected: ['t = ", ".join(xs)\n'], selfInverse: true },
      { source: 't = "".join(xs)\n', expected: ['t = " ".join(xs)\n'], selfInverse: true },
      { source: "t = ' '.join(xs)\n", expected: ["t = ''.join(xs)\n"], selfInverse: true },
      { source: 't = "\\n".join(xs)\n', expected: ['t = "".join(xs)\n'] },
      { source: 't = " | ".join(xs)\n', expected: ['t = "|".join(xs)\n'] },
      { source: "t = r'\\ - '.join(xs)\n", expected: ["t = r'\\ -'.join(xs)\n"] },
    ],
    silent: [
      "t = sep.join(xs)\n",
      't = f"{a}".join(xs)\n',
      't = "a" "b".join(xs)\n',
      "t = os.path.join(a, b)\n",
      't = ", ".join(a, b)\n',
      't = ", ".join\n',
    ],
    maxTokenEdits: 1,
  },
  sorted_key_toggle: {
    fires: [
      { source: "r = sorted(xs)\n", expected: ["r = sorted(xs, key=len)\n"], selfInverse: true },
      { source: "r = sorted(xs, key=len, reverse=True)\n", expected: ["r = sorted(xs, reverse=True)\n"] },
      { source: "xs.sort()\n", expected: ["xs.sort(key=len)\n"], selfInverse: true },
      { source: "xs.sort(key=str.lower, reverse=True)\n", expected: ["xs.sort(reverse=True)\n"] },
      {
        source: "xs.sort(reverse=True)\n",
        expected: ["xs.sort(reverse=True, key=len)\n"],
        selfInverse: true,
      },
      { source: "r = sorted(w for w in ws)\n", expected: ["r = sorted((w for w in ws), key=len)\n"] },
      { source: "xs.sort(key=f,)\n", expected: ["xs.sort()\n"] },
      { source: "r = sorted(xs, key=len,)\n", expected: ["r = sorted(xs,)\n"], selfInverse: true },
    ],
    silent: [
      "r = sorted(xs, key=lambda x: -x)\n",
      "xs.sort(key=itemgetter(1))\n",
      "r = sorted(xs, **opts)\n",
      "xs.sort(1)\n",
      "s = sorted\n",
      "sort(xs)\n",
      "r = sorted()\n",
    ],
    maxTokenEdits: 6,
  },
  set_list_cast_swap: {
    fires: [
      {
        source: "u = set(xs)\nl = list(u)\n",
        expected: ["u = list(xs)\nl = list(u)\n", "u = set(xs)\nl = set(u)\n"],
        selfInverse: true,
      },
      { source: "u = set(x for x in xs)\n", expected: ["u = list(x for x in xs)\n"], selfInverse: true },
    ],
    silent: ["u = set()\n", "l = list()\n", "u = obj.set(x)\n", "u = set(*a)\n", "u = {1, 2}\n"],
    maxTokenEdits: 1,
  },
  round_int_swap: {
    fires: [
      {
        source: "n = round(x)\nm = int(y / 2)\n",
        expected: ["n = int(x)\nm = int(y / 2)\n", "n = round(x)\nm = round(y / 2)\n"],
        selfInverse: true,
      },
    ],
    silent: [
      "n = round(x, 2)\n",
      "n = int(s, 16)\n",
      'n = int("12")\n',
      "n = math.floor(x)\n",
      "n = x.round()\n",
    ],
    maxTokenEdits: 1,
  },
  comprehension_filter_removal: {
    fires: [
      { source: "ys = [x for x in xs if x > 0]\n", expected: ["ys = [x for x in xs]\n"] },
      {
        source: "d = {k: v for k, v in p if v if k}\n",
        expected: ["d = {k: v for k, v in p if k}\n", "d = {k: v for k, v in p if v}\n"],
      },
      { source: "s = {x for x in xs if x}\n", expected: ["s = {x for x in xs}\n"] },
      { source: "g = sum(x for x in xs if x)\n", expected: ["g = sum(x for x in xs)\n"] },
      {
        source: "m = [y for x in xs if x for y in x if y]\n",
        expected: ["m = [y for x in xs for y in x if y]\n", "m = [y for x in xs if x for y in x]\n"],
      },
    ],
    silent: [
      "ys = [x for x in xs]\n",
      "y = a if b else c\n",
      "if x:\n    pass\n",
      "ys = [a if b else c for a in d]\n",
    ],
    maxTokenEdits: 4,
    sizeVaries: true,
  },
  find_index_swap: {
    fires: [
      {
        source: "i = s.find(c)\nj = s.index(c, 2)\nk = s.rfind(c)\n",
        expected: [
          "i = s.index(c)\nj = s.index(c, 2)\nk = s.rfind(c)\n",
          "i = s.find(c)\nj = s.find(c, 2)\nk = s.rfind(c)\n",
          "i = s.find(c)\nj = s.index(c, 2)\nk = s.rindex(c)\n",
        ],
        selfInverse: true,
      },
    ],
    silent: [
      "i = s.find()\n",
      "i = find(s, c)\n",
      "i = s.find(c, start=1)\n",
      "f = s.find\n",
      "i = s.find(a, b, c, d)\n",
    ],
    maxTokenEdits: 1,
  },
  any_all_swap: {
    fires: [
      {
        source: "ok = any(x > 0 for x in xs)\nall_ok = all(flags)\n",
        expected: [
          "ok = all(x > 0 for x in xs)\nall_ok = all(flags)\n",
          "ok = any(x > 0 for x in xs)\nall_ok = any(flags)\n",
        ],
        selfInverse: true,
      },
    ],
    silent: [
      "import builtins as any\nok = any(xs)\n",
      "ok = any\n",
      "ok = np.any(xs)\n",
      "ok = any(a, b)\n",
      "ok = any()\n",
    ],
    maxTokenEdits: 1,
  },
  zip_argument_order: {
    fires: [
      {
        source: "for a, b in zip(xs, ys):\n    pass\n",
        expected: ["for a, b in zip(ys, xs):\n    pass\n"],
        selfInverse: true,
      },
      {
        source: "z = zip(a, b, c, strict=True)\n",
        expected: ["z = zip(b, a, c, strict=True)\n"],
        selfInverse: true,
      },
      { source: "z = zip(a[1:],  a)\n", expected: ["z = zip(a,  a[1:])\n"], selfInverse: true },
    ],
    silent: [
      "z = zip(xs)\n",
      "z = zip(xs, xs)\n",
      "z = zip(*rows)\n",
      "z = zip(a, *rest)\n",
      "z = it.zip(a, b)\n",
    ],
    maxTokenEdits: 6,
  },
  range_len_endpoint: {
    fires: [
      {
        source: "for i in range(len(xs)):\n    pass\n",
        expected: ["for i in range(len(xs) + 1):\n    pass\n", "for i in range(len(xs) - 1):\n    pass\n"],
      },
      {
        source: "r = range(1, len(xs))\n",
        expected: ["r = range(1, len(xs) + 1)\n", "r = range(1, len(xs) - 1)\n"],
      },
      {
        source: "r = range(0, len(xs), 2)\n",
        expected: ["r = range(0, len(xs) + 1, 2)\n", "r = range(0, len(xs) - 1, 2)\n"],
      },
    ],
    silent: [
      "r = range(n)\n",
      "r = range(len(xs), 10)\n",
      "r = range(len(xs) - 1)\n",
      "n = len(xs)\n",
      "r = range(len(a, b))\n",
      "from mylib import len\nr = range(len(xs))\n",
    ],
    maxTokenEdits: 2,
  },
  negative_index_shift: {
    fires: [
      { source: "a = x[-1]\n", expected: ["a = x[-2]\n"], selfInverse: true },
      {
        source: "b = grid[r][-3]\n",
        expected: ["b = grid[r][-2]\n", "b = grid[r][-4]\n"],
        selfInverse: true,
      },
      { source: "x[-1] = 0\n", expected: ["x[-2] = 0\n"], selfInverse: true },
    ],
    silent: [
      "a = x[1]\n",
      "a = x[:-1]\n",
      "a = x[-k]\n",
      "a = -1\n",
      "a = x[-0]\n",
      "a = x[-0x1]\n",
      'a = f"{x[-1]}"\n',
    ],
    maxTokenEdits: 1,
  },
  dict_iteration_variant: {
    fires: [
      {
        source: "for k, v in d.items():\n    pass\n",
        expected: ["for k, v in d.keys():\n    pass\n", "for k, v in d.values():\n    pass\n"],
      },
      { source: "ks = sorted(d.keys())\n", expected: ["ks = sorted(d.values())\n"], selfInverse: true },
      {
        source: "t = [v for v in d.values()]\n",
        expected: ["t = [v for v in d.keys()]\n"],
        selfInverse: true,
      },
    ],
    silent: [
      "n = len(d.keys())\n",
      "ok = k in d.keys()\n",
      "v = d.values()\n",
      "for x in d.items(1):\n    pass\n",
      "for x in d:\n    pass\n",
      "def sorted(xs):\n    return xs\nks = sorted(d.keys())\n",
    ],
    maxTokenEdits: 1,
  },
  none_comparison: {
    fires: [
      { source: "if x == None:\n    pass\n", expected: ["if x is None:\n    pass\n"], selfInverse: true },
      { source: "ok = x is not None\n", expected: ["ok = x != None\n"], selfInverse: true },
      { source: "ok = None != x\n", expected: ["ok = None is not x\n"], selfInverse: true },
      { source: "ok = x==None\n", expected: ["ok = x is None\n"], selfInverse: true },
      { source: "ok = (x)!=None\n", expected: ["ok = (x) is not None\n"], selfInverse: true },
      { source: "ok = x is None\n", expected: ["ok = x == None\n"], selfInverse: true },
      { source: "ok = a < b == None\n", expected: ["ok = a < b is None\n"], selfInverse: true },
    ],
    silent: ["ok = x == 0\n", "ok = x is y\n", "ok = x in None\n", "ok = x < None\n", "ok = (None) == x\n"],
    maxTokenEdits: 2,
  },
};

const seedSolutions: string[] = readFileSync(
  new URL("../../datasets/seed/problems.jsonl", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => (JSON.parse(line) as { solution: string }).solution);

function sitesOf(family: CorruptionFamily, source: string): CorruptionSite[] {
  const tree = pythonParser().parse(source);
  if (tree === null) throw new Error("tree-sitter returned no tree");
  try {
    return family.findSites(tree.rootNode, source);
  } finally {
    tree.delete();
  }
}

function applySite(source: string, site: CorruptionSite): string {
  return source.slice(0, site.start) + site.replacement + source.slice(site.end);
}

/** The edit that undoes `site` on the corrupted program: the gold patch of a one-site task. */
function reversal(source: string, site: CorruptionSite): CorruptionSite {
  return {
    start: site.start,
    end: site.start + site.replacement.length,
    replacement: source.slice(site.start, site.end),
  };
}

function family(name: string): CorruptionFamily {
  const found = OOD_FAMILIES.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no OOD family ${name}`);
  return found;
}

/** CPython 3.11 for each program: its tokens of norm(X) (docs/reward.md#normalization-and-tokens), or the SyntaxError it raised. */
const CPYTHON_TOKENS = `
import ast, io, json, sys, tokenize
DROP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT}
out = []
for source in json.load(sys.stdin):
    try:
        norm = ast.unparse(ast.parse(source))
    except SyntaxError as error:
        out.append({"error": str(error)})
        continue
    out.append({"tokens": [t.string for t in tokenize.generate_tokens(io.StringIO(norm).readline) if t.type not in DROP]})
json.dump(out, sys.stdout)
`;

function cpythonTokens(programs: string[]): Array<{ tokens?: string[]; error?: string }> {
  const run = spawnSync("python3", ["-c", CPYTHON_TOKENS], {
    input: JSON.stringify(programs),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Array<{ tokens?: string[]; error?: string }>;
}

beforeAll(async () => {
  await loadPythonGrammar();
});

test("OOD_FAMILIES holds the 20 docs/tasks.md#corruption-families families in order, all held out", () => {
  expect(OOD_FAMILIES.map((f) => f.name)).toEqual(Object.keys(CASES));
  expect(new Set(OOD_FAMILIES.map((f) => f.domain))).toEqual(new Set(["ood"]));
  for (const f of OOD_FAMILIES) expect(f.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
});

describe.each(Object.entries(CASES))("%s", (name, cases) => {
  test.each(cases.fires.map((c) => [c.source, c] as const))(
    "fires on %j",
    (_, { source, expected, selfInverse }) => {
      const f = family(name);
      const sites = sitesOf(f, source);
      expect(sites.map((site) => applySite(source, site))).toEqual(expected);
      const gold = programTokens(source);
      for (const site of sites) {
        const corrupted = applySite(source, site);
        const tokens = programTokens(corrupted);
        const edits = tokenLevenshtein(gold, tokens);
        expect(edits).toBeGreaterThan(0);
        expect(edits).toBeLessThanOrEqual(cases.maxTokenEdits);
        expect(normalizedTokenDistance(gold, tokens)).toBeGreaterThan(0);
        const restored = applySite(corrupted, reversal(source, site));
        expect(restored).toBe(source);
        expect(programTokens(restored)).toEqual(gold);
        if (selfInverse === true) {
          const back = sitesOf(f, corrupted).map((s) => programTokens(applySite(corrupted, s)));
          expect(back).toContainEqual(gold);
        }
      }
    },
  );

  test.each(cases.silent.map((s) => [s]))("is silent on %j", (source) => {
    expect(sitesOf(family(name), source)).toEqual([]);
  });

  test("is silent on its firing programs written in comments and in a string", () => {
    for (const { source } of cases.fires) {
      const commented = source.replace(/^(?=.)/gm, "# ");
      const quoted = `text = """${source}"""\n`;
      expect(sitesOf(family(name), commented + quoted), source).toEqual([]);
    }
  });
});

describe("over the seed solutions (datasets/seed/problems.jsonl)", () => {
  test("every site's edit parses (ours and CPython's), changes tokens and stays small; every family fires", () => {
    expect(seedSolutions.length).toBeGreaterThanOrEqual(60);
    type Stats = { problems: number; sites: number; maxTokenEdits: number; maxDistance: number };
    const stats = new Map<string, Stats>(
      OOD_FAMILIES.map((f) => [f.name, { problems: 0, sites: 0, maxTokenEdits: 0, maxDistance: 0 }]),
    );
    const records: Array<{
      family: string;
      problem: number;
      gold: string[];
      program: string;
      tokens: string[];
    }> = [];
    seedSolutions.forEach((solution, problem) => {
      const gold = programTokens(solution);
      for (const f of OOD_FAMILIES) {
        const sites = sitesOf(f, solution);
        const entry = stats.get(f.name);
        if (entry !== undefined && sites.length > 0) entry.problems++;
        for (const site of sites) {
          const program = applySite(solution, site);
          records.push({ family: f.name, problem, gold, program, tokens: programTokens(program) });
        }
      }
    });
    const handWritten = Object.values(CASES).flatMap((c) => c.fires.flatMap((f) => f.expected));
    const oracle = cpythonTokens([...records.map((r) => r.program), ...handWritten]);
    records.forEach((record, i) => {
      const where = `${record.family} on seed problem ${record.problem}`;
      expect(oracle[i]?.error, where).toBeUndefined();
      expect(record.tokens, where).toEqual(oracle[i]?.tokens);
      const edits = tokenLevenshtein(record.gold, record.tokens);
      const distance = normalizedTokenDistance(record.gold, record.tokens);
      const cases = CASES[record.family];
      expect(edits, where).toBeGreaterThan(0);
      if (cases?.sizeVaries !== true) expect(edits, where).toBeLessThanOrEqual(cases?.maxTokenEdits ?? 0);
      expect(distance, where).toBeLessThan(0.15);
      const entry = stats.get(record.family);
      if (entry === undefined) return;
      entry.sites++;
      entry.maxTokenEdits = Math.max(entry.maxTokenEdits, edits);
      entry.maxDistance = Math.max(entry.maxDistance, Number(distance.toFixed(4)));
    });
    handWritten.forEach((program, i) => {
      expect(oracle[records.length + i]?.error, program).toBeUndefined();
    });
    console.log(
      `OOD families over the ${seedSolutions.length} seed solutions (sites and their token edits):`,
    );
    console.table(Object.fromEntries(stats));
    for (const [name, entry] of stats) expect(entry.problems, name).toBeGreaterThan(0);
  });
});
