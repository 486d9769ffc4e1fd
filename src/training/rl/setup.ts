// Builds the RL context from a config: resolves every named part through its registry (so an unknown
// name or bad option fails here, before any file is written), loads the policy and the reference, and
// draws the selector's problem pool.
import { advantageEstimators } from '../../algorithms/advantages/index.ts';
import { policyLosses } from '../../algorithms/losses/index.ts';
import { ConfigError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { Reward } from '../../core/reward.ts';
import { Rng } from '../../core/rng.ts';
import { selectors } from '../../curricula/index.ts';
import { guidances } from '../../guidance/index.ts';
import { createEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { defaultWorkers } from '../../policy/parallel-options.ts';
import { suiteTokenizer } from '../../policy/tokenizer.ts';
import { rewards } from '../../rewards/index.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import { resolveModelShape } from '../model-presets.ts';
import { policyBackendOf } from '../policy-backends.ts';
import { ProblemMix, validateMix } from '../problem-mix.ts';
import type { RlConfig } from './config.ts';
import type { RlContext } from './context.ts';
import { createRolloutBudget, validateRolloutBudget } from './rollout-budget.ts';

/** Seed offset of the pool stream, so the pool does not depend on how many steps have run. */
const poolSeedOffset = 7919;

/** Checks everything that can be checked without loading a model. */
export function validateRlConfig(config: RlConfig): void {
  validateMix(config.tasks, 'tasks');
  const advantage = advantageEstimators.get(config.algorithm.advantage.name);
  advantage.resolveOptions(config.algorithm.advantage.options);
  advantage.validate(config.rollout.groupSize);
  if (config.rollout.budget.enabled) advantage.validate(config.rollout.budget.min);
  validateRolloutBudget(config);
  policyLosses.get(config.algorithm.loss.name).resolveOptions(config.algorithm.loss.options);
  selectors.get(config.selector.name);
  guidances.get(config.guidance.name);
  rewards.get(config.reward.name);
  policyBackendOf(config.policy).validate({ policy: config.policy });
  if (!config.init && !config.model) {
    throw new ConfigError(
      'give init.checkpoint (a cold-start checkpoint) or a model block to start from scratch',
    );
  }
  if (config.init && config.model) {
    throw new ConfigError(
      'give either init.checkpoint or model, not both: the checkpoint fixes the model shape',
    );
  }
}

export function drawPool(config: RlConfig): Problem[] {
  return new ProblemMix(config.tasks).pool(config.poolSize, new Rng(config.seed + poolSeedOffset));
}

/** `modelPath`: load the policy from here instead of init (resume). */
export async function buildContext(config: RlConfig, modelPath?: string): Promise<RlContext> {
  validateRlConfig(config);
  const pool = drawPool(config);
  const reward = rewards.get(config.reward.name)(config.reward.options);
  await checkRewardFits(reward, pool, config.reward.name);
  const initPath = config.init ? resolveCheckpoint(config.init.checkpoint).modelPath : null;
  // policy.backend (registry, default embedded). Embedded with policy.workers > 1 (default auto: one per
  // core): the policy and the reference run in worker threads (parallel-backend.ts).
  const backend = policyBackendOf(config.policy);
  const request = {
    policy: config.policy,
    create: () => createFresh(config),
    init: initPath,
  };
  const policy = await backend.build({ ...request, checkpoint: modelPath ?? initPath, role: 'policy' });
  const reference =
    config.algorithm.kl.coefficient > 0
      ? await backend.build({ ...request, checkpoint: initPath, role: 'reference' })
      : null;
  const advantage = advantageEstimators.get(config.algorithm.advantage.name);
  const loss = policyLosses.get(config.algorithm.loss.name);
  const selector = selectors.get(config.selector.name)(pool, config.selector.options, {
    totalSteps: config.train.steps,
  });
  return {
    config,
    policy,
    reference,
    selector,
    poolSize: pool.length,
    budget: createRolloutBudget(config, selector),
    guidance: guidances.get(config.guidance.name)(config.guidance.options),
    reward,
    advantage,
    advantageOptions: advantage.resolveOptions(config.algorithm.advantage.options),
    loss,
    lossOptions: loss.resolveOptions(config.algorithm.loss.options),
    rng: new Rng(config.seed),
  };
}

/**
 * A reward the tasks cannot produce is a config mistake: each task's reference solution must earn a
 * positive reward. Checked on one pool problem per task, before any training.
 */
async function checkRewardFits(reward: Reward, pool: readonly Problem[], name: string): Promise<void> {
  const examples = [...new Map(pool.map((problem) => [problem.task, problem])).values()];
  for (const problem of examples) {
    let reason: string | undefined;
    try {
      const [result] = await reward.score([
        { problem, completion: problem.solution, group: [problem.solution], step: 0 },
      ]);
      if (result && result.reward > 0) continue;
      reason = result?.reason ?? 'reward 0';
    } catch (error) {
      reason = (error as Error).message;
    }
    await reward.close?.();
    throw new ConfigError(
      `reward '${name}' cannot grade task '${problem.task}': the reference solution of ${problem.id} earns no reward (${reason})`,
    );
  }
}

async function createFresh(config: RlConfig): Promise<PolicyBackend> {
  const tokenizer = suiteTokenizer();
  const shape = resolveModelShape(config.model!);
  return createEmbeddedPolicy(
    { ...shape, vocabSize: tokenizer.vocabSize },
    tokenizer,
    config.seed,
    config.policy?.workers ?? defaultWorkers,
  );
}
