/**
 * Start-up of the CLI (issue 30): `minedit --help` and `minedit <command> --help` must not load the
 * machinery of any command — gRPC, the queue, the sandbox, the metrics pool, the model client, the charts.
 * Checked on the module graph of the built code (dist/, which the global setup builds), not with a clock:
 * from bin/minedit.js, dist/cli/main.js and each command's module (what main's `load()` imports), the
 * static imports are followed — what Node evaluates before the first line of the help runs — and the
 * dynamic `import()`s are not, since they run only when a command does its work. The benchmark in
 * benchmarks/startup/ times the same commands.
 */
import { readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DIST = join(ROOT, "dist");

/** Specifiers of a module's static imports and re-exports: `import x from`, `export * from`, `import "x"`. */
function staticImports(source: string): string[] {
  const found: string[] = [];
  // At the start of a line only, so that `import x from "y"` in a comment or a string does not count.
  const statement = /^\s*(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']/gms;
  const sideEffect = /^\s*import\s*["']([^"']+)["']/gm;
  for (const pattern of [statement, sideEffect]) {
    for (const match of source.matchAll(pattern)) found.push(match[1] as string);
  }
  return found;
}

/** Specifiers of a module's dynamic imports: `import("./x.js")`. */
function dynamicImports(source: string): string[] {
  return [...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] as string);
}

/** The package a bare specifier names: `@scope/name/x` → `@scope/name`, `name/x` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/**
 * Everything the static imports of `entries` reach: each module (an absolute path) and each package (not
 * followed into node_modules: a package reached is loaded, whatever it imports), with the module that
 * first imported it, to show the chain. Built-ins are left out. `read` gives a module's source.
 */
function reach(
  entries: readonly string[],
  read: (path: string) => string,
): { modules: Map<string, string | null>; packages: Map<string, string> } {
  const modules = new Map<string, string | null>(entries.map((entry) => [entry, null]));
  const packages = new Map<string, string>();
  const queue = [...entries];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    for (const specifier of staticImports(read(path))) {
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(path), specifier);
        if (!modules.has(target)) {
          modules.set(target, path);
          queue.push(target);
        }
      } else if (!isBuiltin(specifier)) {
        const name = packageOf(specifier);
        if (!packages.has(name)) packages.set(name, path);
      }
    }
  }
  return { modules, packages };
}

/** `a.js → b.js → c.js`: how `path` was reached, relative to `root`. */
function chain(modules: ReadonlyMap<string, string | null>, path: string, root: string): string {
  const steps: string[] = [];
  for (let at: string | null | undefined = path; at != null; at = modules.get(at))
    steps.unshift(relative(root, at));
  return steps.join(" → ");
}

/** Packages whose loading costs a command's start-up and that no help needs. */
const HEAVY_PACKAGES = [
  "@grpc/grpc-js",
  "@grpc/reflection",
  "@bufbuild/protobuf",
  "bullmq",
  "ioredis",
  "dockerode",
  "openai",
  "piscina",
  "web-tree-sitter",
  "tree-sitter-python",
  "fast-levenshtein",
  "hyparquet",
  "hyparquet-writer",
  "prom-client",
  "pino",
  "vega",
  "vega-lite",
];

/**
 * Directories of dist/ whose modules are a command's work, not its help: the service, the queue, the
 * scoring engine, the sandbox, the workers, the runners and analyzers, the model client, the Python parser,
 * and the report renderers (charts, HTML) of eval.
 */
const HEAVY_DIRS = [
  "server",
  "queue",
  "scoring",
  "sandbox",
  "workers",
  "runners",
  "analyzers",
  "generation",
  "gen",
  "core/python",
  "eval",
  "export",
  "lint",
  "tasks/importers",
];

/**
 * What a help may load although it sits in a heavy directory, and why. Each entry is a module of dist/
 * (relative) that the help of the named commands prints data from; what it imports is checked as usual.
 */
