/**
 * `minedit eval study`, the settings' identities and groupings (pure, no runs):
 * - the paper's prompt texts (`paper-generic`, `paper-explicit`) pair as the style they reproduce, unless
 *   `--pair` names them, so the paper's text can be compared with minedit's own;
 * - settings that share a name are refused (tables, pairs and chart marks are keyed by name);
 * - a per-prompt mean says over how many settings it is when not every setting has the metric;
 * - a run's reasoning is read from every place run.json's sampling parameters can set it.
 * Expected values are counted by hand from the settings written here.
 */
import { describe, expect, it } from "vitest";
import { buildStudy, type StudySetting } from "../../src/eval/study.js";
import { renderStudyMarkdown } from "../../src/eval/study-markdown.js";
import { parseSummaryRows, reasoningOfParams } from "../../src/eval/study-settings.js";

const BOOTSTRAP = { resamples: 200, seed: 0, level: 0.95 };

function setting(
  model: string,
  prompt: string,
  pass1: number,
  more: { size?: number; overEdit?: number; name?: string } = {},
): StudySetting {
  const point = (estimate: number) => ({ estimate, low: null, high: null });
  return {
    model,
    prompt,
    reasoning: null,
    size: more.size ?? null,
    name: more.name ?? `${model} · ${prompt}`,
    source: `test:${model}:${prompt}:${more.size ?? "-"}`,
    kind: "summary",
    metrics: {
      pass1: point(pass1),
      excess: point(0.1),
      added_cc: null,
      over_edit: more.overEdit === undefined ? null : point(more.overEdit),
    },
    tasks: null,
    samples: null,
    temperature: null,
    pass_at_k: null,
    per_task: null,
  };
}

describe("prompt pairing", () => {
  it("pairs paper-generic and paper-explicit as generic and explicit by default", () => {
    const report = buildStudy(
      [
        setting("m", "paper-generic", 0.5),
        setting("m", "paper-explicit", 0.7),
        setting("n", "generic", 0.4),
        setting("n", "explicit", 0.4),
      ],
      { pair: ["generic", "explicit"], bootstrap: BOOTSTRAP },
    );
    expect(report.matched.pairs).toEqual([
      { a: "m · paper-generic", b: "m · paper-explicit" },
      { a: "n · generic", b: "n · explicit" },
    ]);
    const pass = report.matched.metrics.find((m) => m.metric === "pass1");
    // Generic (0.5 + 0.4) / 2, explicit (0.7 + 0.4) / 2; m improves, n stays.
    expect(pass?.mean_a).toBeCloseTo(0.45, 12);
    expect(pass?.mean_b).toBeCloseTo(0.55, 12);
    expect([pass?.improved, pass?.worsened, pass?.unchanged]).toEqual([1, 0, 1]);
    expect(report.prompt_means.map((p) => [p.prompt, p.settings])).toEqual([
      ["generic", 2],
      ["explicit", 2],
    ]);
  });

  it("compares the paper's prompt text with minedit's when --pair names both", () => {
    const report = buildStudy([setting("m", "paper-generic", 0.5), setting("m", "generic", 0.6)], {
      pair: ["paper-generic", "generic"],
      bootstrap: BOOTSTRAP,
    });
    expect(report.matched.pairs).toEqual([{ a: "m · paper-generic", b: "m · generic" }]);
    expect(report.matched.metrics.find((m) => m.metric === "pass1")?.change.estimate).toBeCloseTo(0.1, 12);
    expect(report.settings.map((s) => s.prompt_group)).toEqual(["paper-generic", "generic"]);
  });
});

