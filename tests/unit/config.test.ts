import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import {
  ConfigSchema,
  DEFAULT_END_OF_TURN_MARKERS,
  DEFAULT_LIMITS_CONFIG,
  LimitsConfigSchema,
  mergeRewardOverride,
  parseConfig,
  type RewardConfig,
  RewardConfigSchema,
} from "../../src/config.js";
import { ErrorCode, isMineditError, MineditError } from "../../src/errors.js";

/** Runs `fn`, expects an InvalidArgument MineditError, and returns it. */
function invalid(fn: () => unknown): MineditError {
  try {
    fn();
  } catch (e) {
    expect(isMineditError(e)).toBe(true);
    const err = e as MineditError;
    expect(err.code).toBe(ErrorCode.InvalidArgument);
    return err;
  }
  throw new Error("expected an InvalidArgument error, nothing was thrown");
}

describe("parseConfig defaults", () => {
  it("fills every default from an empty object and from undefined", () => {
    const expected = {
      reward: {
        variant: "full",
        lambdaExec: 0.1,
        lambdaEdit: 1.0,
        lambdaCc: 0.0,
        failureReward: -0.2,
        scope: "program",
        endOfTurnMarkers: [...DEFAULT_END_OF_TURN_MARKERS],
        lint: { lambdaExec: 0.1, lambdaFix: 1.0, lambdaEdit: 0.25 },
      },
      pool: {
        threads: availableParallelism(),
        programCacheBytes: 32 * 1024 * 1024,
        scoreMemoEntries: 131_072,
      },
      server: {
        host: "127.0.0.1",
        port: 50051,
        maxBatchRollouts: 4096,
        maxReceiveMessageBytes: 64 * 1024 * 1024,
        openrlhfCoalesceMs: 20,
        openrlhfCoalesceMaxRollouts: 512,
        // Below OpenRLHF's fixed 180 s request timeout (openrlhf/utils/agent.py, v0.11.0).
        openrlhfRequestBudgetMs: 150_000,
        logLevel: "info",
        drainTimeoutMs: 10_000,
        maxQueuedRollouts: 16_384,
        overloadRetryAfterMs: 1_000,
      },
      sandbox: {
        backend: "bwrap",
        docker: {
          socketPath: "/var/run/docker.sock",
          images: {},
          containerMemoryBytes: 2 * 1024 * 1024 * 1024,
          cpusPerContainer: 1,
        },
        pythonPath: "/usr/bin/python3",
        warmInterpreters: true,
        infraRetries: 1,
        resultCacheBytes: 64 * 1024 * 1024,
        executionConcurrency: 2 * availableParallelism(),
      },
      // The values each run had before the profiles (docs/sandbox.md#limits lists them too).
      limits: {
        tests: {
          wallTimeMs: 10_000,
          cpuTimeMs: 10_000,
          memoryBytes: 1024 * 1024 * 1024,
          maxProcesses: 64,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 1024 * 1024,
        },
        compile: { wallTimeMs: 30_000 },
        lintTests: {
          wallTimeMs: 10_000,
          memoryBytes: 1024 * 1024 * 1024,
          maxProcesses: 64,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 1024 * 1024,
        },
        pylint: {
          wallTimeMs: 60_000,
          wallTimePerFileMs: 20_000,
          memoryBytes: 2 * 1024 * 1024 * 1024,
          maxProcesses: 16,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 64 * 1024 * 1024,
        },
        clangTidy: {
          wallTimeMs: 30_000,
          wallTimePerFileMs: 120_000,
          memoryBytes: 4 * 1024 * 1024 * 1024,
          maxProcesses: 16,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 64 * 1024 * 1024,
        },
        pmd: {
          wallTimeMs: 180_000,
          wallTimePerFileMs: 5_000,
          memoryBytes: 1024 * 1024 * 1024,
          maxProcesses: 64,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 64 * 1024 * 1024,
        },
        clangTidyFix: {
          wallTimeMs: 150_000,
          memoryBytes: 4 * 1024 * 1024 * 1024,
          maxProcesses: 16,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 16 * 1024 * 1024,
        },
        harnessCompile: {
          wallTimeMs: 30_000,
          memoryBytes: 1024 * 1024 * 1024,
          maxProcesses: 16,
          maxFileBytes: 1024 * 1024,
          maxOutputBytes: 4 * 1024 * 1024,
        },
        sandboxProbe: {
          wallTimeMs: 30_000,
          memoryBytes: 1024 * 1024 * 1024,
          maxProcesses: 16,
          maxFileBytes: 1024 * 1024,
          maxOutputBytes: 64 * 1024,
        },
        runtimeCheck: {
          wallTimeMs: 300_000,
          memoryBytes: 4 * 1024 * 1024 * 1024,
          maxProcesses: 64,
          maxFileBytes: 16 * 1024 * 1024,
          maxOutputBytes: 1024 * 1024,
        },
      },
      tasks: {
        files: [],
        gate: true,
        inlineGoldCheck: true,
        gateCacheDir: "",
        calibration: {
          factor: 4,
          wallFloorMs: 3000,
          wallCeilingMs: 60_000,
          cpuFloorMs: 1000,
          cpuCeilingMs: 60_000,
        },
      },
      // No url: no queue, executions run in-process (the single-machine default).
      queue: {
        prefix: "minedit",
        name: "executions",
        worker: false,
        resultTtlMs: 60 * 60 * 1000,
        jobDeadlineMs: 10 * 60 * 1000,
        lockMs: 15_000,
        stalledIntervalMs: 5_000,
        maxStalledCount: 2,
        pollMs: 1_000,
        outageToleranceMs: 15_000,
        eventsMaxLen: 100_000,
      },
    };
    expect(parseConfig({})).toEqual(expected);
    expect(parseConfig(undefined)).toEqual(expected);
    expect(parseConfig({ reward: {}, pool: {} })).toEqual(expected);
  });

  it("rejects bad sandbox and task settings, naming the field", () => {
    expect(() => parseConfig({ sandbox: { wallTimeMs: 0 } })).toThrow(/sandbox\.wallTimeMs/);
    expect(() => parseConfig({ sandbox: { memoryBytes: "1G" } })).toThrow(/sandbox\.memoryBytes/);
    expect(() => parseConfig({ tasks: { files: [""] } })).toThrow(/tasks\.files\[0\]/);
  });

  it("rejects bad limits, naming the profile's field", () => {
    expect(() => parseConfig({ limits: { tests: { wallTimeMs: 0 } } })).toThrow(/limits\.tests\.wallTimeMs/);
    expect(() => parseConfig({ limits: { pylint: { wallTimePerFileMs: -1 } } })).toThrow(
      /limits\.pylint\.wallTimePerFileMs/,
    );
    expect(() => parseConfig({ limits: { pmd: { cpuTimeMs: 1000 } } })).toThrow(/limits\.pmd\.cpuTimeMs/);
    expect(() => parseConfig({ limits: { analyzer: {} } })).toThrow(/limits\.analyzer/);
  });

  it("still takes the test limits under `sandbox`, as `limits.tests` (they win: the flags write them)", () => {
    const config = parseConfig({
      sandbox: { wallTimeMs: 5000, cpuTimeMs: 0, memoryBytes: 512 * 1024 * 1024, maxOutputBytes: 4096 },
      limits: { tests: { wallTimeMs: 7000, maxProcesses: 8 } },
    });
    expect(config.limits.tests).toEqual({
      wallTimeMs: 5000,
      cpuTimeMs: 0,
      memoryBytes: 512 * 1024 * 1024,
      maxProcesses: 8,
      maxFileBytes: 16 * 1024 * 1024,
      maxOutputBytes: 4096,
    });
    expect(config.sandbox).not.toHaveProperty("wallTimeMs");
    expect(config.sandbox).not.toHaveProperty("maxOutputBytes");
    // Only the tests profile moved: the others keep their defaults.
    expect(config.limits.lintTests.wallTimeMs).toBe(10_000);
    // deploy/config.yaml's keys.
    const deployed = parseConfig({
      sandbox: { executionConcurrency: 4, memoryBytes: 1073741824, wallTimeMs: 10000 },
    });
    expect(deployed.limits.tests.memoryBytes).toBe(1073741824);
    expect(deployed.sandbox.executionConcurrency).toBe(4);
  });

  it("takes the end-of-turn markers to strip, and refuses an empty one (it would match everything)", () => {
    expect(parseConfig({ reward: { endOfTurnMarkers: ["<END>"] } }).reward.endOfTurnMarkers).toEqual([
      "<END>",
    ]);
    expect(parseConfig({ reward: { endOfTurnMarkers: [] } }).reward.endOfTurnMarkers).toEqual([]);
    expect(() => parseConfig({ reward: { endOfTurnMarkers: [""] } })).toThrow(
      /reward\.endOfTurnMarkers\[0\]/,
    );
  });

  it("keeps given values and defaults the rest of a section", () => {
    const config = parseConfig({ reward: { variant: "edit_plus_cc", lambdaCc: 0.05 }, pool: { threads: 3 } });
    expect(config.reward).toEqual({
      variant: "edit_plus_cc",
      lambdaExec: 0.1,
      lambdaEdit: 1.0,
      lambdaCc: 0.05,
      failureReward: -0.2,
      scope: "program",
      endOfTurnMarkers: [...DEFAULT_END_OF_TURN_MARKERS],
      lint: { lambdaExec: 0.1, lambdaFix: 1.0, lambdaEdit: 0.25 },
    });
    expect(config.pool.threads).toBe(3);
  });

  it("exposes the schemas for composition", () => {
    expect(RewardConfigSchema.parse({}).lambdaExec).toBe(0.1);
    expect(ConfigSchema.parse({}).reward.failureReward).toBe(-0.2);
  });

  it("keeps server TLS and auth settings and allows port 0", () => {
    const server = parseConfig({
      server: { host: "0.0.0.0", port: 0, tls: { certFile: "c.pem", keyFile: "k.pem" }, authToken: "t" },
    }).server;
    expect(server).toEqual({
      host: "0.0.0.0",
      port: 0,
      maxBatchRollouts: 4096,
      maxReceiveMessageBytes: 64 * 1024 * 1024,
      openrlhfCoalesceMs: 20,
      openrlhfCoalesceMaxRollouts: 512,
      openrlhfRequestBudgetMs: 150_000,
      logLevel: "info",
      drainTimeoutMs: 10_000,
      maxQueuedRollouts: 16_384,
      overloadRetryAfterMs: 1_000,
      tls: { certFile: "c.pem", keyFile: "k.pem" },
      authToken: "t",
    });
  });

  it("takes the metrics port, log level, drain timeout and overload bound", () => {
    const server = parseConfig({
      server: {
        metricsPort: 0,
        logLevel: "debug",
        drainTimeoutMs: 0,
        maxQueuedRollouts: 8,
        overloadRetryAfterMs: 5,
      },
    }).server;
    expect(server).toMatchObject({
      metricsPort: 0,
      logLevel: "debug",
      drainTimeoutMs: 0,
      maxQueuedRollouts: 8,
      overloadRetryAfterMs: 5,
    });
    expect(invalid(() => parseConfig({ server: { logLevel: "verbose" } })).field).toBe("server.logLevel");
    expect(invalid(() => parseConfig({ server: { metricsPort: 70000 } })).field).toBe("server.metricsPort");
    expect(invalid(() => parseConfig({ server: { maxQueuedRollouts: 0 } })).field).toBe(
      "server.maxQueuedRollouts",
    );
  });

  it("takes a queue URL (redis or rediss, with credentials) and a connection age", () => {
    for (const url of [
      "redis://127.0.0.1:6379",
      "rediss://user:secret@redis.example:6380/2",
      "redis://redis",
    ]) {
      expect(parseConfig({ queue: { url } }).queue.url).toBe(url);
    }
    expect(parseConfig({ server: { maxConnectionAgeMs: 300_000 } }).server.maxConnectionAgeMs).toBe(300_000);
  });

  it("accepts every variant and scope", () => {
    for (const variant of ["full", "correctness_only", "edit_only", "edit_plus_cc"]) {
      expect(parseConfig({ reward: { variant } }).reward.variant).toBe(variant);
    }
    for (const scope of ["program", "function_body"]) {
      expect(parseConfig({ reward: { scope } }).reward.scope).toBe(scope);
    }
  });
});

