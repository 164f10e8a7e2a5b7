/**
 * A reporter, added next to vitest's default one (vitest.config.ts), that ends the run with every skipped
 * test and the reason it was skipped, or "skipped: none". A skip carries its reason either as vitest's own
 * note (`context.skip(note)`) or in its meta (tests/setup/skip.ts); a skip with neither is listed as such,
 * so it is seen and given one. Tests left out by `-t` or `.only` are not skips of the suite: they are
 * counted, not listed.
 */
import type { Reporter, TestCase, TestModule, Vitest } from "vitest/node";

/** Why `test` was skipped, or undefined when it carries no reason. */
function skipReason(test: TestCase): string | undefined {
  const result = test.result();
  if (result.state === "skipped" && result.note) return result.note;
  if (test.meta().skipReason) return test.meta().skipReason;
  if (test.options.mode === "todo") return "todo: not written yet";
  return undefined;
}

export default class SkipReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    // No module ran (the global setup's build failed, or no file matched): nothing was skipped either.
    if (testModules.length === 0) return;
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    // A name filter or an `.only` leaves the other tests unselected, without a reason of their own.
    const filtered =
      this.vitest?.config.testNamePattern !== undefined ||
      testModules.some((m) => [...m.children.allTests()].some((t) => t.options.mode === "only"));
    const listed: string[] = [];
    let unselected = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests("skipped")) {
        const reason = skipReason(test);
        const pattern = this.vitest?.config.testNamePattern;
        if ((reason === undefined && filtered) || (pattern !== undefined && !pattern.test(test.fullName))) {
          unselected++;
          continue;
        }
        const name = `${module.relativeModuleId} › ${test.fullName.replaceAll(" > ", " › ")}`;
        listed.push(
          `  ${name}\n      reason: ${reason ?? "NONE GIVEN (skip through tests/setup/skip.ts or context.skip(note))"}`,
        );
      }
    }
    log("");
    log(listed.length === 0 ? "skipped: none" : `skipped: ${listed.length}`);
    for (const line of listed) log(line);
    if (unselected > 0) log(`(not selected by -t or .only, not listed: ${unselected})`);
  }
}