const ALLOWED: Readonly<Record<string, { commands: readonly string[]; why: string }>> = {
  "sandbox/runtimes.js": {
    commands: ["setup"],
    why: "setup's help lists the runtimes of sandbox/runtimes.json",
  },
  "sandbox/runtime-libraries.js": {
    commands: ["setup"],
    why: "imported by sandbox/runtimes.js; spawns nothing at load",
  },
  "sandbox/library-view-cache.js": {
    commands: ["setup"],
    why: "imported by sandbox/runtime-libraries.js; reads nothing at load",
  },
  "sandbox/host-facts-cache.js": {
    commands: ["setup"],
    why: "imported by sandbox/runtime-libraries.js; reads nothing at load",
  },
  "sandbox/host-command.js": {
    commands: ["setup"],
    why: "imported by sandbox/runtimes.js; spawns nothing at load",
  },
  "tasks/importers/types.js": {
    commands: ["tasks"],
    why: "the import formats `tasks build --help` lists (constants)",
  },
  "export/splits.js": {
    commands: ["lint", "export"],
    why: "`lint tasks --split`'s and `export --splits`' rule (a hash), checked while parsing flags",
  },
  "export/records.js": { commands: ["export"], why: "the kinds and fixers the help lists (constants)" },
  "export/selection.js": { commands: ["export"], why: "the --rejected modes the help lists (constants)" },
  "export/format.js": { commands: ["export"], why: "the format names and the export-name rule" },
  "export/formats.js": { commands: ["export"], why: "the formats' kinds and styles the help lists" },
  "export/format-hf.js": { commands: ["export"], why: "imported by formats.js: a row mapping, no writer" },
  "export/format-llamafactory.js": { commands: ["export"], why: "imported by formats.js: a row mapping" },
  "export/format-openrlhf.js": { commands: ["export"], why: "imported by formats.js: a row mapping" },
  "export/format-verl.js": { commands: ["export"], why: "imported by formats.js: a row mapping and schema" },
  "scoring/limits.js": { commands: ["export"], why: "the lint corpora's limits, read from the config" },
  "eval/report-schema.js": { commands: ["eval", "export"], why: "the default statistics the help shows" },
  "eval/records.js": { commands: ["eval", "export"], why: "imported by report-schema.js: the outcome names" },
  "eval/run-files.js": { commands: ["eval"], why: "the run directory's file names (the journal's default)" },
  "eval/run-name.js": { commands: ["eval"], why: "a run's default name, made while parsing flags" },
  "eval/study-settings.js": {
    commands: ["eval"],
    why: "`eval study`'s reasoning labels, checked while parsing flags",
  },
  "generation/backoff.js": {
    commands: ["eval", "export"],
    why: "the retry defaults the help shows (constants)",
  },
  "generation/sampling.js": {
    commands: ["eval", "export"],
    why: "the API names and the endpoint's normalization",
  },
};

/**
 * Commands whose help shows no configured default, and so must not load the configuration schema either:
 * zod takes about as long to load as Node itself takes to start. (The helps of score, serve, demo and
 * tasks print the defaults of src/config.ts, and setup's the runtime table, both validated with zod.)
 */
const NO_CONFIG: readonly string[] = ["", "lint", "worker"];

/**
 * Commands whose module is not light yet: their files are being changed elsewhere, and the report of
 * issue 30 names the imports to make lazy. Each is expected to fail below until it is fixed; then remove
 * it from this list.
 */
const PENDING: readonly string[] = [];

/**
 * What `reach` from `entries` loads that the help of `command` must not (`""`: `minedit --help`): one line
 * per offence, with its chain.
 */
function heavyReached(entries: readonly string[], command: string): string[] {
  const { modules, packages } = reach(entries, (path) => readFileSync(path, "utf8"));
  const offences: string[] = [];
  const heavyPackages = NO_CONFIG.includes(command) ? [...HEAVY_PACKAGES, "zod"] : HEAVY_PACKAGES;
  for (const [name, importer] of packages) {
    if (heavyPackages.includes(name)) offences.push(`${name} ← ${chain(modules, importer, DIST)}`);
  }
  for (const path of modules.keys()) {
    const inDist = relative(DIST, path);
    if (inDist.startsWith("..")) continue;
    const heavy = HEAVY_DIRS.some((dir) => inDist.startsWith(`${dir}/`));
    if (heavy && !ALLOWED[inDist]?.commands.includes(command)) offences.push(chain(modules, path, DIST));
  }
  return offences;
}

const MAIN = join(DIST, "cli", "main.js");
const BIN = join(ROOT, "bin", "minedit.js");

