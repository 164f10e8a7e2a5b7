/**
 * A problem's tests in the shape the Python runner takes (src/runners/python.ts): assert-style tests carry
 * the entry point, the stored `float_tolerance` becomes `floatTolerance`, and a runtime other than the
 * standard library's goes with them.
 */
import type { PythonTests } from "../../runners/python.js";
import { DEFAULT_RUNTIME } from "../../sandbox/runtimes.js";
import type { Problem } from "./types.js";

export function runnerTests(problem: Pick<Problem, "tests" | "entryPoint" | "runtime">): PythonTests {
  const tests = styleTests(problem);
  const runtime = problem.runtime ?? DEFAULT_RUNTIME;
  return runtime === DEFAULT_RUNTIME ? tests : { ...tests, runtime };
}

function styleTests(problem: Pick<Problem, "tests" | "entryPoint">): PythonTests {
  const { tests, entryPoint } = problem;
  switch (tests.style) {
    case "unittest":
      return { style: "unittest", code: tests.code };
    case "assert":
      return { style: "assert", code: tests.code, entryPoint };
    case "stdio":
      return tests.float_tolerance === undefined
        ? { style: "stdio", cases: tests.cases }
        : { style: "stdio", cases: tests.cases, floatTolerance: tests.float_tolerance };
  }
}
