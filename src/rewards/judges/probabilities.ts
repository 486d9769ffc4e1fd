// Verdict probabilities (issue 31 item 6), G-Eval's expected score ("G-Eval: NLG Evaluation using GPT-4
// with Better Human Alignment", arXiv 2303.16634): instead of the verdict the judge wrote, the
// probability-weighted mean over every verdict it could have written at that position, read from the
// `top_logprobs` of the token that carries the verdict. The token is the first non-blank one after the
// reply's last verdict marker (`Score:`, `Verdict:`); each alternative in its top list that names a verdict
// value — a digit in [min, max], or a token that is the start of exactly one choice word (`P` or `PASS`
// for PASS: a character-level judge writes verdicts one letter at a time) — adds exp(logprob) to that
// value; the values' probabilities are renormalised over that mass. Deviations: G-Eval samples 20 replies
// to estimate the probabilities where the API gave none; one reply's top-k is used here (k = the request's
// top_logprobs, so mass outside the top k is lost — reported as judge_prob_mass).
import type { TokenAlternatives } from './reply.ts';
import type { Parsed } from './verdict.ts';

/** The values a verdict token may name: numbers (scores) or words (choices, worst → best). */
export type VerdictValues =
  | { kind: 'numbers'; min: number; max: number }
  | { kind: 'words'; words: readonly string[] };

export interface ExpectedVerdict {
  /** Σ p(value) · value over the renormalised values (a word's value is its index). */
  expected: number;
  /** The probability of all verdict values before renormalising (how sure the judge was of the format). */
  mass: number;
}

/** The verdict token's index: the first non-blank token after the last `marker` (case-insensitive). */
function verdictTokenIndex(tokens: readonly TokenAlternatives[], marker: RegExp): number {
  let text = '';
  const starts = tokens.map((token) => {
    const start = text.length;
    text += token.token;
    return start;
  });
  let end = -1;
  for (const match of text.matchAll(marker)) end = match.index + match[0].length;
  if (end < 0) return -1;
  for (let i = 0; i < tokens.length; i++) {
    if (starts[i] + tokens[i].token.length <= end) continue;
    const after = tokens[i].token.slice(Math.max(0, end - starts[i]));
    if (after.replace(/[\s*_`"']/g, '') !== '') return i;
  }
  return -1;
}

/** The value an alternative token names, or null. */
function verdictValueOf(token: string, values: VerdictValues): number | null {
  const word = token.trim().replace(/^[*_`"']+/, '');
  if (word === '') return null;
  if (values.kind === 'numbers') {
    if (!/^-?\d+$/.test(word)) return null;
    const value = Number(word);
    return value >= values.min && value <= values.max ? value : null;
  }
  const lower = word.toLowerCase();
  const matches = values.words.flatMap((choice, i) => (choice.toLowerCase().startsWith(lower) ? [i] : []));
  return matches.length === 1 ? matches[0] : null;
}

/** The expected verdict at the verdict token after `marker`, from its top log-probabilities. */
export function expectedVerdict(
  tokens: readonly TokenAlternatives[] | undefined,
  marker: RegExp,
  values: VerdictValues,
): Parsed<ExpectedVerdict> {
  if (!tokens || tokens.length === 0)
    return { ok: false, why: 'the server returned no token log-probabilities' };
  const index = verdictTokenIndex(tokens, marker);
  if (index < 0) return { ok: false, why: 'no verdict token after the verdict marker' };
  const { token, top } = tokens[index];
  const probabilities = new Map<number, number>();
  for (const alternative of top) {
    const value = verdictValueOf(alternative.token, values);
    if (value === null || !Number.isFinite(alternative.logprob)) continue;
    probabilities.set(value, (probabilities.get(value) ?? 0) + Math.exp(alternative.logprob));
  }
  const mass = [...probabilities.values()].reduce((sum, p) => sum + p, 0);
  if (mass <= 0) {
    return {
      ok: false,
      why: `no verdict value among the top log-probabilities of '${token.trim().slice(0, 20)}'`,
    };
  }
  let expected = 0;
  for (const [value, p] of probabilities) expected += (p / mass) * value;
  return { ok: true, value: { expected, mass: Math.min(1, mass) } };
}