describe("parseConfig validation names the offending field", () => {
  it.each([
    [{ reward: { lambdaEdit: "1" } }, "reward.lambdaEdit", /reward\.lambdaEdit: .*expected number/],
    [{ reward: { lambdaExec: Number.NaN } }, "reward.lambdaExec", /reward\.lambdaExec: .*expected number/],
    [
      { reward: { failureReward: Number.POSITIVE_INFINITY } },
      "reward.failureReward",
      /reward\.failureReward: /,
    ],
    [{ reward: { lambdaCc: Number.NEGATIVE_INFINITY } }, "reward.lambdaCc", /reward\.lambdaCc: /],
    [{ reward: { lambdaEdit: -1 } }, "reward.lambdaEdit", /reward\.lambdaEdit: .*>=0/],
    [{ reward: { lambdaCc: -0.5 } }, "reward.lambdaCc", /reward\.lambdaCc: /],
    [{ reward: { variant: "best" } }, "reward.variant", /reward\.variant: .*"full"/],
    [{ reward: { scope: "file" } }, "reward.scope", /reward\.scope: /],
    [{ reward: { lamdaEdit: 1 } }, "reward.lamdaEdit", /reward\.lamdaEdit: Unrecognized key/],
    [{ reward: null }, "reward", /reward: .*expected object/],
    [{ pool: { threads: 0 } }, "pool.threads", /pool\.threads: /],
    [{ pool: { threads: 1.5 } }, "pool.threads", /pool\.threads: .*int/],
    [{ pool: { threads: "4" } }, "pool.threads", /pool\.threads: .*expected number/],
    [{ rewards: {} }, "rewards", /rewards: Unrecognized key/],
    [{ server: { port: 70000 } }, "server.port", /server\.port: /],
    [{ server: { port: -1 } }, "server.port", /server\.port: /],
    [{ server: { maxBatchRollouts: 0 } }, "server.maxBatchRollouts", /server\.maxBatchRollouts: /],
    [{ server: { tls: { certFile: "c.pem" } } }, "server.tls.keyFile", /server\.tls\.keyFile: /],
    [{ server: { authToken: "" } }, "server.authToken", /server\.authToken: /],
    [{ server: { maxConnectionAgeMs: 0 } }, "server.maxConnectionAgeMs", /server\.maxConnectionAgeMs: /],
    [{ queue: { url: "http://redis:6379" } }, "queue.url", /queue\.url: expected redis:\/\/HOST:PORT/],
    [{ queue: { url: "redis://" } }, "queue.url", /queue\.url: /],
    [{ queue: { name: "a b" } }, "queue.name", /queue\.name: /],
    [{ queue: { lockMs: 10 } }, "queue.lockMs", /queue\.lockMs: /],
    [{ queue: { resultTtlMs: -1 } }, "queue.resultTtlMs", /queue\.resultTtlMs: /],
  ])("%j → %s", (input, field, message) => {
    const err = invalid(() => parseConfig(input));
    expect(err.field).toBe(field);
    expect(err.rawMessage).toMatch(message);
    expect(err.message).toBe(`[invalid_argument] ${err.rawMessage}`);
  });

  it("reports a non-object config without a field", () => {
    for (const input of [null, 42, "config", []]) {
      const err = invalid(() => parseConfig(input));
      expect(err.field).toBeUndefined();
      expect(err.rawMessage).toMatch(/^\(config\): /);
    }
  });

  it("lists every offending field, the first one in `field`", () => {
    const err = invalid(() =>
      parseConfig({ reward: { lambdaExec: "a", lambdaEdit: "b" }, pool: { threads: -1 } }),
    );
    expect(err.field).toBe("reward.lambdaExec");
    expect(err.rawMessage).toContain("reward.lambdaExec: ");
    expect(err.rawMessage).toContain("reward.lambdaEdit: ");
    expect(err.rawMessage).toContain("pool.threads: ");
  });
});