/** The command modules main imports when a command is asked for: its dynamic imports. */
function commandModules(): string[] {
  return dynamicImports(readFileSync(MAIN, "utf8")).map((specifier) => resolve(dirname(MAIN), specifier));
}

describe("the import walker", () => {
  const files: Record<string, string> = {
    "/p/main.js": [
      "/**",
      ' * import { nothing } from "./in-a-comment.js";',
      " */",
      'import { a } from "./a.js";',
      "import {",
      "  b,",
      "  c,",
      '} from "./b.js";',
      'export * from "./c.js";',
      'import "./side-effect.js";',
      'import { readFileSync } from "node:fs";',
      'import { join } from "path";',
      'const text = "import x from \\"./in-a-string.js\\"";',
      'export async function later() { return import("./dynamic.js"); }',
    ].join("\n"),
    "/p/a.js": 'export { z } from "zod";\nexport const a = 1;',
    "/p/b.js": 'import { Server } from "@grpc/grpc-js/build/src/server.js";\nimport "./a.js";',
    "/p/c.js": 'import { b } from "./b.js";\nexport { b };',
    "/p/side-effect.js": "",
    "/p/dynamic.js": 'import { Queue } from "bullmq";',
  };
  const read = (path: string) => {
    const source = files[path];
    if (source === undefined) throw new Error(`no module ${path}`);
    return source;
  };

  it("follows static imports and re-exports, not dynamic imports, comments or strings", () => {
    const { modules, packages } = reach(["/p/main.js"], read);
    expect([...modules.keys()].sort()).toEqual(
      ["/p/a.js", "/p/b.js", "/p/c.js", "/p/main.js", "/p/side-effect.js"].sort(),
    );
    expect([...packages.keys()].sort()).toEqual(["@grpc/grpc-js", "zod"]);
    expect(chain(modules, packages.get("@grpc/grpc-js") as string, "/p")).toBe("main.js → b.js");
  });

  it("sees what a dynamic import would load once it is followed", () => {
    expect(dynamicImports(read("/p/main.js"))).toEqual(["./dynamic.js"]);
    expect([...reach(["/p/dynamic.js"], read).packages.keys()]).toEqual(["bullmq"]);
  });
});

describe("the help of every command loads no command's machinery", () => {
  it("finds the heavy modules of dist/ where they are (the check is not vacuous)", () => {
    // server/server.js: the gRPC server, scoring-engine.js the engine, score-lint.js the lint scorer
    // (service.js and the scorer import each when it is needed).
    const offences = heavyReached(
      [
        join(DIST, "server", "service.js"),
        join(DIST, "server", "server.js"),
        join(DIST, "scoring", "scoring-engine.js"),
        join(DIST, "scoring", "score-lint.js"),
      ],
      "serve",
    );
    for (const name of ["@grpc/grpc-js", "piscina", "web-tree-sitter"]) {
      expect(offences.some((line) => line.startsWith(`${name} ←`))).toBe(true);
    }
    expect(offences.some((line) => line.includes("scoring/scoring-engine.js"))).toBe(true);
  });

  it("`minedit --help` loads main and no command module", () => {
    const { modules } = reach([BIN, MAIN], (path) => readFileSync(path, "utf8"));
    const loaded = [...modules.keys()].map((path) => relative(ROOT, path)).sort();
    // The launcher imports main dynamically; main itself reads the exit codes and the version only.
    expect(loaded).toEqual(
      [
        "bin/minedit.js",
        "dist/cli/failures.js",
        "dist/cli/main.js",
        "dist/errors.js",
        "dist/version.js",
      ].sort(),
    );
    expect(heavyReached([BIN, MAIN], "")).toEqual([]);
  });

  const commands = commandModules();

  it("main imports each command's module when the command is asked for, and only then", () => {
    const names = commands.map((path) => relative(join(DIST, "cli"), path));
    expect(names.sort()).toEqual(
      ["demo", "eval", "export", "lint", "score", "serve", "setup", "tasks", "worker"].map((c) => `${c}.js`),
    );
  });

  for (const command of ["demo", "eval", "export", "lint", "score", "serve", "setup", "tasks", "worker"]) {
    const test = PENDING.includes(command) ? it.fails : it;
    test(`\`minedit ${command} --help\` (and its subcommands' helps)`, () => {
      expect(heavyReached([MAIN, join(DIST, "cli", `${command}.js`)], command)).toEqual([]);
    });
  }
});

