// `curricula train-rm`: a Bradley–Terry reward model (issue 31 item 3) — an embedded checkpoint fine-tuned
// so that its scalar head (src/rewards/reward-model/head.ts) scores the chosen completion of each pair
// above the rejected one: loss = mean −log σ(r(chosen) − r(rejected)), as TRL's RewardTrainer and
// OpenRLHF's RM trainer minimise (without their optional margin and centering terms). Each step: a forward
// pass scores the batch's pairs, then the `linear` loss with weights dL/dr = ∓σ(−Δ)/B on the heads gives
// the exact gradient (the policy contract's two-pass custom loss), then one Adam step. Every `evalEvery`
// steps and at the end: pair accuracy (r(chosen) > r(rejected)) on the training and held-out pairs.
// Writes <runsDir>/<name>/: config.json, metrics.jsonl (one line per step, held-out accuracy where
// measured), model/ (the final model, loadable by the `reward-model` reward), summary.json. A run directory
// that exists is refused (nothing is overwritten). Not resumable: a stopped run is started again.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { ConfigError, DataError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { headData, headInput, headScores } from '../../rewards/reward-model/head.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import {
  checkRunsDirectory,
  RUN_NAME_MAX,
  RUN_NAME_PATTERN,
  RUN_NAME_RULE,
  runDirectory,
} from '../../runs/run-name.ts';
import { optimizerSchema } from '../pretrain-config.ts';
import { learningRateAt } from '../schedule.ts';
import { isHeldOut, type PreferencePair, readPairs } from './pairs.ts';

export const trainRmConfigSchema = z.strictObject({
  name: z
    .string()
    .max(RUN_NAME_MAX, RUN_NAME_RULE)
    .regex(RUN_NAME_PATTERN, RUN_NAME_RULE)
    .default('reward-model'),
  runsDir: z.string().default('runs'),
  seed: z.number().int().default(0),
  /** The checkpoint the reward model starts from (its tokenizer and context are the RM's). */
  init: z.strictObject({ checkpoint: z.string() }),
  pairs: z.strictObject({
    /** JSONL of {prompt, chosen, rejected}. */
    file: z.string(),
    /** Share of prompts held out (by prompt hash) for the held-out pair accuracy. */
    heldOutFraction: z.number().min(0).max(0.9).default(0.1),
  }),
  train: optimizerSchema.extend({
    steps: z.number().int().positive(),
    /** Pairs per step. */
    batchSize: z.number().int().positive().max(4096).default(16),
  }),
  /** Held-out pair accuracy every N steps (and at the end). */
  evalEvery: z.number().int().positive().default(50),
  policy: z.strictObject({ workers: z.number().int().positive().max(64).default(1) }).default({ workers: 1 }),
});

export type TrainRmConfig = z.infer<typeof trainRmConfigSchema>;

interface EncodedPair {
  chosen: number[];
  rejected: number[];
}

export interface TrainRmResult {
  runDir: string;
  trainPairs: number;
  heldOutPairs: number;
  heldOutAccuracy: number | null;
  trainAccuracy: number;
}

function encodePairs(policy: PolicyBackend, pairs: readonly PreferencePair[], file: string): EncodedPair[] {
  return pairs.map((pair) => {
    const chosen = headInput(policy.tokenizer, policy.contextLength, pair.prompt, pair.chosen);
    const rejected = headInput(policy.tokenizer, policy.contextLength, pair.prompt, pair.rejected);
    if (!chosen || !rejected) {
      throw new DataError(
        `${file}:${pair.line}: prompt + completion does not fit the model's context (${policy.contextLength} tokens)`,
      );
    }
    return { chosen, rejected };
  });
}

/** Share of pairs whose chosen completion scores above the rejected one (batched forward passes). */
async function pairAccuracy(policy: PolicyBackend, pairs: readonly EncodedPair[]): Promise<number> {
  let right = 0;
  for (let start = 0; start < pairs.length; start += 64) {
    const batch = pairs.slice(start, start + 64);
    const scores = await headScores(
      policy,
      batch.flatMap((pair) => [pair.chosen, pair.rejected]),
    );
    batch.forEach((_, i) => {
      if (scores[2 * i] > scores[2 * i + 1]) right++;
    });
  }
  return right / pairs.length;
}

