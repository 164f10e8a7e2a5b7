/**
 * Java programs with stdin/stdout tests (docs/lint.md): `javac`, then `java` per case, through the
 * compiled-language runner (compiled.ts).
 *
 * The class: a program is one source file whose entry point is its public top-level class (`public class
 * Main` by convention, as on most judges); the file is saved under that class's name, so any public class
 * name works. Without a public top-level class, the top-level class declaring `main` runs (else the first
 * one, else `Main`). A `package` declaration is honoured (`java pkg.Main`).
 *
 * Memory: the JVM reserves far more address space than it uses (heap, class space and code cache
 * reservations, a malloc arena per thread, thread stacks), so RLIMIT_AS at the limit itself would refuse
 * to start it or leave a small heap. Instead the heap gets the limit, `-Xmx<memoryBytes>` (a judge's
 * usual reading of "1 GiB" for Java; exceeding it is `java.lang.OutOfMemoryError`, MEMORY_LIMIT), and the
 * address space gets {@link JVM_ADDRESS_SPACE_ALLOWANCE_BYTES} on top. With the flags below a JVM with a
 * 1 GiB heap peaks at ~1.5 GB of address space, leaving ~0.5 GB for thread stacks (e.g. the usual
 * `new Thread(null, task, "", 1 << 26)` for deep recursion; the main thread keeps the JVM's 1 MiB stack,
 * since `-Xss` would apply to every Java thread and cost its size in address space each). The flags:
 * - `-XX:+UseSerialGC`: no GC threads, the smallest footprint, deterministic pauses; what a single-threaded
 *   program wants.
 * - `-XX:CompressedClassSpaceSize=64m`, `-XX:ReservedCodeCacheSize=64m`: the class space (1 GiB) and code
 *   cache (240 MiB) are reserved up front by default; small programs need a fraction.
 * - `-XX:ActiveProcessorCount=2`: the JVM sizes its compiler threads (and a program its thread pools) by
 *   the host's cores; fixed, the thread count stays well under `maxProcesses` on any host and runs are
 *   comparable across hosts.
 * - `-XX:-UsePerfData`: no hsperfdata file in the scratch directory, a faster start.
 * - `MALLOC_ARENA_MAX=2`: glibc would reserve a 64 MiB arena per thread.
 * `javac` gets the same flags with a 512 MiB heap and `-XX:TieredStopAtLevel=1` (the C1 compiler only:
 * ~40% faster for a short compile).
 */
import { type CompiledLanguage, type CompiledRunner, compiledRunner } from "./compiled.js";

/** Address space the JVM gets beyond its heap (see the module doc). */
export const JVM_ADDRESS_SPACE_ALLOWANCE_BYTES = 1024 * 1024 * 1024;

/** JVM options shared by `javac` (its own runtime) and `java`. */
export const JVM_FLAGS: readonly string[] = [
  "-XX:+UseSerialGC",
  "-XX:CompressedClassSpaceSize=64m",
  "-XX:ReservedCodeCacheSize=64m",
  "-XX:ActiveProcessorCount=2",
  "-XX:-UsePerfData",
];

const JAVAC_FLAGS: readonly string[] = [...JVM_FLAGS, "-Xmx512m", "-XX:TieredStopAtLevel=1"];

/** The Java entry point of a source file and the file name javac requires for it. */
export type JavaEntry = {
  /** Simple name of the class to run (and of the file, `<className>.java`). */
  className: string;
  /** The declared package, or null. */
  packageName: string | null;
};

const IDENT = String.raw`[\p{L}_$][\p{L}\p{N}_$]*`;

/**
 * Finds the class to run in a Java source file (see the module doc): comments and string, text-block
 * and char literals are blanked first, then top-level type declarations are found by brace depth.
 */
