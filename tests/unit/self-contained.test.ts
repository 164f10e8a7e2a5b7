/**
 * The repository stands on its own (issue 28): no file names a path outside it, and every citation of the
 * reference pages resolves inside it (CONTRIBUTING.md, "Citations resolve inside the repository").
 *
 * Read over the files git knows of (tracked, plus new files not yet added that .gitignore does not hide):
 *
 * - no file contains a needle that leads out of the repository (the workspace's spec, its seed papers, its
 *   data directory, absolute paths of the machine that built it). External data is named through
 *   `MINEDIT_DATA_DIR` instead (docs/paper-set.md#the-data-minedit_data_dir);
 * - every citation `docs/<page>.md#<anchor>` (or `CONTRIBUTING.md#<anchor>`) in any file, and every
 *   relative Markdown link `[x](path#anchor)` in a `.md` file, names a file that exists and, with an
 *   anchor, a heading of that page whose GitHub slug is the anchor; a document named by a bare upper-case
 *   file name (`CONTRIBUTING.md`) exists.
 *
 * The slug is computed here as GitHub renders heading ids (github-slugger), written from its rules rather
 * than taken from the package, and checked on hand-made headings below.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url));

/**
 * What must never appear: built by concatenation so that this file does not contain them itself (it is
 * still the only file exempt, since its own source spells the pieces).
 */
const NEEDLES = [
  ["SPEC", " §"],
  ["..", "/shared"],
  ["shared", "/seeds"],
  ["shared", "/data"],
  ["/work", "/"],
  [".mirror", "/"],
].map((parts) => parts.join(""));

/**
 * GitHub's heading id for a heading's rendered text: lower-cased; every character that is not a letter
 * (any script), a combining mark, a digit, a space, a hyphen or an underscore removed; each space turned
 * into a hyphen. Repeats of an id on one page get `-1`, `-2`, … ({@link slugsOf}).
 */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The text a heading renders as: code spans, emphasis markers, links and inline HTML reduced to their text. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(\*\*|__|\*)(\S(?:.*?\S)?)\1/g, "$2")
    .trim();
}

/** Lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, index) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === null && opener?.[1] !== undefined) {
      fence = opener[1];
      return;
    }
    if (fence !== null) {
      if (line.trimStart().startsWith(fence) && line.trim().replace(/[`~]/g, "") === "") fence = null;
      return;
    }
    out.push({ line: index + 1, text: line });
  });
  return out;
}

/** Every anchor a Markdown page defines: its ATX headings' slugs (duplicates numbered) and HTML ids. */
function slugsOf(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (heading?.[1] !== undefined) {
      const base = githubSlug(renderedText(heading[1]));
      let slug = base;
      let count = seen.get(base) ?? 0;
      while (slugs.has(slug)) {
        count += 1;
        slug = `${base}-${count}`;
      }
      seen.set(base, count);
      slugs.add(slug);
    }
    for (const html of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) if (html[1]) slugs.add(html[1]);
  }
  return slugs;
}

/** The files git knows of that exist in the working tree (tracked, and new ones not ignored). */
function repositoryFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  })
    .split("\0")
    .filter((path) => path !== "");
  return [...new Set(listed)].filter((path) => {
    if (path === "package-lock.json" || path.startsWith("src/gen/")) return false;
    const full = join(ROOT, path);
    return existsSync(full) && statSync(full).isFile();
  });
}

