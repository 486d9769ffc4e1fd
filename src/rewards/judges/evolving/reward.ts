// `judge-evolving-rubric`: rubrics that evolve with the policy (issue 31 item 2).
//   RLER, "DR Tulu: Reinforcement Learning with Evolving Rubrics for Deep Research" (digest ¶69; code:
//     allenai/open-instruct `open_instruct/rubrics/`): each step, for each problem, a generator reads the
//     group's responses and the problem's rubric and proposes new positive and negative criteria; they join
//     the problem's active buffer; the group is graded against the persistent criteria plus the active
//     ones; then evolving criteria with zero spread over the group are deactivated and at most `maxActive`
//     (DR Tulu's default 5) stay, the most discriminative first.
//   OnlineRubrics, "Online Rubrics Elicitation from Pairwise Comparisons" (digest ¶64): the criteria come
//     from pairwise comparisons of responses (`method: online-rubrics`, `pairs` per group).
//   RRD, recursive rubric refinement (digest ¶56; `refine`): criteria satisfied by nearly every response
//     are decomposed into finer ones (recursively across steps, up to `maxDepth`), misaligned and redundant
//     ones are filtered, and weights are correlation-aware (refine.ts).
// Grading is verifiers' RubricJudge shape (rubric.ts): a reason then `name: yes|no` per criterion, batched
// `maxCriteria` per call. A negative criterion's yes scores 0 and its no 1, so the reward — the weighted
// mean over criteria — stays in [0, 1] (DR Tulu sums weight × verdict with weight −1 for negative criteria:
// within a group that is an affine map of this score when all weights are ±1, so GRPO's advantages are
// the same). Deviations: OnlineRubrics compares the current policy's responses with a reference policy's;
// here the pairs are within the group (the k-th response with the k-th from the end), as the RL step
// samples one policy; elicited names that repeat one the problem used are dropped (DR Tulu relies on the
// prompt). A failed elicitation is counted (evolving_elicit_failed) and grading goes on with the rubric as
// it is; a failed grading call or verdict fails the group's members under `onFailure`, like every judge.
// The buffer is kept with the run (buffer.ts); a resumed run grades with the rubrics of its resume step.
import { z } from 'zod';
import { parseConfig } from '../../../core/config.ts';
import type { Problem } from '../../../core/problem.ts';
import type { Reward, RewardInput, RewardResult } from '../../../core/reward.ts';
import { defineReward } from '../../registry.ts';
import type { JudgeAnswer, JudgeTransport } from '../client.ts';
import { type Criterion, checkCriteria, criteriaText } from '../criteria.ts';
import { bucketsOf } from '../group-judge.ts';
import {
  baseFields,
  baseValues,
  type JudgeInject,
  judgeFailed,
  judgeRewardShell,
  judgeTransport,
  usageComponents,
} from '../judge-reward.ts';
import { failurePolicySchema, judgeEndpointSchema } from '../options.ts';
import { DEFAULT_RUBRIC_TEMPLATE, rubricCriteria } from '../rubric.ts';
import { compileTemplate, fence, type JudgeTemplate } from '../template.ts';
import { parseLabelled } from '../verdict.ts';
import { type EvolvingCriterion, RubricBuffer, type RubricChange } from './buffer.ts';
import {
  DEFAULT_DECOMPOSE_TEMPLATE,
  DEFAULT_PAIR_TEMPLATE,
  DEFAULT_RLER_TEMPLATE,
  pairsOf,
  readElicited,
  responsesListing,
  rubricListing,
} from './elicit.ts';
import { coarse, correlationWeights, misaligned, redundant, rlerDeactivations } from './refine.ts';

