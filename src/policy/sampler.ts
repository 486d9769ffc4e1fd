// KV-cached batched sampling for the embedded transformer: every prompt × n samples decode together in
// one batch. The prompts are prefilled once each (left-padded to a common length), the caches are
// repeated n times, and each step feeds one token per unfinished row. Token choice (temperature, top-p,
// log-probs) happens in JavaScript on the logits (sampling.ts); the only randomness is one Rng seeded
// with options.seed, drawn in row order at every step, so the same seed gives the same output. A caller
// may instead give one Rng per prompt (the worker-parallel backend does, so that a prompt's samples do
// not depend on which other prompts share its batch); the rows of a prompt then draw from its own Rng.
//
// A row stops at EOS ('eos', token kept, text without it), when its completion completes a stop string
// ('stop', stop string kept), or at maxTokens or the model's context length ('length': prompt +
// completion never exceeds contextLength). Finished rows are dropped from the batch once they make up a
// quarter of it, so that they stop costing compute without a cache copy at every step.

import { UserError } from '../core/errors.ts';
import type { SampledSequence, SampleOptions, StopReason, Tokenizer, TopLogprob } from '../core/policy.ts';
import { Rng } from '../core/rng.ts';
import { type DecoderFactory, tfjsDecoder } from './sampler-decoder.ts';
import type { SamplerModel } from './sampler-weights.ts';
import { completedStop, sampleToken, topLogprobs } from './sampling.ts';

export type { SamplerModel } from './sampler-weights.ts';

interface RowState {
  promptLength: number;
  /** Most completion tokens this row may produce: min(maxTokens, contextLength - promptLength). */
  budget: number;
  tokens: number[];
  logprobs: number[];
  samplingLogprobs: number[];
  /** Per token, the most likely tokens (SampleOptions.topLogprobs); empty when not asked for. */
  topLogprobs: TopLogprob[][];
  text: string;
  stopReason: StopReason | null;
}

/** The most top log-probs a call may ask for per token (OpenAI's top_logprobs limit). */
export const maxTopLogprobs = 20;

/** Fraction of finished rows in the running batch at which the batch is compacted. */
const compactFraction = 0.25;

/** Throws UserError for options or prompts the sampler cannot take (prompt indices as given). */
export function validateSampleRequest(
  prompts: number[][],
  options: SampleOptions,
  contextLength: number,
  vocabSize: number,
): void {
  if (!Number.isInteger(options.n) || options.n < 1)
    throw new UserError(`sample: n must be ≥ 1, got ${options.n}`);
  if (!Number.isInteger(options.maxTokens) || options.maxTokens < 0)
    throw new UserError(`sample: maxTokens must be an integer ≥ 0, got ${options.maxTokens}`);
  if (!(options.temperature >= 0))
    throw new UserError(`sample: temperature must be ≥ 0, got ${options.temperature}`);
  if (!(options.topP > 0 && options.topP <= 1))
    throw new UserError(`sample: topP must be in (0, 1], got ${options.topP}`);
  const top = options.topLogprobs ?? 0;
  if (!Number.isInteger(top) || top < 0 || top > maxTopLogprobs)
    throw new UserError(`sample: topLogprobs must be an integer in [0, ${maxTopLogprobs}], got ${top}`);
  prompts.forEach((prompt, index) => {
    if (prompt.length === 0)
      throw new UserError(`sample: prompt ${index} is empty (start it with the BOS token)`);
    if (prompt.length > contextLength)
      throw new UserError(
        `sample: prompt ${index} has ${prompt.length} tokens, more than the context length ${contextLength}`,
      );
    for (const token of prompt)
      if (!Number.isInteger(token) || token < 0 || token >= vocabSize)
        throw new UserError(
          `sample: prompt ${index} has token id ${token} outside the vocabulary [0, ${vocabSize})`,
        );
  });
}

/** The prompts left-padded to the longest: tokens [P, W] row-major and each prompt's padding. */
function leftPad(prompts: number[][], pad: number): { padded: Int32Array; pads: number[]; width: number } {
  const width = Math.max(...prompts.map((prompt) => prompt.length));
  const padded = new Int32Array(prompts.length * width).fill(pad);
  const pads = prompts.map((prompt, index) => {
    padded.set(prompt, index * width + width - prompt.length);
    return width - prompt.length;
  });
  return { padded, pads, width };
}

/**
 * Samples `options.n` completions of each prompt: result[promptIndex][sampleIndex].
 * `promptRngs` (one per prompt): draw each prompt's tokens from its own Rng instead of one Rng(options.seed).
 * `decoder`: the forward engine (sampler-decoder.ts; tfjs by default, native-decoder.ts for policy.engine
 * 'native'). The caller owns the tfjs runtime (initRuntime); no tensor outlives the call.
 */
