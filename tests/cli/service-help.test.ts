/**
 * `minedit serve --help` and `minedit demo --help` show the reward formula of the effective
 * configuration: the defaults without `--config`, the configured variant and numbers with it; a bad
 * config file given with `--help` is reported, not silently replaced by the defaults. In process
 * (src/cli/main.ts with captured streams); nothing is served.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../src/cli/main.js";

type Run = { status: number; stdout: string; stderr: string };

async function minedit(args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const status = await main(args, {
    stdin: new PassThrough(),
    stdout: sink((t) => {
      stdout += t;
    }),
    stderr: sink((t) => {
      stderr += t;
    }),
  });
  return { status, stdout, stderr };
}

const dir = mkdtempSync(join(tmpdir(), "minedit-service-help-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function configFile(content: unknown): string {
  const path = join(dir, `config-${files++}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const DEFAULT_FORMULA = "reward = 0.1 − 1.0·(d(M,C) − d(G,C)) if the tests pass, else −0.2";

/** The help's formula line. */
function formula(help: string): string {
  const line = help.split("\n").find((l) => l.trimStart().startsWith("reward = "));
  return line?.trim() ?? "";
}

describe.each(["serve", "demo"])("minedit %s --help", (command) => {
  test("without --config: the default formula", async () => {
    const run = await minedit([command, "--help"]);
    expect(run.status).toBe(0);
    expect(formula(run.stdout)).toBe(DEFAULT_FORMULA);
    expect(run.stdout).toContain('variant "full"');
    expect(run.stdout).toContain("normalized programs");
  });

  test("with --config: each variant with the configured numbers", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { variant: "full", lambdaExec: 0.5, lambdaEdit: 2, failureReward: -1 },
        "reward = 0.5 − 2.0·(d(M,C) − d(G,C)) if the tests pass, else −1.0",
      ],
      [{ variant: "correctness_only", lambdaExec: 1 }, "reward = 1.0 if the tests pass, else −0.2"],
      [
        { variant: "edit_only", lambdaEdit: 0.25, failureReward: -0.5 },
        "reward = −0.25·(d(M,C) − d(G,C)) if the tests pass, else −0.5",
      ],
      [
        { variant: "edit_plus_cc", lambdaCc: 0.05 },
        "reward = 0.1 − 1.0·(d(M,C) − d(G,C)) − 0.05·max(0, CC(M) − CC(G)) if the tests pass, else −0.2",
      ],
    ];
    for (const [reward, expected] of cases) {
      const run = await minedit([command, "--config", configFile({ reward }), "--help"]);
      expect(run.status, run.stderr).toBe(0);
      expect(formula(run.stdout)).toBe(expected);
      expect(run.stdout).toContain(`variant "${reward.variant}"`);
      expect(run.stdout.includes("CC = cognitive complexity")).toBe(reward.variant === "edit_plus_cc");
    }
  });

  test("with --config: the distance scope is named", async () => {
    const run = await minedit([
      command,
      "--help",
      "--config",
      configFile({ reward: { scope: "function_body" } }),
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(formula(run.stdout)).toBe(DEFAULT_FORMULA);
    expect(run.stdout).toContain("over the normalized programs\n   from the first function's body on");
  });

  test("a config without a reward section: the defaults", async () => {
    const run = await minedit([command, "--config", configFile({ pool: { threads: 1 } }), "--help"]);
    expect(run.status, run.stderr).toBe(0);
    expect(formula(run.stdout)).toBe(DEFAULT_FORMULA);
  });

  test("a bad config with --help says what is wrong, and prints no help", async () => {
    const invalidJson = configFile("{not json");
    const badValue = configFile({ reward: { lambdaEdit: -1 } });
    const unknownKey = configFile({ reward: { lamdaEdit: 1 } });
    const missing = join(dir, "missing.json");
    for (const [path, says] of [
      [invalidJson, `--config ${invalidJson}:`],
      [badValue, "reward.lambdaEdit"],
      [unknownKey, "reward.lamdaEdit"],
      [missing, "ENOENT"],
    ] as const) {
      const run = await minedit([command, "--config", path, "--help"]);
      expect(run.status, path).toBe(2);
      expect(run.stderr).toContain(`minedit ${command}: `);
      expect(run.stderr).toContain(says);
      expect(run.stdout).toBe("");
    }
  });
});

test("minedit help serve (no flags to read a config from) shows the defaults", async () => {
  const run = await minedit(["help", "serve"]);
  expect(run.status).toBe(0);
  expect(formula(run.stdout)).toBe(DEFAULT_FORMULA);
});
