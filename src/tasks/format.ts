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
  return bosPrompt(tokenizer, problem.prompt, where);
}

/** [BOS] + the text's tokens, as the embedded model saw prompts in training (no BOS when bos = -1). */
export function bosPrompt(tokenizer: Tokenizer, text: string, where?: string): number[] {
  const tokens = tokenizer.encode(text, where);
  return tokenizer.bos >= 0 ? [tokenizer.bos, ...tokens] : tokens;
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
 * prompt and on the solution's observation spans (text an environment writes: a tool's output), which are
 * encoded on their own so that a span's tokens are exactly the ones an environment would append.
 * weights[t] weighs the prediction of tokens[t + 1].
 */
export function solutionDatum(tokenizer: Tokenizer, problem: Problem): Datum {
  const spans = problem.observationSpans ?? [];
  if (spans.length === 0) {
    const { tokens, completionStart } = sequenceTokens(tokenizer, problem, problem.solution);
    const weights = tokens.slice(1).map((_, t) => (t + 1 >= completionStart ? 1 : 0));
    return { tokens, weights };
  }
  const where = `problem ${problem.id} solution`;
  const tokens = promptTokens(tokenizer, problem);
  const trained = tokens.map(() => 0);
  let at = 0;
  const push = (end: number, weight: number) => {
    const ids = tokenizer.encode(problem.solution.slice(at, end), where);
    tokens.push(...ids);
    trained.push(...ids.map(() => weight));
    at = end;
  };
  for (const [start, end] of spans) {
    if (!(start >= at && end > start && end <= problem.solution.length))
      throw new RangeError(
        `${where}: observation span [${start}, ${end}) is out of order or outside the solution`,
      );
    push(start, 1);
    push(end, 0);
  }
  push(problem.solution.length, 1);
  tokens.push(tokenizer.eos);
  trained.push(1);
  return { tokens, weights: trained.slice(1) };
}