export function sampleWithKvCache(
  model: SamplerModel,
  tokenizer: Tokenizer,
  prompts: number[][],
  options: SampleOptions,
  promptRngs?: readonly Rng[],
  decoder: DecoderFactory = tfjsDecoder,
): SampledSequence[][] {
  const { contextLength, vocabSize } = model.config;
  validateSampleRequest(prompts, options, contextLength, vocabSize);
  if (prompts.length === 0) return [];
  const { n, temperature, topP } = options;
  const top = options.topLogprobs ?? 0;
  const stops = (options.stop ?? []).filter((stop) => stop.length > 0);
  if (promptRngs && promptRngs.length !== prompts.length) {
    throw new Error(`sample: ${promptRngs.length} random streams for ${prompts.length} prompts`);
  }
  const sharedRng = promptRngs ? null : new Rng(options.seed);
  const rows: RowState[] = [];
  for (const prompt of prompts)
    for (let sample = 0; sample < n; sample++)
      rows.push({
        promptLength: prompt.length,
        budget: Math.min(options.maxTokens, contextLength - prompt.length),
        tokens: [],
        logprobs: [],
        samplingLogprobs: [],
        topLogprobs: [],
        text: '',
        stopReason: null,
      });

  const engine = decoder(model);
  try {
    const { padded, pads, width } = leftPad(prompts, tokenizer.pad);
    const columns = width + Math.max(...rows.map((row) => row.budget));
    let logits = engine.prefill(padded, pads, n, columns); // [batch, V]
    // batch[b] = index into `rows` of batch slot b.
    let batch = rows.map((_, row) => row);
    for (;;) {
      // Choose one token for every unfinished row in the batch, in row order.
      let finishedInBatch = 0;
      batch.forEach((row, slot) => {
        const state = rows[row];
        if (state.stopReason === null && state.budget <= 0) state.stopReason = 'length';
        if (state.stopReason !== null) {
          finishedInBatch++;
          return;
        }
        const slotLogits = logits.subarray(slot * vocabSize, (slot + 1) * vocabSize);
        const rng = sharedRng ?? promptRngs![Math.floor(row / n)];
        const choice = sampleToken(slotLogits, temperature, topP, rng);
        state.tokens.push(choice.token);
        state.logprobs.push(choice.logprob);
        state.samplingLogprobs.push(choice.samplingLogprob);
        if (top > 0) state.topLogprobs.push(topLogprobs(slotLogits, top));
        if (choice.token === tokenizer.eos) state.stopReason = 'eos';
        else if (stops.length > 0) {
          const previousLength = state.text.length;
          state.text = tokenizer.decode(state.tokens);
          if (completedStop(state.text, previousLength, stops) !== undefined) state.stopReason = 'stop';
        }
        if (state.stopReason === null && state.tokens.length >= state.budget) state.stopReason = 'length';
        if (state.stopReason !== null) finishedInBatch++;
      });
      if (finishedInBatch === batch.length) break;
      if (finishedInBatch >= Math.max(1, batch.length * compactFraction)) {
        const keptSlots = batch.flatMap((row, slot) => (rows[row].stopReason === null ? [slot] : []));
        engine.keepRows(keptSlots);
        batch = keptSlots.map((slot) => batch[slot]);
      }
      // Feed each row's newest token at its own position; finished rows still in the batch feed
      // a harmless token at a valid position and their outputs are ignored.
      const tokens = new Int32Array(batch.length);
      const positions = new Int32Array(batch.length);
      batch.forEach((row, slot) => {
        const state = rows[row];
        tokens[slot] = state.tokens.length > 0 ? state.tokens[state.tokens.length - 1] : tokenizer.pad;
        positions[slot] = Math.min(state.promptLength + state.tokens.length - 1, contextLength - 1);
      });
      logits = engine.step(tokens, positions);
    }
  } finally {
    engine.dispose();
  }

  return prompts.map((_, promptIndex) =>
    rows.slice(promptIndex * n, (promptIndex + 1) * n).map((state) => ({
      tokens: state.tokens,
      text: stops.length > 0 ? state.text : tokenizer.decode(state.tokens),
      logprobs: state.logprobs,
      samplingLogprobs: state.samplingLogprobs,
      stopReason: state.stopReason ?? 'length',
      ...(top > 0 && { topLogprobs: state.topLogprobs }),
    })),
  );
}
