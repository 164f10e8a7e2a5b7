/**
 * Taxonomy coverage (docs/lint.md): every rule enabled by the shipped configurations maps to a category, with
 * the enabled sets read from the tools themselves — `pylint --list-msgs-enabled`, `clang-tidy
 * --list-checks` — and from the PMD rule set file; and every per-rule entry of the tables names a rule
 * that is enabled (no stale rows).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { LINT_CONFIG_DIR } from "../../src/analyzers/analyzer.js";
import {
  categoryOf,
  PARSE_ERROR_RULE,
  pmdRuleGroups,
  taxonomyEntry,
  taxonomyOverrides,
} from "../../src/core/lint/taxonomy.js";
import { ALERT_CATEGORIES } from "../../src/core/lint/tools.js";

const config = (name: string) => fileURLToPath(new URL(name, LINT_CONFIG_DIR));

function run(argv: string[]): string {
  const result = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8", cwd: config(".") });
  if (result.status !== 0) throw new Error(`${argv.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/** Message ids of the "Enabled messages:" section of `pylint --list-msgs-enabled`. */
function pylintEnabled(): string[] {
  const text = run(["pylint", `--rcfile=${config("pylintrc")}`, "--list-msgs-enabled"]);
  const section = text.split("Disabled messages:")[0] ?? "";
  return [...section.matchAll(/^\s+\S+ \(([A-Z]\d{4})\)$/gm)].map((m) => m[1] as string);
}

function clangTidyEnabled(): string[] {
  const text = run(["clang-tidy", `--config-file=${config("clang-tidy.yaml")}`, "--list-checks"]);
  return text
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** `[group, rule]` of every `<rule ref="category/java/<group>.xml/<rule>"/>` outside comments. */
function pmdEnabled(): [string, string][] {
  const xml = readFileSync(config("pmd-ruleset.xml"), "utf8").replace(/<!--[\s\S]*?-->/g, "");
  return [...xml.matchAll(/<rule\s+ref="category\/java\/(\w+)\.xml\/(\w+)"/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]);
}

describe("taxonomy coverage", () => {
  test("every enabled Pylint message has a category, and every override is enabled", () => {
    const enabled = pylintEnabled();
    expect(enabled.length).toBeGreaterThan(300);
    const uncovered = enabled.filter((id) => taxonomyEntry("pylint", id) === undefined);
    expect(uncovered).toEqual([]);
    const stale = Object.keys(taxonomyOverrides("pylint")).filter((id) => !enabled.includes(id));
    expect(stale).toEqual([]);
    // The pruned whitespace-only rules are really off.
    for (const id of ["C0301", "C0303", "C0304", "C0305", "C0327", "C0328", "W0311"]) {
      expect(enabled).not.toContain(id);
    }
  });

  test("every enabled clang-tidy check has a category, and every override is enabled", () => {
    const enabled = clangTidyEnabled();
    expect(enabled.length).toBeGreaterThan(150);
    const uncovered = enabled.filter((check) => taxonomyEntry("clang-tidy", check) === undefined);
    expect(uncovered).toEqual([]);
    const stale = Object.keys(taxonomyOverrides("clang-tidy")).filter((check) => !enabled.includes(check));
    expect(stale).toEqual([]);
    // Pruned aliases are off, their originals on; compiler diagnostics are covered by prefix.
    expect(enabled).not.toContain("cppcoreguidelines-avoid-magic-numbers");
    expect(enabled).toContain("readability-magic-numbers");
    expect(enabled).not.toContain("modernize-use-trailing-return-type");
    expect(categoryOf("clang-tidy", "clang-diagnostic-error")).toBe("Error-prone");
    expect(categoryOf("clang-tidy", "clang-diagnostic-unused-variable")).toBe("Refactor");
  });

  test("every PMD rule of the rule set has a category from its own category file, no stale rows", () => {
    const enabled = pmdEnabled();
    expect(enabled.length).toBeGreaterThan(150);
    const groups = pmdRuleGroups();
    const mismatched = enabled.filter(([group, rule]) => groups.get(rule) !== group);
    expect(mismatched).toEqual([]);
    const uncovered = enabled.filter(([, rule]) => taxonomyEntry("pmd", rule) === undefined);
    expect(uncovered).toEqual([]);
    const names = new Set(enabled.map(([, rule]) => rule));
    expect([...groups.keys()].filter((rule) => !names.has(rule))).toEqual([]);
    const stale = Object.keys(taxonomyOverrides("pmd")).filter(
      (rule) => rule !== PARSE_ERROR_RULE && !names.has(rule),
    );
    expect(stale).toEqual([]);
    expect(names.has("NoPackage")).toBe(false);
  });

  test("lookups: overrides win over groups; the longest clang-tidy prefix wins; unknown rules are Other", () => {
    expect(taxonomyEntry("pylint", "W0611")).toMatchObject({
      category: "Refactor",
      source: { kind: "override", rule: "W0611" },
    });
    expect(taxonomyEntry("pylint", "W0102")).toMatchObject({
      category: "Error-prone",
      source: { kind: "group", group: "W" },
    });
    expect(taxonomyEntry("clang-tidy", "misc-unused-parameters")?.source).toEqual({
      kind: "group",
      group: "misc-unused-",
    });
    expect(taxonomyEntry("clang-tidy", "misc-redundant-expression")?.category).toBe("Error-prone");
    expect(taxonomyEntry("pmd", "UnusedLocalVariable")?.category).toBe("Refactor");
    expect(taxonomyEntry("pmd", "SomeFutureRule")).toBeUndefined();
    expect(taxonomyEntry("pmd", "SomeFutureRule", "performance")?.category).toBe("Performance");
    expect(categoryOf("clang-tidy", "google-build-using-namespace")).toBe("Other");
    expect(categoryOf("pylint", "not-an-id")).toBe("Other");
  });

  test("the tables use only LintEval's five categories", () => {
    for (const tool of ["pylint", "clang-tidy", "pmd"] as const) {
      for (const entry of Object.values(taxonomyOverrides(tool))) {
        expect(ALERT_CATEGORIES).toContain(entry.category);
        expect(entry.why.length).toBeGreaterThan(0);
      }
    }
  });
});
