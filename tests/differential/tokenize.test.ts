/**
 * Differential test of src/core/python/tokenize.ts against CPython 3.11's `tokenize.generate_tokens`.
 *
 * One python3 process (tests/oracle/tokenize_oracle.py) tokenizes every `.py` file of the CPython
 * standard library (site-packages excluded), both as written and as `ast.unparse(ast.parse(text))` —
 * the normalized shape the reward actually tokenizes (docs/reward.md#normalization-and-tokens) — plus hand-written edge cases and
 * seeded random mutations of real code. Each answer is compared with the TypeScript port as it streams
 * in (token strings and start offsets, or the error), so the TypeScript work overlaps Python's.
 */

import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  pythonTokens,
  pythonTokensWithOffsets,
  pythonWordRanges,
  TokenizeError,
} from "../../src/core/python/tokenize.js";

const ORACLE = fileURLToPath(new URL("../oracle/tokenize_oracle.py", import.meta.url));

/**
 * Oracle processes for the stdlib files (the edge cases, snippets and word table go to the first).
 * One long-lived process, as the brief asks; CPython's pure-Python tokenizer run twice per file plus
 * `ast.unparse` cost it about a minute of CPU. More processes only shorten that when a core is idle:
 * with the 2-core machine loaded by other suites, 2 measured no faster than 1.
 */
const ORACLE_PROCESSES = 1;

type Tokenized = { tokens: string[]; starts: number[] } | { error: string };

type Answer = {
  id: number;
  text?: string;
  raw?: Tokenized;
  unparsed_text?: string;
  unparsed?: Tokenized;
  parse_error?: string;
  read_error?: string;
  word_ranges?: Array<[number, number]>;
};

/** Feed JSON `requests` to one oracle process; hand each answer to `onAnswer` as it streams in. */
function runOracle(requests: object[], onAnswer: (answer: Answer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [ORACLE], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let failure: unknown = null;
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
      if (failure !== null) return;
      try {
        onAnswer(JSON.parse(line) as Answer);
      } catch (e) {
        failure = e;
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (failure !== null) reject(failure);
      else if (code !== 0) reject(new Error(`tokenize_oracle.py exited with ${code}: ${stderr}`));
      else resolve();
    });
    child.stdin.end(`${requests.map((r) => JSON.stringify(r)).join("\n")}\n`);
  });
}

/** The TypeScript result in the oracle's shape (`TokenError: <message>` for errors). */
function tsTokenize(source: string): Tokenized {
  try {
    return pythonTokensWithOffsets(source);
  } catch (e) {
    if (e instanceof TokenizeError) return { error: `${e.pythonType}: ${e.message}` };
    throw e;
  }
}

/** null when equal, else a description of the first difference. */
function firstDifference(expected: Tokenized, actual: Tokenized): string | null {
  if ("error" in expected || "error" in actual) {
    const e = "error" in expected ? expected.error : `${expected.tokens.length} tokens`;
    const a = "error" in actual ? actual.error : `${actual.tokens.length} tokens`;
    return e === a ? null : `expected ${e}, got ${a}`;
  }
  const n = Math.max(expected.tokens.length, actual.tokens.length);
  for (let i = 0; i < n; i++) {
    const [et, at] = [expected.tokens[i], actual.tokens[i]];
    const [es, as] = [expected.starts[i], actual.starts[i]];
    if (et !== at || es !== as) {
      return `token ${i}: expected ${JSON.stringify(et)}@${es}, got ${JSON.stringify(at)}@${as}`;
    }
  }
  return null;
}

/** mulberry32: a tiny seeded PRNG, so the mutation corpus is the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Whole lines of real code with up to two random edits drawn from the characters that drive
 * tokenize's odd paths (quotes, backslashes, brackets, lone CRs, form feeds, non-ASCII, ...).
 * Edits may split a surrogate pair; both sides then see the same lone surrogate.
 */
