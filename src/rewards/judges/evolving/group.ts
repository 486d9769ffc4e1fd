// One group's turn of `judge-evolving-rubric` (reward.ts): elicit criteria from its responses, grade every
// member against the persistent and active criteria, score (negative criteria inverted; RRD's
// correlation-aware weights when asked), then refine the problem's evolving criteria for next time
// (RRD's misalignment, redundancy and decomposition when asked; RLER's spread filter and cap always).
import type { Problem } from '../../../core/problem.ts';
import type { RewardResult } from '../../../core/reward.ts';
import type { Criterion } from '../criteria.ts';
import { judgeFailed, usageComponents } from '../judge-reward.ts';
import type { EvolvingCriterion, RubricChange } from './buffer.ts';
import { decomposeCriterion, elicitFor, gradeMember, persistentOf, type Run } from './calls.ts';
import { coarse, correlationWeights, misaligned, redundant, rlerDeactivations } from './refine.ts';

/** A group's results, in member order, and the changes it made to its problem's rubric. */
export interface GroupOutcome {
  results: RewardResult[];
  changes: RubricChange[];
}

type Why = Extract<RubricChange, { deactivate: string }>['why'];

export async function judgeGroup(
  run: Run,
  problem: Problem,
  members: readonly string[],
  step: number,
): Promise<GroupOutcome> {
  const { options, buffer } = run;
  const changes: RubricChange[] = [];
  const change = (entry: RubricChange) => {
    buffer.apply(entry);
    changes.push(entry);
  };
  let persistent: Criterion[];
  try {
    persistent = persistentOf(run, problem);
  } catch (error) {
    const failure = judgeFailed((error as Error).message, options.onFailure, []);
    return { results: members.map(() => failure), changes };
  }

  // 1. elicit new criteria from this group's responses
  const elicitation = await elicitFor(run, problem, members, persistent, step);
  for (const criterion of elicitation.criteria) change({ problem: problem.id, add: criterion });
  const evolving = [...buffer.active(problem.id)];
  const criteria: (Criterion & { polarity?: 'positive' | 'negative' })[] = [...persistent, ...evolving];
  if (criteria.length === 0) {
    const why = elicitation.failed ? `elicitation failed: ${elicitation.failed}` : 'none elicited yet';
    const failure = judgeFailed(
      `no criteria for this problem (none given, ${why})`,
      options.onFailure,
      elicitation.answers,
    );
    return { results: members.map(() => failure), changes };
  }

  // 2. grade every member against the persistent and active criteria
  const graded = await Promise.all(members.map((member) => gradeMember(run, problem, member, criteria)));
  const ok = graded.flatMap((g, m) => (g.ok ? [m] : []));
  // verdict matrix over the members that graded, oriented (1 = good)
  const verdicts = criteria.map((criterion, c) =>
    ok.map((m) => {
      const value = (graded[m] as { ok: true; values: number[] }).values[c];
      return criterion.polarity === 'negative' ? 1 - value : value;
    }),
  );
  const base = criteria.map((criterion) => criterion.weight);
  const weights =
    options.refine?.correlationWeights && ok.length > 1 ? correlationWeights(verdicts, base) : base;

  // 3. refine the evolving part for next time (RLER's filter; RRD's when asked)
  const refined =
    ok.length > 1
      ? await refineEvolving(run, problem, step, evolving, verdicts, weights, persistent.length, change)
      : { deactivated: 0, decomposed: 0 };

  const group = {
    evolving_active: buffer.active(problem.id).length,
    evolving_new: elicitation.criteria.length,
    evolving_dropped_names: elicitation.dropped,
    evolving_elicit_failed: elicitation.failed ? 1 : 0,
    evolving_deactivated: refined.deactivated,
    evolving_decomposed: refined.decomposed,
  };
  const scores = { verdicts, weights, persistent: persistent.length, evolving: evolving.length };
  const results = graded.map((g, m): RewardResult => {
    if (!g.ok) return { ...g.failure, components: { ...g.failure.components, ...group } };
    const { reward, components } = memberScore(scores, ok.indexOf(m));
    return {
      reward,
      components: { ...group, ...components, ...usageComponents(g.answers), judge_failed: 0 },
    };
  });
  return { results, changes };
}

/** Step 3: deactivations (misaligned, redundant, decomposed, no spread, over the cap) and decompositions. */
async function refineEvolving(
  run: Run,
  problem: Problem,
  step: number,
  evolving: readonly EvolvingCriterion[],
  verdicts: readonly number[][],
  weights: readonly number[],
  offset: number,
  change: (entry: RubricChange) => void,
): Promise<{ deactivated: number; decomposed: number }> {
  const { options } = run;
  const evolvingVerdicts = verdicts.slice(offset);
  const deactivated = new Set<string>();
  const drop = (c: number, why: Why) => {
    const name = evolving[c].name;
    if (deactivated.has(name)) return;
    deactivated.add(name);
    change({ problem: problem.id, deactivate: name, why });
  };
  let decomposed = 0;
  const refine = options.refine;
  if (refine) {
    for (const c of misaligned(verdicts, weights, refine.misalignedBelow)) {
      if (c >= offset) drop(c - offset, 'misaligned');
    }
    for (const c of redundant(evolvingVerdicts, refine.redundantAbove)) drop(c, 'redundant');
    for (const c of coarse(evolvingVerdicts, refine.decomposeAbove)) {
      const parent = evolving[c];
      if (deactivated.has(parent.name) || parent.depth >= refine.maxDepth) continue;
      const children = await decomposeCriterion(run, problem, parent, step);
      if (children.length === 0) continue;
      drop(c, 'decomposed');
      for (const child of children) change({ problem: problem.id, add: child });
      decomposed++;
    }
  }
  const remaining = evolving.flatMap((criterion, c) => (deactivated.has(criterion.name) ? [] : [c]));
  const filtered = rlerDeactivations(
    remaining.map((c) => evolvingVerdicts[c]),
    options.maxActive,
  );
  for (const { index, why } of filtered) drop(remaining[index], why);
  return { deactivated: deactivated.size, decomposed };
}

interface Scores {
  verdicts: readonly number[][];
  weights: readonly number[];
  /** Criteria [0, persistent) are persistent, the next `evolving` evolving. */
  persistent: number;
  evolving: number;
}

/** One graded member's reward (weighted mean over every criterion) and its persistent/evolving parts. */
function memberScore(scores: Scores, row: number): { reward: number; components: Record<string, number> } {
  const { verdicts, weights, persistent, evolving } = scores;
  const mean = (from: number, to: number) => {
    let total = 0;
    let mass = 0;
    for (let c = from; c < to; c++) {
      total += weights[c] * verdicts[c][row];
      mass += weights[c];
    }
    return mass > 0 ? total / mass : 0;
  };
  const all = persistent + evolving;
  return {
    reward: mean(0, all),
    components: {
      ...(persistent > 0 ? { persistent_score: mean(0, persistent) } : {}),
      ...(evolving > 0 ? { evolving_score: mean(persistent, all) } : {}),
    },
  };
}
