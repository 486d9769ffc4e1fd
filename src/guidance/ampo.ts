// `ampo` — Adaptive Multi-teacher Policy Optimization, guidance on demand (Yuan et al., "More Than One
// Teacher: Adaptive Multi-Guidance Policy Optimization for Diverse Exploration", arXiv 2510.02227; code
// SII-Enigma/AMPO @b88d365: `ampo/verl/verl/adaptive_mix_src/mix_dapo_trainer.py` `mix_off_policy_rollout`,
// `workers/reward_manager/prob.py`, `adaptive_mix_src/config/mix_dapo_trainer.yaml`,
// `exp_scripts/train_ampo.sh`; reference/curricula.md B4).
//
// What it does, in the step that samples the group (a post-grading hook, teacher-help-contract.ts, run by
// src/training/components/teachers/teacher-help-round.ts between grading and the advantage, as the authors' mix runs):
// 1. Trigger (`injection`, authors' injection_strategy): a group with fewer than 1 correct member of n
//    (correct = reward > `correctAbove`) gets help (`adaptive`); `hybrid` also helps a solved group with
//    probability `hybridProbability`; `always` helps every group.
// 2. Solutions: each pool teacher (`teachers`, default the whole teacher.pool) writes one solution to the
//    problem's prompt (teachers.sample, `temperature`, rollout.topP, at most the group's room − 1 tokens);
//    with `oracle: true` the problem's worked solution is one more candidate ('oracle'). A teacher call
//    that throws or times out costs that teacher's solutions for the call's problems
//    (ampo/teacher_failures), never the run.
// 3. Verification: every candidate is graded by the run's reward. A candidate the verifier rejects
//    (reward ≤ correctAbove) is dropped (ampo/rejected_by_verifier) unless `trainRejected: true`.
// 4. Comprehension-based selection (`selection: comprehension`, the authors' prob manager): each
//    candidate's scoreB under the CURRENT student (comprehension.ts: the gold answer appended after the
//    teacher's reasoning, the mean probability of its tokens); the top k = min(#candidates, perGroup)
//    are kept (best_k). `random` / `pool-order` are the authors' random / naive managers.
// 5. Replacement: the k solutions replace k randomly chosen incorrect members (seeded; fewer when the
//    group has fewer incorrect members: the best ones are used) as COMPLETE expert traces (text + EOS,
//    authors' prefix ratio 1.0). Their tokens take `expertLoss`, by default LUFFY's f(p) = p/(p+0.1)
//    policy shaping (src/algorithms/losses/expert-tokens.ts); the policy's own members the configured loss.
// Advantages: the configured estimator over the mixed group. The published run uses GRPO without std
// (norm_adv_by_std_in_grpo=False: A = r − group mean): configure `dr-grpo`, as examples/ladder-ampo.yaml
// does (the global estimator is not changed by this scaffold). Its loss: PPO clip 0.2/0.2, dual clip 10,
// Σ(ℓ·mask)/max_len (loss_remove_token_mean): ppo-clip with epsilonHigh 0.2, dualClipBound 10,
// aggregation seq-mean-token-sum-norm (ours has 1/B; verl's has not, a constant factor).
//
// Defaults (authors'): injection adaptive, hybridProbability 0.3 (hard-coded there), perGroup 2
// (num_off_policy_targets = n_prefix), selection comprehension (train_ampo.sh sets
// off_policy_reward_manager=prob; the yaml default is naive), correct when reward > 0.5 (authors:
// > format_coefficient + 0.5 on their 0.9·correct + 0.1·format reward; our verifier gives 0 or 1),
// expertLoss policy-shaping γ 0.1. `temperature` 1.0 is ours: the authors' teacher solutions are written
// offline (a dataset with up to 4 teachers' solutions per problem) at an unstated temperature.
//
// How this differs from teacher log-prob distillation (OPD, teacher.opd, src/algorithms/opd.ts): OPD
// keeps every member the student's own and adds the teacher's per-token log-prob (teacher − student)
// to the advantage of the STUDENT'S tokens, on every group; AMPO asks teachers to WRITE solutions, and
// only where the student failed, and substitutes them for failed rollouts: the student is trained on the
// teacher's tokens (off-policy, policy-shaped), with the teacher only choosing what to write, never
// scoring the student.
//
// Deviations from the authors' code:
// - A teacher solution the verifier rejects is NOT trained (unless trainRejected): the authors raise every
//   selected solution's reward to 1.0 even if the verifier scores it lower, so a wrong teacher would be
//   rewarded. Accepted solutions keep the verifier's reward (1.0 from our 0/1 verifier, as the authors');
//   with trainRejected every selected solution gets max(reward, 1.0), as the authors.
// - Solutions are written online by the pool, one per teacher per helped problem (authors: offline).
// - Selection among verified candidates; score ties broken by pool order (authors: bf16-rounded scores,
//   unstable torch.argsort); the authors score only when more than one solution exists, we always score
//   (the metric), which changes nothing in the order.
// - The comprehension score is scoreB alone: the authors' 0.9·scoreB + 0.1·format (format_coefficient
//   0.1) preserves the order here, since every candidate with an answer line has scoreB > 0 and format 1,
//   and one without has scoreB 0 (and our verifier rejects it).
// - When a group has fewer incorrect members than selected solutions, the best ones are used (authors:
//   position j takes available[j mod remaining]); which teacher takes which member is by rank, ascending
//   members (the members are i.i.d., so this carries no information).
// - One random stream of the scaffold's own (seeded from the run's seed, saved in state()), for the
//   hybrid draws, the random members and the teachers' sampling seeds (authors: Python's global random).
// Metrics (per step): ampo/triggered (groups helped), ampo/teacher_solutions (candidates written,
// teachers and oracle), ampo/selected (members replaced; ampo/selected/<source> per teacher),
// ampo/rejected_by_verifier, ampo/teacher_failures (solutions lost to failed or timed-out teacher
// calls), ampo/comprehension_mean (mean scoreB of the scored candidates; absent when none), and the
// ledger's guidance/* (guidance-ledger.ts): a helped group is guided, its replaced members count as guided
// samples and the rest as the policy's own (unguided) samples.
import { z } from 'zod';
import { expertTermConfigSchema, expertTerms } from '../algorithms/losses/expert-tokens.ts';
import { parseOptions } from '../algorithms/options.ts';
import { parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import { Rng, type RngState } from '../core/rng.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { collectCandidates } from './ampo-candidates.ts';
import { chooseMembers, rankCandidates, triggered } from './ampo-selection.ts';
import { defineGuidance } from './define.ts';
import type { Guidance, GuidanceContext } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema, type PlannedAttempt } from './guidance-ledger.ts';
import type { TeacherReplacement } from './teacher-help-contract.ts';
import { requireWorkedSolutions } from './worked-solution.ts';

