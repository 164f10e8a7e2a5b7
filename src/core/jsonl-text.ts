/**
 * The lines of JSONL text, as every reader of minedit's JSONL inputs numbers them: a line ends at `\n`,
 * `\r\n` or a lone `\r` (as Node's readline splits them, and as an editor shows them), a UTF-8 BOM before
 * the first line is dropped, and blank lines are skipped but counted, so that `FILE:LINE` in a message is
 * the line an editor shows. Used on the main thread (io/inputs.ts, as a stream arrives) and in the metrics
 * workers (on a batch of the rollout file), so both number lines the same way.
 *
 * Pure: no I/O.
 */

/** UTF-8 as Node's readers decode it (invalid bytes become U+FFFD); a BOM is kept, and dropped by us. */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** One non-blank line and its 1-based physical line number. */
export type NumberedLine = { line: number; text: string };

/**
 * Appends to `out` the non-blank lines of `text`, whose first line is line `firstLine`; returns the
 * number of the line after the last one. `text` must end where a line ends (or where the input ends): a
 * `\r` at its very end is taken as a line end, so a caller reading a stream holds such a `\r` back until
 * it knows whether `\n` follows.
 */
export function jsonlLinesOf(text: string, firstLine: number, out: NumberedLine[]): number {
  let line = firstLine;
  const take = (start: number, end: number) => {
    let from = start;
    if (line === 1 && text.charCodeAt(start) === 0xfeff) from += 1;
    const raw = text.slice(from, end);
    if (raw.trim() !== "") out.push({ line, text: raw });
    line += 1;
  };
  let start = 0;
  if (text.indexOf("\r") < 0) {
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      take(start, end);
      start = end + 1;
    }
  } else {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      take(start, i);
      if (c === 13 && text.charCodeAt(i + 1) === 10) i += 1;
      start = i + 1;
    }
  }
  if (start < text.length) take(start, text.length);
  return line;
}

/**
 * Where the complete lines of `text` end when more text may follow: after its last `\n`, or after its last
 * `\r` unless that `\r` is the final character (a `\n` may follow it). 0 when no line is complete yet.
 */
export function completeLinesEnd(text: string): number {
  const lf = text.lastIndexOf("\n");
  let cr = text.lastIndexOf("\r");
  // (lastIndexOf takes a negative start as 0: a lone final `\r` at 0 would find itself again.)
  if (cr === text.length - 1) cr = cr === 0 ? -1 : text.lastIndexOf("\r", cr - 1);
  return Math.max(lf, cr) + 1;
}

/**
 * {@link jsonlLinesOf} on undecoded UTF-8: the same lines, each decoded on its own. Decoding line by line
 * is what makes it worth having: V8 keeps a line that is all Latin-1 in one byte per character, where
 * decoding the whole text at once makes every line two bytes a character as soon as one line has a
 * character beyond (an emoji, a CJK name), and parsing, hashing and comparing them all slower. `bytes`
 * must end where a line ends (or where the input ends). Text with a `\r` in it (CRLF or old Mac line ends)
 * is decoded whole and split by {@link jsonlLinesOf}.
 */
export function jsonlLinesOfBytes(bytes: Uint8Array, firstLine: number, out: NumberedLine[]): number {
  if (bytes.indexOf(13) >= 0) return jsonlLinesOf(UTF8.decode(bytes), firstLine, out);
  let line = firstLine;
  let start = line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const take = (end: number) => {
    const text = UTF8.decode(bytes.subarray(start, end));
    if (text.trim() !== "") out.push({ line, text });
    line += 1;
  };
  for (let end = bytes.indexOf(10, start); end >= 0; end = bytes.indexOf(10, start)) {
    take(end);
    start = end + 1;
  }
  if (start < bytes.length) take(bytes.length);
  return line;
}
