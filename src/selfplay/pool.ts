// The generated pool: admitted self-play problems (issue 16 item 4), bounded by `poolLimit` (the oldest
// leave first), with running counts per outcome for the selfplay/* metrics. Its state is plain JSON for
// the checkpoint's extra state; `restore` checks the shape and rebuilds the pool exactly (same problems,
// same order, same counts), so a resumed run proposes and trains on what the killed one would have.
import type { Problem } from '../core/problem.ts';
import { type RejectReason, rejectReasons } from './admission.ts';

export interface PoolEntry {
  problem: Problem;
  /** The task's canonical key (duplicate guard). */
  key: string;
  /** The student's pass rate when it was admitted. */
  passRate: number;
  /** RL step of the generator round that admitted it. */
  step: number;
}

export interface PoolCounts {
  proposed: number;
  admitted: number;
  rejected: Record<RejectReason, number>;
}

export interface PoolState {
  version: 1;
  entries: PoolEntry[];
  counts: PoolCounts;
}

function zeroCounts(): PoolCounts {
  const rejected = Object.fromEntries(rejectReasons.map((reason) => [reason, 0])) as Record<
    RejectReason,
    number
  >;
  return { proposed: 0, admitted: 0, rejected };
}

export class GeneratedPool {
  private entries: PoolEntry[] = [];
  private counts: PoolCounts = zeroCounts();

  constructor(readonly limit: number) {
    if (!(Number.isInteger(limit) && limit > 0))
      throw new RangeError(`poolLimit must be a positive integer, got ${limit}`);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The admitted problems, oldest first. */
  problems(): Problem[] {
    return this.entries.map((entry) => entry.problem);
  }

  /** Canonical keys in the pool (screen.ts's duplicate guard). */
  keys(): Set<string> {
    return new Set(this.entries.map((entry) => entry.key));
  }

  /** Records one proposal's outcome; an admitted entry joins (the oldest leaves when full). */
  record(outcome: { admitted: PoolEntry } | { rejected: RejectReason }): void {
    this.counts.proposed += 1;
    if ('rejected' in outcome) {
      this.counts.rejected[outcome.rejected] += 1;
      return;
    }
    this.counts.admitted += 1;
    this.entries.push(outcome.admitted);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  /** Running totals for the selfplay/* metrics. */
  metrics(): Record<string, number> {
    const out: Record<string, number> = {
      'selfplay/proposed': this.counts.proposed,
      'selfplay/admitted': this.counts.admitted,
      'selfplay/pool_size': this.entries.length,
    };
    for (const reason of rejectReasons) out[`selfplay/rejected/${reason}`] = this.counts.rejected[reason];
    return out;
  }

  /** Takes over another pool's problems and counts (resume: the selector keeps this instance). */
  replaceWith(other: GeneratedPool): void {
    this.entries = other.entries;
    this.counts = other.counts;
  }

  /** Plain-JSON state for the checkpoint. */
  state(): PoolState {
    return structuredClone({ version: 1, entries: this.entries, counts: this.counts });
  }

  /** A pool rebuilt exactly from `state()`; throws a one-line Error on a malformed state. */
  static restore(limit: number, state: unknown): GeneratedPool {
    const pool = new GeneratedPool(limit);
    const value = state as Partial<PoolState> | null;
    if (value === null || typeof value !== 'object' || value.version !== 1 || !Array.isArray(value.entries)) {
      throw new Error('self-play pool state: expected {version: 1, entries: [...], counts}');
    }
    for (const [index, entry] of value.entries.entries()) {
      if (
        typeof entry?.key !== 'string' ||
        typeof entry.passRate !== 'number' ||
        typeof entry.step !== 'number' ||
        typeof entry.problem?.prompt !== 'string' ||
        typeof entry.problem.id !== 'string'
      ) {
        throw new Error(`self-play pool state: entry ${index} is malformed`);
      }
    }
    const counts = value.counts;
    if (
      typeof counts?.proposed !== 'number' ||
      typeof counts.admitted !== 'number' ||
      rejectReasons.some((reason) => typeof counts.rejected?.[reason] !== 'number')
    ) {
      throw new Error('self-play pool state: counts are malformed');
    }
    pool.entries = structuredClone(value.entries).slice(-limit);
    pool.counts = structuredClone(counts);
    return pool;
  }
}
