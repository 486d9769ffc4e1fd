// `oracle-prefix` — POPE, privileged on-policy exploration (Qu et al., arXiv 2601.18779; paper only: the
// authors' code, CMU-AIRe/POPE, was not retrievable).
//
// Only for problems whose UNGUIDED group had zero successes: the next time such a problem is planned it
// gets a forced completion prefix — the start of its worked solution — and the policy continues from
// there. The prefix starts at the shortest level and grows one level after each guided group without a
// success, up to `maxFraction` (a quarter) of the solution: level k of `levels` shows
// floor(k/levels · maxFraction · |solution|) characters (at least 1). The first level whose group has a
// success is remembered for that problem (the minimal sufficient prefix), and the problem is counted as
// unlocked. The prefix is forced, not sampled: rollout.ts puts it in the context, so only the policy's
// own continuation is trained on (tested in oracle-prefix-step.test.ts on real token ids).
//
// Mixing: a problem with a remembered prefix keeps getting unguided attempts — of its visits after the
// unlock, `unguidedPerGuided` (default 1, i.e. 1:1) unguided ones follow each guided one. While the
// search runs every visit is guided (the search is for the prefix).
//
// Deviations and defaults:
// - POPE searches the prefix offline (sampling each length until one completion succeeds) and trains on a
//   fixed mix of guided and unguided prompts; here the search is online, one level per visit, from the
//   run's own groups, and the mixing ratio (unverified in the paper) is 1:1 per problem by default.
// - POPE writes the prefix into the prompt with an instruction to build on it (exact text unverified);
//   here it is a forced start of the completion (no instruction: our tasks' models have none), which also
//   keeps the oracle tokens out of the loss.
// - A remembered prefix whose guided group fails again grows one level (the policy moved); at the
//   largest level the problem keeps being retried there (it is never given up; guidance/searching counts
//   problems still without a sufficient prefix).
// - levels 4, maxFraction 0.25: prefixes of 1/16, 1/8, 3/16, 1/4 of the solution.
// - Leakage guard (leakage.ts, ours): a prefix containing the answer is cut back before it; an empty
//   result makes the attempt unguided (guidance/leak_dropped).
// Metrics: guidance-ledger.ts (shared), plus guidance/transfer_pass_rate (this step's share of reward > 0
// among unguided samples of problems that were once unlocked with a prefix: the transfer POPE reports;
// absent when none was sampled), guidance/transfer_solved (cumulative: once-unlocked problems later
// solved unguided), guidance/searching and guidance/remembered (problems in each state now).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Problem } from '../core/problem.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import { guardAgainstAnswer, leakContext } from './leakage.ts';
import { requireWorkedSolutions, solutionUpTo } from './worked-solution.ts';

const optionsSchema = z.strictObject({
  /** Longest prefix as a fraction of the worked solution (POPE: a quarter). */
  maxFraction: z.number().gt(0).max(1).default(0.25),
  /** Prefix lengths tried: maxFraction · k/levels for k = 1..levels. */
  levels: z.number().int().positive().default(4),
  /** Unguided attempts after each guided one, for problems with a remembered prefix. */
  unguidedPerGuided: z.number().int().nonnegative().default(1),
});

const entrySchema = z.strictObject({
  level: z.number().int().positive(),
  remembered: z.boolean(),
  /** Visits since the prefix was remembered (drives the guided/unguided mix). */
  visits: z.number().int().nonnegative(),
  transferred: z.boolean(),
});

type Entry = z.output<typeof entrySchema>;

const stateSchema = z.strictObject({
  entries: z.record(z.string(), entrySchema),
  ledger: ledgerStateSchema,
});

export function createOraclePrefixGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'oracle-prefix' options");
  requireWorkedSolutions('oracle-prefix', context);
  /** Problems that had a zero-success unguided group: their search level or remembered prefix. */
  let entries = new Map<string, Entry>();
  const ledger = new GuidanceLedger();
  let transferSamples = 0;
  let transferHits = 0;

  const prefixLength = (problem: Problem, level: number) =>
    Math.max(1, Math.floor((level / options.levels) * options.maxFraction * problem.solution.length));

  const attemptFor = (problem: Problem): PlannedAttempt => {
    const bare = { attempt: { problem, prompt: problem.prompt, prefix: '', guided: false }, strength: 0 };
    const entry = entries.get(problem.id);
    if (!entry) return bare;
    if (entry.remembered) {
      const visit = entry.visits++;
      if (visit % (options.unguidedPerGuided + 1) !== 0) return bare;
    }
    const guarded = guardAgainstAnswer(
      solutionUpTo(problem, prefixLength(problem, entry.level)),
      problem.answer,
      leakContext(problem),
    );
    ledger.countLeak(guarded.violated, guarded.text === '');
    if (guarded.text === '') return bare;
    return {
      attempt: { problem, prompt: problem.prompt, prefix: guarded.text, guided: true },
      strength: guarded.text.length / problem.solution.length,
    };
  };

  const learn = (outcome: GroupOutcome, guided: boolean, solved: boolean) => {
    const id = outcome.problem.id;
    const entry = entries.get(id);
    if (!guided) {
      if (!entry && !solved) entries.set(id, { level: 1, remembered: false, visits: 0, transferred: false });
      if (entry?.remembered) {
        transferSamples += outcome.rewards.length;
        transferHits += outcome.rewards.filter((reward) => reward > 0).length;
        if (solved) entry.transferred = true;
      }
      return;
    }
    if (!entry) return;
    if (solved && !entry.remembered) {
      entry.remembered = true;
      entry.visits = 1;
    } else if (!solved) {
      entry.level = Math.min(options.levels, entry.level + 1);
    }
  };

  return {
    name: 'oracle-prefix',
    plan: (problems, step) =>
      ledger.record(
        step,
        problems.map((problem) => attemptFor(problem)),
      ),
    observe(_step, outcomes) {
      transferSamples = 0;
      transferHits = 0;
      for (const { outcome, guided, solved } of ledger.match(outcomes)) learn(outcome, guided, solved);
    },
    state: () => ({ entries: Object.fromEntries(entries), ledger: ledger.state() }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      const state = parseConfig(stateSchema, saved, "guidance 'oracle-prefix' saved state");
      entries = new Map(Object.entries(state.entries).map(([id, entry]) => [id, { ...entry }]));
      ledger.load(state.ledger);
    },
    metrics() {
      const all = [...entries.values()];
      const metrics: Record<string, number> = {
        ...ledger.metrics(),
        'guidance/transfer_solved': all.filter((entry) => entry.transferred).length,
        'guidance/searching': all.filter((entry) => !entry.remembered).length,
        'guidance/remembered': all.filter((entry) => entry.remembered).length,
      };
      if (transferSamples > 0) metrics['guidance/transfer_pass_rate'] = transferHits / transferSamples;
      return metrics;
    },
  };
}

export const oraclePrefixGuidance = defineGuidance({
  id: 'oracle-prefix',
  description:
    'privileged on-policy exploration: a forced prefix of the worked solution for problems with zero unguided successes',
  paper: { title: 'POPE: privileged on-policy exploration (Qu et al.)', arxiv: '2601.18779' },
  optionsSchema: optionsSchema,
  create: createOraclePrefixGuidance,
});
