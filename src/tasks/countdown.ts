// Countdown (as in TinyZero's Countdown RL task): combine the given numbers with + - * / to reach the
// target, using EACH NUMBER EXACTLY ONCE. Any valid expression earns the reward, not only the reference.
//
// Prompt:   `make 112:25,3,4\n`
// Solution: `25+3=28\n28*4=112\nA:(25+3)*4`   (one line per combination, then the full expression)
// Verification parses the answer line with a small grammar (countdown-expression.ts, no eval), evaluates
// it in exact rational arithmetic (so 7/2*2 = 7 counts, while 7/2 is not 3), and checks that the multiset
// of numbers used equals the given one. An optional `=<target>` after the expression is accepted.
// Difficulty: how many numbers (3..6). The generator combines random pairs with operations whose results
// stay integers in [1, 999] (exact division only), so a solution always exists and every line is integral.
import type { Problem, Verdict } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';
import {
  ExpressionError,
  evaluateExpression,
  expressionNumbers,
  formatRational,
  parseExpression,
} from './countdown-expression.ts';
import {
  checkDifficulty,
  extractAnswerLine,
  knob,
  makeProblem,
  type ParsedProblem,
  sortedAlphabet,
  type Task,
} from './task.ts';

const name = 'countdown';
const difficulty = { min: 3, max: 6, meaning: 'how many numbers must be combined' };
const maxValue = 999;
const defaultMaxNumber = 50;

/** A partial expression with its value and the precedence of its top operator (3 = a plain number). */
interface Built {
  value: number;
  text: string;
  precedence: number;
}

const precedenceOf: Record<string, number> = { '+': 1, '-': 1, '*': 2, '/': 2 };

function combineText(left: Built, operator: string, right: Built): string {
  const precedence = precedenceOf[operator];
  const leftText = left.precedence < precedence ? `(${left.text})` : left.text;
  const rightNeedsParentheses =
    right.precedence < precedence ||
    (right.precedence === precedence && (operator === '-' || operator === '/'));
  return `${leftText}${operator}${rightNeedsParentheses ? `(${right.text})` : right.text}`;
}

function resultOf(a: number, operator: string, b: number): number | null {
  const value =
    operator === '+'
      ? a + b
      : operator === '-'
        ? a - b
        : operator === '*'
          ? a * b
          : b > 1 && a % b === 0
            ? a / b
            : 0;
  return value >= 1 && value <= maxValue ? value : null;
}

/** The given numbers and target of a countdown problem (from metadata, else parsed from the prompt). */
export function countdownInstance(problem: Problem): { numbers: number[]; target: number } | null {
  const metadata = problem.metadata as { numbers?: unknown; target?: unknown } | undefined;
  if (Array.isArray(metadata?.numbers) && typeof metadata.target === 'number') {
    return { numbers: metadata.numbers.map(Number), target: metadata.target };
  }
  const match = /^make (\d+):(\d+(?:,\d+)*)\n?$/.exec(problem.prompt);
  if (match === null) return null;
  return { numbers: match[2].split(',').map(Number), target: Number(match[1]) };
}

/** A problem whose reference solution combines `numbers` in the order the rng draws pairs. */
function generateFromKnobs(rng: Rng, count: number, maxNumber: number): Problem {
  for (;;) {
    const numbers = Array.from({ length: count }, () => rng.int(1, maxNumber));
    let pool: Built[] = numbers.map((value) => ({ value, text: String(value), precedence: 3 }));
    const lines: string[] = [];
    while (pool.length > 1) {
      const [i, j] = rng.shuffle([...pool.keys()]).slice(0, 2);
      const valid = ['+', '-', '*', '/'].filter(
        (operator) => resultOf(pool[i].value, operator, pool[j].value) !== null,
      );
      if (valid.length === 0) break;
      const operator = rng.pick(valid);
      const value = resultOf(pool[i].value, operator, pool[j].value)!;
      lines.push(`${pool[i].value}${operator}${pool[j].value}=${value}`);
      const combined = {
        value,
        text: combineText(pool[i], operator, pool[j]),
        precedence: precedenceOf[operator],
      };
      pool = [...pool.filter((_, index) => index !== i && index !== j), combined];
    }
    if (pool.length > 1) continue;
    const target = pool[0].value;
    const shown = rng.shuffle([...numbers]);
    return makeProblem({
      task: name,
      difficulty: count,
      prompt: `make ${target}:${shown.join(',')}\n`,
      answer: pool[0].text,
      solution: `${lines.join('\n')}\nA:${pool[0].text}`,
      params: { count, maxNumber },
      metadata: { numbers: shown, target },
    });
  }
}