// Every command that scores starts metrics workers, each of which loads its own modules. The config
// schema (src/config.ts: every section built with zod at load) is not one of them: a worker gets the
// validated config with each job. Nor is zod itself: it loads its 64 locales with it, about as long as
// Node takes to start, in every worker (the rows' id and program checks of core/task-file.js are
// written out for that reason).
describe("a metrics worker's start-up", () => {
  it("does not load zod or build the configuration schema, and loads no sandbox, server or queue", () => {
    const worker = join(DIST, "workers", "metrics-worker.js");
    const { modules, packages } = reach([worker], (path) => readFileSync(path, "utf8"));
    const offences = [
      ...[...modules.keys()]
        .filter((path) => path === join(DIST, "config.js"))
        .map((path) => chain(modules, path, DIST)),
      ...[...packages]
        .filter(([name]) => ["zod", "@grpc/grpc-js", "bullmq", "dockerode"].includes(name))
        .map(([name, importer]) => `${name} ← ${chain(modules, importer, DIST)}`),
    ];
    expect(offences).toEqual([]);
    // What it does load: the analysis (tree-sitter's grammar) and the distance.
    expect([...packages.keys()]).toEqual(expect.arrayContaining(["web-tree-sitter", "fast-levenshtein"]));
  });
});

// What `minedit serve` loads before it listens (issue 30: ready ≤ 1 s on 2 cores, most of which is this
// thread loading modules): the service, the engine, the metrics pool and the gRPC server — not the lint
// scorer and the Python analysis behind it (the parser, the normalizer, tree-sitter; the metrics workers
// load their own), which a call with lint rollouts or an inline task naming no runtime imports when it
// comes, nor the endpoints that are off by default.
describe("`minedit serve`'s start", () => {
  const service = join(DIST, "server", "service.js");
  /** What startService imports on every start (the queue and the optional endpoints only when set). */
  const everyStart = [
    "../workers/metrics-pool.js",
    "../scoring/scoring-engine.js",
    "./metrics.js",
    "./metered-sandbox.js",
    "./observed-scorer.js",
    "./admission.js",
    "./server.js",
    "./call-observer.js",
    "./logger.js",
  ];

  it("imports the engine and the gRPC server as it starts, the optional parts when they are set", () => {
    const dynamic = dynamicImports(readFileSync(service, "utf8"));
    expect(dynamic).toEqual(expect.arrayContaining(everyStart));
    expect(dynamic.filter((specifier) => !everyStart.includes(specifier)).sort()).toEqual(
      [
        "../queue/queue-scorer.js",
        "../queue/queue-worker.js",
        "./metrics-http.js",
        "./openrlhf-http.js",
      ].sort(),
    );
  });

  it("loads no lint scorer, Python analysis, analyzer, reflection library or optional endpoint before it listens", () => {
    const entries = [service, ...everyStart.map((specifier) => resolve(dirname(service), specifier))];
    const { modules, packages } = reach(entries, (path) => readFileSync(path, "utf8"));
    const offences = [
      ...[...modules.keys()]
        .filter((path) => {
          const inDist = relative(DIST, path);
          return (
            ["core/python/", "analyzers/"].some((dir) => inDist.startsWith(dir)) ||
            [
              "scoring/score-lint.js",
              "scoring/inline-runtime.js",
              "core/normalize.js",
              "core/lint/taxonomy.js",
              "server/openrlhf-http.js",
              "server/metrics-http.js",
            ].includes(inDist)
          );
        })
        .map((path) => chain(modules, path, DIST)),
      ...[...packages]
        .filter(([name]) =>
          [
            "web-tree-sitter",
            "tree-sitter-python",
            "bullmq",
            "ioredis",
            "@grpc/reflection",
            "@grpc/proto-loader",
            "protobufjs",
          ].includes(name),
        )
        .map(([name, importer]) => `${name} ← ${chain(modules, importer, DIST)}`),
    ];
    expect(offences).toEqual([]);
    // Not vacuous: the walk reaches the engine's sandbox and the pool's piscina.
    expect(modules.has(join(DIST, "sandbox", "bwrap.js"))).toBe(true);
    expect(packages.has("piscina")).toBe(true);
  });
});
