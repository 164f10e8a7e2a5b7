/**
 * Progress of an evaluation's long stages on stderr — generation (samples, tokens/s, errors) and scoring
 * (samples scored) — with a bar and an ETA; the drawing rules are src/io/progress-line.ts's.
 */
import { ProgressLine, type ProgressStream, progressBar } from "../io/progress-line.js";

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

/** What a stage reports: `done` of `total` items, and optionally tokens generated, failures and retries. */
export type StageCounts = {
  done: number;
  total: number;
  tokens?: number;
  errors?: number;
  /** Retries so far by cause ("HTTP 429", "ECONNRESET", …). */
  retries?: ReadonlyMap<string, number>;
};

/**
 * "retried 12 requests: 429 ×10, 500 ×2" — the causes most frequent first, an HTTP status as its number;
 * "" without retries.
 */
export function formatRetries(retries: ReadonlyMap<string, number>, what = "requests"): string {
  const total = [...retries.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return "";
  const causes = [...retries]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([cause, n]) => `${cause.replace(/^HTTP /, "")} ×${n}`);
  return `retried ${total} ${what}: ${causes.join(", ")}`;
}

export class StageProgress {
  private readonly line: ProgressLine;

  constructor(
    stream: ProgressStream,
    private readonly label: string,
    private readonly unit: string,
    now: () => number = () => performance.now(),
  ) {
    this.line = new ProgressLine(stream, now);
  }

  /** Records progress; draws when the interval has passed (`force`: now, e.g. at the end on a terminal). */
  update(counts: StageCounts, force = false): void {
    this.line.draw((now, tty) => `${this.label}: ${this.status(counts, now, tty)}`, force);
  }

  /** A message line that does not garble the bar. */
  log(message: string): void {
    this.line.log(message);
  }

  clear(): void {
    this.line.clear();
  }

  private status(counts: StageCounts, now: number, tty: boolean): string {
    const seconds = (now - this.line.start) / 1000;
    const fraction = counts.total > 0 ? Math.min(1, counts.done / counts.total) : 1;
    const parts = [
      `${counts.done.toLocaleString("en-US")}/${counts.total.toLocaleString("en-US")} ${this.unit}`,
    ];
    if (counts.tokens !== undefined && seconds > 0) {
      parts.push(`${Math.round(counts.tokens / seconds).toLocaleString("en-US")} tok/s`);
    }
    if (counts.errors !== undefined && counts.errors > 0) parts.push(`${counts.errors} failed`);
    if (counts.retries !== undefined && counts.retries.size > 0)
      parts.push(formatRetries(counts.retries, "times"));
    if (counts.done > 0 && counts.done < counts.total) {
      parts.push(`ETA ${formatDuration((seconds / counts.done) * (counts.total - counts.done))}`);
    }
    const percent = `${Math.floor(fraction * 100)}%`;
    if (!tty) return `${percent}, ${parts.join(", ")}`;
    return `${progressBar(fraction)} ${percent.padStart(4)}  ${parts.join(", ")}`;
  }
}