function mutatedSnippets(base: string, count: number, seed: number): string[] {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const junk = [
    "'",
    '"',
    "'''",
    '"""',
    "\\",
    "\\\n",
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\f",
    " ",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "#",
    "$",
    "?",
    "!",
    "é",
    "😀",
    "²",
    "\u2028",
    "\u00a0",
    "rb",
    "f",
    "0x",
    "1_",
    ".",
    "e",
    "j",
    "\x1c",
    "\u0301",
    "\ufeff",
  ];
  const snippets: string[] = [];
  for (let i = 0; i < count; i++) {
    const from = base.indexOf("\n", Math.floor(rand() * (base.length - 400))) + 1;
    let text = base.slice(from, base.indexOf("\n", from + 20 + Math.floor(rand() * 300)) + 1);
    const edits = Math.floor(rand() * 3);
    for (let k = 0; k < edits; k++) {
      const at = Math.floor(rand() * (text.length + 1));
      const op = rand();
      if (op < 0.5) text = text.slice(0, at) + pick(junk) + text.slice(at);
      else if (op < 0.8) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(rand() * 3));
      else text = text.slice(0, at) + pick(junk) + text.slice(at + 1);
    }
    snippets.push(text);
  }
  return snippets;
}

/**
 * Edge cases with the output of CPython 3.11.7 written out, so the file documents tokenize's
 * behaviour; the oracle re-checks every one of them on each run.
 */
