/**
 * The clang-tidy adapter in the real sandbox with the shipped configuration: known alerts on small files
 * (standard headers only, so each file takes seconds, not the tens of seconds of <bits/stdc++.h>), compile
 * errors as alerts, inert NOLINT comments, and the line-shift invariance of matching.
 */
import { describe, expect, test } from "vitest";
import { PINNED_ANALYZER_VERSIONS } from "../../src/analyzers/analyzer.js";
import { neutralizeNolint } from "../../src/analyzers/clang-tidy.js";
import { diffAlerts } from "../../src/core/lint/alert.js";
import { LINT_BACKENDS } from "../sandbox/backends.js";
import { ruleLines, useLinter } from "./helpers.js";

const SAMPLE = `#include <cstdio>
#include <vector>

int limit = 100;

int twice(int value) {
  if (value == 0) return 0;
  else return value * 2;
}

int main() {
  int count;
  std::scanf("%d", &count);
  std::vector<int> values;
  for (int k = 0; k < count; k++) values.push_back(twice(k));
  int *unused = NULL;
  std::printf("%d\\n", limit + values.empty());
  return 0;
}
`;

describe.each(LINT_BACKENDS)("clang-tidy (%s)", (_backend, createSandbox) => {
  const linter = useLinter(createSandbox);

  test("version is the pinned one", async () => {
    const [version] = await linter().versions(["clang-tidy"]);
    expect(version?.version).toBe(PINNED_ANALYZER_VERSIONS["clang-tidy"]);
    expect(version?.detail).toContain("LLVM version 14.0.6");
  });

  test("known alerts of a small file, with categories", async () => {
    const [alerts = []] = await linter().analyze("cpp", [SAMPLE]);
    expect(ruleLines(alerts)).toEqual(
      [
        "4:cppcoreguidelines-avoid-non-const-global-variables",
        "4:readability-magic-numbers",
        "7:readability-braces-around-statements",
        "8:readability-braces-around-statements",
        "8:readability-else-after-return",
        "12:cppcoreguidelines-init-variables",
        "13:cppcoreguidelines-pro-type-vararg",
        "15:performance-inefficient-vector-operation",
        "15:readability-braces-around-statements",
        "16:clang-diagnostic-unused-variable", // -Wall, from compile_flags.txt
        "16:modernize-use-nullptr",
        "17:cppcoreguidelines-pro-type-vararg",
        "17:readability-implicit-bool-conversion",
      ].sort(),
    );
    const category = (rule: string) => alerts.find((a) => a.ruleId === rule)?.category;
    expect(category("performance-inefficient-vector-operation")).toBe("Performance");
    expect(category("cppcoreguidelines-init-variables")).toBe("Error-prone");
    expect(category("clang-diagnostic-unused-variable")).toBe("Refactor");
    expect(category("readability-else-after-return")).toBe("Refactor");
    expect(category("readability-magic-numbers")).toBe("Style");
    expect(alerts.find((a) => a.ruleId === "cppcoreguidelines-init-variables")?.sanitizedMessage).toBe(
      "variable 'count' is not initialized",
    );
  });

  test("a file that does not compile yields clang-diagnostic-error alerts, others are unaffected", async () => {
    const broken = "int main() {\n  int total = ;\n  return total;\n}\n";
    const clean = "int main() {\n  return 0;\n}\n";
    const [a = [], b = []] = await linter().analyze("cpp", [broken, clean]);
    const errors = a.filter((x) => x.ruleId === "clang-diagnostic-error");
    expect(errors.map((x) => [x.line, x.message, x.category])).toEqual([
      [2, "expected expression", "Error-prone"],
    ]);
    expect(b).toEqual([]);
  });

  test("NOLINT comments are inert", async () => {
    expect(neutralizeNolint("int x; // NOLINTNEXTLINE(foo)")).toBe("int x; // N0LINTNEXTLINE(foo)");
    const suppressed = SAMPLE.replace("int limit = 100;", "int limit = 100;  // NOLINT")
      .replace("int main() {", "// NOLINTBEGIN\nint main() {")
      .replace("  return 0;\n}", "  return 0;\n}\n// NOLINTEND");
    const [before = [], after = []] = await linter().analyze("cpp", [SAMPLE, suppressed]);
    const diff = diffAlerts(before, after);
    expect(diff.fixed).toEqual([]);
    expect(diff.introduced).toEqual([]);
  });

  test("blank lines inserted at the top shift every alert and fix or introduce none", async () => {
    const [before = [], after = []] = await linter().analyze("cpp", [SAMPLE, `\n\n${SAMPLE}`]);
    expect(after.map((a) => a.line).sort((x, y) => x - y)).toEqual(
      before.map((a) => a.line + 2).sort((x, y) => x - y),
    );
    const diff = diffAlerts(before, after);
    expect(diff.fixed).toEqual([]);
    expect(diff.introduced).toEqual([]);
    expect(diff.unchanged).toHaveLength(before.length);
  });

  test("a fix is seen as fixed, a new problem as introduced", async () => {
    const revised = SAMPLE.replace("int *unused = NULL;", "int *unused = nullptr;").replace(
      "int count;",
      "int count = 0;\n  int spare;",
    );
    const [before = [], after = []] = await linter().analyze("cpp", [SAMPLE, revised]);
    const diff = diffAlerts(before, after);
    expect(diff.fixed.map((a) => a.sanitizedMessage).sort()).toEqual([
      "use nullptr",
      "variable 'count' is not initialized",
    ]);
    expect(diff.introduced.map((a) => a.sanitizedMessage).sort()).toEqual([
      "unused variable 'spare'",
      "variable 'spare' is not initialized",
    ]);
  });
});
