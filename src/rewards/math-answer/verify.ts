// The synchronous verification core that runs inside a worker thread (worker.ts): extraction (extract.ts),
// normalisation (normalize.ts), parsing (parse.ts) and comparison (compare.ts), plus the anti-hacking
// rules. Follows Math-Verify v0.8.0's verify(gold, pred) with boxed-first extraction; see
// docs/rewards/math-answer.md for the deviations. As in Math-Verify, a gold with several boxes is one list,
// a gold with a decimal comma (`3,14`) matches a decimal prediction, and `x = \frac13 \approx 0.33` is right
// when either the approximation or the exact value before it is.
// Anti-hacking: a prediction listing more answers than the gold has (`1, 2, 3` or `1 or 2 or 3` for a single
// gold, more letters than one for a multiple-choice gold) scores 0 with reason 'multiple answers'; a
// restatement of the problem's own expression or relation ('echo', echo.ts) and an empty box score 0 with a
// reason.
import { nodesEqual } from './compare.ts';
import { echoesQuestion } from './echo.ts';
import { undoubleBackslashes } from './escapes.ts';
import { TooLargeError } from './evaluate.ts';
import {
  type ExtractOptions,
  extractCandidates,
  extractLetters,
  findBoxes,
  type GoldChoice,
  goldChoice,
  lastBoxed,
} from './extract.ts';
import { type Normalized, normalizeAnswer } from './normalize.ts';
import { answerCount, type MathNode, type Parsed, parseNormalized } from './parse.ts';
import { type CompareOptions, DEFAULT_COMPARE } from './scalar.ts';

export type VerifyTask =
  | {
      kind: 'verify';
      gold: string;
      completion: string;
      question?: string;
      compare: CompareOptions;
      extract: ExtractOptions;
    }
  /** Compares two bare answers (no extraction), the first as the reference. */
  | { kind: 'equivalent'; gold: string; answer: string; compare: CompareOptions };

export interface WorkerVerdict {
  correct: boolean;
  /** The extracted answer (raw), or null when none was found. */
  extracted: string | null;
  reason?: string;
  /** The gold answer itself does not parse (a dataset problem, not the model's). */
  goldUnparseable?: boolean;
}

interface GoldEntry {
  normalized: Normalized;
  parsed: Parsed;
  choice: GoldChoice | null;
  /** The gold read with a decimal comma ('3,14' → '3.14'), when that makes it one decimal number. */
  decimalGold: string | null;
}

const GOLD_CACHE_LIMIT = 4096;
/** Longer extracted answers are refused outright (no real answer is this long; parsing them is slow). */
const MAX_ANSWER_LENGTH = 4000;
const goldCache = new Map<string, GoldEntry>();

/** A gold longer than this may be a worked solution whose answer is extracted (goldEntry). */
const WORKED_GOLD = 100;

function goldEntryOf(answer: string): GoldEntry {
  const normalized = normalizeAnswer(answer);
  const decimal = /\d,\d/.test(answer) ? normalizeAnswer(answer, { decimalComma: true }).latex : '';
  return {
    normalized,
    parsed: parseNormalized(normalized),
    choice: goldChoice(answer),
    decimalGold: decimal !== normalized.latex && /^-?\d+\.\d+$/.test(decimal) ? decimal : null,
  };
}

function goldEntry(gold: string): GoldEntry {
  let entry = goldCache.get(gold);
  if (!entry) {
    // A gold given as a full solution or as \boxed{…} means its box.
    // (several adjacent boxes, `\boxed{1}\boxed{2}`, are one list, as in a prediction)
    // Doubled backslashes are halved once here, with the entry cached, not per verification (escapes.ts).
    const text = undoubleBackslashes(gold);
    entry = goldEntryOf(lastBoxed(text) ?? text);
    // A worked solution without a box (longer than WORKED_GOLD characters) that does not parse whole:
    // its answer is extracted as a completion's is ("The final answer is $28\%$", Math-Verify's parse).
    if (!entry.parsed.ok && text.length > WORKED_GOLD) {
      for (const candidate of extractCandidates(text)) {
        const extracted = goldEntryOf(candidate.answer);
        if (extracted.parsed.ok) {
          entry = extracted;
          break;
        }
      }
    }
    if (goldCache.size >= GOLD_CACHE_LIMIT) goldCache.clear();
    goldCache.set(gold, entry);
  }
  return entry;
}

