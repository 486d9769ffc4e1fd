// ReLIFT's SFT update (arXiv 2506.07527; TheRoadQaQ/ReLIFT relift/verl/verl/relift/actor.py
// `sft_update_policy`, core_algos.py `compute_sft_loss`, trainer.py `replace_response_in_batch`):
// negative log-likelihood of the demonstration tokens only, the prompt's positions weighted 0.
//
// Sequence: [BOS] + the problem's plain prompt + demonstration + EOS. The authors swap the sampled
// response for the target and put EOS after it; a target that fills max_target_len is right-truncated and
// its last position becomes EOS. Here the length limit is the model's context (prompt + demonstration +
// EOS ≤ contextLength; the level-fit check at setup makes every worked solution fit, so the cut only
// matters for a source that writes longer texts). The prompt is the problem's own, never a scaffold's
// hinted prompt: the demonstration teaches the answer to the question the policy failed.
//
// Loss per optimiser step: token mean over the minibatch, L = −(1/N) Σ logp(demonstration tokens), sent
// as the backend's 'cross_entropy' loss with weights 1/N (Tinker's semantics, src/core/policy.ts), so the
// backend's returned loss is the mean NLL itself. The authors take the masked mean per micro-batch and
// average the micro-batches (gradient accumulation); with one micro-batch per minibatch the two agree.
// Minibatches are taken in buffer order, no shuffle (the authors' `batch.split(sft_mini_batch_size)`, also
// unshuffled; their `_balance_batch` only reorders across data-parallel ranks).
//
// Optimiser: the PolicyBackend has one optimiser, so the SFT steps use its AdamW state (moments and step
// count) together with the RL steps, with their own learning rate and gradient clip. The authors build a
// SECOND AdamW over the same parameters for SFT (fsdp_worker.py `actor_sft_optimizer`, lr optim.sft.lr,
// the same betas and weight decay 1e-2 as the RL optimiser), so their SFT and RL moments never mix.
// Deviation, stated in docs/guidance.md; an exact copy would need an optional optimiser slot in
// OptimOptions, which hosted Tinker (one optimiser per training client) could not honour.
// Entropy bonus: the authors add −0.001·entropy; left out (the backend returns no full distributions).
import type { Datum, OptimOptions, PolicyBackend, Tokenizer } from '../../../core/policy.ts';
import type { Problem } from '../../../core/problem.ts';
import { promptTokens } from '../../../tasks/format.ts';

export interface DemonstrationSequence {
  /** Prompt tokens, then the demonstration's tokens and EOS. */
  tokens: number[];
  /** Index in `tokens` of the demonstration's first token (= the prompt's length). */
  start: number;
}

/** The training sequence of one demonstration, cut to the context as the authors cut a long target. */
export function demonstrationSequence(
  tokenizer: Tokenizer,
  contextLength: number,
  problem: Problem,
  demonstration: string,
): DemonstrationSequence {
  const prompt = promptTokens(tokenizer, problem);
  const room = contextLength - prompt.length;
  if (room < 1) {
    throw new RangeError(`problem ${problem.id}: its prompt fills the model's context of ${contextLength}`);
  }
  const text = tokenizer.encode(demonstration, `ReLIFT demonstration of ${problem.id}`);
  // Authors: a target of max length keeps its first max − 1 tokens and ends with EOS.
  const kept = text.slice(0, room - 1);
  return { tokens: [...prompt, ...kept, tokenizer.eos], start: prompt.length };
}

/**
 * Cross-entropy data for one minibatch: weight 1/N on the prediction of every demonstration token (EOS
 * included), 0 on the prompt; N = the minibatch's demonstration tokens. weights[t] weighs tokens[t + 1].
 * With `keep` ([sequence][demonstration token], MIFO's selection) only the kept tokens weigh, N = their count.
 */