/** One Bradley–Terry step on `batch`; returns the loss and accuracy before the update. */
async function step(
  policy: PolicyBackend,
  batch: readonly EncodedPair[],
  config: TrainRmConfig,
  learningRate: number,
) {
  const scores = await headScores(
    policy,
    batch.flatMap((pair) => [pair.chosen, pair.rejected]),
  );
  const data = batch.flatMap((pair, i) => {
    const margin = scores[2 * i] - scores[2 * i + 1];
    const pull = 1 / (1 + Math.exp(margin)) / batch.length; // σ(−Δ)/B = −dL/dr(chosen)
    return [
      ...headData(policy.tokenizer, pair.chosen, -pull),
      ...headData(policy.tokenizer, pair.rejected, pull),
    ];
  });
  await policy.forwardBackward(data, 'linear');
  const { betas, eps, weightDecay, gradClip } = config.train;
  const optim = await policy.optimStep({ learningRate, betas, eps, weightDecay, gradClip });
  const margins = batch.map((_, i) => scores[2 * i] - scores[2 * i + 1]);
  return {
    loss: margins.reduce((sum, m) => sum + Math.log1p(Math.exp(-m)), 0) / batch.length,
    accuracy: margins.filter((m) => m > 0).length / batch.length,
    gradNorm: (optim as { gradNorm?: number }).gradNorm ?? null,
  };
}

export async function trainRm(
  raw: unknown,
  where = 'train-rm config',
  onStep?: (step: number, line: object) => void,
): Promise<TrainRmResult> {
  const config = parseConfig(trainRmConfigSchema, raw, where);
  checkRunsDirectory(config.runsDir);
  const runDir = runDirectory(config.runsDir, config.name);
  if (existsSync(runDir))
    throw new ConfigError(`run directory ${runDir} exists; choose another name (train-rm never overwrites)`);
  const pairs = readPairs(config.pairs.file);
  const held = pairs.filter((pair) => isHeldOut(pair.prompt, config.pairs.heldOutFraction));
  const trained = pairs.filter((pair) => !isHeldOut(pair.prompt, config.pairs.heldOutFraction));
  if (trained.length === 0)
    throw new DataError(`${config.pairs.file}: every pair is held out; lower pairs.heldOutFraction`);
  const policy = await loadEmbeddedPolicy(
    resolveCheckpoint(config.init.checkpoint).modelPath,
    config.policy.workers,
  );
  try {
    const train = encodePairs(policy, trained, config.pairs.file);
    const heldOut = encodePairs(policy, held, config.pairs.file);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    const rng = new Rng(config.seed);
    let order: number[] = [];
    let heldOutAccuracy: number | null = null;
    for (let stepIndex = 1; stepIndex <= config.train.steps; stepIndex++) {
      if (order.length < config.train.batchSize) order = [...order, ...rng.shuffle(train.map((_, i) => i))];
      const batch = order.splice(0, config.train.batchSize).map((i) => train[i]);
      const learningRate = learningRateAt(config.train, stepIndex, config.train.steps);
      const result = await step(policy, batch, config, learningRate);
      const line: Record<string, number | null> = { step: stepIndex, ...result };
      if (heldOut.length > 0 && (stepIndex % config.evalEvery === 0 || stepIndex === config.train.steps)) {
        heldOutAccuracy = await pairAccuracy(policy, heldOut);
        line.heldOutAccuracy = heldOutAccuracy;
      }
      appendFileSync(join(runDir, 'metrics.jsonl'), `${JSON.stringify(line)}\n`);
      onStep?.(stepIndex, line);
    }
    await policy.save(join(runDir, 'model'));
    const result: TrainRmResult = {
      runDir,
      trainPairs: train.length,
      heldOutPairs: heldOut.length,
      heldOutAccuracy,
      trainAccuracy: await pairAccuracy(policy, train),
    };
    writeFileSync(join(runDir, 'summary.json'), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    await (policy as { close?: () => Promise<void> }).close?.();
  }
}
