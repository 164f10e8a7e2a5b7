/**
 * The C++ and Java runners with the real compilers (g++, javac/java), in the real bwrap sandbox and in Docker
 * (the cpp and java images, warm: the driver runs in a fork server of the image's container): passing and
 * wrong programs with cases counted, compile errors with the compiler's message, crashes with the
 * signal or exception, timeouts at the limit, memory bombs, output floods, the compile stage's own
 * budget and failure modes, Java entry-class detection. The seed programs: lint-seeds.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CompiledLanguage, runCompiledTests } from "../../src/runners/compiled.js";
import { runCppTests } from "../../src/runners/cpp.js";
import { javaEntry, runJavaTests } from "../../src/runners/java.js";
import type { StdioTests, TestOutcome } from "../../src/runners/python.js";
import { DEFAULT_LIMITS, type ExecutionLimits, type Sandbox } from "../../src/sandbox/sandbox.js";
import { createWarmSandbox, RUNNER_BACKENDS } from "../sandbox/backends.js";

/** Compiling takes 1-5 s per program on a loaded 2-core machine; every test compiles at least once. */
const SLOW = 60_000;

const ADD_TESTS: StdioTests = {
  style: "stdio",
  cases: [
    { input: "1 2\n", output: "3\n" },
    { input: "-5 5\n", output: "0\n" },
    { input: "1000000000 1000000000\n", output: "2000000000\n" },
  ],
};

const CPP_ADD = `#include <iostream>
int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << a + b << "\\n";
}
`;

const JAVA_ADD = `import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
`;

/** A Java program whose body is `body` inside main (with `in`, a Scanner on stdin). */
const javaMain = (body: string, imports = "") =>
  `import java.util.*;\n${imports}\npublic class Main {\n    public static void main(String[] args) throws Exception {\n        Scanner in = new Scanner(System.in);\n${body}\n    }\n}\n`;

/** A C++ program whose body is `body` inside main (reading `a` and `b` first). */
const cppMain = (body: string, includes = "") =>
  `#include <iostream>\n${includes}\nint main() {\n    long long a, b;\n    std::cin >> a >> b;\n${body}\n}\n`;

type Runner = (
  sandbox: Sandbox,
  source: string,
  tests: StdioTests,
  limits: ExecutionLimits,
) => Promise<TestOutcome>;

const LANGUAGES: readonly (readonly [string, Runner, string])[] = [
  ["C++", runCppTests, CPP_ADD],
  ["Java", runJavaTests, JAVA_ADD],
];

describe("javaEntry", () => {
  test("the public top-level class, whatever its name, and the package", () => {
    expect(javaEntry("public class Main {}")).toEqual({ className: "Main", packageName: null });
    expect(javaEntry("package a.b ;\nimport java.util.*;\nfinal public class Solver { }")).toEqual({
      className: "Solver",
      packageName: "a.b",
    });
  });

  test("ignores comments, strings, text blocks and nested public classes", () => {
    const source = `// public class Comment {}
/* public class Block {} */
class Helper {
    public static class Nested {}
    String s = "public class InString {";
    String t = """
        public class InTextBlock {
        """;
    char c = '{';
}
public final class Real {
    public static void main(String[] args) {}
}
`;
    expect(javaEntry(source)).toEqual({ className: "Real", packageName: null });
  });

  test("without a public class: the class declaring main, else the first, else Main", () => {
    expect(javaEntry("class A {}\nclass B { public static void main(String[] x) {} }")).toMatchObject({
      className: "B",
    });
    expect(javaEntry("class A {}\nclass B {}")).toMatchObject({ className: "A" });
    expect(javaEntry("")).toMatchObject({ className: "Main" });
  });
});

