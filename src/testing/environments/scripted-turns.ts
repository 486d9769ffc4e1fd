// Test support for environment tests: the character tokenizer of the shipped checkpoints, a policy that
// writes a fixed text per sampling call — what a test needs to play an episode turn by turn — and, for
// the tool-use traces of a task, the solution's policy parts and the weights its datum must have.
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import type { Environment } from '../../environments/contract.ts';
import { runEpisodes } from '../../environments/episode.ts';
import type { Episode } from '../../environments/episode-record.ts';
import type { EpisodeLimits } from '../../environments/limits.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { perRow } from '../policy/test-helpers.ts';

/** Every printable ASCII character and newline, as the shipped checkpoints' tokenizers have. */
export function printableTokenizer(): CharTokenizer {
  return new CharTokenizer(['\n', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))]);
}

/**
 * A policy whose k-th sampling call (per row: perRow) answers `turns[k]` ('' past the end): stopped by a
 * stop string when the text ends with one, else EOS appended; log-probs −1.
 */
export function scriptedTurns(tokenizer: CharTokenizer, turns: readonly string[]): PolicyBackend {
  let call = 0;
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      const text = turns[call++] ?? '';
      const stop = (options.stop ?? []).find((s) => text.endsWith(s));
      const tokens = [...tokenizer.encode(text), ...(stop ? [] : [tokenizer.eos])];
      const logprobs = tokens.map(() => -1);
      return prompts.map(() => [
        { tokens, text, logprobs, samplingLogprobs: logprobs, stopReason: stop ? 'stop' : 'eos' },
      ]);
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}

/** One episode of `environment` in which the policy writes `turns`, one per sampling call. */
export async function scriptedEpisode(
  tokenizer: CharTokenizer,
  turns: readonly string[],
  environment: Environment,
  limits: EpisodeLimits,
): Promise<Episode> {
  const [episode] = await runEpisodes(scriptedTurns(tokenizer, turns), [environment], {
    limits,
    temperature: 1,
    topP: 1,
    seed: 1,
  });
  return episode;
}

/** A worked solution's policy parts: the text around its observation spans (the tool outputs). */
export function policyParts(problem: Problem): string[] {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of problem.observationSpans ?? []) {
    parts.push(problem.solution.slice(at, start));
    at = end;
  }
  return [...parts, problem.solution.slice(at)];
}

/**
 * The supervised weights that train exactly what `episode`'s policy sampled after a prompt of
 * `promptLength` tokens: weights[t] weighs tokens[t + 1], 1 where the episode's mask is 1.
 */
export function sampledWeights(episode: Pick<Episode, 'mask'>, promptLength: number): number[] {
  return episode.mask.slice(1).map((m, t) => (t + 1 >= promptLength && m === 1 ? 1 : 0));
}
