// The `calibration` reward (RLCR): the model answers and then states its confidence, and is rewarded for
// being right and for the confidence matching its correctness. Paper: "Beyond Binary Rewards: Training
// LMs to Reason About Their Uncertainty" (Damani et al., arXiv 2507.16806); authors' code:
// damanimehul/RLCR reward_fns.py (format_reward, accuracy_reward, brier_reward), read through a fork
// that kept those functions verbatim, and curricula.md §C1.
//
// Output format `tabc`: `<think>…</think><answer>…</answer><analysis>…</analysis><confidence>q</confidence>`.
// - format f = 1 iff the completion matches
//   `.*?</think>\s*<answer>.*?</answer>\s*<analysis>.*?</analysis>\s*<confidence>.*?</confidence>\s*\Z`
//   (DOTALL, anchored at both ends; `<think>` itself is not required) and the LAST `<confidence>…</confidence>`
//   parses as a float q with 0 ≤ q ≤ 1. A missing, empty, unparseable ('high', '80%') or out-of-range
//   (1.5, 80) confidence gives f = 0, and with it c = 0 and brier = 0: total 0 (the authors' handling; no
//   clipping, no percent rescaling).
// - correctness c = 0 when f = 0, else the wrapped reward's verdict on the LAST `<answer>…</answer>` content
//   (default the task `verifier`, or `math-answer`; the authors use math_verify).
// - brier = 1 − (c − q)² when f = 1, else 0.
// - reward (scale 'authors', default) = 0.5·f + 0.5·c + 0.5·brier, the weights of the authors' RLCR
//   configs (curricula.md §C1; their 1e-5-weighted logging-only confidence terms are not part of the
//   reward). With f = 1 it equals 0.5·(2 + c − (c − q)²), an affine image of the paper's R = c − (q − c)².
//   Scale 'paper' reports 2·(authors' reward) − 2: R = c − (q − c)² when f = 1 and −2 when f = 0, so the
//   ordering and the GRPO advantages without std scaling are unchanged.
//
// Deviations: Python's float() also accepts 'nan', 'inf' and digit underscores ('0_5'); 'nan' slips
// through the authors' range check and makes their reward NaN, so here nan/inf are refused (f = 0) and
// underscores are accepted like Python does. For the synthetic tasks the `<answer>` content is passed to the
// verifier as an answer line `A:<content>` unless it already has one (option `answerLine`).
// Format 'answer-line' (ours, for the embedded model): the completion ends `…\nA:<answer>\nC:<q>`; f, c and
// brier as above with the C line's number as q and the completion without that line as what the wrapped
// reward grades. The authors' tags cost ~60 characters a 128-token context has no room for.
// Unverified: the configs' reward weights (0.5 each) come from curricula.md §C1, not read here.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Reward, RewardInput, RewardResult } from '../core/reward.ts';
import { answerPrefix, extractAnswerLine } from '../tasks/task.ts';
import { requireLookup } from './compose/composite.ts';
import { defineReward, type RewardFactoryContext } from './registry.ts';
import { tagSequenceProblem } from './tags.ts';

/** The authors' `tabc` format regex (Python re.match + \Z ≡ JavaScript ^…$ without the m flag). */
export const RLCR_FORMAT =
  /^[\s\S]*?<\/think>\s*<answer>[\s\S]*?<\/answer>\s*<analysis>[\s\S]*?<\/analysis>\s*<confidence>[\s\S]*?<\/confidence>\s*$/;

/** Python float() syntax for finite decimals (whitespace stripped first; underscores between digits). */
const PYTHON_FLOAT = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;

export interface RlcrOutput {
  /** 1 when the structure and the confidence are valid. */
  format: 0 | 1;
  /** Content of the last <answer>…</answer>, or null. */
  answer: string | null;
  /** The last confidence when it is a number in [0, 1], else null. */
  confidence: number | null;
  /** What is wrong when format is 0, else null. */
  problem: string | null;
}

function lastTag(text: string, tag: string): string | null {
  let last: string | null = null;
  for (const match of text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))) last = match[1];
  return last;
}