const predictionCache = new Map<string, Parsed>();

function parsePrediction(normalized: Normalized): Parsed {
  const key = `${normalized.percent ? '%' : ''}${normalized.textual ? 't' : ''}|${normalized.latex}`;
  let parsed = predictionCache.get(key);
  if (!parsed) {
    parsed = parseNormalized(normalized);
    if (predictionCache.size >= GOLD_CACHE_LIMIT) predictionCache.clear();
    if (key.length <= 500) predictionCache.set(key, parsed);
  }
  return parsed;
}

const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** Both answers are plain integers (no decimal point): equal or not; otherwise null (use the full path). */
function plainNumbers(gold: Normalized, pred: Normalized): boolean | null {
  if (gold.percent !== pred.percent || !PLAIN_NUMBER.test(gold.latex) || !PLAIN_NUMBER.test(pred.latex))
    return null;
  if (gold.latex.includes('.') || pred.latex.includes('.')) return null; // tolerance rules apply
  return BigInt(gold.latex) === BigInt(pred.latex);
}

const shorten = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** How many answers the gold can hold (a prediction listing more is hedging). */
function capacity(node: MathNode): number {
  if (node.kind === 'set' || node.kind === 'tuple' || node.kind === 'or')
    return Math.max(1, node.items.length);
  if (node.kind === 'interval') return 2;
  if (node.kind === 'union') return node.items.length * 2;
  if (node.kind === 'matrix') return node.rows.reduce((total, row) => total + row.length, 0);
  return 1;
}

/** Judges an extracted answer against a gold answer. */
export function judge(
  gold: string,
  answer: string,
  compare: CompareOptions,
  question?: string,
): WorkerVerdict {
  const reference = goldEntry(gold);
  if (!reference.parsed.ok) {
    return { correct: false, extracted: answer, reason: 'gold unparseable', goldUnparseable: true };
  }
  const goldNode = reference.parsed.node;
  const decimalComma = goldNode.kind === 'expr' && /^-?\d+\.\d+$/.test(reference.normalized.latex);
  const normalized = normalizeAnswer(answer, { decimalComma });
  // A gold written with a decimal comma ('3,14', '0,125') against a prediction that is one decimal number.
  if (reference.decimalGold && /^-?\d*\.\d+$/.test(normalized.latex))
    return judge(reference.decimalGold, answer, compare, question);
  if (normalized.latex === '') return { correct: false, extracted: answer, reason: 'empty answer' };
  if (
    normalized.latex === reference.normalized.latex &&
    normalized.percent === reference.normalized.percent
  ) {
    return { correct: true, extracted: answer };
  }
  // Fast path for the commonest case, two plain decimal numbers: exact comparison without parsing.
  const plain = plainNumbers(reference.normalized, normalized);
  if (plain !== null) {
    return plain
      ? { correct: true, extracted: answer }
      : { correct: false, extracted: answer, reason: `wrong: got ${shorten(answer)}` };
  }
  const parsed = parsePrediction(normalized);
  if (!parsed.ok)
    return { correct: false, extracted: answer, reason: `unparseable answer: ${shorten(answer)}` };
  const predNode = parsed.node;
  const given = answerCount(predNode);
  if (given > 1 && given > capacity(goldNode)) {
    return { correct: false, extracted: answer, reason: `multiple answers (${given} given)` };
  }
  if (question && echoesQuestion(predNode, normalized.latex, goldNode, question)) {
    return { correct: false, extracted: answer, reason: 'echo' };
  }
  try {
    if (nodesEqual(goldNode, predNode, compare)) return { correct: true, extracted: answer };
  } catch (error) {
    if (error instanceof TooLargeError)
      return { correct: false, extracted: answer, reason: 'error: number too large' };
    throw error;
  }
  return { correct: false, extracted: answer, reason: `wrong: got ${shorten(answer)}` };
}

