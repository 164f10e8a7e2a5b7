/**
 * Progress of an evaluation's long stages on stderr — generation (samples, tokens/s, errors) and scoring
 * (samples scored) — with an ETA, following src/io/progress.ts's conventions: on a terminal one line
 * redrawn in place at most every 100 ms with a bar; elsewhere a plain line every 5 s and nothing at all
 * for a stage shorter than that.
 */
import { PLAIN_INTERVAL_MS, type ProgressStream, TTY_INTERVAL_MS } from "../io/progress.js";

const BAR_WIDTH = 24;

/** "1h02m", "3m05s", "12s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m${String(rest).padStart(2, "0")}s`;
  return `${rest}s`;
}

/** What a stage reports: `done` of `total` items, and optionally tokens generated and failures. */
export type StageCounts = { done: number; total: number; tokens?: number; errors?: number };

export class StageProgress {
  private readonly tty: boolean;
  private readonly start: number;
  private lastDraw: number;
  private barShown = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
    private readonly unit: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tty = stream.isTTY === true;
    this.start = now();
    this.lastDraw = this.start;
  }

  /** Records progress; draws when the interval has passed (`force`: now, e.g. at the end on a terminal). */
  update(counts: StageCounts, force = false): void {
    const now = this.now();
    if (!force && now - this.lastDraw < (this.tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    this.lastDraw = now;
    const line = `${this.label}: ${this.status(counts, now)}`;
    if (this.tty) {
      const columns = this.stream.columns;
      const fitted =
        columns !== undefined && columns > 1 && line.length >= columns ? line.slice(0, columns - 1) : line;
      this.stream.write(`\r\x1b[K${fitted}`);
      this.barShown = true;
    } else if (!force) {
      this.stream.write(`${line}\n`);
    }
  }

  /** A message line that does not garble the bar. */
  log(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  clear(): void {
    if (this.barShown) {
      this.stream.write("\r\x1b[K");
      this.barShown = false;
    }
  }

  private status(counts: StageCounts, now: number): string {
    const seconds = (now - this.start) / 1000;
    const fraction = counts.total > 0 ? Math.min(1, counts.done / counts.total) : 1;
    const parts = [
      `${counts.done.toLocaleString("en-US")}/${counts.total.toLocaleString("en-US")} ${this.unit}`,
    ];
    if (counts.tokens !== undefined && seconds > 0) {
      parts.push(`${Math.round(counts.tokens / seconds).toLocaleString("en-US")} tok/s`);
    }
    if (counts.errors !== undefined && counts.errors > 0) parts.push(`${counts.errors} failed`);
    if (counts.done > 0 && counts.done < counts.total) {
      parts.push(`ETA ${formatDuration((seconds / counts.done) * (counts.total - counts.done))}`);
    }
    const percent = `${Math.floor(fraction * 100)}%`;
    if (!this.tty) return `${percent}, ${parts.join(", ")}`;
    const filled = Math.round(fraction * BAR_WIDTH);
    return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${percent.padStart(4)}  ${parts.join(", ")}`;
  }
}
