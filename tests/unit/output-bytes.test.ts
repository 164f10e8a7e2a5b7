import { describe, expect, it } from "vitest";
import { OutputBytes } from "../../src/core/output-bytes.js";

describe("OutputBytes", () => {
  it("holds the UTF-8 of what was appended, text and bytes, past its first capacity", () => {
    const parts = ['{"id":1', ',"detail":"naïve – 日本 😀 \\ud800"', "\n", "x".repeat(5000)];
    const shared = new TextEncoder().encode(',"reward_version":"v"}\n');
    const out = new OutputBytes(4);
    let expected = "";
    for (let i = 0; i < 50; i++) {
      for (const part of parts) out.text(part);
      out.bytes(shared);
      expected += `${parts.join("")},"reward_version":"v"}\n`;
    }
    expect(out.done()).toEqual(new TextEncoder().encode(expected));
  });

  it("encodes a lone surrogate as the main thread's writer would (U+FFFD)", () => {
    const out = new OutputBytes(16);
    out.text("a\ud800b");
    expect(Buffer.from(out.done()).toString("hex")).toBe(Buffer.from("a\ud800b", "utf8").toString("hex"));
  });

  it("gives a buffer of its own, exactly as long as what was written", () => {
    const out = new OutputBytes(1024);
    out.text("abc");
    const bytes = out.done();
    expect(bytes.byteLength).toBe(3);
    expect(bytes.buffer.byteLength).toBe(3);
  });
});
