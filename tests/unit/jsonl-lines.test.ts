/**
 * How minedit numbers the lines of a JSONL input, in its three readers: the pure splitter
 * (core/jsonl-text.ts), the line stream of io/inputs.ts, and its byte batches (`minedit score --no-exec`
 * hands them to the workers, which split them with the pure splitter). All three must agree line for line,
 * wherever the stream's chunks happen to be cut, or `FILE:LINE` in a message would point elsewhere.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  completeLinesEnd,
  jsonlLinesOf,
  jsonlLinesOfBytes,
  type NumberedLine,
} from "../../src/core/jsonl-text.js";
import { jsonlByteBatches, jsonlLines } from "../../src/io/inputs.js";

function linesOf(text: string, firstLine = 1): NumberedLine[] {
  const out: NumberedLine[] = [];
  jsonlLinesOf(text, firstLine, out);
  return out;
}

/** A stream that yields `bytes` cut at `cuts` (offsets), as a file read in chunks would. */
function streamOf(bytes: Uint8Array, cuts: number[]): Readable {
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    chunks.push(Buffer.from(bytes.subarray(from, at)));
    from = at;
  }
  return Readable.from(chunks.filter((c) => c.length > 0));
}

async function viaLines(stream: Readable): Promise<NumberedLine[]> {
  const out: NumberedLine[] = [];
  for await (const line of jsonlLines(stream)) out.push(line);
  return out;
}

async function viaBatches(stream: Readable, linesPerBatch: number) {
  const lines: NumberedLine[] = [];
  const batches: { lines: number; bytes: Uint8Array }[] = [];
  for await (const batch of jsonlByteBatches(stream, linesPerBatch)) {
    const before = lines.length;
    jsonlLinesOfBytes(batch.bytes, batch.firstLine, lines);
    batches.push({ lines: lines.length - before, bytes: batch.bytes });
  }
  return { lines, batches };
}

describe("jsonlLinesOf", () => {
  it("numbers lines as an editor shows them: \\n, \\r\\n and a lone \\r end a line; blank lines count", () => {
    expect(linesOf('{"a":1}\n\n{"b":2}\r\n  \r{"c":3}\r{"d":4}')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"b":2}' },
      { line: 5, text: '{"c":3}' },
      { line: 6, text: '{"d":4}' },
    ]);
  });

  it("drops a BOM before the first line only, and returns the number of the next line", () => {
    const out: NumberedLine[] = [];
    expect(jsonlLinesOf('\uFEFF{"a":1}\n\uFEFF{"b":2}\n', 1, out)).toBe(3);
    expect(out).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '\uFEFF{"b":2}' },
    ]);
    // A batch that starts later in the file keeps its BOM-like first character: it is not the file's start.
    expect(linesOf('\uFEFF{"a":1}\n', 7)).toEqual([{ line: 7, text: '\uFEFF{"a":1}' }]);
  });

  it("takes a final \\r as a line end, and text without a final line end as the last line", () => {
    expect(linesOf('{"a":1}\r', 4)).toEqual([{ line: 4, text: '{"a":1}' }]);
    expect(linesOf('{"a":1}\n{"b":2}')).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
    ]);
  });
});

describe("jsonlLinesOfBytes", () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it("gives jsonlLinesOf's lines, decoding each line on its own", () => {
    for (const text of [
      '\uFEFF{"a":"é"}\n\n{"b":"日本"}\n  \n{"c":"😀"}',
      '{"a":1}\r\n{"b":2}\r{"c":3}\n',
      "\n\n\n",
      "",
      '\uFEFF\n{"a":1}\n',
    ]) {
      for (const first of [1, 5]) {
        const out: NumberedLine[] = [];
        const next = jsonlLinesOfBytes(encode(text), first, out);
        const expected: NumberedLine[] = [];
        expect(next).toBe(jsonlLinesOf(text, first, expected));
        expect(out, JSON.stringify(text)).toEqual(expected);
      }
    }
  });

  it("turns invalid UTF-8 into U+FFFD, as Node's readers do", () => {
    const out: NumberedLine[] = [];
    jsonlLinesOfBytes(new Uint8Array([0x22, 0xff, 0x22, 0x0a]), 1, out);
    expect(out).toEqual([{ line: 1, text: '"\uFFFD"' }]);
  });
});

