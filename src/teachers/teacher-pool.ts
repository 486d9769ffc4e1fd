// The teacher pool (issue 13, "Teacher pool"; ARCHITECTURE.md "Teachers are policies too"): named, frozen
// policies behind the PolicyBackend contract — an embedded checkpoint or a remote model — that other
// methods ask to score tokens (on-policy distillation, RLT's reward) or to write (AMPO's solutions, RLT's
// explanations). The pool never trains a teacher: it exposes only `forward` and `sample`.
//
// Failure handling: every call has a timeout (`timeoutMs`); a call that throws or runs past it rejects
// with a TeacherCallError and is counted (`teacher/failures`, per step: read and reset by takeMetrics).
// The caller decides what a failure costs — the OPD phase drops the teacher signal of the groups it was
// scoring, never the run. A timed-out call is abandoned, not cancelled: an embedded forward cannot be
// interrupted, so its result is ignored when it arrives.
//
// Teachers are frozen, so the pool has no state to checkpoint: a resumed run rebuilds the same teachers
// from the config (the per-step counters start again at 0, as every per-step metric does).
import { DeadlineError, withDeadline } from '../core/deadline.ts';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../core/policy.ts';

export class TeacherCallError extends Error {
  override name = 'TeacherCallError';
}

/** Options of one call; `teacher` picks a pool member (default: the first). */
export interface TeacherCallOptions {
  teacher?: string;
  /** Overrides the pool's timeout for this call. */
  timeoutMs?: number;
}

export interface Teachers {
  /** Names in config order; the first is the default teacher. */
  readonly names: readonly string[];
  /** The backend of a teacher (for its tokenizer and context length). */
  backend(name?: string): PolicyBackend;
  /** Teacher-forced log-probs, length L−1 per sequence (PolicyBackend.forward). */
  score(sequences: number[][], options?: TeacherCallOptions): Promise<number[][]>;
  /** Completions written by a teacher (PolicyBackend.sample). */
  sample(
    prompts: number[][],
    sampleOptions: SampleOptions,
    options?: TeacherCallOptions,
  ): Promise<SampledSequence[][]>;
  /** This step's teacher/* metrics (failures, calls, time), then zeroed. */
  takeMetrics(): Record<string, number>;
  close(): Promise<void>;
}

export class TeacherPool implements Teachers {
  private readonly members: Map<string, PolicyBackend>;
  private failures = 0;
  private calls = 0;
  private scoreMs = 0;
  private sampleMs = 0;

  /**
   * `borrowed`: members the pool uses but does not own (the run's own policy as its self-teacher);
   * close() leaves them open.
   */
  constructor(
    members: ReadonlyArray<readonly [string, PolicyBackend]>,
    private readonly timeoutMs: number,
    private readonly borrowed: ReadonlySet<string> = new Set(),
  ) {
    if (members.length === 0) throw new RangeError('a teacher pool needs at least one teacher');
    this.members = new Map(members);
    if (this.members.size !== members.length) throw new RangeError('teacher names must be unique');
  }

  get names(): string[] {
    return [...this.members.keys()];
  }

  backend(name?: string): PolicyBackend {
    const resolved = name ?? this.names[0];
    const backend = this.members.get(resolved);
    if (!backend) {
      throw new RangeError(`no teacher '${resolved}' in the pool; known: ${this.names.join(', ')}`);
    }
    return backend;
  }

  async score(sequences: number[][], options: TeacherCallOptions = {}): Promise<number[][]> {
    const backend = this.backend(options.teacher);
    const started = performance.now();
    try {
      const result = await this.call('score', options, () => backend.forward(sequences));
      const problem = malformedScores(result, sequences);
      if (problem !== null) {
        this.failures++;
        throw new TeacherCallError(`teacher '${options.teacher ?? this.names[0]}' score: ${problem}`);
      }
      return result;
    } finally {
      this.scoreMs += performance.now() - started;
    }
  }

  async sample(
    prompts: number[][],
    sampleOptions: SampleOptions,
    options: TeacherCallOptions = {},
  ): Promise<SampledSequence[][]> {
    const backend = this.backend(options.teacher);
    const started = performance.now();
    try {
      return await this.call('sample', options, () => backend.sample(prompts, sampleOptions));
    } finally {
      this.sampleMs += performance.now() - started;
    }
  }

  takeMetrics(): Record<string, number> {
    const metrics = {
      'teacher/failures': this.failures,
      'teacher/calls': this.calls,
      'perf/teacher/score_ms': this.scoreMs,
      'perf/teacher/sample_ms': this.sampleMs,
    };
    this.failures = 0;
    this.calls = 0;
    this.scoreMs = 0;
    this.sampleMs = 0;
    return metrics;
  }

  async close(): Promise<void> {
    for (const [name, backend] of this.members) {
      if (!this.borrowed.has(name)) await backend.close?.();
    }
  }

  /** Runs one backend call under the timeout; a throw or a timeout becomes a counted TeacherCallError. */
  private async call<T>(what: string, options: TeacherCallOptions, run: () => Promise<T>): Promise<T> {
    const name = options.teacher ?? this.names[0];
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    this.calls++;
    // An abandoned call (timed out) may still reject later: withDeadline leaves no unhandled rejection.
    try {
      return await withDeadline(
        Promise.resolve().then(run),
        timeoutMs,
        `teacher '${name}' ${what} timed out after ${timeoutMs} ms`,
      );
    } catch (error) {
      this.failures++;
      if (error instanceof TeacherCallError) throw error;
      if (error instanceof DeadlineError) throw new TeacherCallError(error.message);
      throw new TeacherCallError(`teacher '${name}' ${what} failed: ${(error as Error).message}`);
    }
  }
}

/** Why a forward result cannot be used (wrong shape, non-finite log-probs); null when it can. */
function malformedScores(result: unknown, sequences: readonly number[][]): string | null {
  if (!Array.isArray(result) || result.length !== sequences.length) {
    return `returned ${Array.isArray(result) ? result.length : 'no'} score rows for ${sequences.length} sequences`;
  }
  for (let index = 0; index < sequences.length; index++) {
    const row = result[index];
    const expected = sequences[index].length - 1;
    if (!Array.isArray(row) || row.length !== expected) {
      return `sequence ${index}: ${Array.isArray(row) ? row.length : 'no'} log-probs for ${expected} predicted tokens`;
    }
    // Finite and ≤ 0 (a float tolerance above 0): −∞ or NaN would poison the advantages.
    if (row.some((value) => typeof value !== 'number' || !Number.isFinite(value) || value > 1e-4)) {
      return `sequence ${index}: a log-prob is not a finite number ≤ 0`;
    }
  }
  return null;
}
