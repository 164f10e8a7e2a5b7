import { describe, expect, it } from "vitest";
import { DEFAULT_END_OF_TURN_MARKERS } from "../../src/config.js";
import { extractProgram, stripEndOfTurn } from "../../src/core/extract-program.js";
import { loadPythonGrammar } from "../../src/core/python/grammar.js";
import { parsePython } from "../../src/core/python/parse.js";

const F = "```";

function code(completion: string): string {
  const r = extractProgram(completion, DEFAULT_END_OF_TURN_MARKERS);
  if (r.kind !== "code") {
    throw new Error(`expected code, got no_code for ${JSON.stringify(completion)}`);
  }
  return r.program;
}

describe("extractProgram: fenced blocks", () => {
  it("takes a single ```python block, keeping its text exactly", () => {
    const completion = `Here is the fix:\n\n${F}python\ndef f(x):\n    return x + 1\n${F}\n\nDone.`;
    expect(code(completion)).toBe("def f(x):\n    return x + 1\n");
  });

  it("accepts bare fences, ```py and any other info string", () => {
    expect(code(`${F}\nx = 1\n${F}`)).toBe("x = 1\n");
    expect(code(`${F}py\nx = 2\n${F}`)).toBe("x = 2\n");
    expect(code(`${F}Python3 {linenos}\nx = 3\n${F}`)).toBe("x = 3\n");
    expect(code(`${F} python\nx = 4\n${F}`)).toBe("x = 4\n");
  });

  it("takes the LAST of several blocks", () => {
    const completion = [
      "First attempt:",
      `${F}python`,
      "x = 1",
      F,
      "Actually, better:",
      `${F}python`,
      "x = 2",
      F,
      "That's it.",
    ].join("\n");
    expect(code(completion)).toBe("x = 2\n");
  });

  it("takes the last block even when an earlier one is longer or has another language", () => {
    const completion = `${F}python\nimport os\nprint(os.getcwd())\n${F}\nRun it with:\n${F}bash\npython main.py\n${F}\n`;
    expect(code(completion)).toBe("python main.py\n");
  });

  it("lets an unclosed last block run to the end of the text", () => {
    expect(code(`Fix:\n${F}python\ndef f():\n    return 1\n`)).toBe("def f():\n    return 1\n");
    expect(code(`Fix:\n${F}python\ndef f():\n    return 1`)).toBe("def f():\n    return 1");
  });

  it("lets an unclosed block after a closed one win", () => {
    expect(code(`${F}\na = 1\n${F}\ntext\n${F}python\nb = 2\n`)).toBe("b = 2\n");
  });

  it("treats a fence followed by trailing spaces (or tabs) as a fence", () => {
    expect(code(`${F}python   \nx = 1\n${F}   \nafter`)).toBe("x = 1\n");
    expect(code(`${F}\t\nx = 1\n${F}\t\t\n`)).toBe("x = 1\n");
  });

  it("accepts fences longer than three backticks", () => {
    expect(code("````python\nx = 1\n````\n")).toBe("x = 1\n");
  });

  it("closes a block at the next fence line, as docs/reward.md#from-completion-to-program-m says, even one with an info string", () => {
    // The model forgot to close the first block and opened another: fence lines simply alternate.
    expect(code(`${F}python\na = 1\n${F}python\nb = 2\n${F}\nc = 3\n${F}\n`)).toBe("c = 3\n");
  });

  it("keeps comments, blank lines, inner indentation and trailing whitespace of the program", () => {
    const program =
      "# header\n\n\ndef f(x):\n\n    # inner\n    if x:  \n\t    return 1\n    return 0   \n\n";
    expect(code(`${F}python\n${program}${F}`)).toBe(program);
  });

  it("keeps leading indentation of the first program line (no trimming)", () => {
    expect(code(`${F}\n    x = 1\n${F}`)).toBe("    x = 1\n");
  });
});

