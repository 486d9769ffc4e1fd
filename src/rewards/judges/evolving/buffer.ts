// The evolving rubric of every problem (RLER's rubric buffer: persistent criteria, active and inactive
// evolving ones), kept with the run as a journal: `evolving-rubrics.jsonl` in the run's directory, one line
// per graded step `{step, changes}` (a criterion added, deactivated). A resumed run replays the lines of the
// steps before the one it resumes at and drops the rest (rewriting the file), so the rubrics it grades with
// are the ones the interrupted run had at that step, not ones it elicited after its last checkpoint; a line
// cut off by a kill is ignored. Outside a run (no directory) the buffer lives in memory.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../core/durable-files.ts';
import type { Criterion } from '../criteria.ts';

export const EVOLVING_RUBRICS_FILE = 'evolving-rubrics.jsonl';

/** An elicited criterion: a rubric criterion with its direction and lineage. */
export interface EvolvingCriterion extends Criterion {
  /** positive: what a good response does (yes pays); negative: a pitfall (yes costs). */
  polarity: 'positive' | 'negative';
  /** 0 for an elicited criterion, parent's + 1 for one RRD decomposed out of it. */
  depth: number;
  /** The step it was added at. */
  step: number;
}

export type RubricChange =
  | { problem: string; add: EvolvingCriterion }
  | {
      problem: string;
      deactivate: string;
      why: 'no-spread' | 'over-cap' | 'redundant' | 'misaligned' | 'decomposed';
    };

interface Entry {
  active: EvolvingCriterion[];
  inactive: (EvolvingCriterion & { why: string })[];
}

export class RubricBuffer {
  private readonly entries = new Map<string, Entry>();
  private file: string | null = null;
  /** The journal is read at the first step graded after useRunDirectory. */
  private pendingLoad = false;

  useRunDirectory(dir: string): void {
    this.file = join(dir, EVOLVING_RUBRICS_FILE);
    this.pendingLoad = true;
  }

  /** Before grading `step`: the journal's changes of earlier steps, replayed once after (re)opening. */
  prepare(step: number): void {
    if (!this.pendingLoad || this.file === null) return;
    this.pendingLoad = false;
    this.entries.clear();
    if (!existsSync(this.file)) return;
    const kept: string[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      let record: { step: number; changes: RubricChange[] };
      try {
        record = JSON.parse(line);
      } catch {
        continue; // empty, or cut off by a kill
      }
      if (typeof record?.step !== 'number' || record.step >= step || !Array.isArray(record.changes)) continue;
      for (const change of record.changes) this.apply(change);
      kept.push(line);
    }
    writeFileAtomic(this.file, kept.map((line) => `${line}\n`).join(''));
  }

  active(problem: string): readonly EvolvingCriterion[] {
    return this.entries.get(problem)?.active ?? [];
  }

  /** Every name the problem's rubric has used (active or not): elicited names must be new. */
  names(problem: string): Set<string> {
    const entry = this.entries.get(problem);
    return new Set([...(entry?.active ?? []), ...(entry?.inactive ?? [])].map((c) => c.name.toLowerCase()));
  }

  apply(change: RubricChange): void {
    const entry = this.entries.get(change.problem) ?? { active: [], inactive: [] };
    this.entries.set(change.problem, entry);
    if ('add' in change) {
      entry.active.push(change.add);
      return;
    }
    const at = entry.active.findIndex((criterion) => criterion.name === change.deactivate);
    if (at < 0) return;
    const [criterion] = entry.active.splice(at, 1);
    entry.inactive.push({ ...criterion, why: change.why });
  }

  /** Records a step's changes (already applied) in the journal: one line, appended. */
  record(step: number, changes: readonly RubricChange[]): void {
    if (this.file === null || changes.length === 0) return;
    appendFileSync(this.file, `${JSON.stringify({ step, changes })}\n`);
  }
}
