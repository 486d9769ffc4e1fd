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
import { parseConfig } from '../../../core/config.ts';
import type { Reward, RewardResult } from '../../../core/reward.ts';
import { defineReward } from '../../registry.ts';
import { bucketsOf } from '../group-judge.ts';
import { baseFields, type JudgeInject, judgeRewardShell, judgeTransport } from '../judge-reward.ts';
import { rubricCriteria } from '../rubric.ts';
import { compileTemplate } from '../template.ts';
import { RubricBuffer } from './buffer.ts';
import { DEFAULT_PAIR_TEMPLATE, DEFAULT_RLER_TEMPLATE } from './elicit.ts';
import { type GroupOutcome, judgeGroup } from './group.ts';
import { evolvingRubricOptionsSchema, WHERE } from './options.ts';

export { evolvingRubricOptionsSchema } from './options.ts';

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
      const same = byProblem.get(bucket.problem.id);
      if (same) same.push(b);
      else byProblem.set(bucket.problem.id, [b]);
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