describe("extractProgram: backticks that are not fences", () => {
  it("does not cut a program at backticks inside a string", () => {
    const program = 'x = "```"\ny = 1\nprint(f"{x}```python")\n';
    expect(code(`${F}python\n${program}${F}\n`)).toBe(program);
  });

  it("ignores ``` that is not at the start of a line", () => {
    const completion = `Use a ${F}python block like this.\n${F}python\nz = 3\n${F}\nSee the ${F} above.`;
    expect(code(completion)).toBe("z = 3\n");
  });

  it("ignores a line whose info string contains a backtick (inline code, not a fence)", () => {
    // "```x = 1```" on one line is inline code in CommonMark; with no real fence the whole text is M.
    const completion = "```x = 1```";
    expect(code(completion)).toBe(completion);
  });

  it("ignores fences indented by 4+ spaces or a tab (e.g. in an indented docstring)", () => {
    const program = 'def f():\n    """Example:\n\n    ```\n    f()\n    ```\n    """\n\tpass\n';
    expect(code(`${F}python\n${program}${F}\n`)).toBe(program);
    expect(code("\t```\nx = 1\n\t```\n")).toBe("\t```\nx = 1\n\t```\n");
  });

  it("ignores two backticks", () => {
    expect(code("``\nx = 1\n``")).toBe("``\nx = 1\n``");
  });

  it("does not recognise ~~~ fences (a `~~~x` line is valid Python)", () => {
    const text = "~~~python\nx = ~~~1\n~~~\n";
    expect(code(text)).toBe(text);
  });
});

describe("extractProgram: indented fences (markdown lists)", () => {
  it("accepts a fence indented by 1-3 spaces and removes the list indentation from the block", () => {
    const completion = [
      "1. Fix the comparison:",
      `   ${F}python`,
      "   def f(x):",
      "       return x <= 1",
      "",
      "   print(f(1))",
      `   ${F}`,
      "2. Done.",
    ].join("\n");
    expect(code(completion)).toBe("def f(x):\n    return x <= 1\n\nprint(f(1))\n");
    expect(code(`- Fix:\n  ${F}\n  x = 1\n  ${F}\n`)).toBe("x = 1\n");
    expect(code(` ${F}\n x = 1\n ${F}\n`)).toBe("x = 1\n");
  });

  it("keeps the block exactly when some line lacks the fence's indentation", () => {
    expect(code(`  ${F}python\ndef f():\n    return 1\n  ${F}\n`)).toBe("def f():\n    return 1\n");
    expect(code(`  ${F}python\n  a = 1\nb = 2\n  ${F}\n`)).toBe("  a = 1\nb = 2\n");
  });

  it("removes at most the fence's indentation, and less from blank lines that are shorter", () => {
    expect(code(`   ${F}\n   if x:\n       y = 1\n \n   z = 2\n   ${F}`)).toBe("if x:\n    y = 1\n\nz = 2\n");
  });
});

describe("extractProgram: </think>", () => {
  it("keeps only the text after the last </think>", () => {
    const completion = `<think>\nMaybe:\n${F}python\nx = 0\n${F}\n</think>\nFinal:\n${F}python\nx = 1\n${F}\n`;
    expect(code(completion)).toBe("x = 1\n");
  });

  it("uses the LAST </think> when there are several", () => {
    const completion = `<think>a</think>\n${F}\nx = 1\n${F}\n<think>b</think>\n${F}\nx = 2\n${F}`;
    expect(code(completion)).toBe("x = 2\n");
  });

  it("does not fall back to code inside the reasoning when the answer has none", () => {
    expect(
      extractProgram(`<think>\n${F}python\nx = 0\n${F}\n</think>\n\n`, DEFAULT_END_OF_TURN_MARKERS),
    ).toEqual({ kind: "no_code" });
  });

  it("treats unfenced text after </think> as the candidate, exactly", () => {
    expect(code("<think>hmm</think>\nx = 1\n")).toBe("\nx = 1\n");
  });

  it("handles </think> right before the fence on the same line", () => {
    expect(code(`</think>${F}python\nx = 1\n${F}`)).toBe("x = 1\n");
  });

  it("leaves text alone when there is only an opening <think> (the definition keys on </think>)", () => {
    expect(code(`<think>\n${F}\nx = 1\n${F}`)).toBe("x = 1\n");
  });
});

describe("extractProgram: no fence", () => {
  it("returns the whole text unchanged when there is no fence", () => {
    const text = "def f(x):\n    return x\n";
    expect(code(text)).toBe(text);
    expect(code("  x = 1  ")).toBe("  x = 1  ");
  });

  it("returns prose unchanged too (parsing decides UNPARSABLE later)", () => {
    expect(code("I cannot fix this.")).toBe("I cannot fix this.");
  });
});

describe("extractProgram: no_code", () => {
  it.each([
    ["empty completion", ""],
    ["whitespace only", "  \n\t\n "],
    ["empty block", `${F}python\n${F}`],
    ["whitespace-only block", `${F}python\n   \n\t\n${F}\n`],
    ["opening fence at the very end", `Here:\n${F}python`],
    ["opening fence with newline at the end", `Here:\n${F}python\n`],
    ["nothing after </think>", "<think>x = 1</think>"],
    ["last block empty though an earlier one had code", `${F}\nx = 1\n${F}\n${F}\n${F}\n`],
  ])("%s", (_name, completion) => {
    expect(extractProgram(completion, DEFAULT_END_OF_TURN_MARKERS)).toEqual({ kind: "no_code" });
  });
});

