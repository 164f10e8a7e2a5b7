/**
 * A deterministic "model" for the fake endpoint: it finds the task a repair prompt is about (by the
 * corrupted program the prompt shows) and answers the way a chosen behaviour says — the gold program,
 * the corrupted program unchanged, a rewrite that passes but edits more (a defensive guard: excess and
 * added CC above the gold's), a truncated answer, a reasoning model's answer after `</think>`,
 * an empty code block (NO_CODE) or prose without one (NO_CODE in `eval`, by the paper's extractor;
 * UNPARSABLE where minedit's extractor alone decides, as the whole text is then the candidate),
 * or the gold reformatted (comments, which normalization removes). Generation prompts (BigCodeBench's
 * instruct prompt) are answered from a map of prompt → canonical solution.
 */
import type { ModelInput, ModelOutput } from "./fake-openai-server.js";

export const BEHAVIOURS = [
  "gold",
  "corrupted",
  "rewrite",
  "no-code",
  "prose",
  "truncated",
  "reasoning",
  "reformatted",
] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

export type KnownTask = { task_id: string; corrupted: string; gold: string };

/** FNV-1a of a string, for stable behaviour assignment. */
export function fnv(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The corrupted program a repair prompt shows (src/core/prompt/repair-prompt.ts `userMessage`). */
export function promptProgram(prompt: string): string | null {
  const match = /The function I have written so far is:\n```python\n([\s\S]*?)```\n\n/.exec(prompt);
  return match === null ? null : (match[1] as string);
}

/** The gold with a guard inserted as the first statement of the first function. */
export function rewrite(gold: string): string {
  const lines = gold.split("\n");
  const def = lines.findIndex((line) => /^def .*:\s*$/.test(line));
  if (def === -1) return `${gold}\n_unused = None\n`;
  const next = lines.slice(def + 1).find((line) => line.trim() !== "") ?? "    pass";
  const indent = /^(\s*)/.exec(next)?.[1] ?? "    ";
  lines.splice(def + 1, 0, `${indent}if False:`, `${indent}    raise ValueError("unreachable")`);
  return lines.join("\n");
}

const fence = (program: string) => `\`\`\`python\n${program.endsWith("\n") ? program : `${program}\n`}\`\`\``;

export function answer(behaviour: Behaviour, task: KnownTask): ModelOutput {
  switch (behaviour) {
    case "gold":
      return { text: `The bug is fixed below.\n\n${fence(task.gold)}\n` };
    case "corrupted":
      return { text: `Your function looks correct to me.\n\n${fence(task.corrupted)}\n` };
    case "rewrite":
      return { text: `Here is a more robust version.\n\n${fence(rewrite(task.gold))}\n` };
    case "no-code":
      return { text: "Here is the fixed function:\n\n```python\n```\n" };
    case "prose":
      return { text: "I cannot see what is wrong with this function without more context." };
    case "truncated": {
      const lines = task.gold.split("\n");
      return {
        text: `\`\`\`python\n${lines.slice(0, Math.max(1, Math.floor(lines.length / 2))).join("\n")}`,
        finishReason: "length",
      };
    }
    case "reasoning":
      return {
        text: `<think>\nA first draft:\n${fence(task.corrupted)}\nNo, that still has the bug.\n</think>\n${fence(task.gold)}`,
        reasoning: "The corrupted program differs from the specification; restore it.",
      };
    case "reformatted":
      return { text: fence(`# repaired\n${task.gold}\n# end of the repair\n`) };
  }
}

export type TaskModelOptions = {
  tasks: readonly KnownTask[];
  /** The behaviour for a task's choice `choice` of a request with this body (its `seed`, `n`, …). */
  behaviour: (taskId: string, choice: number, body: Record<string, unknown>) => Behaviour;
  /** Generation problems: the prompt text → the program to answer with. */
  generation?: ReadonlyMap<string, string>;
};

/** The model function of the fake server. */
export function taskModel(options: TaskModelOptions): (input: ModelInput) => ModelOutput {
  const byCorrupted = new Map(
    options.tasks.map((t) => [t.corrupted.endsWith("\n") ? t.corrupted : `${t.corrupted}\n`, t]),
  );
  return (input) => {
    const program = promptProgram(input.prompt);
    const task = program === null ? undefined : byCorrupted.get(program);
    if (task !== undefined) return answer(options.behaviour(task.task_id, input.choice, input.body), task);
    for (const [prompt, solution] of options.generation ?? []) {
      if (input.prompt.includes(prompt)) {
        return fnv(prompt) % 4 === 3 ? { text: "I am not sure." } : { text: fence(solution) };
      }
    }
    return { text: "```python\npass\n```" };
  };
}

/** The behaviour mix of the full-run figures: by a hash of the task id. */
export function mixedBehaviour(taskId: string, choice: number): Behaviour {
  const bucket = fnv(`${taskId}#${choice}`) % 20;
  if (bucket < 8) return "gold";
  if (bucket < 10) return "reformatted";
  if (bucket < 13) return "rewrite";
  if (bucket < 15) return "corrupted";
  if (bucket < 16) return fnv(taskId) % 2 === 0 ? "no-code" : "prose";
  if (bucket < 17) return "truncated";
  return "reasoning";
}
