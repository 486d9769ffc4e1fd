// `curricula bench losses`: what each registered policy loss costs next to the embedded update step it
// feeds (issue 32's target: every loss < 2% of the step). One batch of the demo's RL size and shape
// (demo-batch.ts: 128 sequences of 20-70 tokens past a 12-token prompt, in groups of 8) on the demo's
// cold-start model;
// each round times one update step (forwardBackward('linear') + optimStep, the engine's default threads)
// and then every loss's compute() on that step's log-probs (π_old = logp + a fixed offset, one advantage
// per sequence of mixed sign), each loss repeated `repeats` times and divided, so that sub-millisecond
// times are measured above the clock's resolution. Rounds alternate update and losses, so a busy machine
// slows both alike; the report gives medians over rounds and each loss's share of the update step.
// With `critic` (default on), each round also times the GAE critic's extra work on the same batch
// (src/policy/value-model.ts: its values over every sequence, then one training step on the clipped value
// loss), reported as a ratio of the update step (issue 32: "the critic's extra forward and backward cost").
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type PolicyLoss, policyLosses } from '../algorithms/losses/index.ts';
import type { LossSequence } from '../algorithms/losses/policy-loss.ts';
import { Rng } from '../core/rng.ts';
import { defaultEngine } from '../policy/default-engine.ts';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import type { TrainEngine } from '../policy/parallel-options.ts';
import { ValueModel, type ValueRow } from '../policy/value-model.ts';
import { demoBatch } from './demo-batch.ts';
import { median } from './median.ts';

const demoCheckpoint = fileURLToPath(new URL('../../examples/checkpoints/demo-cold', import.meta.url));

/** Tokens of demoBatch's prompt: they carry no loss. */
const PROMPT = 12;

export interface LossBenchOptions {
  checkpoint?: string;
  /** Timed rounds (default 7), after one untimed. */
  rounds?: number;
  /** Times each loss is computed per round (default 20). */
  repeats?: number;
  /** Loss names (default: every registered loss). */
  names?: string[];
  engine?: TrainEngine;
  /** Native engine threads (default: every core). */
  threads?: number;
  /** Also time the critic's values + one training step on the batch (default true). */
  critic?: boolean;
  onProgress?: (line: string) => void;
}

export interface LossBenchRow {
  name: string;
  /** Median milliseconds of one compute() on the batch. */
  milliseconds: number;
  /** milliseconds / the update step's median. */
  shareOfUpdate: number;
}

export interface LossBenchResult {
  checkpoint: string;
  engine: TrainEngine;
  threads: number;
  sequences: number;
  lossTokens: number;
  rounds: number;
  /** Median milliseconds of forwardBackward + optimStep on the batch. */
  updateMilliseconds: number;
  losses: LossBenchRow[];
  /** The largest share (target < 0.02). */
  worstShare: number;
  /** The critic's values and one training step on the batch, median milliseconds and / the update step. */
  critic?: { valuesMilliseconds: number; trainMilliseconds: number; ratioToUpdate: number };
  load: { loadavg1: number; cores: number };
}

/** Samples per group in the bench batch (the demo's groupSize). */
const GROUP = 8;

/**
 * The loss's sequences for the batch at log-probs `logprobs` (one row per datum, prompt included): π_old
 * and the reference offset from the current log-probs, one advantage per sequence of mixed sign, a 0/1
 * reward, groups of GROUP consecutive sequences (what NFT and online DPO read).
 */
function lossSequences(logprobs: readonly (readonly number[])[]): LossSequence[] {
  const rng = new Rng(3);
  const rewards = logprobs.map(() => (rng.next() < 0.5 ? 1 : 0));
  return logprobs.map((row, index) => {
    const completion = row.slice(PROMPT);
    const group = Math.floor(index / GROUP);
    return {
      logprobs: completion,
      oldLogprobs: completion.map((value) => value + 0.3 * (rng.next() - 0.5)),
      refLogprobs: completion.map((value) => value + 0.2 * (rng.next() - 0.5)),
      advantages: rng.next() < 0.5 ? -1 + rng.next() : rng.next(),
      mask: completion.map(() => 1),
      reward: rewards[index],
      groupRewards: rewards.slice(group * GROUP, (group + 1) * GROUP),
      group,
    };
  });
}