function judgeChoice(choice: GoldChoice, task: VerifyTask & { kind: 'verify' }): WorkerVerdict {
  const found = extractLetters(task.completion, task.extract);
  const letters = [...new Set(found?.letters ?? [])];
  if (letters.length === 0) {
    // No letter, but the gold gives the choice's value: the model may have answered with the value.
    if (choice.value !== null) return judgeCandidates(choice.value, task);
    return found
      ? { correct: false, extracted: null, reason: 'no choice letter found' }
      : { correct: false, extracted: null, reason: 'no answer found' };
  }
  const extracted = letters.join(', ');
  if (letters.length > 1) {
    return { correct: false, extracted, reason: `multiple answers (${letters.length} given)` };
  }
  return letters[0] === choice.letter
    ? { correct: true, extracted }
    : { correct: false, extracted, reason: `wrong: got ${letters[0]}` };
}

/** The worker's entry point. */
export function verifyTask(given: VerifyTask): WorkerVerdict {
  const task = unescaped(given);
  if (task.kind === 'equivalent') {
    const boxes = findBoxes(task.answer);
    return judge(task.gold, boxes.length > 0 ? boxes[boxes.length - 1].content : task.answer, task.compare);
  }
  const reference = goldEntry(task.gold);
  if (reference.choice) return judgeChoice(reference.choice, task);
  return judgeCandidates(task.gold, task);
}

/** The task with its answer's or completion's doubled backslashes halved where they dominate (escapes.ts; the
 * gold's are halved in goldEntry, cached). */
function unescaped(task: VerifyTask): VerifyTask {
  return task.kind === 'equivalent'
    ? { ...task, answer: undoubleBackslashes(task.answer) }
    : { ...task, completion: undoubleBackslashes(task.completion) };
}

/** Tries the extracted candidates in priority order until one parses. */
function judgeCandidates(gold: string, task: VerifyTask & { kind: 'verify' }): WorkerVerdict {
  const candidates = extractCandidates(task.completion, task.extract);
  if (candidates.length === 0) return { correct: false, extracted: null, reason: 'no answer found' };
  let verdict: WorkerVerdict | null = null;
  for (const candidate of candidates) {
    verdict = judgeCandidate(gold, task, candidate.answer);
    if (!verdict.reason?.startsWith('unparseable answer')) return verdict;
  }
  return verdict!;
}

const APPROX = /\\approx(?![a-zA-Z])/;

function judgeCandidate(
  gold: string,
  task: VerifyTask & { kind: 'verify' },
  extracted: string,
): WorkerVerdict {
  // The extracted answer alone may be all doubled where the whole text was not (escapes.ts).
  const answer = undoubleBackslashes(extracted);
  if (answer.trim() === '') return { correct: false, extracted: '', reason: 'empty answer' };
  if (answer.length > MAX_ANSWER_LENGTH)
    return { correct: false, extracted: shorten(answer), reason: 'answer too long' };
  const verdict = judge(gold, answer, task.compare, task.question);
  // `x = \frac13 \approx 0.33`: the approximation (judged above) or the exact value before it (Math-Verify).
  if (!verdict.correct && APPROX.test(answer) && verdict.reason !== 'echo') {
    const exact = judge(gold, answer.split(APPROX)[0], task.compare, task.question);
    if (exact.correct) return { ...exact, extracted: answer };
  }
  return verdict;
}

/** Synchronous verification in the calling thread (no timeout): for tests and trusted inputs. */
export function verifySync(
  gold: string,
  completion: string,
  options: Partial<CompareOptions> & ExtractOptions & { question?: string } = {},
): WorkerVerdict {
  return verifyTask({
    kind: 'verify',
    gold,
    completion,
    question: options.question,
    compare: {
      relTol: options.relTol ?? DEFAULT_COMPARE.relTol,
      roundedDigits: options.roundedDigits ?? DEFAULT_COMPARE.roundedDigits,
      setRelations: options.setRelations ?? DEFAULT_COMPARE.setRelations,
    },
    extract: { boxedOnly: options.boxedOnly ?? false, matchTypes: options.matchTypes },
  });
}
