// How problems become token sequences: [BOS] prompt completion [EOS] for the embedded model; a chat
// model's tokenizer may render the prompt as a user turn instead (Tokenizer.renderPrompt).
// The prompt ends where the completion begins, so the model learns to answer right after the prompt.
import type { Datum, Tokenizer } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';

/**
 * [BOS] + prompt tokens (no BOS when the tokenizer has none: bos = -1); a chat model's own rendering of
 * the prompt as a user turn when the tokenizer offers one (renderPrompt, `policy.promptFormat: chat`).
 */
export function promptTokens(tokenizer: Tokenizer, problem: Problem): number[] {
  const where = `problem ${problem.id} prompt`;
  if (tokenizer.renderPrompt) return tokenizer.renderPrompt(problem.prompt, where);
  const prompt = tokenizer.encode(problem.prompt, where);
  return tokenizer.bos >= 0 ? [tokenizer.bos, ...prompt] : prompt;
}

/** Full sequence prompt + completion (+ EOS) and the index where the completion starts. */
export function sequenceTokens(
  tokenizer: Tokenizer,
  problem: Problem,
  completion: string,
): { tokens: number[]; completionStart: number } {
  const prompt = promptTokens(tokenizer, problem);
  const completionIds = tokenizer.encode(completion, `problem ${problem.id} completion`);
  return { tokens: [...prompt, ...completionIds, tokenizer.eos], completionStart: prompt.length };
}

/**
 * A supervised datum on the worked solution: weight 1 on every completion token (and EOS), 0 on the
 * prompt. weights[t] weighs the prediction of tokens[t + 1].
 */
export function solutionDatum(tokenizer: Tokenizer, problem: Problem): Datum {
  const { tokens, completionStart } = sequenceTokens(tokenizer, problem, problem.solution);
  const weights = tokens.slice(1).map((_, t) => (t + 1 >= completionStart ? 1 : 0));
  return { tokens, weights };
}