export function sftData(sequences: readonly DemonstrationSequence[], keep?: readonly boolean[][]): Datum[] {
  const kept = (s: number, d: number) => keep === undefined || keep[s][d];
  let total = 0;
  sequences.forEach((sequence, s) => {
    for (let d = 0; d < sequence.tokens.length - sequence.start; d++) if (kept(s, d)) total++;
  });
  return sequences.map(({ tokens, start }, s) => ({
    tokens,
    weights: tokens.slice(1).map((_, t) => (t + 1 >= start && kept(s, t + 1 - start) ? 1 / total : 0)),
  }));
}

/**
 * MIFO's high-entropy tokens: of all demonstration tokens of a minibatch ([sequence][token] entropies of
 * the policy's next-token distribution at the position that predicts each), the ceil(fraction · n) with
 * the highest entropy, ties to the earlier token; a batch-level cut, as the 80/20 paper's percentile.
 */
export function highEntropyTokens(entropies: readonly (readonly number[])[], fraction: number): boolean[][] {
  const all = entropies.flatMap((row, s) => row.map((entropy, d) => ({ entropy, s, d })));
  const count = Math.ceil(fraction * all.length);
  const keep = entropies.map((row) => row.map(() => false));
  all
    .map((entry, order) => ({ ...entry, order }))
    .sort((a, b) => b.entropy - a.entropy || a.order - b.order)
    .slice(0, count)
    .forEach(({ s, d }) => {
      keep[s][d] = true;
    });
  return keep;
}

/** Each demonstration token's entropy under the policy, from one pass with zero weights (no gradient). */
async function demonstrationEntropies(
  policy: PolicyBackend,
  sequences: readonly DemonstrationSequence[],
): Promise<number[][]> {
  const probe = sequences.map(({ tokens }) => ({
    tokens,
    weights: tokens.slice(1).map(() => 0),
    entropyWeights: tokens.slice(1).map(() => 0),
  }));
  const pass = await policy.forwardBackward(probe, 'cross_entropy');
  if (!pass.entropies)
    throw new RangeError('algorithm.relift.entropyTokens: the policy backend returned no entropies');
  return sequences.map(({ start }, s) => pass.entropies![s].slice(start - 1));
}

export interface SftUpdateOptions {
  miniBatchSize: number;
  epochs: number;
  /** Learning rate, gradient clip, betas, eps and weight decay of every SFT optimiser step. */
  optim: OptimOptions;
  /** MIFO: train on this top fraction of each minibatch's tokens by entropy; absent/null = all. */
  entropyTokens?: number | null;
}

export interface SftUpdateResult {
  /** Mean over the optimiser steps of each minibatch's token-mean NLL (before its step). */
  loss: number;
  /** Mean gradient norm (before clipping) over the optimiser steps. */
  gradNorm: number;
  /** Demonstration tokens trained per epoch (with entropyTokens: the kept ones). */
  tokens: number;
  optimizerSteps: number;
}

/** `epochs` passes over the sequences in order, one optimiser step per `miniBatchSize` of them. */
export async function sftUpdate(
  policy: PolicyBackend,
  sequences: readonly DemonstrationSequence[],
  options: SftUpdateOptions,
): Promise<SftUpdateResult> {
  let lossSum = 0;
  let gradNormSum = 0;
  let steps = 0;
  let kept = 0;
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (let start = 0; start < sequences.length; start += options.miniBatchSize) {
      const minibatch = sequences.slice(start, start + options.miniBatchSize);
      const keep = options.entropyTokens
        ? highEntropyTokens(await demonstrationEntropies(policy, minibatch), options.entropyTokens)
        : undefined;
      if (epoch === 0 && keep) kept += keep.flat().filter(Boolean).length;
      const data = sftData(minibatch, keep);
      const pass = await policy.forwardBackward(data, 'cross_entropy');
      const optim = await policy.optimStep(options.optim);
      lossSum += pass.loss;
      gradNormSum += optim.gradNorm;
      steps++;
    }
  }
  const tokens = options.entropyTokens
    ? kept
    : sequences.reduce((sum, sequence) => sum + sequence.tokens.length - sequence.start, 0);
  return {
    loss: steps > 0 ? lossSum / steps : 0,
    gradNorm: steps > 0 ? gradNormSum / steps : 0,
    tokens,
    optimizerSteps: steps,
  };
}
