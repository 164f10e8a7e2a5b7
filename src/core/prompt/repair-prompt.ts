/**
 * The repair prompts of the over-editing paper, used for every exported row and every `minedit eval`
 * sample, and the stable `prompt_id` that names a prompt. Four styles, two conditions in two wordings:
 *
 * - `generic` / `explicit`: the paper's text (Appendix A.3). One system prompt shared by both conditions,
 *   a user message made of the specification, the corrupted function and a request, "followed by a fixed
 *   instruction to wrap the response in a Python code block". The request is the only part that differs
 *   between the generic and the explicit (preservation) condition. Where the paper is not literal, we
 *   follow the authors' released training code (`train/sft/scripts/prepare_dataset.py`): the corrupted
 *   program is shown in a ```python fence and the wrap instruction is "Wrap your response in ```python
 *   and ```". Two small choices of ours: the closing fence gets a line of its own (the authors' ```` ```` ````
 *   after the last code line would make the fence part of that line for programs without a trailing
 *   newline), and a statement that already ends in a period is not given a second one.
 * - `paper-generic` / `paper-explicit`: byte for byte what the authors' evaluation code sent (nreHieW/fyp
 *   at commit 5a4023e, `partial_edits/generate_solutions.py` zero-shot without test cases, with
 *   `partial_edits/utils/prompts_utils.py`), to reproduce the paper's numbers on its own tasks. Its
 *   quirks are kept: the statement is followed by "." whatever it ends with, the corrupted program is
 *   shown unfenced and followed by " \n\n", the request runs into "Wrap your response …" with no space,
 *   and the explicit condition also has a system prompt of its own that asks for preservation (the
 *   paper's text says both conditions share one). Every model client of that code (`models/openai.py`,
 *   `models/openrouter.py`, `models/google.py`) sends the two as a system message and a user message,
 *   which is what {@link promptMessages} returns.
 *
 * Pure: no I/O.
 */
import type { Message } from "./message.js";

/**
 * The two prompt conditions of the paper (§3.2), plain repair request or with the preservation clause,
 * each as minedit writes it (`generic`, `explicit`) and as the authors' evaluation code sent it
 * (`paper-generic`, `paper-explicit`; see the module doc).
 */
export const PROMPT_STYLES = ["generic", "explicit", "paper-generic", "paper-explicit"] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

/** Appendix A.3: the system prompt of both conditions (it does not mention preservation). */
export const SYSTEM_PROMPT =
  "You are a Python Expert specializing in code analysis and debugging. When provided with a problem " +
  "statement, your task is to fix the code.\n" +
  "Do not change the function signature, default arguments, or docstring. Use the docstring to " +
  "understand the requirements of the function.";

/**
 * The system prompt of the authors' `--is_explicit` evaluation (`SYSTEM_PROMPT` of prompts_utils.py); their
 * `--generic` one is {@link SYSTEM_PROMPT}.
 */
export const PAPER_EXPLICIT_SYSTEM_PROMPT =
  "You are a Python Expert specializing in code analysis and debugging. When provided with a problem " +
  "statement, your task is to fix the code while preserving as much of the original code as possible.\n" +
  "Do not change the function signature, default arguments, or docstring. Use the docstring to " +
  "understand the requirements of the function.\n" +
  "IMPORTANT: Try to preserve the original code and the logic of the original code as much as possible.";

const GENERIC_REQUEST = "What is wrong? Fix and complete my function.";
const EXPLICIT_REQUEST =
  "What is wrong? Fix and complete my function but keep as much of the original code as possible.";

/** Appendix A.3: the request that ends the user message, per style (the authors' code words it alike). */
export const REQUESTS: Readonly<Record<PromptStyle, string>> = {
  generic: GENERIC_REQUEST,
  explicit: EXPLICIT_REQUEST,
  "paper-generic": GENERIC_REQUEST,
  "paper-explicit": EXPLICIT_REQUEST,
};

/** The fixed instruction that follows the request (the authors' wording). */
export const WRAP_INSTRUCTION = "Wrap your response in ```python and ```";

/** `program` inside a ```python fence, the closing fence on its own line. */
export function pythonBlock(program: string): string {
  return `\`\`\`python\n${program.endsWith("\n") ? program : `${program}\n`}\`\`\``;
}

/** Whether `style` is one of the authors' byte-exact prompts. */
function isPaperStyle(style: PromptStyle): style is "paper-generic" | "paper-explicit" {
  return style === "paper-generic" || style === "paper-explicit";
}

/**
 * The user message for a task: specification, corrupted program, request, wrap instruction — laid out as
 * App. A.3 for `generic`/`explicit`, as the authors' `create_user_message` for the `paper-*` styles.
 */
export function userMessage(statement: string, corrupted: string, style: PromptStyle): string {
  if (isPaperStyle(style)) {
    // The authors' template, quirks included (module doc): statement verbatim + ".", the program
    // unfenced + " \n\n", the wrap instruction glued to the request.
    return (
      "I am trying to implement a function with the following specifications:\n" +
      `${statement}.\n\n` +
      "The function I have written so far is:\n" +
      `${corrupted} \n\n` +
      REQUESTS[style] +
      WRAP_INSTRUCTION
    );
  }
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

/**
 * The prompt messages of a task in `style`: the system prompt and the user message (the authors' model
 * clients send exactly these two messages, see the module doc).
 */
export function promptMessages(statement: string, corrupted: string, style: PromptStyle): Message[] {
  return [
    { role: "system", content: style === "paper-explicit" ? PAPER_EXPLICIT_SYSTEM_PROMPT : SYSTEM_PROMPT },
    { role: "user", content: userMessage(statement, corrupted, style) },
  ];
}