const EDGE_CASES: Array<[string, string, string[] | string]> = [
  ["NEWLINE at a real line end", "x = 1\n", ["x", "=", "1", "\n"]],
  ["synthesized final NEWLINE is ''", "x = 1", ["x", "=", "1", ""]],
  ["CRLF NEWLINE keeps \\r\\n", "x = 1\r\n", ["x", "=", "1", "\r\n"]],
  ["trailing comment without newline", "x = 1  # c", ["x", "=", "1", ""]],
  ["last line only a comment: no ''", "x\n# only comment", ["x", "\n"]],
  ["last line only whitespace", "x\n   ", ["x", "\n"]],
  ["empty source", "", []],
  ["blank line", "\n", []],
  ["whitespace only", "   ", []],
  ["comment only", "# c", []],
  ["NL inside brackets dropped", "f(a,\n  b)\n", ["f", "(", "a", ",", "b", ")", "\n"]],
  ["backslash continuation", "x = 1 + \\\n    2\n", ["x", "=", "1", "+", "2", "\n"]],
  ["backslash continuation with CRLF", "x = \\\r\n 2\r\n", ["x", "=", "2", "\r\n"]],
  ["triple-quoted string over lines", 's = """a\nb"""\n', ["s", "=", '"""a\nb"""', "\n"]],
  ["triple-quoted string, backslash-newline inside", "s = '''a\\\n'''", ["s", "=", "'''a\\\n'''", ""]],
  ["single-quoted string continued by backslash", "s = 'a\\\nb'\n", ["s", "=", "'a\\\nb'", "\n"]],
  ["continued string never closed: ERRORTOKEN", "s = 'a\\\nb\n", ["s", "=", "'a\\\nb\n"]],
  ["unterminated quote: space and quote are ERRORTOKENs", "s = 'abc\n", ["s", "=", " ", "'", "abc", "\n"]],
  [
    "string prefixes in any case, f-strings are one STRING",
    "x = f'{a!r:>{w}}' + rb'\\x00' + Br\"q\" + U'u' + fR'x' + bR'''t'''\n",
    [
      "x",
      "=",
      "f'{a!r:>{w}}'",
      "+",
      "rb'\\x00'",
      "+",
      'Br"q"',
      "+",
      "U'u'",
      "+",
      "fR'x'",
      "+",
      "bR'''t'''",
      "\n",
    ],
  ],
  [
    "adjacent f-strings stay separate",
    "print(f\"{x!r}\" f'{y}')\n",
    ["print", "(", 'f"{x!r}"', "f'{y}'", ")", "\n"],
  ],
  ["'ub' is not a prefix", "u''\nU\"\"\nub''\n", ["u''", "\n", 'U""', "\n", "ub", "''", "\n"]],
  ["escaped quote", "x = 'it\\'s'\n", ["x", "=", "'it\\'s'", "\n"]],
  ["raw string ending in backslash", "x = r'\\'\n", ["x", "=", "r", "'", "\\", "'", "\n"]],
  ["$ and ? are ERRORTOKENs, with the space before", "a $b ? c\n", ["a", " ", "$", "b", " ", "?", "c", "\n"]],
  ["lone ! is an ERRORTOKEN", "a ! = b\n", ["a", " ", "!", "=", "b", "\n"]],
  ["each blank before an ERRORTOKEN is one", "x \t\f?\n", ["x", " ", "\t", "\f", "?", "\n"]],
  ["backquote", "`x`\n", ["`", "x", "`", "\n"]],
  [
    "longest operators first",
    "x **= y //= z >>= w <<= v -> u := t ... != s @= r\n",
    [
      "x",
      "**=",
      "y",
      "//=",
      "z",
      ">>=",
      "w",
      "<<=",
      "v",
      "->",
      "u",
      ":=",
      "t",
      "...",
      "!=",
      "s",
      "@=",
      "r",
      "\n",
    ],
  ],
  ["dots", "a.b...c\n", ["a", ".", "b", "...", "c", "\n"]],
  ["number glued to keyword", "1if x else 2\n", ["1", "if", "x", "else", "2", "\n"]],
  [
    "number spellings",
    "0x_1f 0b1_0 0o7_7 1_000.5e-1_0j 1e5 .5 5. 0777 1__0 1_ 0xg\n",
    [
      "0x_1f",
      "0b1_0",
      "0o7_7",
      "1_000.5e-1_0j",
      "1e5",
      ".5",
      "5.",
      "0",
      "777",
      "1",
      "__0",
      "1",
      "_",
      "0",
      "xg",
      "\n",
    ],
  ],
  [
    "Unicode \\w: letters, CJK, astral; combining marks are not \\w; ² is",
    "héllo = ñ + 変数 + 𝑥 + _a + a\u0301 + x²\n",
    ["héllo", "=", "ñ", "+", "変数", "+", "𝑥", "+", "_a", "+", "a", "\u0301", "+", "x²", "\n"],
  ],
  ["\\w runs that are not identifiers", "٣abc + ²\n", ["٣abc", "+", "²", "\n"]],
  ["astral ERRORTOKEN is one code point", "x = 😀\n", ["x", "=", " ", "😀", "\n"]],
  ["NBSP is an ERRORTOKEN", "x\u00a0= 1\n", ["x", "\u00a0", "=", "1", "\n"]],
  ["BOM inside the text is an ERRORTOKEN", "\ufeffx = 1\n", ["\ufeff", "x", "=", "1", "\n"]],
  [
    "tab stops of 8",
    "if x:\n\ty = 1\n        z = 2\n",
    ["if", "x", ":", "\n", "y", "=", "1", "\n", "z", "=", "2", "\n"],
  ],
  ["form feed resets the column", "\fx = 1\n", ["x", "=", "1", "\n"]],
  [
    "form feed in a dedent",
    "if x:\n    y\n\f  z\n",
    "IndentationError: unindent does not match any outer indentation level",
  ],
  [
    "inconsistent dedent",
    "if x:\n  y\n z\n",
    "IndentationError: unindent does not match any outer indentation level",
  ],
  [
    "blank lines and DEDENT at EOF",
    "def f():\n    return 1\n\n\n",
    ["def", "f", "(", ")", ":", "\n", "return", "1", "\n"],
  ],
  [
    "indented comment line is NL",
    "x = 1\n  # indented comment\ny = 2\n",
    ["x", "=", "1", "\n", "y", "=", "2", "\n"],
  ],
  ["comment inside brackets", "x = (1,\n# c\n2)\n", ["x", "=", "(", "1", ",", "2", ")", "\n"]],
  ["EOF in brackets", "x = [1,\n", "TokenError: EOF in multi-line statement"],
  ["EOF after backslash", "x = \\\n", "TokenError: EOF in multi-line statement"],
  ["EOF in triple-quoted string", "x = '''abc\n", "TokenError: EOF in multi-line string"],
  ["EOF in backslash-continued string", "x = '\\\n", "TokenError: EOF in multi-line string"],
  ["negative paren level", "x = )\ny\n", "TokenError: EOF in multi-line statement"],
  ["lone CR is an ERRORTOKEN, not a line end", "x\ry\n", ["x", "\r", "y", "\n"]],
  ["source ending in a lone CR", "x\r", ["x", "\r"]],
  ["whitespace then CR is a blank line", "  \rfoo\n", []],
  ["U+2028 does not end a line", "a\u2028b\n", ["a", "\u2028", "b", "\n"]],
  ["U+2028 inside a string", "x = 'a\u2028b'\n", ["x", "=", "'a\u2028b'", "\n"]],
  ["U+001C counts as space for the last-line comment check", "x = 1\n\x1c# c", ["x", "=", "1", "\n", "\x1c"]],
  [
    "stale needcont turns a later multi-line string into an ERRORTOKEN",
    "s = 'a\\\nb\nt = '''x\nmid\ny'''\n",
    "TokenError: EOF in multi-line string",
  ],
  [
    "needcont cleared by a closed continued string",
    "s = 'a\\\nb'\nt = '''x\nmid\ny'''\n",
    ["s", "=", "'a\\\nb'", "\n", "t", "=", "'''x\nmid\ny'''", "\n"],
  ],
];