describe.each(RUNNER_BACKENDS)("%s", (_backend, create) => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    sandbox = await create();
  }, SLOW);

  afterAll(async () => {
    await sandbox?.close();
  });

  describe.each(LANGUAGES)("%s", (language, run, addSource) => {
    const isJava = language === "Java";

    test(
      "a correct program passes, every case counted",
      async () => {
        const o = await run(sandbox, addSource, ADD_TESTS, DEFAULT_LIMITS);
        expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 3, testsTotal: 3, detail: "" });
        expect(o.wallTimeMs).toBeGreaterThan(0);
      },
      SLOW,
    );

    test(
      "a wrong answer fails with the passing cases counted and the first failure in detail",
      async () => {
        const source = isJava
          ? javaMain(
              "        long a = in.nextLong(), b = in.nextLong();\n        System.out.println(Math.abs(a + b));",
            )
          : cppMain("    std::cout << (a + b < 0 ? -(a + b) : a + b) << '\\n';");
        const tests: StdioTests = {
          style: "stdio",
          cases: [...ADD_TESTS.cases, { input: "-3 1", output: "-2" }],
        };
        const o = await run(sandbox, source, tests, DEFAULT_LIMITS);
        expect(o).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 3, testsTotal: 4 });
        expect(o.detail).toBe('case 4: wrong answer, expected "-2", got "2\\n"');
      },
      SLOW,
    );

    test(
      "a compile error is COMPILE_ERROR with the compiler's first error in detail and its output in stderrTail",
      async () => {
        const source = isJava
          ? javaMain("        System.out.println(undefinedName);")
          : cppMain("    std::cout << undefined_name;");
        const o = await run(sandbox, source, ADD_TESTS, DEFAULT_LIMITS);
        expect(o).toMatchObject({ verdict: "COMPILE_ERROR", testsPassed: 0, testsTotal: 3 });
        if (isJava) {
          expect(o.detail).toMatch(/^compile error: Main\.java:\d+: error: cannot find symbol$/);
          expect(o.stderrTail).toContain("symbol:   variable undefinedName");
        } else {
          expect(o.detail).toMatch(
            /^compile error: main\.cpp:\d+:\d+: error: ['‘]undefined_name['’] was not declared/,
          );
          expect(o.stderrTail).toContain("undefined_name");
        }
      },
      SLOW,
    );

    test(
      "an infinite loop is TIMEOUT at the wall limit; the cases before it count, the rest are not run",
      async () => {
        const limits = { ...DEFAULT_LIMITS, wallTimeMs: 3_000 };
        const source = isJava
          ? javaMain(
              "        long a = in.nextLong(), b = in.nextLong();\n        while (a < 0) { b++; }\n        System.out.println(a + b);",
            )
          : cppMain("    while (a < 0) { b++; __asm__ volatile(\"\"); }\n    std::cout << a + b << '\\n';");
        const tests: StdioTests = {
          style: "stdio",
          cases: [
            { input: "1 2", output: "3" },
            { input: "-1 0", output: "-1" },
            { input: "2 2", output: "4" },
          ],
        };
        const started = performance.now();
        const o = await run(sandbox, source, tests, limits);
        const elapsed = performance.now() - started;
        expect(o).toMatchObject({ verdict: "TIMEOUT", testsPassed: 1, testsTotal: 3 });
        expect(o.detail).toBe("case 2: wall budget of 3000 ms spent");
        // The budget runs out, and then the run ends: compiling (a few seconds at most here) plus 3 s.
        expect(elapsed).toBeGreaterThan(3_000);
        expect(elapsed).toBeLessThan(3_000 + 20_000);
      },
      SLOW,
    );

    test(
      "a memory bomb is MEMORY_LIMIT",
      async () => {
        const source = isJava
          ? javaMain(
              "        List<long[]> hog = new ArrayList<>();\n        while (true) hog.add(new long[1 << 20]);",
            )
          : cppMain(
              "    std::vector<std::vector<char>> hog;\n    for (;;) hog.emplace_back(1 << 24, 'x');",
              "#include <vector>",
            );
        const o = await run(sandbox, source, ADD_TESTS, DEFAULT_LIMITS);
        expect(o).toMatchObject({
          verdict: "MEMORY_LIMIT",
          testsPassed: 0,
          testsTotal: 3,
          detail: "case 1: out of memory",
        });
        expect(o.stderrTail).toContain(
          isJava ? "java.lang.OutOfMemoryError: Java heap space" : "std::bad_alloc",
        );
      },
      SLOW,
    );

    test(
      "an output flood is RUNTIME_ERROR (output limit), stopped at the cap",
      async () => {
        const source = isJava
          ? javaMain('        while (true) System.out.println("spam spam spam");')
          : cppMain('    for (;;) std::cout << "spam spam spam\\n";');
        const tests: StdioTests = {
          style: "stdio",
          cases: [ADD_TESTS.cases[0] as StdioTests["cases"][number]],
        };
        const o = await run(sandbox, source, tests, DEFAULT_LIMITS);
        expect(o).toMatchObject({
          verdict: "RUNTIME_ERROR",
          testsPassed: 0,
          detail: "case 1: output limit exceeded",
        });
      },
      SLOW,
    );

    test(
      "deep recursion has room: a 10^6-deep call chain (C++ on the main stack, Java in a big-stack thread)",
      async () => {
        const source = isJava
          ? javaMain(
              `        long a = in.nextLong(), b = in.nextLong();
        long[] result = new long[1];
        Thread t = new Thread(null, () -> result[0] = depth(1_000_000) + a + b, "deep", 1L << 28);
        t.start();
        t.join();
        System.out.println(result[0] - 1_000_000);
    }

    static long depth(int n) {
        return n == 0 ? 0 : 1 + depth(n - 1);`,
            )
          : cppMain(
              "    std::cout << depth(1000000) - 1000000 + a + b << '\\n';",
              "__attribute__((noinline)) long long depth(int n) {\n    volatile char pad[64];\n    pad[0] = (char)n;\n    return n == 0 ? 0 : 1 + depth(n - 1) + pad[0] - pad[0];\n}",
            );
        const o = await run(sandbox, source, ADD_TESTS, DEFAULT_LIMITS);
        expect(o, o.stderrTail).toMatchObject({ verdict: "PASSED", testsPassed: 3 });
      },
      SLOW,
    );
  });

  describe("C++ specifics", () => {
    test(
      "a segfault is RUNTIME_ERROR killed by SIGSEGV; an uncaught exception, by SIGABRT with its type",
      async () => {
        const segv = await runCppTests(
          sandbox,
          cppMain("    volatile int *p = nullptr;\n    *p = (int)a;"),
          ADD_TESTS,
          DEFAULT_LIMITS,
        );
        expect(segv).toMatchObject({
          verdict: "RUNTIME_ERROR",
          testsPassed: 0,
          detail: "case 1: killed by SIGSEGV",
        });
        const thrown = await runCppTests(
          sandbox,
          cppMain("    std::vector<int> v(2);\n    std::cout << v.at(a + 10) + b;", "#include <vector>"),
          ADD_TESTS,
          DEFAULT_LIMITS,
        );
        expect(thrown).toMatchObject({ verdict: "RUNTIME_ERROR", detail: "case 1: killed by SIGABRT" });
        expect(thrown.stderrTail).toContain("std::out_of_range");
      },
      SLOW,
    );

    test(
      "a compile that exceeds its own budget is COMPILE_ERROR; the budget is separate from the run's",
      async () => {
        const o = await runCppTests(
          sandbox,
          `#include <bits/stdc++.h>\n${CPP_ADD}`,
          ADD_TESTS,
          { ...DEFAULT_LIMITS, wallTimeMs: 100_000 },
          undefined,
          { compileTimeMs: 300 },
        );
        expect(o).toMatchObject({
          verdict: "COMPILE_ERROR",
          detail: "compile error: compilation exceeded 300 ms",
        });
        // A run limit far below the compile time still leaves the compile its own budget.
        const fast = await runCppTests(sandbox, `#include <bits/stdc++.h>\n${CPP_ADD}`, ADD_TESTS, {
          ...DEFAULT_LIMITS,
          wallTimeMs: 1_000,
        });
        expect(fast).toMatchObject({ verdict: "PASSED", testsPassed: 3 });
      },
      SLOW,
    );

    test(
      "source that includes the driver's stdin cannot read it: a compile error, not a broken run",
      async () => {
        // The driver is pid 2 of a fresh sandbox and non-dumpable, so /proc/2/fd/0 does not open; were it
        // readable, the compiler would consume the harness's nonce and inputs (an INFRA_ERROR the candidate
        // could cause at will).
        const o = await runCppTests(
          sandbox,
          `#include "/proc/2/fd/0"\n${CPP_ADD}`,
          ADD_TESTS,
          DEFAULT_LIMITS,
        );
        expect(o.verdict).toBe("COMPILE_ERROR");
        expect(o.detail).toContain("/proc/2/fd/0");
      },
      SLOW,
    );

    test("a compiler that cannot start is INFRA_ERROR", async () => {
      const broken: CompiledLanguage = {
        name: "C++",
        runtime: "cpp",
        prepare: (source) => ({
          files: { "main.cpp": source },
          compile: ["minedit-no-such-compiler"],
          env: {},
          run: ["./main"],
        }),
        addressSpaceBytes: (bytes) => bytes,
      };
      const o = await runCompiledTests(sandbox, broken, CPP_ADD, ADD_TESTS, DEFAULT_LIMITS);
      expect(o.verdict).toBe("INFRA_ERROR");
      expect(o.detail).toMatch(/^the C\+\+ compiler could not start: minedit-no-such-compiler: /);
    });
  });

  describe("Java specifics", () => {
    test(
      "an uncaught exception is RUNTIME_ERROR with the exception in stderrTail; System.exit(3) too",
      async () => {
        const thrown = await runJavaTests(
          sandbox,
          javaMain(
            "        int[] small = new int[2];\n        System.out.println(small[in.nextInt() + 10]);",
          ),
          ADD_TESTS,
          DEFAULT_LIMITS,
        );
        expect(thrown).toMatchObject({ verdict: "RUNTIME_ERROR", detail: "case 1: exit code 1" });
        expect(thrown.stderrTail).toContain("java.lang.ArrayIndexOutOfBoundsException");
        const exited = await runJavaTests(
          sandbox,
          javaMain("        System.exit(3);"),
          ADD_TESTS,
          DEFAULT_LIMITS,
        );
        expect(exited).toMatchObject({ verdict: "RUNTIME_ERROR", detail: "case 1: exit code 3" });
      },
      SLOW,
    );

    test(
      "source quoting the JVM's start-up failure is still the candidate's COMPILE_ERROR, not INFRA_ERROR",
      async () => {
        const source = `public class Main {\n    int x = 1\nError occurred during initialization of VM\n}\n`;
        const o = await runJavaTests(sandbox, source, ADD_TESTS, DEFAULT_LIMITS);
        expect(o.verdict).toBe("COMPILE_ERROR");
        expect(o.stderrTail).toContain("Error occurred during initialization of VM");
      },
      SLOW,
    );

    test(
      "any public class name and a package declaration work",
      async () => {
        const source = `package contest.solutions;\n\n${JAVA_ADD.replace("public class Main", "public class Adder")}`;
        const o = await runJavaTests(sandbox, source, ADD_TESTS, DEFAULT_LIMITS);
        expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 3 });
      },
      SLOW,
    );
  });
});

describe("warm interpreters (the server's default sandbox)", () => {
  let warm: Sandbox;

  beforeAll(async () => {
    warm = await createWarmSandbox(1);
  });

  afterAll(async () => {
    await warm.close();
  });

  test.each(LANGUAGES)(
    "%s: compile and cases run through a fork server just the same",
    async (_language, run, source) => {
      const o = await run(warm, source, ADD_TESTS, DEFAULT_LIMITS);
      expect(o).toMatchObject({ verdict: "PASSED", testsPassed: 3, testsTotal: 3 });
      const wrong = await run(
        warm,
        source,
        { style: "stdio", cases: [{ input: "1 1", output: "3" }] },
        DEFAULT_LIMITS,
      );
      expect(wrong).toMatchObject({ verdict: "FAILED_TESTS", testsPassed: 0, testsTotal: 1 });
    },
    SLOW,
  );
});