function sortedKey(values: readonly (number | bigint)[]): string {
  return values
    .map((value) => BigInt(value))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join(',');
}

/** What is wrong with the numbers used, or null when they are exactly the given ones. */
function usageProblem(given: readonly number[], used: readonly bigint[]): string | null {
  if (sortedKey(given) === sortedKey(used)) return null;
  const remaining = given.map((value) => BigInt(value));
  for (const value of used) {
    const index = remaining.indexOf(value);
    if (index < 0) {
      return given.some((candidate) => BigInt(candidate) === value)
        ? `uses ${value} more often than given`
        : `uses ${value}, which is not a given number`;
    }
    remaining.splice(index, 1);
  }
  return `does not use ${remaining.join(', ')} (each number must be used exactly once)`;
}

function verifyCountdown(problem: Problem, completion: string): Verdict {
  const extracted = extractAnswerLine(completion);
  if (extracted === null) return { correct: false, extracted: null, reason: 'no answer line (A:...) found' };
  const instance = countdownInstance(problem);
  if (instance === null) return { correct: false, extracted, reason: 'problem has no numbers and target' };
  const [expressionText, claimed, ...rest] = extracted.split('=');
  if (rest.length > 0 || (claimed !== undefined && claimed.trim() !== String(instance.target))) {
    return { correct: false, extracted, reason: 'only an optional =<target> may follow the expression' };
  }
  try {
    const tree = parseExpression(expressionText);
    const misuse = usageProblem(instance.numbers, expressionNumbers(tree));
    if (misuse !== null) return { correct: false, extracted, reason: misuse };
    const value = evaluateExpression(tree);
    if (value.denominator === 1n && value.numerator === BigInt(instance.target))
      return { correct: true, extracted };
    return {
      correct: false,
      extracted,
      reason: `expression equals ${formatRational(value)}, not the target`,
    };
  } catch (error) {
    // Garbage never throws out of a verifier; parser errors are expected, anything else is reported too.
    const message = error instanceof ExpressionError ? error.message : `cannot evaluate: ${String(error)}`;
    return { correct: false, extracted, reason: message };
  }
}

/** A countdown problem from its numbers and target with a solver-made solution; null when unsolvable. */
export function solvedCountdownProblem(numbers: readonly number[], target: number): Problem | null {
  const pool = numbers.map((value) => ({ value, text: String(value), precedence: 3 }));
  // Depth-first over pair combinations under the generator's integer rules; failed multisets are memoised.
  const failed = new Set<string>();
  const search = (state: Built[], lines: string[]): { text: string; lines: string[] } | null => {
    if (state.length === 1) return state[0].value === target ? { text: state[0].text, lines } : null;
    const key = state
      .map((built) => built.value)
      .sort((a, b) => a - b)
      .join(',');
    if (failed.has(key)) return null;
    for (let i = 0; i < state.length; i++) {
      for (let j = 0; j < state.length; j++) {
        if (i === j) continue;
        for (const operator of ['+', '-', '*', '/']) {
          if ((operator === '+' || operator === '*') && j < i) continue; // commutative: one order suffices
          const value = resultOf(state[i].value, operator, state[j].value);
          if (value === null) continue;
          const combined = {
            value,
            text: combineText(state[i], operator, state[j]),
            precedence: precedenceOf[operator],
          };
          const rest = [...state.filter((_, index) => index !== i && index !== j), combined];
          const found = search(rest, [...lines, `${state[i].value}${operator}${state[j].value}=${value}`]);
          if (found !== null) return found;
        }
      }
    }
    failed.add(key);
    return null;
  };
  const found = search(pool, []);
  if (found === null) return null;
  return makeProblem({
    task: name,
    difficulty: numbers.length,
    prompt: `make ${target}:${numbers.join(',')}\n`,
    answer: found.text,
    solution: `${found.lines.join('\n')}\nA:${found.text}`,
    params: { count: numbers.length, maxNumber: Math.max(...numbers) },
    metadata: { numbers: [...numbers], target },
  });
}

