// What every scaffold reports (issue 13, "Metrics for every scaffold"), kept in one place so the metric
// names and their meaning are the same for each: it remembers which attempts were guided (and how
// strongly) between plan() and observe(), and counts.
//
// Matching: observe() gets GroupOutcomes (problem + rewards) in sampling order, which is plan order (also
// across the several rollOut rounds of dynamic sampling); each outcome takes the oldest attempt planned
// for its problem id. An outcome nothing was planned for counts as unguided.
//
// Groups with injected expert traces (`Attempt.offPolicy`, off-policy-prefix): the group is guided, but
// its first G − k members are the policy's own completions of the BARE prompt: they count as unguided
// samples (and decide `solved` and the unlock bookkeeping: the policy's own success), the k traces
// (expert text, possibly continued by the policy) as guided samples.
//
// Metrics (per step: from the last observe(); cumulative: since the run began, restored on resume):
// - guidance/guided_frac          share of this step's groups that were guided
// - guidance/guided_pass_rate     share of guided samples with reward > 0 (absent when none was guided)
// - guidance/unguided_pass_rate   the same for unguided samples (absent when none)
// - guidance/strength             mean strength of this step's guided attempts (hint fraction p, prefix
//                                 fraction of the solution; 0 when none was guided)
// - guidance/unlocked             cumulative: problems that had an unguided group with zero successes and
//                                 later a group (guided or not) with at least one
// - guidance/leak_cut, leak_dropped  cumulative: planned hints/prefixes the leakage guard cut back, and
//                                 those it left too short to use (leakage.ts)
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import type { Attempt } from './guidance.ts';

export interface PlannedAttempt {
  attempt: Attempt;
  /** How much help: the fraction of the worked solution shown (0 when unguided). */
  strength: number;
}

export interface MatchedOutcome {
  outcome: GroupOutcome;
  guided: boolean;
  strength: number;
  /** At least one sample with reward > 0 (with expert traces: one of the policy's own members). */
  solved: boolean;
}

interface StepCounts {
  groups: number;
  guided: number;
  strengthSum: number;
  guidedSamples: number;
  guidedHits: number;
  unguidedSamples: number;
  unguidedHits: number;
}

const emptyCounts = (): StepCounts => ({
  groups: 0,
  guided: 0,
  strengthSum: 0,
  guidedSamples: 0,
  guidedHits: 0,
  unguidedSamples: 0,
  unguidedHits: 0,
});

/** The ledger's saved state (part of each scaffold's state; validated on load). */
export const ledgerStateSchema = z.strictObject({
  zeroSuccess: z.array(z.string()),
  unlocked: z.array(z.string()),
  leakCut: z.number().int().nonnegative(),
  leakDropped: z.number().int().nonnegative(),
});

export type LedgerState = z.output<typeof ledgerStateSchema>;

export class GuidanceLedger {
  private pending = new Map<string, PlannedAttempt[]>();
  private pendingStep: number | null = null;
  private counts = emptyCounts();
  /** Problems seen with an unguided group without any success. */
  private zeroSuccess = new Set<string>();
  private unlocked = new Set<string>();
  private leakCut = 0;
  private leakDropped = 0;

  /** Counts one use of the leakage guard: cut back (violated) and, if so, whether it was dropped. */
  countLeak(violated: boolean, dropped: boolean): void {
    if (!violated) return;
    this.leakCut++;
    if (dropped) this.leakDropped++;
  }

  /** Remembers this plan's attempts (an older step's leftovers are forgotten) and returns them. */
  record(step: number, planned: readonly PlannedAttempt[]): Attempt[] {
    if (this.pendingStep !== step) this.pending.clear();
    this.pendingStep = step;
    for (const entry of planned) {
      const queue = this.pending.get(entry.attempt.problem.id) ?? [];
      queue.push(entry);
      this.pending.set(entry.attempt.problem.id, queue);
    }
    return planned.map((entry) => entry.attempt);
  }

  /** Pairs each outcome with its planned attempt and updates the counts. */
  match(outcomes: readonly GroupOutcome[]): MatchedOutcome[] {
    this.counts = emptyCounts();
    const matched = outcomes.map((outcome) => {
      const planned = this.pending.get(outcome.problem.id)?.shift();
      const guided = planned?.attempt.guided ?? false;
      const strength = guided ? planned!.strength : 0;
      const injected = Math.min(outcome.rewards.length, planned?.attempt.offPolicy?.length ?? 0);
      const counts = this.counts;
      counts.groups++;
      if (guided) {
        counts.guided++;
        counts.strengthSum += strength;
      }
      if (injected > 0) {
        // The policy's own members (bare prompt) first, then the traces.
        const own = outcome.rewards.slice(0, outcome.rewards.length - injected);
        const traces = outcome.rewards.slice(outcome.rewards.length - injected);
        const ownHits = own.filter((reward) => reward > 0).length;
        counts.unguidedSamples += own.length;
        counts.unguidedHits += ownHits;
        counts.guidedSamples += traces.length;
        counts.guidedHits += traces.filter((reward) => reward > 0).length;
        const solved = ownHits > 0;
        if (own.length > 0) this.noteUnlock(outcome.problem, false, solved);
        return { outcome, guided, strength, solved };
      }
      const hits = outcome.rewards.filter((reward) => reward > 0).length;
      const solved = hits > 0;
      if (guided) {
        counts.guidedSamples += outcome.rewards.length;
        counts.guidedHits += hits;
      } else {
        counts.unguidedSamples += outcome.rewards.length;
        counts.unguidedHits += hits;
      }
      this.noteUnlock(outcome.problem, guided, solved);
      return { outcome, guided, strength, solved };
    });
    this.pending.clear();
    this.pendingStep = null;
    return matched;
  }

  private noteUnlock(problem: Problem, guided: boolean, solved: boolean): void {
    if (solved && this.zeroSuccess.has(problem.id)) this.unlocked.add(problem.id);
    if (!guided && !solved) this.zeroSuccess.add(problem.id);
  }

  metrics(): Record<string, number> {
    const counts = this.counts;
    const metrics: Record<string, number> = {
      'guidance/guided_frac': counts.groups > 0 ? counts.guided / counts.groups : 0,
      'guidance/strength': counts.guided > 0 ? counts.strengthSum / counts.guided : 0,
      'guidance/unlocked': this.unlocked.size,
      'guidance/leak_cut': this.leakCut,
      'guidance/leak_dropped': this.leakDropped,
    };
    if (counts.guidedSamples > 0) {
      metrics['guidance/guided_pass_rate'] = counts.guidedHits / counts.guidedSamples;
    }
    if (counts.unguidedSamples > 0) {
      metrics['guidance/unguided_pass_rate'] = counts.unguidedHits / counts.unguidedSamples;
    }
    return metrics;
  }

  state(): LedgerState {
    return {
      zeroSuccess: [...this.zeroSuccess],
      unlocked: [...this.unlocked],
      leakCut: this.leakCut,
      leakDropped: this.leakDropped,
    };
  }

  load(state: LedgerState): void {
    this.zeroSuccess = new Set(state.zeroSuccess);
    this.unlocked = new Set(state.unlocked);
    this.leakCut = state.leakCut;
    this.leakDropped = state.leakDropped;
    this.counts = emptyCounts();
    this.pending.clear();
    this.pendingStep = null;
  }
}
