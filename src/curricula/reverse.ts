// reverse — a reverse curriculum over worked solutions: start from late steps of the solution and slide
// the start back toward the bare question as the policy succeeds.
// Paper: Xi et al., "Training Large Language Models for Reasoning through Reverse Curriculum
// Reinforcement Learning" (R³), arXiv 2402.05808. Authors' code: WooooDyy/LLM-Reverse-Curriculum-RL
// R3_math/main.py and data/*_mix_example.json.
// A problem's solution is split into M steps on `separator` (default a newline; blank steps dropped). A
// derived problem at stage j (0 ≤ j ≤ M−1) has the prompt `question + "\n### Response: " + first j steps`
// (the authors' data format; j = 0 is the bare question), id `<id>#r<j>`, and metadata {reverseOf: id,
// revealedSteps: j, totalSteps: M}. Each problem starts at j = M−1 and moves back `stepsBack` steps
// whenever a group at its current stage reaches a pass rate ≥ `advanceAt`. Base problems are drawn in
// shuffled passes over the pool.
// Deviations: the released code mixes all stages into one dataset and the paper's staged variant moves
// all problems together; we move each problem on its own evidence. R³'s 0.2 partial reward (answer
// extracted but wrong) is a reward concern, not the selector's. [unverified]: advanceAt = 0.5.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import {
  ArmLists,
  type ArmListsState,
  batchMetrics,
  expectState,
  indexById,
  missingField,
  parseOptions,
  passRate,
  requireNonEmptyPool,
} from './shared.ts';

export const reverseOptions = z.strictObject({
  separator: z.string().min(1).default('\n'),
  advanceAt: z.number().min(0).max(1).default(0.5),
  stepsBack: z.number().int().positive().default(1),
  responseMarker: z.string().default('\n### Response: '),
});

export function solutionSteps(solution: string, separator: string): string[] {
  return solution
    .split(separator)
    .map((step) => step.trim())
    .filter((step) => step.length > 0);
}

/** The derived problem at stage `revealed` (number of solution steps put into the prompt). */
export function reverseProblem(
  problem: Problem,
  steps: readonly string[],
  revealed: number,
  config: { separator: string; responseMarker: string },
): Problem {
  const prefix = steps.slice(0, revealed).join(config.separator);
  return {
    ...problem,
    id: `${problem.id}#r${revealed}`,
    prompt: revealed === 0 ? problem.prompt : `${problem.prompt}${config.responseMarker}${prefix}`,
    solution: steps.slice(revealed).join(config.separator),
    metadata: {
      ...problem.metadata,
      reverseOf: problem.id,
      revealedSteps: revealed,
      totalSteps: steps.length,
    },
  };
}

interface ReverseState {
  selector: 'reverse';
  stages: number[];
  lists: ArmListsState;
  lastBatch: [number, number][];
}

export function createReverse(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('reverse', reverseOptions, options);
  requireNonEmptyPool('reverse', pool);
  const ids = indexById(pool);
  const steps = pool.map((problem) => {
    const parts =
      typeof problem.solution === 'string' ? solutionSteps(problem.solution, config.separator) : [];
    if (parts.length === 0) {
      throw missingField('reverse', 'solution', problem, 'A reverse curriculum needs a worked solution.');
    }
    return parts;
  });
  let stages = steps.map((parts) => parts.length - 1);
  const lists = new ArmLists([pool.map((_, index) => index)]);
  let lastBatch: [number, number][] = []; // [pool index, stage]

  return {
    name: 'reverse',
    perProblemEvidence: true,
    select(count: number, rng: Rng): Problem[] {
      lastBatch = [];
      for (let slot = 0; slot < count; slot++) {
        const index = lists.next(0, rng);
        lastBatch.push([index, stages[index]]);
      }
      return lastBatch.map(([index, stage]) => reverseProblem(pool[index], steps[index], stage, config));
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      for (const outcome of outcomes) {
        const metadata = outcome.problem.metadata ?? {};
        const index = ids.get(
          typeof metadata.reverseOf === 'string' ? metadata.reverseOf : outcome.problem.id,
        );
        if (index === undefined || outcome.rewards.length === 0) continue;
        const revealed = typeof metadata.revealedSteps === 'number' ? metadata.revealedSteps : 0;
        if (revealed === stages[index] && passRate(outcome.rewards) >= config.advanceAt) {
          stages[index] = Math.max(0, stages[index] - config.stepsBack);
        }
      }
    },
    state: (): ReverseState => ({
      selector: 'reverse',
      stages: [...stages],
      lists: lists.state(),
      lastBatch: lastBatch.map(([index, stage]) => [index, stage]),
    }),
    load(state: unknown): void {
      const saved = expectState<ReverseState>('reverse', state);
      stages = [...saved.stages];
      lists.load(saved.lists);
      lastBatch = saved.lastBatch.map(([index, stage]) => [index, stage]);
    },
    metrics(): Record<string, number> {
      let revealedShare = 0;
      let bare = 0;
      stages.forEach((stage, index) => {
        revealedShare += stage / steps[index].length / pool.length;
        if (stage === 0) bare += 1 / pool.length;
      });
      return {
        ...batchMetrics(lastBatch.map(([index]) => pool[index])),
        'curriculum/revealed_fraction': revealedShare,
        'curriculum/bare_question_share': bare,
      };
    },
  };
}

export const reverseSelector = defineSelector({
  id: 'reverse',
  description:
    'reverse curriculum over worked solutions: start late in the solution and slide back toward the bare question',
  paper: {
    title: 'Training Large Language Models for Reasoning through Reverse Curriculum Reinforcement Learning',
    arxiv: '2402.05808',
    code: 'WooooDyy/LLM-Reverse-Curriculum-RL R3_math/main.py',
  },
  optionsSchema: reverseOptions,
  create: createReverse,
});