describe("settings that cannot be told apart", () => {
  it("refuses two settings with one name even when their sizes differ", () => {
    expect(() =>
      buildStudy([setting("m", "generic", 0.5, { size: 7 }), setting("m", "generic", 0.6, { size: 14 })], {
        pair: ["generic", "explicit"],
        bootstrap: BOOTSTRAP,
      }),
    ).toThrow(/both named "m · generic": test:m:generic:7 and test:m:generic:14\. Name one with --setting/);
  });

  it("accepts them once named apart", () => {
    const report = buildStudy(
      [
        setting("m", "generic", 0.5, { size: 7, name: "m 7B" }),
        setting("m", "generic", 0.6, { size: 14, name: "m 14B" }),
      ],
      { pair: ["generic", "explicit"], bootstrap: BOOTSTRAP },
    );
    expect(report.settings.map((s) => s.name)).toEqual(["m 7B", "m 14B"]);
  });
});

describe("per-prompt means", () => {
  it("count the settings that have each metric", () => {
    const report = buildStudy(
      [
        setting("a", "generic", 0.5, { overEdit: 0.25 }),
        setting("b", "generic", 0.7),
        setting("c", "generic", 0.9),
      ],
      { pair: ["generic", "explicit"], bootstrap: BOOTSTRAP },
    );
    const generic = report.prompt_means[0];
    expect(generic?.settings).toBe(3);
    expect(generic?.counts).toEqual({ pass1: 3, excess: 3, added_cc: 0, over_edit: 1 });
    expect(generic?.metrics.pass1?.estimate).toBeCloseTo(0.7, 12);
    expect(generic?.metrics.over_edit?.estimate).toBe(0.25);
    expect(generic?.metrics.added_cc).toBeNull();
    // The Markdown row: Pass@1 over all three, over-edit "(n = 1)".
    const row = renderStudyMarkdown(report)
      .split("\n")
      .find((line) => line.startsWith("| generic"));
    expect(row).toContain("0.7000");
    expect(row).toContain("0.250 [0.250, 0.250] (n = 1)");
  });
});

describe("a run's reasoning from its sampling parameters", () => {
  it("reads the effort flag, the extra body's OpenAI and OpenRouter fields and enable_thinking", () => {
    expect(reasoningOfParams({})).toBeNull();
    expect(reasoningOfParams({ temperature: 0 })).toBeNull();
    expect(reasoningOfParams({ reasoning_effort: "high" })).toBe("high");
    expect(reasoningOfParams({ reasoning_effort: "none" })).toBeNull();
    expect(reasoningOfParams({ extra: { reasoning_effort: "medium" } })).toBe("medium");
    expect(reasoningOfParams({ extra: { reasoning: { effort: "Low" } } })).toBe("low");
    expect(reasoningOfParams({ extra: { reasoning: { enabled: true } } })).toBe("on");
    expect(reasoningOfParams({ extra: { reasoning: { enabled: false } } })).toBeNull();
    expect(reasoningOfParams({ extra: { reasoning: { max_tokens: 2048 } } })).toBe("reasoning 2048 tok");
    expect(reasoningOfParams({ extra: { chat_template_kwargs: { enable_thinking: true } } })).toBe("on");
    expect(reasoningOfParams({ extra: { chat_template_kwargs: { enable_thinking: false } } })).toBeNull();
  });
});

describe("summary columns named as papers name them", () => {
  it("reads n as the task count and k as the samples per task", () => {
    const [row] = parseSummaryRows("model,prompt,pass1,n,k,temperature\nm,generic,0.5,100,8,1.0\n", "s.csv");
    expect([row?.tasks, row?.samples, row?.temperature]).toEqual([100, 8, 1]);
    const [named] = parseSummaryRows(
      '{"model":"m","prompt":"generic","pass1":0.5,"tasks":400,"samples":1}\n',
      "s.jsonl",
    );
    expect([named?.tasks, named?.samples]).toEqual([400, 1]);
    expect(() => parseSummaryRows("model,prompt,pass1,k\nm,generic,0.5,0\n", "s.csv")).toThrow(
      's.csv:2: column "k" must be in [1, 9007199254740991], got 0',
    );
  });
});