const optionsSchema = z.strictObject({
  /** When a graded group gets teacher solutions (authors' injection_strategy). */
  injection: z.enum(['adaptive', 'hybrid', 'always']).default('adaptive'),
  /** hybrid: probability that a solved group gets help too (authors: 0.3). */
  hybridProbability: z.number().min(0).max(1).default(0.3),
  /** Solutions kept per helped group, k = min(#candidates, perGroup) (authors' n_prefix: 2). */
  perGroup: z.number().int().positive().default(2),
  /** Pool teachers asked (default: every teacher.pool member). */
  teachers: z.array(z.string()).min(1).optional(),
  /** The problem's worked solution as one more candidate ('oracle'). */
  oracle: z.boolean().default(false),
  /** Teachers' sampling temperature. */
  temperature: z.number().min(0).default(1),
  /** How candidates are ordered before the top k are kept. */
  selection: z.enum(['comprehension', 'random', 'pool-order']).default('comprehension'),
  /** A member (or a candidate) is correct when its reward exceeds this. */
  correctAbove: z.number().default(0.5),
  /** Train solutions the verifier rejects too, with reward raised to 1.0 (the authors' behaviour). */
  trainRejected: z.boolean().default(false),
  /** The term for expert tokens (authors: LUFFY's p/(p+0.1)). */
  expertLoss: expertTermConfigSchema,
});
export type AmpoOptions = z.output<typeof optionsSchema>;

