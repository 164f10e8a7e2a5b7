/**
 * The repair prompt of the over-editing paper (Appendix A.3), used for every exported row, and the stable
 * `prompt_id` that names it.
 *
 * The paper gives the text: one system prompt shared by both conditions, a user message made of the
 * specification, the corrupted function and a request, "followed by a fixed instruction to wrap the
 * response in a Python code block". The request is the only part that differs between the generic and
 * the explicit (preservation) condition. Where the paper is not literal, we follow the authors' released
 * training code (`train/sft/scripts/prepare_dataset.py`): the corrupted program is shown in a ```python
 * fence and the wrap instruction is "Wrap your response in ```python and ```". Two small choices of ours:
 * the closing fence gets a line of its own (the authors' ` ```` after the last code line would make the
 * fence part of that line for programs without a trailing newline), and a statement that already ends in
 * a period is not given a second one by the template's "{problem_statement}.".
 *
 * Pure: no I/O.
 */
import { createHash } from "node:crypto";

/** The two prompt conditions of the paper (§3.2): plain repair request, or with the preservation clause. */
export const PROMPT_STYLES = ["generic", "explicit"] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/** One chat message; the roles are the ones every trainer's chat template knows. */
export type Message = { role: "system" | "user" | "assistant"; content: string };

/** Appendix A.3: the system prompt of both conditions (it does not mention preservation). */
export const SYSTEM_PROMPT =
  "You are a Python Expert specializing in code analysis and debugging. When provided with a problem " +
  "statement, your task is to fix the code.\n" +
  "Do not change the function signature, default arguments, or docstring. Use the docstring to " +
  "understand the requirements of the function.";

/** Appendix A.3: the request that ends the user message, per condition. */
export const REQUESTS: Readonly<Record<PromptStyle, string>> = {
  generic: "What is wrong? Fix and complete my function.",
  explicit: "What is wrong? Fix and complete my function but keep as much of the original code as possible.",
};

/** The fixed instruction that follows the request (the authors' wording). */
export const WRAP_INSTRUCTION = "Wrap your response in ```python and ```";

/** `program` inside a ```python fence, the closing fence on its own line. */
export function pythonBlock(program: string): string {
  return `\`\`\`python\n${program.endsWith("\n") ? program : `${program}\n`}\`\`\``;
}

/** The user message for a task: specification, corrupted program, request, wrap instruction. */
export function userMessage(statement: string, corrupted: string, style: PromptStyle): string {
  const spec = statement.trimEnd();
  return (
    "I am trying to implement a function with the following specifications:\n" +
    `${spec.endsWith(".") ? spec : `${spec}.`}\n\n` +
    "The function I have written so far is:\n" +
    `${pythonBlock(corrupted)}\n\n` +
    `${REQUESTS[style]}\n\n` +
    WRAP_INSTRUCTION
  );
}

/** The prompt messages of a task: the system prompt and the user message. */
export function promptMessages(statement: string, corrupted: string, style: PromptStyle): Message[] {
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: userMessage(statement, corrupted, style) },
  ];
}

/**
 * The stable id of a prompt: the hex SHA-256 of the messages as compact JSON, keys in the order
 * `role`, `content`. Python computes the same value with
 * `hashlib.sha256(json.dumps(messages, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()`,
 * so a trainer can recompute it from a row's prompt. Equal prompts (the same task exported twice, or two
 * tasks with identical text) share an id; the generic and explicit prompts of one task do not.
 */
export function promptId(messages: readonly Message[]): string {
  const canonical = JSON.stringify(messages.map(({ role, content }) => ({ role, content })));
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

/**
 * A prompt as one string, for the "standard" (non-chat) formats: the system prompt, a blank line, the
 * user message. Used only when the trainer is not told to apply a chat template.
 */
export function promptText(messages: readonly Message[]): string {
  return messages.map((m) => m.content).join("\n\n");
}