export const evolvingRubricOptionsSchema = judgeEndpointSchema.extend({
  /** rler: one elicitation per group from all its responses; online-rubrics: one per pair of responses. */
  method: z.enum(['rler', 'online-rubrics']).default('rler'),
  /** Persistent criteria for every problem (with each problem's own `metadata.rubric`); may be absent. */
  criteria: z.array(z.unknown()).optional(),
  rubricFile: z.string().optional(),
  /** Active evolving criteria kept per problem (DR Tulu's max_active_rubrics). */
  maxActive: z.number().int().positive().max(64).default(5),
  /** New criteria one elicitation may add. */
  maxNew: z.number().int().positive().max(32).default(4),
  /** online-rubrics: pairs compared per group. */
  pairs: z.number().int().positive().max(16).default(2),
  /** Criteria per grading call (default: all in one). */
  maxCriteria: z.number().int().positive().optional(),
  template: z.string().default(DEFAULT_RUBRIC_TEMPLATE),
  elicitTemplate: z.string().optional(),
  decomposeTemplate: z.string().default(DEFAULT_DECOMPOSE_TEMPLATE),
  /** RRD's refinement; absent: RLER's filter alone. */
  refine: z
    .strictObject({
      /** A criterion satisfied by at least this share of a group is decomposed. */
      decomposeAbove: z.number().gt(0).max(1).default(0.9),
      /** Decomposition depth limit (a child of a child is depth 2). */
      maxDepth: z.number().int().min(0).max(8).default(2),
      /** An evolving criterion correlating at least this much with an earlier one is redundant. */
      redundantAbove: z.number().gt(0).max(1).default(0.95),
      /** One correlating at or below minus this with the rest of the rubric is misaligned. */
      misalignedBelow: z.number().gt(0).max(1).default(0.5),
      /** Correlation-aware weights (RRD) instead of equal ones. */
      correlationWeights: z.boolean().default(true),
    })
    .optional(),
  onFailure: failurePolicySchema.default('zero'),
});

type Options = z.output<typeof evolvingRubricOptionsSchema>;

const WHERE = "reward 'judge-evolving-rubric'";

interface GroupOutcome {
  results: RewardResult[];
  changes: RubricChange[];
}

export function createEvolvingRubricReward(raw: unknown, inject?: JudgeInject): Reward {
  const options = parseConfig(evolvingRubricOptionsSchema, raw ?? {}, `${WHERE} options`);
  const global =
    options.criteria === undefined && options.rubricFile === undefined ? [] : rubricCriteria(options, WHERE);
  const client = judgeTransport(WHERE, options, inject);
  const grade = compileTemplate(options.template, [...baseFields, 'criteria'], WHERE);
  const elicit =
    options.method === 'rler'
      ? compileTemplate(
          options.elicitTemplate ?? DEFAULT_RLER_TEMPLATE,
          ['prompt', 'answer', 'responses', 'criteria', 'max'],
          WHERE,
        )
      : compileTemplate(
          options.elicitTemplate ?? DEFAULT_PAIR_TEMPLATE,
          ['prompt', 'answer', 'a', 'b', 'criteria', 'max'],
          WHERE,
        );
  const decompose = compileTemplate(
    options.decomposeTemplate,
    ['prompt', 'answer', 'criterion', 'max'],
    WHERE,
  );
  const buffer = new RubricBuffer();
  const run = { options, global, client, grade, elicit, decompose, buffer };

  const shell = judgeRewardShell('judge-evolving-rubric', client, async (inputs) => {
    const step = inputs[0]?.step ?? 0;
    buffer.prepare(step);
    const buckets = bucketsOf(inputs);
    // groups of one problem in turn (they share its buffer entry), problems concurrently
    const byProblem = new Map<string, number[]>();
    for (const [b, bucket] of buckets.entries()) {
      byProblem.set(bucket.problem.id, [...(byProblem.get(bucket.problem.id) ?? []), b]);
    }
    const outcomes: GroupOutcome[] = new Array(buckets.length);
    await Promise.all(
      [...byProblem.values()].map(async (indices) => {
        for (const b of indices)
          outcomes[b] = await judgeGroup(run, buckets[b].problem, buckets[b].members, step);
      }),
    );
    buffer.record(
      step,
      outcomes.flatMap((outcome) => outcome.changes),
    );
    const results: RewardResult[] = new Array(inputs.length);
    buckets.forEach((bucket, b) => {
      for (const [i, member] of bucket.at) results[i] = outcomes[b].results[member];
    });
    return results;
  });
  return {
    ...shell,
    useRunDirectory(dir) {
      shell.useRunDirectory?.(dir);
      buffer.useRunDirectory(dir);
    },
  };
}

