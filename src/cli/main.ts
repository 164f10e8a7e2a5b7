/**
 * The `minedit` command line: `minedit <command> [...]`. Dispatches to one module per command
 * (src/cli/<command>.ts), each of which parses its flags, does the work and returns an exit code.
 * bin/minedit.js is the launcher; this module is also importable (tests, embedding) via {@link main}.
 *
 * Every invocation pays for what it imports, so a command's module is imported only when that command
 * is asked for (`load`), and `minedit --help` imports none: the synopses live here. A command module keeps
 * its help and flag tables light and imports its machinery (gRPC, the queue, the sandbox, the metrics
 * pool) when it runs; tests/unit/cli-startup.test.ts holds every `--help` to that.
 */
import type { StdIo } from "../io/std-io.js";
import { version } from "../version.js";
import { EXIT } from "./failures.js";

/** What a command module gives main: its help text and its run. */
type CommandModule = {
  help(): string;
  run(argv: readonly string[], io: StdIo): Promise<number>;
};

type Command = {
  /** One line for `minedit --help`. */
  synopsis: string;
  /** Imports the command's module: its help and flags, the rest being imported when it runs. */
  load(): Promise<CommandModule>;
};

const COMMANDS: Readonly<Record<string, Command>> = {
  score: {
    synopsis: "score FILE.jsonl [options]  score completions offline: run their tests, reward minimal edits",
    load: async () => {
      const m = await import("./score.js");
      return { help: () => m.scoreHelp(), run: m.runScore };
    },
  },
  serve: {
    synopsis:
      "serve [options]             run the gRPC reward service (ScoreBatch, ScoreStream, health, reflection)",
    load: async () => {
      const m = await import("./serve.js");
      return { help: () => m.serveHelp(), run: m.runServe };
    },
  },
  worker: {
    synopsis:
      "worker --queue redis://H:P  run the executions `serve --queue` fronts put on the queue, in this sandbox",
    load: async () => {
      const m = await import("./worker.js");
      return { help: () => m.workerHelp(), run: m.runWorker };
    },
  },
  demo: {
    synopsis:
      "demo [options]              start the service, score a demo batch over gRPC, print rewards, stop",
    load: async () => {
      const m = await import("./demo.js");
      return { help: () => m.demoHelp(), run: m.runDemo };
    },
  },
  export: {
    synopsis:
      "export --kind K --format F  export SFT, rSFT, DPO or GRPO training data for TRL, LlamaFactory, verl, OpenRLHF",
    load: async () => {
      const m = await import("./export.js");
      return { help: () => m.exportHelp(), run: m.runExportCommand };
    },
  },
  tasks: {
    synopsis:
      "tasks build|stats [opts]    build repair tasks by corruption from a problem source; report a task set",
    load: async () => {
      const m = await import("./tasks.js");
      return { help: () => m.tasksHelp(), run: m.runTasks };
    },
  },
  eval: {
    synopsis:
      "eval run|compare|report     held-out evaluation: generate from an endpoint, score, compare runs, report",
    load: async () => {
      const m = await import("./eval.js");
      return { help: () => m.evalHelp(), run: m.runEval };
    },
  },
  lint: {
    synopsis:
      "lint report FILE.jsonl      lint refactorings: Pylint/clang-tidy/PMD alerts fixed and new, LintEval metrics",
    load: async () => {
      const m = await import("./lint.js");
      return { help: () => m.lintHelp(), run: m.runLint };
    },
  },
  setup: {
    synopsis:
      "setup --runtime NAME        install a task runtime (e.g. bigcodebench: pandas, numpy, matplotlib, ...)",
    load: async () => {
      const m = await import("./setup.js");
      return { help: () => m.setupHelp(), run: m.runSetup };
    },
  },
};

/** `minedit --help`. */
export function mainHelp(): string {
  const commands = Object.values(COMMANDS)
    .map((c) => `  ${c.synopsis}`)
    .join("\n");
  return (
    `Usage: minedit <command> [options]

minedit computes the edit-minimality reward for Python code repairs: a repair that passes earns more
the closer it stays to the minimal fix.

  reward = λexec − λedit·(d(M,C) − d(G,C)) if the repair passes, else the failure reward
  (d = normalized token edit distance; M = model's program, C = corrupted program, G = gold repair)

Commands:
${commands}

Options:
  -h, --help      show this help; \`minedit <command> --help\` (or \`minedit help <command>\`) for a command
  -V, --version   print the version

Exit codes: ${EXIT.ok} success, ${EXIT.badRows} some input rows were bad (the rest were processed), ` +
    `${EXIT.usage} usage error, ${EXIT.internal} internal error.
`
  );
}

const DEFAULT_IO: StdIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

/** Runs `minedit` with the arguments after the program name; resolves to the exit code. */
export async function main(argv: readonly string[], io: StdIo = DEFAULT_IO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(mainHelp());
    return EXIT.usage;
  }
  if (first === "-h" || first === "--help") {
    io.stdout.write(mainHelp());
    return EXIT.ok;
  }
  if (first === "-V" || first === "--version") {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (first === "help") {
    const topic = rest[0];
    if (topic === undefined) {
      io.stdout.write(mainHelp());
      return EXIT.ok;
    }
    const command = commandNamed(topic);
    if (command === undefined) return unknownCommand(topic, io);
    io.stdout.write((await command.load()).help());
    return EXIT.ok;
  }
  const command = commandNamed(first);
  if (command === undefined) return unknownCommand(first, io);
  return (await command.load()).run(rest, io);
}

/** Own keys only: `minedit constructor` must not find Object.prototype.constructor. */
function commandNamed(name: string): Command | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function unknownCommand(name: string, io: StdIo): number {
  const known = Object.keys(COMMANDS).join(", ");
  const what = name.startsWith("-") ? `unknown option ${name}` : `unknown command "${name}"`;
  io.stderr.write(`minedit: ${what} (commands: ${known}).\nRun \`minedit --help\` for usage.\n`);
  return EXIT.usage;
}
