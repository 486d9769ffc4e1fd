// The RLT prompt formats: what the teacher reads (question + reference solution) and the context in which
// the frozen student scores the solution (question + explanation + solution), as token ids with the
// exact spans of the explanation and the solution.
//
// Authors (SakanaAI/RLT, custom_data/teacher_data.py, trainers/teacher_rewards.py): a chat with a system
// prompt; the teacher's user turn holds the question and the solution, it answers with `<think>`explanation
// `</think>`; the student's assistant turn is think_prefix + `<think>`explanation`</think>` + delimiter +
// solution. Our embedded models have no chat format: they were pretrained on [BOS] question → worked
// solution [EOS]. So (deviation, a design for a small char-level teacher):
// - teacher prompt (default `{question}{solution}\nE:`): the question where pretraining put it (position 1,
//   the model has learned absolute positions), the solution right after it as the model would have written
//   it, then `\nE:` opening the explanation. The explanation is the teacher's completion and its closing
//   tag is EOS: a completion cut by the token limit has no EOS and counts as a missing format (the
//   authors' missing `</think>`).
// - student context (default `{question}{explanation}\n{solution}`): the explanation sits where the
//   student's own worked solution would, then a newline delimiter, then the reference solution.
// The student sequence is built piece by piece from token ids (literal parts encoded separately, the
// explanation's ids as given), so the spans are exact for any tokenizer; the authors re-tokenize the whole
// text and search for the spans (find_sublist_start_end), which can miss at BPE merge boundaries.
//
// Log-prob alignment (the off-by-one the authors' code trips on): `forward` returns L − 1 log-probs per
// sequence, logprobs[t] = log p(tokens[t + 1] | tokens[..t]); the log-probs of tokens [start, end) are
// therefore logprobs[start − 1 .. end − 1). The authors apply the token span [start, end) to the log-prob
// array directly (get_mask_for_spans on student_log_probs), which scores tokens start+1 … end: the first
// solution token is dropped and the token after the solution (end of turn) is scored. We score the tokens
// themselves (deviation: correct spans).
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import type { Tokenizer } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { answerPrefix } from '../tasks/task.ts';

export const defaultTeacherTemplate = '{question}{solution}\nE:';
export const defaultStudentTemplate = '{question}{explanation}\n{solution}';

export const rltTargets = ['solution', 'answer'] as const;
export const explanationEnds = ['eos', 'answer-line'] as const;

export const rltTemplateSchema = z
  .strictObject({
    /** The teacher's prompt: {question} then {solution}, each exactly once. */
    teacher: z.string().default(defaultTeacherTemplate),
    /** The student's context: {question}, {explanation}, {solution} in that order, each once, ending with {solution}. */
    student: z.string().default(defaultStudentTemplate),
    /**
     * What {solution} is, shown to the teacher and scored in the student: 'solution' = the worked solution;
     * 'answer' = the answer line `A:<answer>` only, so the explanation carries what the answer does not.
     */
    target: z.enum(rltTargets).default('solution'),
    /**
     * What closes an explanation: 'eos' = the teacher's EOS (a completion cut by the token limit misses the
     * format); 'answer-line' = the teacher's own answer line: the explanation is the completion before its
     * last `A:` line, and a completion without one misses the format.
     */
    explanationEnd: z.enum(explanationEnds).default('eos'),
  })
  .default({
    teacher: defaultTeacherTemplate,
    student: defaultStudentTemplate,
    target: 'solution',
    explanationEnd: 'eos',
  });
export type RltTemplate = z.output<typeof rltTemplateSchema>;
/** A template whose target and explanationEnd may be left out (their defaults: 'solution', 'eos'). */
export type RltTemplateParts = Omit<RltTemplate, 'target' | 'explanationEnd'> &
  Partial<Pick<RltTemplate, 'target' | 'explanationEnd'>>;

/** Half-open token range [start, end) in a sequence. */
export interface Span {
  start: number;
  end: number;
}

export interface StudentSequence {
  tokens: number[];
  explanation: Span;
  solution: Span;
}

