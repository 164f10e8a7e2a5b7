/**
 * `minedit setup --runtime NAME`: install a task runtime. Parse the flags → src/sandbox/runtime-setup.ts
 * (missing Debian packages, apt-get as root, the import check in the sandbox) → exit code. The help lists
 * the runtime table (sandbox/runtimes.ts, data); the installer and the sandbox are imported when it runs.
 */
import { parseArgs } from "node:util";
import type { StdIo } from "../io/std-io.js";
import { RUNTIME_NAMES, runtimeNamed } from "../sandbox/runtimes.js";
import { commandFailure, EXIT, usageFailure } from "./failures.js";

export function setupHelp(): string {
  const runtimes = RUNTIME_NAMES.map((name) => {
    const runtime = runtimeNamed(name);
    const count = Object.keys(runtime.packages).length;
    const what = count === 0 ? "nothing to install" : `${count} Debian packages`;
    return `  ${name.padEnd(14)}${wrap(`${what}: ${runtime.description}`, 86).join(`\n${" ".repeat(16)}`)}`;
  }).join("\n");
  return `Usage: minedit setup --runtime NAME [--check]

Installs a task runtime: the Python libraries a task's tests may import inside the sandbox besides the
standard library. A task row names its runtime ("runtime": NAME; default stdlib); a task whose runtime is
not installed is not served (the server says so at start and answers FAILED_PRECONDITION).

Steps: report which of the runtime's Debian packages are missing (dpkg-query); install them with
\`apt-get install --no-install-recommends\` when running as root (otherwise print the exact command and
exit ${EXIT.usage}); then check in the sandbox that every module of the runtime imports, and start one of
its fork servers (warm interpreters preload the runtime's heavy modules before forking) to report how long
the preload takes and the server's resident size. Running it again when all is installed only checks.

Runtimes (sandbox/runtimes.json):
${runtimes}

Options:
  --runtime NAME   the runtime to install (required)
  --check          report and check only; install nothing (exit ${EXIT.usage} when packages are missing)
  -h, --help       this help

Exit codes:
  ${EXIT.ok}  the runtime is installed and imports in the sandbox
  ${EXIT.usage}  usage error, or packages are missing and were not installed (not root, or --check)
  ${EXIT.internal}  apt-get failed, or a module does not import in the sandbox
`;
}

export async function runSetup(argv: readonly string[], io: StdIo): Promise<number> {
  let values: { runtime?: string; check?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        runtime: { type: "string" },
        check: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return usageFailure(io, "setup", error instanceof Error ? error.message : String(error));
  }
  if (values.help === true) {
    io.stdout.write(setupHelp());
    return EXIT.ok;
  }
  if (values.runtime === undefined) return usageFailure(io, "setup", "--runtime NAME is required");
  const log = (line: string) => io.stderr.write(`minedit setup: ${line}\n`);
  try {
    // The configuration's schema (zod) and the setup machinery are loaded once the flags are good, so
    // `--help` does not pay for them.
    const [{ parseConfig }, { setupRuntime }] = await Promise.all([
      import("../config.js"),
      import("../sandbox/runtime-setup.js"),
    ]);
    const outcome = await setupRuntime(values.runtime, {
      pythonPath: parseConfig({}).sandbox.pythonPath,
      checkOnly: values.check === true,
      log,
    });
    switch (outcome.status) {
      case "ready":
        log(`runtime "${values.runtime}" is ready`);
        return EXIT.ok;
      case "missing":
        log(`install them with:\n  ${outcome.command}`);
        return EXIT.usage;
      case "broken":
        for (const problem of outcome.problems) log(`  ${problem}`);
        log(`runtime "${values.runtime}" is installed but does not work in the sandbox`);
        return EXIT.internal;
    }
  } catch (error) {
    return commandFailure(io, "setup", error);
  }
}

/** `text` in lines of at most `width` characters, broken at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