/** Self-play: `make <target>:<n>,<n>,...` (3..6 numbers in 1..99, target in 1..999), solved by search. */
export function parseCountdownProblem(text: string): ParsedProblem {
  if (typeof text !== 'string') return { ok: false, reason: 'unparsable', detail: 'not text' };
  const match = /^make (\d{1,4}):(\d{1,3}(?:,\d{1,3})*)$/.exec(text.split('\n')[0].trim());
  if (match === null)
    return { ok: false, reason: 'unparsable', detail: 'first line is not make <target>:<n>,<n>,...' };
  const target = Number(match[1]);
  const numbers = match[2].split(',').map(Number);
  if (numbers.length < difficulty.min || numbers.length > difficulty.max) {
    return {
      ok: false,
      reason: 'out-of-grammar',
      detail: `needs ${difficulty.min}..${difficulty.max} numbers`,
    };
  }
  if (numbers.some((value) => value < 1 || value > 99) || target < 1 || target > maxValue) {
    return {
      ok: false,
      reason: 'out-of-grammar',
      detail: `numbers must be in 1..99 and the target in 1..${maxValue}`,
    };
  }
  const problem = solvedCountdownProblem(numbers, target);
  if (problem === null) return { ok: false, reason: 'out-of-grammar', detail: 'no solution (integer steps)' };
  return { ok: true, problem };
}

/** Target and sorted numbers: equal for permuted variants. */
export function countdownCanonicalKey(problem: Problem): string {
  const instance = countdownInstance(problem);
  if (instance === null) return `${name}:?${problem.prompt}`;
  return `${name}:${instance.target}:${[...instance.numbers].sort((a, b) => a - b).join(',')}`;
}

export const countdown: Task = {
  name,
  description: 'Reach the target by combining every given number exactly once with + - * / (exact).',
  difficulty,
  alphabet: sortedAlphabet('0123456789', '+-*/()=,:\n', 'make ', 'A'),
  parameters: [
    { name: 'count', min: difficulty.min, max: difficulty.max, integer: true },
    { name: 'maxNumber', min: 2, max: 99, integer: true },
  ],
  generate(rng, level) {
    checkDifficulty(name, difficulty, level);
    return generateFromKnobs(rng, level, defaultMaxNumber);
  },
  generateFromParams(rng, params) {
    return generateFromKnobs(
      rng,
      knob(params.count, difficulty.min, difficulty.max, difficulty.min),
      knob(params.maxNumber, 2, 99, defaultMaxNumber),
    );
  },
  // prompt ≤ `make 999:` + n two-digit numbers, n-1 trace lines ≤ 11 (`999-998=1`), the expression ≤
  // 2n digits + n-1 operators + n-2 parenthesis pairs (only a non-root inner node is ever wrapped):
  // an upper bound of 20n-4, not attained (sampling gives about 17n+2).
  maxSequenceTokens: (level) => 20 * level - 4,
  verify: verifyCountdown,
  extractAnswer: extractAnswerLine,
  parseProblem: parseCountdownProblem,
  canonicalKey: countdownCanonicalKey,
};
