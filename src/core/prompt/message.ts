/**
 * A chat prompt as every export row and eval sample carries it: its messages, the stable `prompt_id` that
 * names it (a trainer recomputes it from a row), and its one-string form for the non-chat formats. The
 * repair prompts (repair-prompt.ts) and the lint prompts (lint-prompt.ts) are both built of these.
 *
 * Pure: no I/O (`node:crypto` only hashes).
 */
import { createHash } from "node:crypto";

/** One chat message; the roles are the ones every trainer's chat template knows. */
export type Message = { role: "system" | "user" | "assistant"; content: string };

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