describe("extractProgram: line endings", () => {
  it("recognises fences on CRLF lines and keeps the program's CRLF line endings", () => {
    const completion = `Fix:\r\n${F}python\r\ndef f():\r\n    return 1\r\n${F}\r\nDone.\r\n`;
    expect(code(completion)).toBe("def f():\r\n    return 1\r\n");
  });

  it("handles CRLF with an unclosed block and a trailing-space fence", () => {
    expect(code(`${F}py  \r\nx = 1\r\n`)).toBe("x = 1\r\n");
  });

  it("handles CRLF in an indented list block", () => {
    expect(code(`1. Fix:\r\n   ${F}\r\n   x = 1\r\n   ${F}\r\n`)).toBe("x = 1\r\n");
  });

  it("keeps text exact with no trailing newline", () => {
    expect(code(`${F}\nx = 1`)).toBe("x = 1");
  });
});

describe("extractProgram: robustness", () => {
  it("never throws and always returns one of the two shapes on odd inputs", () => {
    const inputs = [
      F,
      `${F}${F}`,
      "\n\n\n",
      "\r\r",
      "</think>",
      "</think></think>",
      `${F}\n${F}\n${F}\n${F}\n${F}`,
      "\u0000```\n\u0000",
      "x".repeat(100_000),
    ];
    for (const input of inputs) {
      const r = extractProgram(input, DEFAULT_END_OF_TURN_MARKERS);
      expect(["code", "no_code"]).toContain(r.kind);
      if (r.kind === "code") {
        expect(r.program.trim()).not.toBe("");
      }
    }
  });

  it("is linear enough for a long completion with many blocks", () => {
    const block = `${F}python\n${"x = 1\n".repeat(20)}${F}\nprose\n`;
    const completion = `${block.repeat(5000)}${F}python\nlast = True\n${F}\n`;
    expect(code(completion)).toBe("last = True\n");
  });
});

describe("extractProgram: end-of-turn markers", () => {
  it("drops the chat template's end of turn after an unfenced answer (OpenRLHF decodes with it)", () => {
    expect(code("def f(x):\n    return x + 1\n<|im_end|>")).toBe("def f(x):\n    return x + 1\n");
    expect(code("def f(x):\n    return x + 1\n<|im_end|>\n<|endoftext|>\n")).toBe(
      "def f(x):\n    return x + 1\n",
    );
    expect(code("x = 1<|eot_id|>")).toBe("x = 1");
    expect(code("x = 1</s></s>  ")).toBe("x = 1");
    expect(code("x = 1<｜end▁of▁sentence｜>")).toBe("x = 1");
  });

  it("after a fence or an unclosed fence, and before </think> is looked for", () => {
    expect(code(`${F}python\nx = 1\n${F}<|im_end|>`)).toBe("x = 1\n");
    expect(code(`${F}python\nx = 1\n<|im_end|>`)).toBe("x = 1\n");
    expect(code("<think>draft</think>\nx = 2\n<|im_end|>")).toBe("\nx = 2\n");
  });

  it("keeps markers anywhere but at the end, and the text exactly when there is none", () => {
    expect(code("s = '<|im_end|>'\nx = 1\n")).toBe("s = '<|im_end|>'\nx = 1\n");
    expect(code("x = 1\n\n   ")).toBe("x = 1\n\n   ");
    expect(stripEndOfTurn("x = 1 <|im_end|>", [])).toBe("x = 1 <|im_end|>");
    expect(stripEndOfTurn("x = 1<END>", ["<END>"])).toBe("x = 1");
  });

  it("an answer that is only the marker has no code", () => {
    expect(extractProgram("<|im_end|>", DEFAULT_END_OF_TURN_MARKERS).kind).toBe("no_code");
    expect(extractProgram("  <|eot_id|>\n", DEFAULT_END_OF_TURN_MARKERS).kind).toBe("no_code");
  });

  it("removing a marker never changes a program that parses: every marker ends in '>', no program can", async () => {
    await loadPythonGrammar();
    for (const marker of DEFAULT_END_OF_TURN_MARKERS) {
      expect(marker.endsWith(">"), marker).toBe(true);
      for (const program of ["x = a", "x = (a", "if a:\n    pass\n", "a = b -"]) {
        expect(() => parsePython(`${program}${marker}`), `${program}${marker}`).toThrow();
      }
    }
  });
});