function timeLoss(loss: PolicyLoss, sequences: LossSequence[], repeats: number): number {
  const start = performance.now();
  for (let repeat = 0; repeat < repeats; repeat++) loss.compute(sequences);
  return (performance.now() - start) / repeats;
}

export async function benchLosses(options: LossBenchOptions = {}): Promise<LossBenchResult> {
  const checkpoint = options.checkpoint ?? demoCheckpoint;
  const rounds = options.rounds ?? 7;
  const repeats = options.repeats ?? 20;
  const engine = options.engine ?? defaultEngine().engine;
  const threads = options.threads ?? cpus().length;
  const names = options.names ?? policyLosses.names();
  const losses = names.map((name) => policyLosses.get(name));
  const backend = await EmbeddedBackend.load(checkpoint, {
    engine,
    ...(engine === 'native' && { engineThreads: threads }),
  });
  const batch = demoBatch();
  const update: number[] = [];
  const lossTimes = losses.map((): number[] => []);
  const critic = options.critic === false ? null : await ValueModel.load(checkpoint, 1);
  const criticTimes = { values: [] as number[], train: [] as number[] };
  const rows: ValueRow[] = batch.map((datum) => {
    const returns = datum.tokens.slice(PROMPT + 1).map((_, t) => (t % 3) / 2);
    return { tokens: datum.tokens, start: PROMPT, returns, oldValues: returns.map(() => 0) };
  });
  try {
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      const pass = await backend.forwardBackward(batch, 'linear');
      await backend.optimStep({ learningRate: 1e-6 });
      const elapsed = performance.now() - start;
      const sequences = lossSequences(pass.logprobs);
      const times = losses.map((loss) => timeLoss(loss, sequences, repeats));
      let criticValues = 0;
      let criticTrain = 0;
      if (critic) {
        const valuesStart = performance.now();
        critic.values(
          batch.map((datum) => datum.tokens),
          4096,
        );
        criticValues = performance.now() - valuesStart;
        const trainStart = performance.now();
        critic.train(rows, {
          learningRate: 1e-6,
          valueClip: 0.5,
          gradClip: 1,
          weightDecay: 0.01,
          tokenBudget: 4096,
        });
        criticTrain = performance.now() - trainStart;
      }
      if (round === 0) continue;
      if (critic) {
        criticTimes.values.push(criticValues);
        criticTimes.train.push(criticTrain);
      }
      update.push(elapsed);
      for (const [index, time] of times.entries()) lossTimes[index].push(time);
      options.onProgress?.(`round ${round}/${rounds}: update ${elapsed.toFixed(0)} ms`);
    }
  } finally {
    backend.dispose();
    critic?.dispose();
  }
  const updateMilliseconds = median(update);
  const lossRows = losses.map((loss, index) => {
    const milliseconds = median(lossTimes[index]);
    return { name: loss.name, milliseconds, shareOfUpdate: milliseconds / updateMilliseconds };
  });
  return {
    checkpoint,
    engine,
    threads,
    sequences: batch.length,
    lossTokens: batch.reduce((sum, datum) => sum + datum.tokens.length - 1 - PROMPT, 0),
    rounds,
    updateMilliseconds,
    losses: lossRows,
    worstShare: Math.max(...lossRows.map((row) => row.shareOfUpdate)),
    ...(critic && {
      critic: {
        valuesMilliseconds: median(criticTimes.values),
        trainMilliseconds: median(criticTimes.train),
        ratioToUpdate: (median(criticTimes.values) + median(criticTimes.train)) / updateMilliseconds,
      },
    }),
    load: { loadavg1: loadavg()[0], cores: cpus().length },
  };
}