export function javaEntry(source: string): JavaEntry {
  const code = blankCommentsAndLiterals(source);
  const packageMatch = new RegExp(String.raw`^\s*package\s+(${IDENT}(?:\s*\.\s*${IDENT})*)\s*;`, "u").exec(
    code,
  );
  const token = new RegExp(
    String.raw`[{}]|\b(?:class|interface|enum|record)\s+(${IDENT})|\bvoid\s+main\s*\(`,
    "gu",
  );
  let depth = 0;
  let current: string | null = null;
  let publicType: string | null = null;
  let mainType: string | null = null;
  let firstType: string | null = null;
  let lastBoundary = 0;
  for (const match of code.matchAll(token)) {
    const text = match[0];
    if (text === "{") {
      depth++;
      lastBoundary = match.index + 1;
    } else if (text === "}") {
      depth = Math.max(0, depth - 1);
      lastBoundary = match.index + 1;
    } else if (match[1] !== undefined) {
      if (depth !== 0) continue;
      const name = match[1];
      // The modifiers are what stands between the previous `;`, `{` or `}` and the keyword.
      const before = code.slice(lastBoundary, match.index);
      const modifiers = before.slice(before.lastIndexOf(";") + 1);
      current = name;
      firstType ??= name;
      if (publicType === null && /\bpublic\b/.test(modifiers)) publicType = name;
    } else if (depth === 1 && current !== null) {
      mainType ??= current;
    }
  }
  return {
    className: publicType ?? mainType ?? firstType ?? "Main",
    packageName: packageMatch?.[1]?.replace(/\s+/g, "") ?? null,
  };
}

/** The source with comments and the contents of string, text-block and char literals replaced by spaces. */
function blankCommentsAndLiterals(source: string): string {
  let out = "";
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i];
    const next = source[i + 1];
    let end: number;
    if (c === "/" && next === "/") {
      end = source.indexOf("\n", i);
      if (end < 0) end = n;
    } else if (c === "/" && next === "*") {
      end = source.indexOf("*/", i + 2);
      end = end < 0 ? n : end + 2;
    } else if (c === '"' && source.startsWith('"""', i)) {
      end = closing(source, i + 3, '"""');
    } else if (c === '"' || c === "'") {
      end = closing(source, i + 1, c);
    } else {
      out += c;
      i++;
      continue;
    }
    // Newlines stay, so nothing joins across lines; the rest becomes spaces.
    out += ` ${source.slice(i, end).replace(/[^\n]/g, " ")}`;
    i = end;
  }
  return out;
}

/** Index just past the `quote` that closes a literal whose contents start at `from` (backslash escapes). */
function closing(source: string, from: number, quote: string): number {
  let i = from;
  while (i < source.length) {
    if (source[i] === "\\") i += 2;
    else if (source.startsWith(quote, i)) return i + quote.length;
    else if (quote.length === 1 && source[i] === "\n") return i;
    else i++;
  }
  return source.length;
}

export const JAVA: CompiledLanguage = {
  name: "Java",
  runtime: "java",
  prepare: (source, limits) => {
    const entry = javaEntry(source);
    const file = `${entry.className}.java`;
    return {
      files: { [file]: source },
      compile: [
        "javac",
        ...JAVAC_FLAGS.map((flag) => `-J${flag}`),
        "-encoding",
        "UTF-8",
        "-proc:none",
        "-d",
        ".",
        file,
      ],
      env: { MALLOC_ARENA_MAX: "2" },
      run: [
        "java",
        ...JVM_FLAGS,
        `-Xmx${limits.memoryBytes}`,
        "-cp",
        ".",
        entry.packageName === null ? entry.className : `${entry.packageName}.${entry.className}`,
      ],
    };
  },
  addressSpaceBytes: (memoryBytes) => memoryBytes + JVM_ADDRESS_SPACE_ALLOWANCE_BYTES,
  compilerBroken:
    /^(?:Error occurred during initialization of VM|Error: Could not create the Java Virtual Machine)/m,
};

/**
 * Compiles the Java `source` (saved as `<class>.java`, see {@link javaEntry}) and runs it on each
 * stdin/stdout case of `tests`: `runJavaTests(sandbox, source, tests, limits, signal?, options?)`. See
 * compiled.ts for the stages, limits and verdicts (COMPILE_ERROR with javac's first error in `detail`).
 */
export const runJavaTests: CompiledRunner = compiledRunner(JAVA);