/** Parses a confidence the way the authors' `float(last_confidence)` + range check does; null if invalid. */
export function parseConfidence(text: string): number | null {
  const trimmed = text.trim();
  if (!PYTHON_FLOAT.test(trimmed)) return null;
  const value = Number(trimmed.replaceAll('_', ''));
  return value >= 0 && value <= 1 ? value : null;
}

/**
 * The confidence a completion states: its last <confidence>…</confidence>, whatever else it contains, or
 * else a final `C:` line after its answer line (the answer-line form); null if neither (or not a number in
 * [0, 1]).
 */
export function statedConfidence(completion: string): number | null {
  const raw = lastTag(completion, 'confidence');
  if (raw !== null) return parseConfidence(raw);
  const start = confidenceLineStart(completion);
  return start < 0 ? null : parseConfidence(completion.slice(start + CONFIDENCE_LINE.length));
}

/**
 * The compact form of the embedded model (format 'answer-line', src/tasks/stated-confidence.ts): the
 * completion ends with its answer line and a confidence line, `…\nA:<answer>\nC:<q>` (trailing whitespace
 * allowed). The tags of `tabc` cost ~60 characters that a 128-token context does not have.
 */
const ANSWER_LINE_FORMAT = /(?:^|\n)A:[^\n]*\nC:([^\n]*?)\s*$/;
/** What opens the confidence line; its number follows. */
const CONFIDENCE_LINE = '\nC:';

/** Where a completion's final `C:` confidence line starts, or -1 when it has no answer line + confidence line. */
function confidenceLineStart(completion: string): number {
  const match = ANSWER_LINE_FORMAT.exec(completion);
  return match === null ? -1 : completion.lastIndexOf(CONFIDENCE_LINE);
}

/**
 * Checks the compact answer-line form; `answer` is the completion without its confidence line (what the
 * wrapped reward grades: it holds the answer line), `confidence` the `C:` line's number.
 */
export function parseAnswerLineOutput(completion: string): RlcrOutput {
  const start = confidenceLineStart(completion);
  if (start < 0) {
    return {
      format: 0,
      answer: null,
      confidence: null,
      problem: 'does not end with an A:<answer> line and a C:<confidence> line',
    };
  }
  const raw = completion.slice(start + CONFIDENCE_LINE.length).trim();
  const confidence = parseConfidence(raw);
  let problem: string | null = null;
  if (raw === '') problem = 'empty C: line';
  else if (confidence === null) {
    const shown = raw.slice(0, 40);
    problem = PYTHON_FLOAT.test(raw)
      ? `confidence ${shown} outside [0, 1]`
      : `confidence '${shown}' is not a number`;
  }
  return {
    format: problem === null ? 1 : 0,
    answer: completion.slice(0, start),
    confidence: problem === null ? confidence : null,
    problem,
  };
}

/** Checks RLCR's `tabc` format and extracts the last answer and confidence. */
export function parseRlcrOutput(completion: string): RlcrOutput {
  const answer = lastTag(completion, 'answer');
  const rawConfidence = lastTag(completion, 'confidence');
  const confidence = rawConfidence === null ? null : parseConfidence(rawConfidence);
  let problem: string | null = null;
  if (!RLCR_FORMAT.test(completion)) {
    problem =
      tagSequenceProblem(completion, ['think', 'answer', 'analysis', 'confidence'], false) ??
      'not …</think><answer>…</answer><analysis>…</analysis><confidence>…</confidence>';
  } else if (rawConfidence === null || rawConfidence.trim() === '') {
    problem = 'empty <confidence>';
  } else if (confidence === null) {
    const shown = rawConfidence.trim().slice(0, 40);
    problem = PYTHON_FLOAT.test(rawConfidence.trim())
      ? `confidence ${shown} outside [0, 1]`
      : `confidence '${shown}' is not a number`;
  }
  return {
    format: problem === null ? 1 : 0,
    answer,
    confidence: problem === null ? confidence : null,
    problem,
  };
}