const stateSchema = z.strictObject({
  ledger: ledgerStateSchema,
  rng: z.tuple([z.number(), z.number(), z.number(), z.number()]),
});

/** Seed offset of the scaffold's own stream, apart from the run's. */
const ampoSeedOffset = 0x414d504f;

interface Counts {
  triggered: number;
  solutions: number;
  selected: number;
  rejected: number;
  failures: number;
  scoreSum: number;
  scored: number;
  bySource: Record<string, number>;
}

const emptyCounts = (): Counts => ({
  triggered: 0,
  solutions: 0,
  selected: 0,
  rejected: 0,
  failures: 0,
  scoreSum: 0,
  scored: 0,
  bySource: {},
});

export function createAmpoGuidance(rawOptions: unknown, context?: GuidanceContext): Guidance {
  const options = parseConfig(optionsSchema, rawOptions ?? {}, "guidance 'ampo' options");
  const term = expertTerms.get(options.expertLoss.name);
  parseOptions(term.optionsSchema, options.expertLoss.options, `expert term '${term.name}'`);
  const teachers = checkTeachers(options, context);
  if (options.oracle) requireWorkedSolutions('ampo', context);
  const ledger = new GuidanceLedger();
  let rng = new Rng((context?.seed ?? 0) + ampoSeedOffset);
  let counts = emptyCounts();
  let countsStep: number | null = null;
  /** Members replaced in this step's groups, per problem id in hook order (for the ledger). */
  const helped = new Map<string, number[][]>();

  const startStep = (step: number) => {
    if (countsStep === step) return;
    countsStep = step;
    counts = emptyCounts();
    helped.clear();
  };

  return {
    name: 'ampo',
    expertLoss: options.expertLoss,
    plan(problems) {
      return problems.map((problem) => ({ problem, prompt: problem.prompt, prefix: '', guided: false }));
    },
    teacherHelp: {
      async help(step, groups, tools) {
        startStep(step);
        const correct = groups.map(
          (group) => group.results.filter((result) => result.reward > options.correctAbove).length,
        );
        const chosen = groups.flatMap((_, index) =>
          triggered(options.injection, correct[index], options.hybridProbability, rng) ? [index] : [],
        );
        counts.triggered += chosen.length;
        const found = await collectCandidates(chosen, groups, tools, {
          teachers,
          oracle: options.oracle,
          temperature: options.temperature,
          correctAbove: options.correctAbove,
          keepRejected: options.trainRejected,
          score: options.selection === 'comprehension',
          rng,
        });
        counts.solutions += found.solutions;
        counts.failures += found.failures;
        counts.rejected += found.rejected;
        counts.scoreSum += found.scoreSum;
        counts.scored += found.scored;
        const replacements: TeacherReplacement[] = [];
        const replacedOf = new Map<number, number[]>();
        chosen.forEach((index, c) => {
          const group = groups[index];
          const ranked = rankCandidates(found.perGroup[c], options.selection, rng);
          const kept = ranked.slice(0, Math.min(ranked.length, options.perGroup));
          const incorrect = group.results.flatMap((result, member) =>
            result.reward > options.correctAbove ? [] : [member],
          );
          const members = chooseMembers(incorrect, kept.length, rng);
          members.forEach((member, rank) => {
            const candidate = kept[rank];
            const result =
              options.trainRejected && candidate.result.reward < 1
                ? { ...candidate.result, reward: 1, reason: 'AMPO trainRejected: reward raised to 1.0' }
                : candidate.result;
            replacements.push({ group: index, member, text: candidate.text, result });
            counts.bySource[candidate.source] = (counts.bySource[candidate.source] ?? 0) + 1;
          });
          counts.selected += members.length;
          replacedOf.set(index, members);
        });
        groups.forEach((group, index) => {
          const queue = helped.get(group.attempt.problem.id) ?? [];
          queue.push(replacedOf.get(index) ?? []);
          helped.set(group.attempt.problem.id, queue);
        });
        return replacements;
      },
    },
    observe(step, outcomes) {
      ledger.match(ledgerView(ledger, step, outcomes, helped));
      helped.clear();
    },
    state: () => ({ ledger: ledger.state(), rng: rng.state() }),
    load(saved) {
      if (saved === null || saved === undefined) return;
      const state = parseConfig(stateSchema, saved, "guidance 'ampo' saved state");
      ledger.load(state.ledger);
      rng = Rng.fromState(state.rng as RngState);
      counts = emptyCounts();
      countsStep = null;
      helped.clear();
    },
    metrics: () => {
      const metrics: Record<string, number> = {
        ...ledger.metrics(),
        'ampo/triggered': counts.triggered,
        'ampo/teacher_solutions': counts.solutions,
        'ampo/selected': counts.selected,
        'ampo/rejected_by_verifier': counts.rejected,
        'ampo/teacher_failures': counts.failures,
      };
      if (counts.scored > 0) metrics['ampo/comprehension_mean'] = counts.scoreSum / counts.scored;
      for (const [source, count] of Object.entries(counts.bySource)) {
        metrics[`ampo/selected/${source}`] = count;
      }
      return metrics;
    },
  };
}

