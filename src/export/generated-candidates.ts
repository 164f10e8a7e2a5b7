/**
 * `export --generate`: the rsft/dpo candidates sampled from a model endpoint for the export's own tasks,
 * with the export's own prompt (the one its rows carry), so the data is the model's answers to exactly
 * what it will be trained on. Generation is eval's (generation/): bounded parallelism, retries counted
 * by cause, the journal that makes a killed export resume without asking a finished request again.
 *
 * The journal's samples become candidate rows in task order: an answered sample is a completion (its
 * text, without an inline reasoning block: what follows the last `</think>`; reasoning_content never
 * was in it); a request that failed after its retries is an `error` row, counted as an API error in the
 * summary and never scored.
 */
import { answerAfterReasoning } from "../core/extract-program.js";
import type { PromptStyle } from "../core/prompt/repair-prompt.js";
import { promptMessages } from "../core/prompt/repair-prompt.js";
import { type GenerationSummary, type GenerationTask, journalSamples } from "../generation/generate.js";
import { type GenerationSource, GenerationStage } from "../generation/generate-stage.js";
import { Journal } from "../generation/journal.js";
import type { RowSource, SourceRow } from "../io/inputs.js";
import type { ProgressStream } from "../io/progress-line.js";
import type { ExportTask } from "./export-task.js";

/** What `--generate` asks for: the endpoint and sampling, samples per task, and the journal's path. */
export type GenerateRequest = {
  source: GenerationSource;
  /** Samples per task (`--samples`; the paper's N = 8). */
  samples: number;
  journalPath: string;
};

/** The candidates of the generated samples, and how generation went. */
export type GeneratedCandidates = { rows: RowSource; generation: GenerationSummary };

const LABEL = "minedit export";

/** The generation stage of an export: checks the endpoint answers before anything else runs. */
export class CandidateGenerator {
  private readonly stage: GenerationStage;

  constructor(
    private readonly request: GenerateRequest,
    private readonly prompt: PromptStyle,
    private readonly stderr: ProgressStream,
  ) {
    this.stage = new GenerationStage(request.source, LABEL, stderr);
  }

  /** @throws MineditError `InvalidArgument` when the endpoint does not answer. */
  probe(): Promise<void> {
    return this.stage.probe();
  }

  /**
   * Generates what the journal lacks for `tasks` and returns every task's samples as candidate rows.
   *
   * @throws MineditError `InvalidArgument` when the endpoint refuses the run or is down.
   */
  async generate(tasks: readonly ExportTask[], signal: AbortSignal): Promise<GeneratedCandidates> {
    const journal = await Journal.open(this.request.journalPath);
    if (journal.state.repaired)
      this.stderr.write(
        `${LABEL}: the journal's last line was torn (an interrupted write) and was dropped\n`,
      );
    const asked: GenerationTask[] = tasks.map((task) => ({
      taskId: task.taskId,
      messages: promptMessages(task.statement, task.corrupted, this.prompt),
    }));
    const generation = await this.stage.run(asked, this.request.samples, journal, signal);
    this.stderr.write(`${LABEL}: ${this.stage.summaryLine(generation)}\n`);
    const rows: SourceRow[] = [];
    for (const task of asked) {
      const samples = journalSamples(journal, task, this.request.source.target, this.request.samples);
      for (const [index, line] of samples.entries()) {
        const where = `${this.request.journalPath}: ${task.taskId} sample ${index}`;
        // Every sample was asked above; one without a line can only be a torn last line, asked next time.
        if (line === undefined) continue;
        const row =
          line.status === "ok"
            ? { task_id: task.taskId, completion: answerAfterReasoning(line.text) }
            : { task_id: task.taskId, error: `${line.error.status ?? "no response"}: ${line.error.message}` };
        rows.push({ where, row });
      }
    }
    let position = 0;
    return {
      generation,
      rows: {
        name: this.request.journalPath,
        size: rows.length,
        position: () => position,
        async *rows() {
          for (const row of rows) {
            position += 1;
            yield row;
          }
        },
        close: async () => {},
      },
    };
  }
}
