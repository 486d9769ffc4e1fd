// Plumbing shared by the self-rewards (self-confidence, self-consistency, synthesized-reference): how a
// reward reaches the policy being trained, how it reads a completion's answer, and the diagnostic that
// the papers' failure mode needs (confident wrong answers): agreement between the self-reward's verdict
// and the gold verifier, logged as reward/self_gold_agreement when the problem has a gold answer.
//
// The policy reaches a reward through its factory's context (RewardContext.policy). The RL loop builds the
// reward before it loads the model (so a bad option fails first), so it passes a `LateBoundPolicy` and
// binds the real backend once it is loaded (src/training/rl/setup.ts). Anything else that builds rewards
// (`curricula rewards check`, evaluation) passes no policy, and a reward that needs one refuses at once
// (`requirePolicy`, a ConfigError).
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend, SampledSequence, SampleOptions, Tokenizer } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import type { RewardContext, RewardPolicy } from '../core/reward.ts';
import type { PromptSeedSampling } from '../policy/prompt-seeds.ts';
import { tasks } from '../tasks/index.ts';
import { mathAnswerKey } from './math-answer/reward.ts';

type Bound = Pick<PolicyBackend, 'tokenizer' | 'contextLength' | 'sample' | 'forward'> &
  Partial<PromptSeedSampling>;

/** A RewardPolicy whose backend is attached later (bind); calls before that throw. */
export class LateBoundPolicy implements RewardPolicy {
  private backend: Bound | null = null;

  bind(backend: Bound): void {
    this.backend = backend;
  }

  private bound() {
    if (this.backend === null) throw new Error('the reward used the policy before it was loaded');
    return this.backend;
  }

  get tokenizer(): Tokenizer {
    return this.bound().tokenizer;
  }

  get contextLength(): number {
    return this.bound().contextLength;
  }

  sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    return this.bound().sample(prompts, options);
  }

  forward(sequences: number[][]): Promise<number[][]> {
    return this.bound().forward(sequences);
  }

  /** The backend's per-prompt-seed sampling, or one call per prompt with its seed (same draws per prompt). */
  async sampleWithPromptSeeds(
    prompts: number[][],
    options: SampleOptions,
    promptSeeds: readonly number[],
  ): Promise<SampledSequence[][]> {
    const backend = this.bound();
    if (backend.sampleWithPromptSeeds) return backend.sampleWithPromptSeeds(prompts, options, promptSeeds);
    const rows: SampledSequence[][] = [];
    for (const [p, prompt] of prompts.entries()) {
      rows.push((await backend.sample([prompt], { ...options, seed: promptSeeds[p] }))[0]);
    }
    return rows;
  }
}

/** The policy from the context, or a ConfigError naming the reward and what it needs. */
export function requirePolicy(
  reward: string,
  context: RewardContext | undefined,
  needs: { forward?: boolean } = {},
): RewardPolicy {
  const policy = context?.policy;
  if (policy === undefined) {
    throw new ConfigError(
      `reward '${reward}' grades with the policy being trained, so it runs only in RL training (curricula train); here no policy is given`,
    );
  }
  if (needs.forward && typeof policy.forward !== 'function') {
    throw new ConfigError(
      `reward '${reward}' needs log-probs from the policy (forward), which this policy backend does not offer`,
    );
  }
  return policy;
}

/**
 * The answer of a completion as a comparison key: the task's `A:` line for synthetic tasks, math-answer's
 * normalised key otherwise; null when there is none.
 */
export function answerKey(problem: Problem, completion: string): string | null {
  if (tasks.has(problem.task)) return tasks.get(problem.task).extractAnswer(completion);
  return mathAnswerKey(completion);
}

/**
 * Gold diagnostics of one graded completion, when a gold verdict exists (a synthetic task with a
 * non-empty answer): gold_correct, self_gold_agreement (the self-reward's pass/fail equals the gold one)
 * and confident_wrong (the self-reward passes a wrong completion). Never part of the reward.
 */
export function goldComponents(
  problem: Problem,
  completion: string,
  selfPass: boolean,
): Record<string, number> {
  if (problem.answer.trim() === '' || !tasks.has(problem.task)) return {};
  const correct = tasks.get(problem.task).verify(problem, completion).correct;
  return {
    gold_correct: correct ? 1 : 0,
    self_gold_agreement: selfPass === correct ? 1 : 0,
    confident_wrong: selfPass && !correct ? 1 : 0,
  };
}

/** A 32-bit seed from text (problem id, completion, step), so sampling inside a reward is reproducible. */
export function seedOf(...parts: (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const character of parts.join('\u0000')) {
    hash ^= character.codePointAt(0) as number;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