describe("pythonTokens", () => {
  it.each(EDGE_CASES)("%s", (_name, source, expected) => {
    if (typeof expected === "string") {
      expect(() => pythonTokens(source)).toThrow(TokenizeError);
      const result = tsTokenize(source);
      expect("error" in result ? result.error : result.tokens).toBe(expected);
    } else {
      expect(pythonTokens(source)).toEqual(expected);
    }
  });

  it("reports UTF-16 start offsets, the synthesized NEWLINE at the end", () => {
    expect(pythonTokensWithOffsets("𝑥 = 'é'\nif y:\n  z")).toEqual({
      tokens: ["𝑥", "=", "'é'", "\n", "if", "y", ":", "\n", "z", ""],
      starts: [0, 3, 5, 8, 9, 12, 13, 14, 17, 18],
    });
  });
});

type Mismatch = { path: string; difference: string };
type Tally = { total: number; matched: number; mismatches: Mismatch[] };
const tally = (): Tally => ({ total: 0, matched: 0, mismatches: [] });

function record(into: Tally, path: string, expected: Tokenized, source: string): void {
  into.total += 1;
  const difference = firstDifference(expected, tsTokenize(source));
  if (difference === null) into.matched += 1;
  else into.mismatches.push({ path, difference });
}

function rate(t: Tally): string {
  return `${t.matched}/${t.total} (${((100 * t.matched) / Math.max(t.total, 1)).toFixed(3)}%)`;
}

