/**
 * The one progress line on stderr that every long CLI run draws (src/io/progress.ts for row streams,
 * src/generation/stage-progress.ts for an evaluation's stages), without a dependency.
 *
 * On a terminal: the line redrawn in place (`\r` + erase-line) at most every {@link TTY_INTERVAL_MS}, cut to
 * the terminal's width. Anywhere else (a log file, CI, a pipe): no control characters, a plain line every
 * {@link PLAIN_INTERVAL_MS}, and nothing at all for runs shorter than that, so short runs and tests print
 * only their summary. Messages that must interleave with the line go through {@link ProgressLine.log},
 * which erases it first so the two never share a line.
 */

/** What the reporter needs of stderr; `isTTY`/`columns` are those of `process.stderr`. */
export type ProgressStream = {
  write(chunk: string): boolean;
  isTTY?: boolean;
  columns?: number;
};

/** Redraw period of the terminal line: fast enough to look live, slow enough to cost nothing. */
export const TTY_INTERVAL_MS = 100;
/** Period of plain progress lines when stderr is not a terminal. */
export const PLAIN_INTERVAL_MS = 5000;

const BAR_WIDTH = 24;

/** `[#####-------]` for a fraction in [0, 1]. */
export function progressBar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}]`;
}

export class ProgressLine {
  readonly tty: boolean;
  /** When the run began, on `now`'s clock (ms). */
  readonly start: number;
  private lastDraw: number;
  /** Whether the line is drawn on the terminal's last line (and must be erased before other output). */
  private shown = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tty = stream.isTTY === true;
    this.start = now();
    this.lastDraw = this.start;
  }

  /**
   * Draws `render(now)` (`tty`: whether it goes on a terminal) once the interval has passed, or at once
   * with `force` — which on a terminal shows the final state, and elsewhere writes nothing (the caller's
   * summary says it, and a plain line would repeat it).
   */
  draw(render: (now: number, tty: boolean) => string, force = false): void {
    const now = this.now();
    if (!force && now - this.lastDraw < (this.tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    this.lastDraw = now;
    if (this.tty) {
      this.stream.write(`\r\x1b[K${this.fit(render(now, true))}`);
      this.shown = true;
    } else if (!force) {
      this.stream.write(`${render(now, false)}\n`);
    }
  }

  /** Writes a message line (a newline is added) without garbling the line; it reappears on the next draw. */
  log(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  /** Erases the line, e.g. before the final summary. */
  clear(): void {
    if (this.shown) {
      this.stream.write("\r\x1b[K");
      this.shown = false;
    }
  }

  /** Cuts the line to the terminal width: a wrapped line would not be erased by `\r` + erase-line. */
  private fit(line: string): string {
    const columns = this.stream.columns;
    return columns !== undefined && columns > 1 && line.length >= columns ? line.slice(0, columns - 1) : line;
  }
}