/** The literal parts around the placeholders, checked: ConfigError naming the template otherwise. */
function split(template: string, names: readonly string[], where: string): string[] {
  const pattern = /\{(\w+)\}/g;
  const found = [...template.matchAll(pattern)].map((match) => match[1]);
  if (found.join(',') !== names.join(',')) {
    throw new ConfigError(
      `${where}: must hold ${names.map((name) => `{${name}}`).join(', ')} once each in that order, found ${found.length > 0 ? found.map((name) => `{${name}}`).join(', ') : 'none'}`,
    );
  }
  return template.split(pattern).filter((_, index) => index % 2 === 0);
}

/** Checks both templates and that their literal text encodes with `tokenizer` (ConfigError otherwise). */
export function validateTemplate(template: RltTemplateParts, tokenizer: Tokenizer): void {
  const teacherParts = split(template.teacher, ['question', 'solution'], 'rlt.template.teacher');
  const studentParts = split(
    template.student,
    ['question', 'explanation', 'solution'],
    'rlt.template.student',
  );
  if (studentParts[studentParts.length - 1] !== '') {
    throw new ConfigError(
      'rlt.template.student: must end with {solution} (the student scores the solution last)',
    );
  }
  for (const [name, parts] of [
    ['teacher', teacherParts],
    ['student', studentParts],
  ] as const) {
    try {
      for (const part of parts) tokenizer.encode(part, `rlt.template.${name}`);
    } catch (error) {
      throw new ConfigError(`rlt.template.${name}: ${(error as Error).message}`);
    }
  }
}

/** What {solution} stands for (rlt.template.target): the worked solution, or the answer line only. */
export function targetText(template: Pick<RltTemplateParts, 'target'>, problem: Problem): string {
  return template.target === 'answer' ? `${answerPrefix}${problem.answer}` : problem.solution;
}

/**
 * The explanation in a teacher's completion (rlt.template.explanationEnd) and whether it was closed: with
 * 'eos' the whole text (closed is decided by the caller: EOS before the token limit); with 'answer-line'
 * the text before the completion's last answer line, closed iff there is one.
 */
export function explanationOf(
  template: Pick<RltTemplateParts, 'explanationEnd'>,
  completion: string,
): { text: string; closed: boolean | null } {
  if (template.explanationEnd !== 'answer-line') return { text: completion, closed: null };
  const at = completion.lastIndexOf(`\n${answerPrefix}`);
  if (at >= 0) return { text: completion.slice(0, at), closed: true };
  return completion.startsWith(answerPrefix)
    ? { text: '', closed: true }
    : { text: completion, closed: false };
}

/** The teacher's prompt text (given to the policy as the attempt's prompt). */
export function teacherPromptText(template: RltTemplateParts, problem: Problem): string {
  const [before, middle, after] = split(template.teacher, ['question', 'solution'], 'rlt.template.teacher');
  return `${before}${problem.prompt}${middle}${targetText(template, problem)}${after}`;
}

/** [BOS] + the student's context with `explanation` (token ids) spliced in, and both spans. */
export function studentSequence(
  tokenizer: Tokenizer,
  template: RltTemplateParts,
  problem: Problem,
  explanation: readonly number[],
): StudentSequence {
  const [beforeQuestion, beforeExplanation, beforeSolution] = split(
    template.student,
    ['question', 'explanation', 'solution'],
    'rlt.template.student',
  );
  const where = `problem ${problem.id}`;
  const tokens = tokenizer.bos >= 0 ? [tokenizer.bos] : [];
  tokens.push(
    ...tokenizer.encode(beforeQuestion + problem.prompt + beforeExplanation, `${where} student context`),
  );
  const explanationStart = tokens.length;
  tokens.push(...explanation);
  const explanationEnd = tokens.length;
  tokens.push(...tokenizer.encode(beforeSolution, 'rlt.template.student'));
  const solutionStart = tokens.length;
  tokens.push(...tokenizer.encode(targetText(template, problem), `${where} solution`));
  return {
    tokens,
    explanation: { start: explanationStart, end: explanationEnd },
    solution: { start: solutionStart, end: tokens.length },
  };
}

/** The log-probs of tokens[span.start .. span.end) from a forward's L − 1 log-probs (see header). */
export function spanLogprobs(logprobs: readonly number[], span: Span): number[] {
  if (span.start < 1 || span.end > logprobs.length + 1 || span.end < span.start) {
    throw new RangeError(
      `span [${span.start}, ${span.end}) does not fit ${logprobs.length} log-probs (the first token has none)`,
    );
  }
  return logprobs.slice(span.start - 1, span.end - 1);
}