describe("mergeRewardOverride", () => {
  const base: RewardConfig = parseConfig({ reward: { lambdaEdit: 0.5, lambdaCc: 0.02 } }).reward;

  it("returns the base unchanged for undefined or an empty override", () => {
    expect(mergeRewardOverride(base, undefined)).toEqual(base);
    expect(mergeRewardOverride(base, {})).toEqual(base);
  });

  it("overrides only the given fields and does not re-apply defaults", () => {
    const merged = mergeRewardOverride(base, { variant: "edit_only", failureReward: -1 });
    expect(merged).toEqual({ ...base, variant: "edit_only", failureReward: -1 });
    // lambdaEdit stays the server's 0.5, not the schema default 1.0.
    expect(merged.lambdaEdit).toBe(0.5);
  });

  it("treats an explicit undefined field as absent", () => {
    expect(mergeRewardOverride(base, { lambdaEdit: undefined })).toEqual(base);
  });

  it("does not mutate the base", () => {
    const copy = { ...base };
    mergeRewardOverride(base, { lambdaExec: 1 });
    expect(base).toEqual(copy);
  });

  it.each([
    [{ lambdaEdit: "x" }, "reward.lambdaEdit", /expected number/],
    [{ lambdaEdit: -0.1 }, "reward.lambdaEdit", />=0/],
    [{ lambdaExec: Number.NaN }, "reward.lambdaExec", /expected number/],
    [{ variant: "bogus" }, "reward.variant", /expected one of/],
    [{ unknownKnob: 1 }, "reward.unknownKnob", /Unrecognized key/],
  ])("validates like the config: %j → %s", (override, field, message) => {
    const err = invalid(() => mergeRewardOverride(base, override));
    expect(err.field).toBe(field);
    expect(err.rawMessage).toMatch(message);
    expect(err.rawMessage.startsWith(`${field}: `)).toBe(true);
  });

  it("rejects a non-object override", () => {
    for (const override of [null, 3, "full"]) {
      const err = invalid(() => mergeRewardOverride(base, override));
      expect(err.field).toBe("reward");
    }
  });

  it("uses the given field prefix in errors", () => {
    const err = invalid(() => mergeRewardOverride(base, { lambdaEdit: "x" }, "request.reward_override"));
    expect(err.field).toBe("request.reward_override.lambdaEdit");
    const bare = invalid(() => mergeRewardOverride(base, { lambdaEdit: "x" }, ""));
    expect(bare.field).toBe("lambdaEdit");
  });
});