interface Run {
  options: Options;
  global: Criterion[];
  client: JudgeTransport;
  grade: JudgeTemplate;
  elicit: JudgeTemplate;
  decompose: JudgeTemplate;
  buffer: RubricBuffer;
}

/** The problem's persistent criteria: the reward's and its own `metadata.rubric`. */
function persistentOf(run: Run, problem: Problem): Criterion[] {
  const own = problem.metadata?.rubric;
  return own === undefined
    ? run.global
    : [...run.global, ...checkCriteria(own, `${WHERE}: problem ${problem.id} metadata.rubric`)];
}

async function judgeGroup(
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
    const failure = judgeFailed(
      'no criteria for this problem (none given, none elicited yet)',
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
  const offset = persistent.length;
  const evolvingVerdicts = verdicts.slice(offset);
  const deactivated = new Set<string>();
  const drop = (c: number, why: Extract<RubricChange, { deactivate: string }>['why']) => {
    const name = evolving[c].name;
    if (deactivated.has(name)) return;
    deactivated.add(name);
    change({ problem: problem.id, deactivate: name, why });
  };
  let decomposed = 0;
  if (ok.length > 1) {
    if (options.refine) {
      const refine = options.refine;
      for (const c of misaligned(verdicts, weights, refine.misalignedBelow))
        if (c >= offset) drop(c - offset, 'misaligned');
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
    const remaining = evolving
      .map((criterion, c) => ({ criterion, c }))
      .filter(({ criterion }) => !deactivated.has(criterion.name));
    for (const { index, why } of rlerDeactivations(
      remaining.map(({ c }) => evolvingVerdicts[c]),
      options.maxActive,
    )) {
      drop(remaining[index].c, why);
    }
  }

  const group = {
    evolving_active: buffer.active(problem.id).length,
    evolving_new: elicitation.criteria.length,
    evolving_dropped_names: elicitation.dropped,
    evolving_elicit_failed: elicitation.failed ? 1 : 0,
    evolving_deactivated: deactivated.size,
    evolving_decomposed: decomposed,
  };
  const results = graded.map((g, m): RewardResult => {
    if (!g.ok) return { ...g.failure, components: { ...g.failure.components, ...group } };
    const row = ok.indexOf(m);
    const score = (from: number, to: number) => {
      let total = 0;
      let mass = 0;
      for (let c = from; c < to; c++) {
        total += weights[c] * verdicts[c][row];
        mass += weights[c];
      }
      return mass > 0 ? total / mass : 0;
    };
    return {
      reward: score(0, criteria.length),
      components: {
        ...group,
        ...(offset > 0 ? { persistent_score: score(0, offset) } : {}),
        ...(evolving.length > 0 ? { evolving_score: score(offset, criteria.length) } : {}),
        ...usageComponents(g.answers),
        judge_failed: 0,
      },
    };
  });
  return { results, changes };
}

type Graded = { ok: true; values: number[]; answers: JudgeAnswer[] } | { ok: false; failure: RewardResult };

/** One member's verdict per criterion (normalised choice index), or its failure. */
async function gradeMember(
  run: Run,
  problem: Problem,
  member: string,
  criteria: readonly Criterion[],
): Promise<Graded> {
  const size = run.options.maxCriteria ?? criteria.length;
  const batches: Criterion[][] = [];
  for (let start = 0; start < criteria.length; start += size)
    batches.push(criteria.slice(start, start + size));
  const input: RewardInput = { problem, completion: member };
  let answers: JudgeAnswer[];
  const prompts = batches.map((batch) =>
    run.grade.render({ ...baseValues(input), criteria: criteriaText(batch) }),
  );
  try {
    answers = await Promise.all(prompts.map((prompt) => run.client.ask(prompt)));
  } catch (error) {
    return {
      ok: false,
      failure: judgeFailed(`judge call failed: ${(error as Error).message}`, run.options.onFailure, []),
    };
  }
  const values: number[] = [];
  for (const [b, batch] of batches.entries()) {
    for (const criterion of batch) {
      const parsed = parseLabelled(answers[b].text, [criterion.name], criterion.choices);
      if (!parsed.ok) {
        return {
          ok: false,
          failure: judgeFailed(`judge verdict malformed: ${parsed.why}`, run.options.onFailure, answers),
        };
      }
      values.push(parsed.value[0] / (criterion.choices.length - 1));
    }
  }
  for (const [b, prompt] of prompts.entries()) run.client.remember(prompt, answers[b]);
  return { ok: true, values, answers };
}

/** This group's new criteria (RLER: one call; OnlineRubrics: one per pair), never failing the group. */
async function elicitFor(
  run: Run,
  problem: Problem,
  members: readonly string[],
  persistent: readonly Criterion[],
  step: number,
): Promise<{
  criteria: EvolvingCriterion[];
  dropped: number;
  failed: string | null;
  answers: JudgeAnswer[];
}> {
  const { options, buffer } = run;
  const listing = rubricListing([...persistent, ...buffer.active(problem.id)]);
  const common = {
    prompt: problem.prompt,
    answer: problem.answer,
    criteria: listing,
    max: String(options.maxNew),
  };
  const prompts =
    options.method === 'rler'
      ? [run.elicit.render({ ...common, responses: responsesListing(members) })]
      : pairsOf(members.length, options.pairs).map(([a, b]) =>
          run.elicit.render({ ...common, a: fence(members[a]), b: fence(members[b]) }),
        );
  const taken = new Set([...buffer.names(problem.id), ...persistent.map((c) => c.name.toLowerCase())]);
  const criteria: EvolvingCriterion[] = [];
  let dropped = 0;
  let failed: string | null = null;
  const answers: JudgeAnswer[] = [];
  for (const prompt of prompts) {
    try {
      const answer = await run.client.ask(prompt);
      answers.push(answer);
      const read = readElicited(
        answer.text,
        { keys: ['positive', 'negative'] },
        taken,
        options.maxNew - criteria.length,
        { depth: 0, step },
      );
      if (!read.ok) {
        failed = read.why;
        continue;
      }
      criteria.push(...read.value.criteria);
      dropped += read.value.dropped;
      run.client.remember(prompt, answer);
    } catch (error) {
      failed = (error as Error).message;
    }
  }
  return { criteria, dropped, failed, answers };
}

/** RRD: finer criteria for a coarse one (none when the call or its reply fails). */
async function decomposeCriterion(
  run: Run,
  problem: Problem,
  parent: EvolvingCriterion,
  step: number,
): Promise<EvolvingCriterion[]> {
  const prompt = run.decompose.render({
    prompt: problem.prompt,
    answer: problem.answer,
    criterion: `${parent.name}: ${parent.text}`,
    max: String(run.options.maxNew),
  });
  try {
    const answer = await run.client.ask(prompt);
    const taken = run.buffer.names(problem.id);
    const read = readElicited(
      answer.text,
      { keys: ['criteria'], polarity: parent.polarity },
      taken,
      run.options.maxNew,
      {
        depth: parent.depth + 1,
        step,
      },
    );
    if (!read.ok) return [];
    run.client.remember(prompt, answer);
    return read.value.criteria;
  } catch {
    return [];
  }
}

export const evolvingRubricReward = defineReward({
  id: 'judge-evolving-rubric',
  description:
    'rubrics that evolve with the policy: criteria elicited each step from the group (RLER) or from pairs of its responses (OnlineRubrics), filtered by spread, optionally refined (RRD), graded by a judge',
  paper: {
    title:
      'DR Tulu: Reinforcement Learning with Evolving Rubrics (RLER, ¶69); Online Rubrics Elicitation from Pairwise Comparisons (¶64); RRD recursive rubric refinement (¶56)',
    code: 'allenai/open-instruct open_instruct/rubrics/',
  },
  optionsSchema: evolvingRubricOptionsSchema,
  create: (options, context) => createEvolvingRubricReward(options, { context }),
});