/** The pool teachers asked; refuses (at setup, before any model loads) a run without a teacher pool. */
function checkTeachers(options: AmpoOptions, context: GuidanceContext | undefined): string[] {
  if (!context) return options.teachers ?? [];
  const pool = context.teachers ?? [];
  if (pool.length === 0) {
    throw new ConfigError(
      "guidance 'ampo' needs teachers: add a teacher block with at least one teacher (teacher: {pool: [{name, checkpoint}]})",
    );
  }
  const unknown = (options.teachers ?? []).find((name) => !pool.includes(name));
  if (unknown !== undefined) {
    throw new ConfigError(
      `guidance 'ampo' options: teacher '${unknown}' is not in teacher.pool (${pool.join(', ')})`,
    );
  }
  return options.teachers ?? [...pool];
}

/**
 * The outcomes as the ledger should count them: a helped group is a guided attempt with its replaced
 * members moved to the end as traces (the ledger counts the last k rewards as guided samples and the
 * rest as the policy's own). Planned here, matched right after, so the ledger pairs them in order.
 */
function ledgerView(
  ledger: GuidanceLedger,
  step: number,
  outcomes: readonly GroupOutcome[],
  helped: Map<string, number[][]>,
): GroupOutcome[] {
  const planned: PlannedAttempt[] = [];
  const view = outcomes.map((outcome) => {
    const replaced = helped.get(outcome.problem.id)?.shift() ?? [];
    const problem = outcome.problem;
    const attempt = { problem, prompt: problem.prompt, prefix: '', guided: replaced.length > 0 };
    if (replaced.length === 0) {
      planned.push({ attempt, strength: 0 });
      return outcome;
    }
    const traces = replaced.map(() => ({ text: '', complete: true }));
    planned.push({ attempt: { ...attempt, offPolicy: traces }, strength: 1 });
    const own = outcome.rewards.filter((_, member) => !replaced.includes(member));
    return { ...outcome, rewards: [...own, ...replaced.map((member) => outcome.rewards[member])] };
  });
  ledger.record(step, planned);
  return view;
}

export const ampoGuidance = defineGuidance({
  id: 'ampo',
  description:
    'adaptive multi-teacher guidance on demand: teacher solutions replace members of groups that failed',
  paper: {
    title: 'More Than One Teacher: Adaptive Multi-Guidance Policy Optimization for Diverse Exploration',
    arxiv: '2510.02227',
    code: 'SII-Enigma/AMPO ampo/verl/verl/adaptive_mix_src/mix_dapo_trainer.py',
  },
  optionsSchema: optionsSchema,
  create: createAmpoGuidance,
});
