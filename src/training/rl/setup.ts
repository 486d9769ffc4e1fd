// Builds the RL context from a config: resolves every named part through its registry (so an unknown
// name or bad option fails here, before any file is written), loads the policy and the reference, and
// draws the selector's problem pool.
import { dirname } from 'node:path';
import { advantageEstimators } from '../../algorithms/advantages/index.ts';
import { policyLosses, withExpertTokens } from '../../algorithms/losses/index.ts';
import { ConfigError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { Reward } from '../../core/reward.ts';
import { Rng } from '../../core/rng.ts';
import { checkModelMemory, checkSamplingMemory, checkStepBudget } from '../../core/size-limits.ts';
import { selectors } from '../../curricula/index.ts';
import { guidances } from '../../guidance/index.ts';
import { createEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { defaultWorkers, engineChoice } from '../../policy/parallel-options.ts';
import { suiteTokenizer } from '../../policy/tokenizer.ts';
import { rewards } from '../../rewards/index.ts';
import { LateBoundPolicy } from '../../rewards/self-policy.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import { heldOutProblems, ProblemMix, validateMix } from '../../tasks/problem-mix.ts';
import { buildComponents, checkComponents } from '../components/build-components.ts';
import type { RlComponentDefinition } from '../components/definition.ts';
import { rlComponents } from '../components/index.ts';
import { resolveModelShape } from '../model-presets.ts';
import { type PolicyBackendRequest, policyBackendOf } from '../policy-backends.ts';
import type { RlConfig } from './config.ts';
import type { RlContext } from './context.ts';
import {
  checkLevelsFit,
  checkPoolFits,
  levelsCutByMaxTokens,
  policyLimits,
  poolCutByMaxTokens,
} from './level-fit.ts';
import { type PoolFileRecord, poolFileRecord, readPoolFile } from './pool-file.ts';

/** Seed offset of the pool stream, so the pool does not depend on how many steps have run. */
const poolSeedOffset = 7919;

/**
 * Checks everything that can be checked without loading a model; the run components' blocks last, by
 * their definitions (`definitions`: as buildContext's).
 */
export function validateRlConfig(
  config: RlConfig,
  definitions: readonly RlComponentDefinition[] = rlComponents,
): void {
  validateMix(config.tasks, 'tasks');
  checkStepBudget(config);
  const advantage = advantageEstimators.get(config.algorithm.advantage.name);
  advantage.resolveOptions(config.algorithm.advantage.options);
  advantage.validate(config.rollout.groupSize);
  const loss = policyLosses.get(config.algorithm.loss.name);
  loss.resolveOptions(config.algorithm.loss.options);
  if (loss.requireWholeGroups && config.algorithm.minibatches > 1) {
    throw new ConfigError(
      `loss '${loss.name}' pairs the samples of a group, which must stay in one minibatch: set algorithm.minibatches to 1 (it is ${config.algorithm.minibatches})`,
    );
  }
  selectors.get(config.selector.name);
  guidances.get(config.guidance.name);
  rewards.get(config.reward.name);
  policyBackendOf(config.policy).validate({ policy: config.policy });
  const entropy = config.algorithm.entropy;
  if (
    entropy.coefficient > 0 &&
    entropy.estimator === 'exact' &&
    (config.policy?.backend ?? 'embedded') !== 'embedded'
  ) {
    throw new ConfigError(
      `algorithm.entropy estimator 'exact' needs the full next-token distribution, which policy.backend '${config.policy?.backend}' does not return; use estimator 'sampled' (an estimate from the sampled tokens)`,
    );
  }
  if (config.algorithm.kl.precedent !== undefined && config.algorithm.kl.mode !== 'loss') {
    throw new ConfigError(
      "algorithm.kl.precedent (ReMix's KL-Convex term) applies to the KL loss term: set algorithm.kl.mode to 'loss'",
    );
  }
  if (config.algorithm.kl.rewardGuided && config.algorithm.kl.mode !== 'loss') {
    throw new ConfigError(
      "algorithm.kl.rewardGuided applies to the KL loss term: set algorithm.kl.mode to 'loss'",
    );
  }
  for (const definition of definitions) definition.validate?.(config);
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

/**
 * The selector's pool: drawn from the mix, or read from `pool.file`. Every level of the mix and every
 * pool problem must fit the starting policy (level-fit.ts); both checks run before any model is loaded.
 * `advice`: levels or pool problems whose solutions rollout.maxTokens cuts (warnings at run start).
 */
export function loadPool(
  config: RlConfig,
  startPath: string | null,
  checkFit = true,
): { pool: Problem[]; advice: string[]; poolFile?: PoolFileRecord } {
  const limits = checkFit ? policyLimits(config, startPath) : null;
  if (limits) checkLevelsFit(config.tasks, limits);
  const maxTokens = config.rollout.maxTokens;
  if (!config.pool) return { pool: drawPool(config), advice: levelsCutByMaxTokens(config.tasks, maxTokens) };
  const heldOut = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
  const entries = readPoolFile(config.pool.file, heldOut);
  if (limits) checkPoolFits(entries, config.pool.file, limits);
  return {
    pool: entries.map((entry) => entry.problem),
    advice: poolCutByMaxTokens(entries, config.pool.file, maxTokens),
    poolFile: poolFileRecord(config.pool.file),
  };
}

/**
 * The frozen reference policy, when the KL term, the KL monitor or the loss needs one: the initial policy,
 * or algorithm.kl.reference (KDRL's teacher), which must share the policy's tokenizer.
 */
async function buildReference(
  config: RlConfig,
  backend: ReturnType<typeof policyBackendOf>,
  request: Omit<PolicyBackendRequest, 'checkpoint' | 'role'>,
  policy: PolicyBackend,
): Promise<PolicyBackend | null> {
  const kl = config.algorithm.kl;
  const needsReference = policyLosses.get(config.algorithm.loss.name).requireReference ?? false;
  const annealed = (kl.anneal?.to ?? 0) > 0;
  if (!(kl.coefficient > 0 || annealed || kl.monitor || needsReference)) return null;
  const checkpoint = kl.reference ? resolveCheckpoint(kl.reference).modelPath : request.init;
  const reference = await backend.build({ ...request, checkpoint, role: 'reference' });
  if (reference.tokenizer.vocabSize !== policy.tokenizer.vocabSize) {
    await reference.close?.();
    await policy.close?.();
    throw new ConfigError(
      `algorithm.kl.reference ${kl.reference}: its tokenizer has ${reference.tokenizer.vocabSize} tokens, the policy's ${policy.tokenizer.vocabSize}; the KL is over the same tokens, so they must share one`,
    );
  }
  return reference;
}

/**
 * `modelPath`: load the policy from here instead of init (resume). `definitions`: the run components
 * (default: `curricula train`'s, components/index.ts; a test or a command may add its own).
 */
export async function buildContext(
  config: RlConfig,
  modelPath?: string,
  definitions: readonly RlComponentDefinition[] = rlComponents,
): Promise<RlContext> {
  validateRlConfig(config, definitions);
  const initPath = config.init ? resolveCheckpoint(config.init.checkpoint).modelPath : null;
  // The level check reads the starting model's tokenizer and context: the checkpoint the embedded policy
  // loads; for a remote backend the init checkpoint (its own checkpoints are records of weights kept on
  // the server, not models), and none when policy.tokenizer names the remote model's tokenizer (its
  // context length is the server's).
  const remote = (config.policy?.backend ?? 'embedded') !== 'embedded';
  const fitPath = remote ? initPath : (modelPath ?? initPath);
  if (!remote) checkEmbeddedMemory(config, fitPath);
  const { pool, advice, poolFile } = loadPool(config, fitPath, !(remote && config.policy?.tokenizer));
  // Before the reward check: a scaffold's refusal of the pool (no worked solutions) is the clearer error.
  const source = config.pool
    ? `pool file ${config.pool.file}`
    : `tasks ${config.tasks.map((entry) => entry.task).join(', ')}`;
  const guidance = createGuidance(config, pool, source);
  // A component's refusal of the pool (ReLIFT: no worked solutions) or of the guidance (teachers: a
  // privileged scorer's teacher) comes here, before any model.
  checkComponents(definitions, { config, pool, source, guidance });
  // Self-rewards (RLSC, SCS, CaT) use the policy: it is bound below, once loaded; they skip the
  // reference-solution check, which would call the policy before it exists (self-policy.ts).
  const rewardPolicy = new LateBoundPolicy();
  const reward = rewards.get(config.reward.name)(config.reward.options, { policy: rewardPolicy });
  if (!reward.usesPolicy && !reward.usesJudge) await checkRewardFits(reward, pool, config.reward.name);
  // policy.backend (registry, default embedded). Embedded with policy.workers > 1 (default auto: one per
  // core): the policy and the reference run in worker threads (parallel-backend.ts).
  const backend = policyBackendOf(config.policy);
  const request = {
    policy: config.policy,
    create: () => createFresh(config),
    init: initPath,
  };
  const policy = await backend.build({ ...request, checkpoint: modelPath ?? initPath, role: 'policy' });
  rewardPolicy.bind(policy);
  const reference = await buildReference(config, backend, request, policy);
  const advantage = advantageEstimators.get(config.algorithm.advantage.name);
  // A scaffold that injects expert traces brings the term for their tokens (expert-tokens.ts).
  const baseLoss = policyLosses.get(config.algorithm.loss.name);
  const loss = guidance.expertLoss ? withExpertTokens(baseLoss, guidance.expertLoss) : baseLoss;
  // The run components (src/training/components/index.ts): rollout budget, expert traces, retry, ReLIFT,
  // teachers (built like the reference), self-play (draws generated problems beside the base pool).
  // One that fails (a teacher that does not load) releases the models built so far.
  const { components, selector } = await buildComponents(definitions, {
    config,
    pool,
    source,
    guidance,
    policy,
    request,
    ...(modelPath ? { resumeCheckpoint: dirname(modelPath) } : {}),
    selector: createSelector(config, pool),
  }).catch(async (error: unknown) => {
    await policy.close?.();
    await reference?.close?.();
    throw error;
  });
  return {
    config,
    policy,
    reference,
    selector,
    poolSize: pool.length,
    guidance,
    reward,
    advantage,
    advantageOptions: advantage.resolveOptions(config.algorithm.advantage.options),
    loss,
    lossOptions: loss.resolveOptions(config.algorithm.loss.options),
    rng: new Rng(config.seed),
    advice,
    poolFile,
    components,
  };
}

/** The embedded policy samples a step's completions in one batch: their KV cache must fit in memory. */
function checkEmbeddedMemory(config: RlConfig, fitPath: string | null): void {
  if (fitPath === null)
    checkModelMemory(resolveModelShape(config.model!), suiteTokenizer().vocabSize, 'model');
  checkSamplingMemory(
    config.train.batchSize * config.rollout.groupSize,
    policyLimits(config, fitPath).model,
    'train.batchSize × rollout.groupSize',
  );
}

/** The run's guidance scaffold over the pool (`source` names the pool in its refusals). */
function createGuidance(config: RlConfig, pool: Problem[], source: string) {
  return guidances.get(config.guidance.name)(config.guidance.options, {
    pool,
    totalSteps: config.train.steps,
    source,
    groupSize: config.rollout.groupSize,
    adaptiveGroupSize: config.rollout.budget.enabled,
    seed: config.seed,
    teachers: config.teacher?.pool.map((entry) => entry.name) ?? [],
  });
}

/** The selector over the pool; a pool file's name prefixes the selector's config-time refusals. */
function createSelector(config: RlConfig, pool: Problem[]) {
  const factory = selectors.get(config.selector.name);
  try {
    return factory(pool, config.selector.options, { totalSteps: config.train.steps });
  } catch (error) {
    if (config.pool && error instanceof ConfigError) {
      throw new ConfigError(`pool ${config.pool.file}: ${error.message}`);
    }
    throw error;
  }
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
    engineChoice(config.policy),
  );
}