describe("differential against CPython 3.11 tokenize", () => {
  const raw = tally();
  const unparsed = tally();
  const edge = tally();
  const fuzz = tally();
  const unreadable: string[] = [];
  const unparsable: string[] = [];
  let wordRanges: Array<[number, number]> = [];
  let files: string[] = [];

  beforeAll(async () => {
    const stdlib = execFileSync("python3", ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"])
      .toString()
      .trim();
    files = readdirSync(stdlib, { recursive: true, encoding: "utf8" })
      .filter((p) => p.endsWith(".py") && !p.split("/").includes("site-packages"))
      .sort()
      .map((p) => join(stdlib, p));
    const base =
      readFileSync(join(stdlib, "typing.py"), "utf8") +
      readFileSync(join(stdlib, "test", "test_fstring.py"), "utf8");
    const snippets = mutatedSnippets(base, 3000, 20251129);

    // Ids: edge cases, then snippets, then the word table, then files (by index into `files`).
    const edgeBase = 0;
    const snippetBase = EDGE_CASES.length;
    const wordId = snippetBase + snippets.length;
    const fileBase = wordId + 1;
    const small: object[] = [
      ...EDGE_CASES.map(([, source], i) => ({ id: edgeBase + i, source })),
      ...snippets.map((source, i) => ({ id: snippetBase + i, source })),
      { id: wordId, word_ranges: true },
    ];
    const shards: object[][] = Array.from({ length: ORACLE_PROCESSES }, () => []);
    for (const [i, path] of files.entries()) shards[i % ORACLE_PROCESSES]?.push({ id: fileBase + i, path });
    shards[0]?.unshift(...small);

    const onAnswer = (a: Answer): void => {
      if (a.word_ranges !== undefined) {
        wordRanges = a.word_ranges;
      } else if (a.id < snippetBase) {
        const [name, source] = EDGE_CASES[a.id - edgeBase] as [string, string, unknown];
        record(edge, name, a.raw as Tokenized, source);
      } else if (a.id < wordId) {
        record(
          fuzz,
          `snippet ${a.id - snippetBase}`,
          a.raw as Tokenized,
          snippets[a.id - snippetBase] as string,
        );
      } else {
        const path = files[a.id - fileBase] as string;
        if (a.read_error !== undefined) {
          unreadable.push(`${path}: ${a.read_error}`);
          return;
        }
        // Same text on both sides: the oracle sends it unless it is the file's bytes read as UTF-8.
        const text = a.text ?? readFileSync(path, "utf8");
        record(raw, path, a.raw as Tokenized, text);
        if (a.unparsed !== undefined && a.unparsed_text !== undefined) {
          record(unparsed, path, a.unparsed, a.unparsed_text);
        } else {
          unparsable.push(`${path}: ${a.parse_error}`);
        }
      }
    };
    const started = performance.now();
    await Promise.all(shards.map((requests) => runOracle(requests, onAnswer)));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const report = [
      `tokenize differential (${seconds} s, ${ORACLE_PROCESSES} oracle process(es), ${files.length} files):`,
      `  raw files       ${rate(raw)}`,
      `  unparsed files  ${rate(unparsed)}`,
      `  edge cases      ${rate(edge)}`,
      `  mutated snippets ${rate(fuzz)}`,
      `  not decodable by tokenize.detect_encoding: ${unreadable.length}; not parsable: ${unparsable.length}`,
      ...[...raw.mismatches, ...unparsed.mismatches].map((m) => `  MISMATCH ${m.path}: ${m.difference}`),
    ];
    console.log(report.join("\n"));
  }, 600_000);

  it("covers the whole stdlib", () => {
    expect(files.length).toBeGreaterThan(1500);
    expect(raw.total + unreadable.length).toBe(files.length);
    // Only the deliberately broken test data may fail to decode (bad cookies, bad UTF-8).
    expect(unreadable.length).toBeLessThan(10);
    expect(unparsed.total).toBeGreaterThan(files.length - 20);
  });

  it("matches on every raw stdlib file", () => {
    expect(raw.mismatches).toEqual([]);
  });

  it("matches on every unparsed stdlib file", () => {
    expect(unparsed.mismatches).toEqual([]);
  });

  it("matches on the edge cases, confirming the expectations written above", () => {
    expect(edge.total).toBe(EDGE_CASES.length);
    expect(edge.mismatches).toEqual([]);
  });

  it("matches on mutated snippets", () => {
    expect(fuzz.total).toBe(3000);
    expect(fuzz.mismatches).toEqual([]);
  });

  it("pins Python's \\w to the code points re matches in CPython 3.11", () => {
    expect(wordRanges.length).toBeGreaterThan(700);
    expect(pythonWordRanges()).toEqual(wordRanges);
  });
});
