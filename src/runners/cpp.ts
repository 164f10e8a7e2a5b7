/**
 * C++ programs with stdin/stdout tests (docs/lint.md): `g++ -std=c++17 -O2`, then the binary per case, through
 * the compiled-language runner (compiled.ts). The program's address space is limited to
 * `limits.memoryBytes` (1 GiB by default, LintEval's limit), everything included.
 */
import { type CompiledLanguage, type CompiledRunner, compiledRunner } from "./compiled.js";

/** The compiler command; `-pipe` keeps the intermediate files off the size-capped scratch tmpfs. */
export const CPP_COMPILE_ARGV: readonly string[] = [
  "g++",
  "-std=c++17",
  "-O2",
  "-pipe",
  "-o",
  "main",
  "main.cpp",
];

/**
 * The program's stack limit: 256 MiB, as judges give (a recursive DFS over 10^5–10^6 nodes overflows the
 * usual 8 MiB). It only bounds growth; what is used still counts against the address-space limit.
 */
export const CPP_STACK_BYTES = 256 * 1024 * 1024;

export const CPP: CompiledLanguage = {
  name: "C++",
  runtime: "cpp",
  prepare: (source) => ({
    files: { "main.cpp": source },
    compile: [...CPP_COMPILE_ARGV],
    env: {},
    run: ["./main"],
    stackBytes: CPP_STACK_BYTES,
  }),
  addressSpaceBytes: (memoryBytes) => memoryBytes,
  // The driver cannot start a part of GCC (a broken installation).
  compilerBroken: /^g\+\+: fatal error: cannot execute/m,
};

/**
 * Compiles the C++17 `source` (as `main.cpp`) and runs it on each stdin/stdout case of `tests`:
 * `runCppTests(sandbox, source, tests, limits, signal?, options?)`. See compiled.ts for the stages, limits
 * and verdicts (COMPILE_ERROR with g++'s first error in `detail`).
 */
export const runCppTests: CompiledRunner = compiledRunner(CPP);