describe("MineditError", () => {
  it("carries code, raw message and field, and is recognised", () => {
    const err = new MineditError(ErrorCode.NotFound, "task t1 not found", { field: "task_id" });
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(MineditError);
    expect(err.name).toBe("MineditError");
    expect(err.code).toBe("not_found");
    expect(err.rawMessage).toBe("task t1 not found");
    expect(err.message).toBe("[not_found] task t1 not found");
    expect(err.field).toBe("task_id");
    expect(isMineditError(err)).toBe(true);
    expect("field" in new MineditError(ErrorCode.Internal, "x")).toBe(false);
  });

  it("has string codes with the Connect wire names", () => {
    expect(Object.values(ErrorCode)).toEqual([
      "invalid_argument",
      "not_found",
      "resource_exhausted",
      "deadline_exceeded",
      "canceled",
      "unavailable",
      "internal",
      "failed_precondition",
    ]);
  });

  it("recognises look-alikes from another copy of the module but not plain errors", () => {
    const lookAlike = Object.assign(new Error("x"), { name: "MineditError", code: "internal" });
    expect(isMineditError(lookAlike)).toBe(true);
    expect(isMineditError(Object.assign(new Error("x"), { name: "MineditError", code: "nope" }))).toBe(false);
    expect(isMineditError(new Error("x"))).toBe(false);
    expect(isMineditError({ name: "MineditError", code: "internal" })).toBe(false);
    expect(isMineditError(undefined)).toBe(false);
  });
});

