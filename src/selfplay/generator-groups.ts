// The generator's statements as RL groups (selfPlay.trainGenerator): each generator prompt and its
// rollout.groupSize statements form one group whose rewards are the proposals' generator rewards
// (admission.ts, Tool-R0's "hard but solvable"), so the same advantage estimator and update train the
// policy as a problem writer beside its solver groups (Tool-R0 ¶118 trains one model in both roles; we
// share one update step instead of alternating phases — a deviation). The groups are trained, not
// observed: the selector, guidance and sample log see only the solver's groups.

import type { SampledGroup } from '../core/groups.ts';
import type { Problem } from '../core/problem.ts';
import type { Attempt } from '../guidance/attempt.ts';
import type { GeneratorGroup } from './round.ts';

export function generatorGroups(groups: readonly GeneratorGroup[], step: number): SampledGroup<Attempt>[] {
  return groups.map((group, index) => {
    const problem: Problem = {
      id: `selfplay-generator-${step}-${index}`,
      task: 'selfplay-generator',
      prompt: group.prompt,
      answer: '',
      solution: '',
      category: 'selfplay-generator',
      difficulty: 0,
      params: {},
    };
    return {
      attempt: { problem, prompt: group.prompt, prefix: '', guided: false },
      context: group.context,
      rollouts: group.sequences,
      completions: group.sequences.map((sequence) => sequence.text),
      rewards: [...group.rewards],
      results: group.rewards.map((reward) => ({ reward, components: { generator: reward } })),
    };
  });
}
