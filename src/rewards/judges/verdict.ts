// Parsers for a judge's reply, one per verdict type. Every judge prompt asks for the reasoning first and
// the verdict last (verifiers' rubric judge writes a reason before each verdict; G-Eval and RRM reason
// before scoring), so each parser reads the LAST verdict marker in the reply: text the judge quotes from
// the completion earlier (a completion that writes "Score: 10") cannot decide the verdict unless the
// judge ends with it. A reply without a well-formed verdict, or with one out of range, is a failure with
// a reason (the reward's failure policy decides what it scores), never a silent 0.
//   score      `Score: 7` (a number in [min, max]; normalised to [0, 1])
//   pass-fail  `Verdict: PASS` / `FAIL` (also yes/no, correct/incorrect)
//   choice     `Choice: <one of the choices>` (position in the list worst→best, normalised)
//   ranking    `Ranking: 2 > 1 > 3` (a permutation of 1..n, best first; or a JSON array)
//   json       the last JSON object in the reply (```json fence or bare braces) with the required keys
//   labelled   one `<label>: <choice>` line per label (rubric criteria, checklist items)

/** A parsed verdict, or why there is none. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });

/** The last match of `pattern` (global) in `text`, or null. */
function lastMatch(text: string, pattern: RegExp): RegExpMatchArray | null {
  let last: RegExpMatchArray | null = null;
  for (const match of text.matchAll(pattern)) last = match;
  return last;
}

/** Markdown emphasis and trailing punctuation off a verdict word: `**PASS**.` → `PASS`. */
const bare = (word: string): string =>
  word
    .trim()
    .replace(/^[*_`"'[(]+|[*_`"'\])]+$/g, '')
    .replace(/[.,;!]+$/, '')
    .replace(/^[*_`"'[(]+|[*_`"'\])]+$/g, '')
    .trim();

/** `Score: 7` → (7 − min) / (max − min); the raw score too. */
export function parseScore(text: string, min: number, max: number): Parsed<{ score: number; raw: number }> {
  const match = lastMatch(text, /\bscore\s*\**\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)(?:\s*\/\s*\d+)?/gi);
  if (!match) return fail(`no 'Score: <number>' line`);
  const raw = Number(match[1]);
  if (!(raw >= min && raw <= max)) return fail(`score ${raw} is outside [${min}, ${max}]`);
  return { ok: true, value: { score: (raw - min) / (max - min), raw } };
}

const PASS_WORDS = new Set(['pass', 'yes', 'correct', 'true']);
const FAIL_WORDS = new Set(['fail', 'no', 'incorrect', 'false']);

/** `Verdict: PASS` → true. */
export function parsePassFail(text: string): Parsed<boolean> {
  const match = lastMatch(text, /\bverdict\s*\**\s*[:=]\s*([^\n]+)/gi);
  if (!match) return fail(`no 'Verdict: PASS|FAIL' line`);
  const word = bare(match[1]).split(/\s+/)[0]?.toLowerCase() ?? '';
  if (PASS_WORDS.has(word)) return { ok: true, value: true };
  if (FAIL_WORDS.has(word)) return { ok: true, value: false };
  return fail(`verdict '${bare(match[1]).slice(0, 40)}' is neither PASS nor FAIL`);
}

/** The index of `word` among `choices` (case-insensitive, markdown stripped), or -1. */
export function choiceIndex(word: string, choices: readonly string[]): number {
  const wanted = bare(word).toLowerCase();
  return choices.findIndex((choice) => choice.toLowerCase() === wanted);
}

/** `Choice: good` → its index in `choices` (worst→best). */
export function parseChoice(text: string, choices: readonly string[]): Parsed<number> {
  const match = lastMatch(text, /\bchoice\s*\**\s*[:=]\s*([^\n]+)/gi);
  if (!match) return fail(`no 'Choice: <choice>' line`);
  const index = choiceIndex(match[1], choices);
  if (index < 0) return fail(`choice '${bare(match[1]).slice(0, 40)}' is not one of ${choices.join(', ')}`);
  return { ok: true, value: index };
}

/** `Ranking: 2 > 1 > 3` (1-based, best first) → [1, 0, 2] (0-based, best first). */
export function parseRanking(text: string, n: number): Parsed<number[]> {
  const match = lastMatch(text, /\branking\s*\**\s*[:=]\s*([^\n]+)/gi);
  if (!match) return fail(`no 'Ranking: a > b > …' line`);
  const numbers = (match[1].match(/\d+/g) ?? []).map(Number);
  const sorted = [...numbers].sort((a, b) => a - b);
  if (numbers.length !== n || sorted.some((value, i) => value !== i + 1)) {
    return fail(`ranking '${match[1].trim().slice(0, 60)}' is not an order of 1..${n}`);
  }
  return { ok: true, value: numbers.map((value) => value - 1) };
}

/** The last JSON object in the reply (a ```json fence, else the last balanced braces) with `required` keys. */
export function parseJson(text: string, required: readonly string[]): Parsed<Record<string, unknown>> {
  const fenced = lastMatch(text, /```(?:json)?\s*\n([\s\S]*?)\n\s*```/g);
  const candidates = fenced ? [fenced[1]] : lastBraces(text);
  for (const candidate of candidates) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const missing = required.filter((key) => !(key in value));
      if (missing.length > 0) return fail(`JSON verdict lacks ${missing.join(', ')}`);
      return { ok: true, value: value as Record<string, unknown> };
    } catch {
      // not JSON: try the next candidate
    }
  }
  return fail('no JSON object in the reply');
}

/** Balanced `{…}` spans of the text, last first (at most 8). */
function lastBraces(text: string): string[] {
  const spans: string[] = [];
  for (let end = text.lastIndexOf('}'); end >= 0 && spans.length < 8; end = text.lastIndexOf('}', end - 1)) {
    let depth = 0;
    for (let i = end; i >= 0; i--) {
      if (text[i] === '}') depth++;
      else if (text[i] === '{' && --depth === 0) {
        spans.push(text.slice(i, end + 1));
        break;
      }
    }
  }
  return spans;
}

/**
 * One `<label>: <choice>` line per label (the last such line of each), e.g. rubric criteria
 * `clarity: good` or checklist items `3: yes`. Returns the choice index per label, in label order.
 */
export function parseLabelled(
  text: string,
  labels: readonly string[],
  choices: readonly string[],
): Parsed<number[]> {
  const indices: number[] = [];
  for (const label of labels) {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = lastMatch(text, new RegExp(`^[\\s>*_#-]*\\**${escaped}\\**\\s*[:=]\\s*([^\\n]+)$`, 'gim'));
    if (!match) return fail(`no verdict line for '${label}'`);
    const words = match[1].trim().split(/\s+/);
    // the choice is the line's last word ("clarity: the steps are clear => good" reads "good")
    const index = choiceIndex(words[words.length - 1], choices);
    if (index < 0) {
      return fail(
        `'${label}': '${bare(words[words.length - 1]).slice(0, 40)}' is not one of ${choices.join(', ')}`,
      );
    }
    indices.push(index);
  }
  return { ok: true, value: indices };
}
