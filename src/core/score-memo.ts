/**
 * Scores of programs seen before, least recently used out first: a metrics worker's memory of what it
 * scored, for the calls that need no norm(M) back (`minedit score --no-exec`, exports, evaluations). The
 * caller keys an entry by what determines the score — the task, the reward config and the program
 * extracted from the completion, the program as a digest, so that its text is not kept — and stores the
 * score itself: a few hundred bytes an entry, where the program cache (analyzed-program-cache.ts) keeps a
 * program's whole token list. So it can hold the programs a long run meets again (offline scoring of a
 * million completions cycles over the same tasks, and models repeat their answers, in different prose),
 * and a program met again costs an extraction, a digest and a lookup.
 *
 * Pure: the digest is the caller's.
 */

/** What the memo has done so far. */
export type ScoreMemoStats = { entries: number; hits: number; misses: number };

export class ScoreMemo<V> {
  private readonly entries = new Map<string, V>();
  private hits = 0;
  private misses = 0;

  /** At most `maxEntries` scores are kept (0: none, every lookup misses). */
  constructor(readonly maxEntries: number) {}

  /** The score kept under `key`, now the most recently used, or undefined. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) {
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    // Map iteration order is insertion order: re-inserting makes this the most recently used entry.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` under `key`, letting the least recently used entry go when full. */
  set(key: string, value: V): void {
    if (this.maxEntries === 0) return;
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  stats(): ScoreMemoStats {
    return { entries: this.entries.size, hits: this.hits, misses: this.misses };
  }
}
