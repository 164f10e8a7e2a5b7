/**
 * Generation as a stage of a command (`eval run`, `export --generate`): the endpoint client with its
 * retries counted by cause, {@link generateSamples} with a progress line on stderr (samples, tokens/s,
 * failures, retries, ETA), one line per request that failed after its retries, and the closing line.
 * Both commands show the same thing, from the same code.
 */
import { ErrorCode, isMineditError, MineditError } from "../errors.js";
import type { ProgressStream } from "../io/progress-line.js";
import type { RetryPolicy } from "./backoff.js";
import { Endpoint } from "./endpoint.js";
import { type GenerationSummary, type GenerationTask, generateSamples } from "./generate.js";
import type { Journal } from "./journal.js";
import type { GenerationTarget } from "./sampling.js";
import { formatRetries, type StageCounts, StageProgress } from "./stage-progress.js";

/** Where samples come from and how they are asked for (the commands' generation flags). */
export type GenerationSource = {
  target: GenerationTarget;
  apiKey: string;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Requests in flight at once. */
  parallel: number;
  /** One request per sample instead of one per task with the API's `n`. */
  onePerRequest: boolean;
};

/** How long the reachability probe of the endpoint may take (endpoint.ts `probe`). */
const PROBE_TIMEOUT_MS = 10_000;

/** A usage error: what the user can fix (a refused key, model or URL; an unreachable endpoint). */
function usage(message: string): MineditError {
  return new MineditError(ErrorCode.InvalidArgument, message);
}

export class GenerationStage {
  /** Retries of this stage's requests by cause ("HTTP 429", "ECONNRESET", "timeout"). */
  readonly retries = new Map<string, number>();
  private readonly endpoint: Endpoint;
  private progress: StageProgress | null = null;
  private last: StageCounts = { done: 0, total: 0, tokens: 0, errors: 0 };

  /** `label` starts every line this stage writes (e.g. "minedit eval run"). */
  constructor(
    private readonly source: GenerationSource,
    private readonly label: string,
    private readonly stderr: ProgressStream,
  ) {
    this.endpoint = new Endpoint({
      target: source.target,
      apiKey: source.apiKey,
      timeoutMs: source.timeoutMs,
      retry: source.retry,
      onRetry: (cause) => {
        this.retries.set(cause, (this.retries.get(cause) ?? 0) + 1);
        this.progress?.update({ ...this.last, retries: this.retries });
      },
    });
  }

  /**
   * Checks that the endpoint answers, so a dead one stops the command before any other work.
   *
   * @throws MineditError `InvalidArgument` saying why it does not.
   */
  async probe(): Promise<void> {
    try {
      await this.endpoint.probe(PROBE_TIMEOUT_MS);
    } catch (error) {
      if (isMineditError(error) && error.code === ErrorCode.Unavailable) throw usage(error.rawMessage);
      throw error;
    }
  }

  /**
   * Generates the samples the journal lacks, with progress. Resolves when every request has an outcome or
   * `signal` aborted (the caller checks it: everything finished is in the journal).
   *
   * @throws MineditError `InvalidArgument` when the endpoint refuses the run or is down.
   */
  async run(
    tasks: readonly GenerationTask[],
    samples: number,
    journal: Journal,
    signal: AbortSignal,
  ): Promise<GenerationSummary> {
    const progress = new StageProgress(this.stderr, `${this.label}: generating`, "samples");
    this.progress = progress;
    try {
      return await generateSamples({
        tasks,
        samples,
        target: this.source.target,
        endpoint: this.endpoint,
        journal,
        parallel: this.source.parallel,
        onePerRequest: this.source.onePerRequest,
        signal,
        onProgress: (counts) => {
          this.last = counts;
          progress.update({ ...counts, retries: this.retries });
        },
        onError: (taskId, message) =>
          progress.log(`${this.label}: ${taskId}: request failed after retries: ${message}`),
      });
    } catch (error) {
      if (isMineditError(error) && error.code === ErrorCode.Unavailable) throw usage(error.rawMessage);
      throw error;
    } finally {
      progress.clear();
      this.progress = null;
    }
  }

  /** The closing line of a finished stage: samples, requests, reuse, failures, tokens, time, retries. */
  summaryLine(generation: GenerationSummary): string {
    return (
      `generated ${generation.generated} sample(s) in ${generation.requests} request(s) ` +
      `(${generation.reused} already in the journal, ${generation.failed} failed), ` +
      `${generation.completionTokens.toLocaleString("en-US")} completion tokens, ${generation.seconds.toFixed(1)} s` +
      (this.retries.size > 0 ? `; ${formatRetries(this.retries)}` : "")
    );
  }

  /** What to say when Ctrl-C stopped the stage. */
  interruptedLine(generation: GenerationSummary, journalPath: string): string {
    return (
      `interrupted; ${generation.generated} sample(s) generated now are in ${journalPath} ` +
      `(with ${generation.reused} from before). Run the same command again to resume.`
    );
  }
}
