/**
 * Rejection sampling (rSFT) and preference pairs (DPO / DPOP) from scored candidates, per task
 * (docs/export.md; over-editing paper §4.1: "we generate eight candidate repairs per training sample, keep
 * passing candidates, and rank them by Levenshtein distance to the reference repair; rSFT uses the three
 * smallest-edit candidates, while DPO prefers the smallest-edit candidate over the largest-edit one").
 *
 * The ranking key is d(M, G), the normalized token distance from the candidate to the reference repair G,
 * as the paper says, and as the authors' released code computes it (`create_synth_dataset.py` ranks by
 * `levenshtein(canonical, completion) − levenshtein(canonical, corrupted)`, which within one task differs
 * from d(M, G) by a constant). It is not the excess e(M) = d(M, C) − d(G, C) of the RL reward: e measures
 * how much of the corrupted program was rewritten, d(M, G) how far the repair is from the known minimal
 * one; a candidate can keep C's size of change yet land elsewhere (e.g. fix the bug and rename a
 * variable back and forth), and the paper's recipe targets closeness to G. Ties in d(M, G) are broken by
 * the smaller excess, then by the earlier candidate.
 *
 * The selectors keep O(k) candidates per task, never the whole candidate list, so a candidates file is
 * streamed in constant memory per task.
 *
 * Pure: no I/O.
 */
import type { Verdict } from "../core/reward.js";

/** A scored candidate repair of one task. */
export type ScoredCandidate = {
  completion: string;
  /** Position among the task's candidates (0-based, in input order): the last tie-breaker. */
  order: number;
  verdict: Verdict;
  /** Reward under the configured reward (null for INFRA_ERROR). */
  reward: number | null;
  /** d(M, G): distance to the reference repair; null when there is no program (NO_CODE, UNPARSABLE). */
  distance: number | null;
  /** e(M) = d(M, C) − d(G, C); null when there is no program. */
  excess: number | null;
  testsPassed: number;
  testsTotal: number;
};

/** A passing candidate always has a program, hence a distance and an excess. */
export type PassingCandidate = ScoredCandidate & { distance: number; excess: number };

/** Verdict counts of a task's candidates. */
export type CandidateCounts = { total: number; passed: number; failed: number; infraError: number };

function isPassing(c: ScoredCandidate): c is PassingCandidate {
  return c.verdict === "PASSED" && c.distance !== null && c.excess !== null;
}

/** A failure of the candidate (not of the sandbox). */
function isFailing(c: ScoredCandidate): boolean {
  return c.verdict !== "PASSED" && c.verdict !== "INFRA_ERROR";
}

/** Negative when `a` is the smaller edit: d(M, G), then excess, then input order. */
export function compareEdit(a: PassingCandidate, b: PassingCandidate): number {
  return a.distance - b.distance || a.excess - b.excess || a.order - b.order;
}

/** Orders candidates by "larger edit first": larger d(M, G), then larger excess, then earlier order. */
function compareLargerEdit(a: PassingCandidate, b: PassingCandidate): number {
  return b.distance - a.distance || b.excess - a.excess || a.order - b.order;
}

class Counter {
  readonly counts: CandidateCounts = { total: 0, passed: 0, failed: 0, infraError: 0 };

  count(c: ScoredCandidate): void {
    this.counts.total += 1;
    if (c.verdict === "PASSED") this.counts.passed += 1;
    else if (c.verdict === "INFRA_ERROR") this.counts.infraError += 1;
    else this.counts.failed += 1;
  }
}

/** rSFT for one task: the `keep` passing candidates with the smallest edit, best first. */
export class RsftSelector {
  private readonly counter = new Counter();
  private readonly best: PassingCandidate[] = [];

  constructor(private readonly keep: number) {}

  add(candidate: ScoredCandidate): void {
    this.counter.count(candidate);
    if (!isPassing(candidate)) return;
    // Insertion into a list of at most `keep` entries (k is small: 3 by default).
    let at = this.best.findIndex((kept) => compareEdit(candidate, kept) < 0);
    if (at === -1) at = this.best.length;
    if (at >= this.keep) return;
    this.best.splice(at, 0, candidate);
    if (this.best.length > this.keep) this.best.pop();
  }

  get counts(): CandidateCounts {
    return this.counter.counts;
  }

  /** The kept candidates, smallest edit first (empty when none passed). */
  selected(): PassingCandidate[] {
    return [...this.best];
  }
}

/** How the rejected side of a DPO pair is chosen. */
export const REJECTED_MODES = ["largest-edit", "failing"] as const;
export type RejectedMode = (typeof REJECTED_MODES)[number];

/** Why a task yields no pair; counted in the export summary. */
export const NO_PAIR_REASONS = {
  noPassing: "no passing candidate",
  onePassing: "only one passing candidate",
  tiedPassing: "all passing candidates are equally far from the reference repair",
  noFailing: "no failing candidate",
} as const;
export type NoPairReason = keyof typeof NO_PAIR_REASONS;

export type DpoPair = { chosen: PassingCandidate; rejected: ScoredCandidate };

/**
 * DPO for one task: chosen = the smallest-edit passing candidate; rejected = the largest-edit passing
 * candidate (`largest-edit`), which must be strictly farther from G than the chosen one (two repairs at
 * the same distance carry no preference), or the first failing candidate in input order (`failing`).
 * The first failing candidate, not a ranked one: candidates are i.i.d. samples, so the first is an
 * unbiased draw, and a failure has no meaningful "size" (it may have no program at all). Sandbox faults
 * (INFRA_ERROR) are neither passing nor failing.
 */
export class DpoSelector {
  private readonly counter = new Counter();
  private smallest: PassingCandidate | undefined;
  private largest: PassingCandidate | undefined;
  private firstFailing: ScoredCandidate | undefined;

  constructor(private readonly mode: RejectedMode) {}

  add(candidate: ScoredCandidate): void {
    this.counter.count(candidate);
    if (isPassing(candidate)) {
      if (this.smallest === undefined || compareEdit(candidate, this.smallest) < 0) this.smallest = candidate;
      if (this.largest === undefined || compareLargerEdit(candidate, this.largest) < 0)
        this.largest = candidate;
    } else if (isFailing(candidate) && this.firstFailing === undefined) {
      this.firstFailing = candidate;
    }
  }

  get counts(): CandidateCounts {
    return this.counter.counts;
  }

  /** The pair, or why there is none. */
  pair(): { ok: true; pair: DpoPair } | { ok: false; reason: NoPairReason } {
    const chosen = this.smallest;
    if (chosen === undefined) return { ok: false, reason: "noPassing" };
    if (this.mode === "failing") {
      if (this.firstFailing === undefined) return { ok: false, reason: "noFailing" };
      return { ok: true, pair: { chosen, rejected: this.firstFailing } };
    }
    const rejected = this.largest as PassingCandidate;
    if (this.counter.counts.passed < 2) return { ok: false, reason: "onePassing" };
    if (!(rejected.distance > chosen.distance)) return { ok: false, reason: "tiedPassing" };
    return { ok: true, pair: { chosen, rejected } };
  }
}