describe("limit profiles", () => {
  /** One size or time of the doc's table in bytes or ms: `10 s`, `64 KiB`, `1 GiB`, `64`. */
  function quantity(text: string): number {
    const match = /^(\d+)(?: (s|KiB|MiB|GiB))?$/.exec(text);
    if (match === null) throw new Error(`unreadable quantity ${JSON.stringify(text)}`);
    const unit = { s: 1000, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }[match[2] ?? ""] ?? 1;
    return Number(match[1]) * unit;
  }

  /** The profiles table of docs/sandbox.md#limits, as the profiles' fields. */
  function documentedProfiles(): Record<string, Record<string, number>> {
    const doc = readFileSync(new URL("../../docs/sandbox.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("\n## Limits\n"));
    const rows = section
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .map((line) => line.split("|").map((cell) => cell.trim()))
      .filter((cells) => cells.length === 10);
    const out: Record<string, Record<string, number>> = {};
    for (const [, name, wall, cpu, memory, processes, fileSize, output] of rows) {
      const profile: Record<string, number> = {};
      const [base, perFile] = (wall as string).split(" + ");
      profile.wallTimeMs = quantity(base as string);
      if (perFile !== undefined) profile.wallTimePerFileMs = quantity(perFile.replace("/file", ""));
      const cells = { cpuTimeMs: cpu, memoryBytes: memory, maxProcesses: processes };
      const more = { maxFileBytes: fileSize, maxOutputBytes: output };
      for (const [field, cell] of Object.entries({ ...cells, ...more })) {
        if (cell !== "") profile[field] = quantity(cell as string);
      }
      out[(name as string).replaceAll("`", "")] = profile;
    }
    return out;
  }

  it("every profile's defaults are the values docs/sandbox.md#limits documents", () => {
    const documented = documentedProfiles();
    // Read off the doc by hand, so the table itself is checked too.
    expect(documented.tests).toEqual({
      wallTimeMs: 10_000,
      cpuTimeMs: 10_000,
      memoryBytes: 1024 ** 3,
      maxProcesses: 64,
      maxFileBytes: 16 * 1024 ** 2,
      maxOutputBytes: 1024 ** 2,
    });
    expect(documented.pylint).toEqual({
      wallTimeMs: 60_000,
      wallTimePerFileMs: 20_000,
      memoryBytes: 2 * 1024 ** 3,
      maxProcesses: 16,
      maxFileBytes: 16 * 1024 ** 2,
      maxOutputBytes: 64 * 1024 ** 2,
    });
    expect(documented.sandboxProbe?.maxOutputBytes).toBe(64 * 1024);
    expect(documented.compile).toEqual({ wallTimeMs: 30_000 });
    expect(Object.keys(documented).sort()).toEqual(Object.keys(LimitsConfigSchema.shape).sort());
    expect(parseConfig({}).limits).toEqual(documented);
    expect(DEFAULT_LIMITS_CONFIG).toEqual(documented);
  });
});
