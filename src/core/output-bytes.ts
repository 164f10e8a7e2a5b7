/**
 * Output lines written as UTF-8 into one growing buffer, for a thread that hands them to another (the
 * metrics workers' `minedit score --no-exec` batches): the bytes move between threads without a copy and
 * are written as they are, where text would be copied across and encoded again on the main thread.
 *
 * Pure: no I/O.
 */

const UTF8 = new TextEncoder();

/** A batch's output, written as UTF-8 into one growing buffer. */
export class OutputBytes {
  private buffer: Uint8Array;
  private length = 0;

  /** `capacity`: the bytes expected (more are made room for). */
  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(capacity, 1024));
  }

  /** Appends `text`, encoded. */
  text(text: string): void {
    // At most 3 bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    // The start of a line (`{"id":…,"task_id":…`) is short and mostly ASCII: copied by hand, it costs less
    // than a call to the encoder and the view it writes into.
    const buffer = this.buffer;
    let at = this.length;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) {
        at += UTF8.encodeInto(text.slice(i), buffer.subarray(at)).written;
        break;
      }
      buffer[at++] = code;
    }
    this.length = at;
  }

  /** Appends bytes already encoded (a part many lines share, encoded once). */
  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The bytes written, in a buffer of their own (so that it can be moved). */
  done(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private reserve(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.length + more));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}
