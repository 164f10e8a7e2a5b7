/**
 * A bounded cache of analyzed programs — norm(X), tokens(X) and CC(X) (normalize.ts `analyzeProgram`) —
 * keyed by the program's text and the distance scope, least recently used out first. A GRPO run scores
 * the same programs step after step (a model's unchanged answer, the common fix, the same repair in
 * several groups), and offline scoring of millions of completions (`minedit score --no-exec`, rSFT/DPO
 * exports, evaluations) meets the same programs again: each costs one parse, three quarters of a
 * rollout's metrics time. A program CPython rejects is kept with its error, so a repeated unparsable
 * answer costs nothing either.
 *
 * The bound is on an estimate of the bytes kept ({@link entryBytes}): strings at 2 bytes per UTF-16 code
 * unit (what V8 needs at most; Latin-1 strings take half), plus a fixed allowance per token and per entry
 * for V8's string headers, array slots and map entry. It is the estimate that keeps memory flat;
 * benchmarks/metrics reports it next to the heap growth it stands for.
 */
import type { DistanceScope } from "../config.js";
import { type AnalyzedProgram, analyzeProgram, type NormalizedProgram } from "./normalize.js";

/** What the cache has done so far. `bytes` is the estimate the bound applies to. */
export type AnalyzedProgramCacheStats = { entries: number; bytes: number; hits: number; misses: number };

type Entry = { value: AnalyzedProgram; error?: undefined } | { value?: undefined; error: Error };

/** V8 string header, and a token's slot in its array. */
const STRING_OVERHEAD_BYTES = 24;
/** The entry's map slot, its key, and its result object. */
const ENTRY_OVERHEAD_BYTES = 200;

/** The estimated bytes an entry keeps: its key, its result (or error message), and overheads. */
export function entryBytes(key: string, entry: Entry): number {
  const strings = (text: string) => STRING_OVERHEAD_BYTES + 2 * text.length;
  let bytes = ENTRY_OVERHEAD_BYTES + strings(key);
  if (entry.error !== undefined) return bytes + strings(entry.error.message);
  bytes += strings(entry.value.normalized);
  for (const token of entry.value.tokens) bytes += 8 + strings(token);
  return bytes;
}

export class AnalyzedProgramCache {
  private readonly entries = new Map<string, { entry: Entry; bytes: number }>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  /** `maxBytes`: the bound on the estimate; a program whose entry alone exceeds it is not kept. */
  constructor(
    readonly maxBytes: number,
    /** The analysis cached (normalize.ts `analyzeProgram`; another only in tests). */
    private readonly analyze: (
      program: string,
      scope: DistanceScope,
      known: readonly NormalizedProgram[],
    ) => AnalyzedProgram = (program, scope, known) => analyzeProgram(program, scope, "sonar", known),
  ) {}

  /**
   * `analyzeProgram(program, scope)`, from the cache when the same program was analyzed before under the
   * same scope; throws what it threw then (the very error) for a program CPython rejects. Errors that
   * are not the program's (a bug of ours) are not cached: `isProgramError` says which are.
   *
   * `known` (the task's C and G) as analyzeProgram takes it: a program normalized to one of theirs keeps
   * its very token array, so the scorer skips the distance (without it the cache cost more than the parse
   * it saves, on the batches of benchmarks/metrics). An entry made for one task and hit by another is
   * still right: the identity just does not match there, and the distance is counted.
   */
  analyzeProgram(
    program: string,
    scope: DistanceScope,
    isProgramError: (error: unknown) => error is Error,
    known: readonly NormalizedProgram[] = [],
  ): AnalyzedProgram {
    const key = `${scope}\u0000${program}`;
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.hits += 1;
      // Map iteration order is insertion order: re-inserting makes this the most recently used entry.
      this.entries.delete(key);
      this.entries.set(key, found);
      if (found.entry.error !== undefined) throw found.entry.error;
      return found.entry.value;
    }
    this.misses += 1;
    let entry: Entry;
    try {
      entry = { value: this.analyze(program, scope, known) };
    } catch (error) {
      if (!isProgramError(error)) throw error;
      entry = { error };
    }
    this.keep(key, entry);
    if (entry.error !== undefined) throw entry.error;
    return entry.value;
  }

  stats(): AnalyzedProgramCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }

  private keep(key: string, entry: Entry): void {
    const bytes = entryBytes(key, entry);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { entry, bytes });
    this.bytes += bytes;
    for (const [oldest, kept] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= kept.bytes;
    }
  }
}