/** The text of a file, or null for a binary one (a NUL byte in its first 8 KiB, as git decides). */
function textOf(path: string): string | null {
  const bytes = readFileSync(join(ROOT, path));
  if (bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString("utf8");
}

const FILES = repositoryFiles()
  .map((path) => ({ path, text: textOf(path) }))
  .filter((file): file is { path: string; text: string } => file.text !== null);

const pageSlugs = new Map<string, Set<string> | null>();
/** The anchors of a repository file (null when it does not exist), read once. */
function anchorsOf(path: string): Set<string> | null {
  if (!pageSlugs.has(path)) {
    const full = join(ROOT, path);
    pageSlugs.set(
      path,
      existsSync(full) && statSync(full).isFile() ? slugsOf(readFileSync(full, "utf8")) : null,
    );
  }
  return pageSlugs.get(path) ?? null;
}

/** Why a target does not resolve (null when it does). `path` is relative to the repository root. */
function brokenTarget(path: string, anchor: string | undefined): string | null {
  const full = join(ROOT, path);
  if (path.startsWith("..") || !existsSync(full)) return "no such file";
  if (anchor === undefined || anchor === "" || !path.endsWith(".md")) return null;
  const anchors = anchorsOf(path);
  if (anchors === null) return "not a file";
  return anchors.has(decodeURIComponent(anchor)) ? null : `no heading with the anchor #${anchor}`;
}

describe("githubSlug", () => {
  it("turns headings into GitHub's anchors", () => {
    const cases: [string, string][] = [
      ["`reward_version`", "reward_version"],
      [
        "Time limits: CPU time and idle time, with a wall backstop",
        "time-limits-cpu-time-and-idle-time-with-a-wall-backstop",
      ],
      ["C++ and Java", "c-and-java"],
      ["Offline scoring (`minedit score`)", "offline-scoring-minedit-score"],
      ["From completion to program M", "from-completion-to-program-m"],
      ["The data: `MINEDIT_DATA_DIR`", "the-data-minedit_data_dir"],
      ["ΔLine@P and Ünïcode", "δlinep-and-ünïcode"],
      [
        "Table 9: corruption families (applications and share; tasks containing the family)",
        "table-9-corruption-families-applications-and-share-tasks-containing-the-family",
      ],
      ["A  B", "a--b"],
      ["**Bold** and [a link](x.md)", "bold-and-a-link"],
    ];
    for (const [heading, slug] of cases) expect(githubSlug(renderedText(heading)), heading).toBe(slug);
  });

  it("numbers repeated headings and ignores headings in code blocks", () => {
    const page = "# Usage\n\n## Usage\n\n```bash\n# Usage\n```\n\n### Usage\n\n## Other\n";
    expect([...slugsOf(page)]).toEqual(["usage", "usage-1", "usage-2", "other"]);
  });
});

describe("the repository stands on its own", () => {
  it("finds the files it checks", () => {
    const paths = new Set(FILES.map((file) => file.path));
    for (const path of ["README.md", "docs/reward.md", "src/core/reward.ts", THIS_FILE]) {
      expect(paths.has(path), path).toBe(true);
    }
  });

  it("no file names a path outside the repository", () => {
    const found: string[] = [];
    for (const { path, text } of FILES) {
      if (path === THIS_FILE) continue;
      text.split("\n").forEach((line, index) => {
        for (const needle of NEEDLES) {
          if (line.includes(needle)) found.push(`${path}:${index + 1} → ${JSON.stringify(needle)}`);
        }
      });
    }
    expect(found, `${found.length} references leave the repository:\n${found.join("\n")}`).toEqual([]);
  });

  it("every document named by a bare upper-case file name is in the repository", () => {
    // `STYLE.md` or a spec beside the checkout would read like a citation and lead nowhere in a clone.
    // FILE.md is the placeholder of usage lines (`--report FILE.md`).
    const missing: string[] = [];
    for (const { path, text } of FILES) {
      if (path === THIS_FILE) continue;
      text.split("\n").forEach((line, index) => {
        for (const match of line.matchAll(/(?<![\w./-])([A-Z][A-Z0-9_]*\.md)\b/g)) {
          const name = match[1] as string;
          if (name === "FILE.md") continue;
          if (!existsSync(join(ROOT, name)) && !existsSync(join(ROOT, dirname(path), name)))
            missing.push(`${path}:${index + 1} → ${name}`);
        }
      });
    }
    expect(missing, `${missing.length} documents are not in the repository:\n${missing.join("\n")}`).toEqual(
      [],
    );
  });

  it("every repository path the hand-written documents name exists", () => {
    // README.md, CONTRIBUTING.md, docs/ and benchmarks/README.md tell a contributor which file to open:
    // a path in backticks under a top-level directory must still be there (patterns and placeholders aside).
    const documents = FILES.filter(
      ({ path }) =>
        path === "README.md" ||
        path === "CONTRIBUTING.md" ||
        path === "benchmarks/README.md" ||
        (path.startsWith("docs/") && path.endsWith(".md")),
    );
    const named =
      /`((?:src|tests|scripts|sandbox|clients|benchmarks|proto|deploy|datasets|lint|bin|docs)\/[^`\s]*)`/g;
    const missing: string[] = [];
    for (const { path, text } of documents) {
      text.split("\n").forEach((line, index) => {
        for (const match of line.matchAll(named)) {
          const target = (match[1] as string).replace(/[.,;:)]+$/, "").replace(/#.*$/, "");
          if (/[*<>{}…$]|NAME|LANG/.test(target)) continue;
          if (!existsSync(join(ROOT, target))) missing.push(`${path}:${index + 1} → ${target}`);
        }
      });
    }
    expect(missing, `${missing.length} named paths do not exist:\n${missing.join("\n")}`).toEqual([]);
  });

  it("every docs/<page>.md or CONTRIBUTING.md citation and every relative Markdown link resolves", () => {
    const broken: string[] = [];
    const citation =
      /(?<![\w./-])(?:\.\.\/)*((?:docs\/[\w.-]+|CONTRIBUTING)\.md)(?:#([\p{L}\p{M}\p{N}_-]+))?/gu;
    for (const { path, text } of FILES) {
      if (path === THIS_FILE) continue;
      text.split("\n").forEach((line, index) => {
        for (const match of line.matchAll(citation)) {
          const why = brokenTarget(match[1] as string, match[2]);
          if (why !== null) broken.push(`${path}:${index + 1} → ${match[0]} (${why})`);
        }
      });
      if (!path.endsWith(".md")) continue;
      for (const { line, text: prose } of proseLines(text)) {
        const withoutCode = prose.replace(/`+[^`]*`+/g, "code");
        for (const link of withoutCode.matchAll(/\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)) {
          const target = link[1] as string;
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
          const [file, anchor] = target.split("#", 2) as [string, string | undefined];
          const resolved =
            file === ""
              ? path
              : normalize(relative(ROOT, join(ROOT, dirname(path), decodeURIComponent(file))));
          const why = brokenTarget(resolved, anchor);
          if (why !== null) broken.push(`${path}:${line} → ${target} (${why})`);
        }
      }
    }
    expect(broken, `${broken.length} citations do not resolve:\n${broken.join("\n")}`).toEqual([]);
  });
});
