#!/usr/bin/env python3
"""Test oracle for the `paper-generic` and `paper-explicit` prompts of src/core/prompt/repair-prompt.ts: the chat
messages the over-editing paper's evaluation code sent for one of its task rows, written here from our
reading of nreHieW/fyp commit 5a4023e (`partial_edits/utils/prompts_utils.py`, zero-shot and without test
cases, as `partial_edits/generate_solutions.py` runs it with `--generic` or `--is_explicit`; the model
clients send a system message, then a user message).

Reads a JSON list of {"row": <an upstream row>, "style": "paper-generic" | "paper-explicit"} on stdin;
writes the JSON list of message lists ([{"role", "content"}, ...]).

The rules:
- system message: the generic run's system prompt names the task ("fix the code"); the explicit run's
  adds "while preserving as much of the original code as possible" to that sentence and a final
  "IMPORTANT:" line repeating the instruction;
- user message, from the row's `prompt` (the statement) and `corrupted_solution`, both as they are:
  the specification line, the statement and a period, a blank line; the "written so far" line, the
  program with no fence, a space and a blank line; the request (with the preservation clause for the
  explicit run) immediately followed by the wrap instruction.
"""

import json
import sys

ROLE = (
    "You are a Python Expert specializing in code analysis and debugging. "
    "When provided with a problem statement, your task is to fix the code"
)
RULES = (
    "Do not change the function signature, default arguments, or docstring. "
    "Use the docstring to understand the requirements of the function."
)
PRESERVE = "while preserving as much of the original code as possible"
IMPORTANT = "IMPORTANT: Try to preserve the original code and the logic of the original code as much as possible."

SYSTEM = {
    "paper-generic": ROLE + ".\n" + RULES,
    "paper-explicit": ROLE + " " + PRESERVE + ".\n" + RULES + "\n" + IMPORTANT,
}
REQUEST = {
    "paper-generic": "What is wrong? Fix and complete my function.",
    "paper-explicit": "What is wrong? Fix and complete my function but keep as much of the original code as possible.",
}


def messages(row, style):
    user = "".join(
        [
            "I am trying to implement a function with the following specifications:\n",
            row["prompt"],
            ".\n\n",
            "The function I have written so far is:\n",
            row["corrupted_solution"],
            " \n\n",
            REQUEST[style],
            "Wrap your response in ```python and ```",
        ]
    )
    return [{"role": "system", "content": SYSTEM[style]}, {"role": "user", "content": user}]


if __name__ == "__main__":
    json.dump([messages(item["row"], item["style"]) for item in json.load(sys.stdin)], sys.stdout)