/** The RLCR reward terms for format f, correctness c and confidence q (q ignored when f = 0). */
export function rlcrReward(
  format: 0 | 1,
  correct: number,
  confidence: number,
  scale: 'authors' | 'paper' = 'authors',
): { reward: number; correct: number; brier: number } {
  const c = format === 1 ? correct : 0;
  const brier = format === 1 ? 1 - (c - confidence) ** 2 : 0;
  const authors = 0.5 * format + 0.5 * c + 0.5 * brier;
  return { reward: scale === 'paper' ? 2 * authors - 2 : authors, correct: c, brier };
}

const optionsSchema = z.strictObject({
  /** Registered reward that decides correctness of the <answer> content ('verifier' or 'math-answer'). */
  reward: z.string().min(1).default('verifier'),
  /** Options of that reward. */
  rewardOptions: z.unknown().optional(),
  /** 'authors': 0.5·f + 0.5·c + 0.5·brier; 'paper': c − (q − c)² (−2 when the format is invalid). */
  scale: z.enum(['authors', 'paper']).default('authors'),
  /** Pass the answer to the wrapped reward as `A:<answer>` (default: true for 'verifier'). */
  answerLine: z.boolean().optional(),
  /** 'tabc': the authors' tags; 'answer-line': `…\nA:<answer>\nC:<q>` at the end (the embedded model's form). */
  format: z.enum(['tabc', 'answer-line']).default('tabc'),
});

export type CalibrationOptions = z.input<typeof optionsSchema>;

export function createCalibrationReward(options: unknown, context?: RewardFactoryContext): Reward {
  const source = "reward 'calibration' options";
  const parsed = parseConfig(optionsSchema, options ?? {}, source);
  const lookup = requireLookup(context?.rewards, source);
  const inner = lookup.get(parsed.reward)(parsed.rewardOptions ?? {}, { rewards: lookup });
  const answerLine = parsed.answerLine ?? parsed.reward === 'verifier';
  const asInput = (answer: string): string =>
    answerLine && extractAnswerLine(answer) === null ? `${answerPrefix}${answer.trim()}` : answer;

  const parse = parsed.format === 'tabc' ? parseRlcrOutput : parseAnswerLineOutput;
  const reward: Reward = {
    name: 'calibration',
    async score(inputs) {
      const outputs = inputs.map(({ completion }) => parse(completion));
      const graded: number[] = [];
      const innerInputs: RewardInput[] = [];
      outputs.forEach((output, i) => {
        if (output.format === 1) {
          graded.push(i);
          innerInputs.push({ ...inputs[i], completion: asInput(output.answer ?? '') });
        }
      });
      const verdicts = innerInputs.length > 0 ? await inner.score(innerInputs) : [];
      const correctness = new Map<number, RewardResult>();
      for (const [j, index] of graded.entries()) correctness.set(index, verdicts[j]);

      return outputs.map((output, i): RewardResult => {
        const verdict = correctness.get(i);
        if (output.format === 0 || verdict === undefined) {
          const terms = rlcrReward(0, 0, 0, parsed.scale);
          return {
            reward: terms.reward,
            components: { format: 0, correct: 0, brier: 0 },
            reason: `format: ${output.problem}`,
          };
        }
        const correct = verdict.components.correct ?? Math.min(1, Math.max(0, verdict.reward));
        const confidence = output.confidence as number;
        const terms = rlcrReward(1, correct, confidence, parsed.scale);
        const result: RewardResult = {
          reward: terms.reward,
          components: { format: 1, correct: terms.correct, confidence, brier: terms.brier },
        };
        if (terms.correct < 1) result.reason = verdict.reason ?? 'wrong answer';
        else if (confidence < 1) result.reason = `confidence ${confidence} < 1`;
        return result;
      });
    },
  };
  if (inner.close) reward.close = () => inner.close?.() ?? Promise.resolve();
  return reward;
}

export const calibrationReward = defineReward({
  id: 'calibration',
  description:
    'RLCR: rewarded for being right and for the stated confidence matching correctness (Brier term)',
  paper: {
    title: 'Beyond Binary Rewards: Training LMs to Reason About Their Uncertainty',
    arxiv: '2507.16806',
    code: 'damanimehul/RLCR reward_fns.py',
  },
  optionsSchema: optionsSchema,
  create: createCalibrationReward,
});