describe("completeLinesEnd", () => {
  it("ends after the last \\n, or after a \\r that something other than \\n follows", () => {
    expect(completeLinesEnd("ab")).toBe(0);
    expect(completeLinesEnd("a\nb")).toBe(2);
    expect(completeLinesEnd("a\nb\r")).toBe(2);
    expect(completeLinesEnd("a\rb\r")).toBe(2);
    expect(completeLinesEnd("a\r\nb")).toBe(3);
    expect(completeLinesEnd("\r")).toBe(0);
    expect(completeLinesEnd("\r\r")).toBe(1);
  });
});

describe("jsonlLines and jsonlByteBatches agree with jsonlLinesOf wherever the chunks are cut", () => {
  const text =
    '\uFEFF{"id":1,"s":"é"}\r\n\r\n{"id":2,"s":"日本"}\r{"id":3}\n   \n{"id":4,"s":"😀"}\r\r\n{"id":5}';
  const bytes = new TextEncoder().encode(text);
  const expected = linesOf(text);

  it("has the lines an editor shows", () => {
    expect(expected.map((l) => l.line)).toEqual([1, 3, 4, 6, 8]);
  });

  it("for every single cut and every pair of adjacent cuts (inside \\r\\n, inside a UTF-8 character)", async () => {
    for (let at = 0; at <= bytes.length; at++) {
      for (const cuts of [[at], [at, Math.min(at + 1, bytes.length)]]) {
        expect(await viaLines(streamOf(bytes, cuts)), `cuts ${cuts}`).toEqual(expected);
        for (const perBatch of [1, 2, 100]) {
          const { lines } = await viaBatches(streamOf(bytes, cuts), perBatch);
          expect(lines, `cuts ${cuts}, ${perBatch} per batch`).toEqual(expected);
        }
      }
    }
  });

  it("cuts byte batches after whole lines, each in a buffer of its own, at least N lines but the last", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: i, pad: "x".repeat(i) }));
    const file = new TextEncoder().encode(`${rows.join("\n")}\n`);
    const cuts = Array.from({ length: 30 }, (_, i) => (i + 1) * 97);
    const { lines, batches } = await viaBatches(streamOf(file, cuts), 7);
    expect(lines.map((l) => l.text)).toEqual(rows);
    for (const batch of batches.slice(0, -1)) expect(batch.lines).toBeGreaterThanOrEqual(7);
    for (const batch of batches) {
      expect(batch.bytes.byteOffset).toBe(0);
      expect(batch.bytes.byteLength).toBe(batch.bytes.buffer.byteLength);
      expect(batch.bytes[batch.bytes.length - 1]).toBe(10);
    }
  });

  it("cuts a long run of lines ended by a lone \\r (old Mac files) into batches of at most ~16 MiB", async () => {
    const line = `{"pad":"${"y".repeat(1000)}"}\r`;
    const count = 20_000; // ~20 MB, no \n at all
    const file = new TextEncoder().encode(line.repeat(count));
    const cuts = Array.from({ length: Math.floor(file.length / 65_536) }, (_, i) => (i + 1) * 65_536);
    let seen = 0;
    let batchCount = 0;
    let next = 1;
    for await (const batch of jsonlByteBatches(streamOf(file, cuts), 512)) {
      batchCount += 1;
      expect(batch.bytes.length).toBeLessThanOrEqual(16 * 1024 * 1024 + 65_536);
      expect(batch.firstLine).toBe(next);
      const out: NumberedLine[] = [];
      next = jsonlLinesOf(Buffer.from(batch.bytes).toString("utf8"), batch.firstLine, out);
      seen += out.length;
    }
    expect(seen).toBe(count);
    expect(batchCount).toBeGreaterThan(1);
  });
});
