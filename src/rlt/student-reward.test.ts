// The RLT Reward on the real embedded checkpoint: token spans against real ids (the off-by-one between
// token positions and the L − 1 log-probs of `forward`), the format rule (EOS as the closing tag), and
// templates that are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyBackend } from '../core/policy.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { additionProblem } from '../tasks/addition.ts';
import { defaultRltRewardOptions } from './reward.ts';
import { createRltReward } from './student-reward.ts';
import {
  defaultStudentTemplate,
  defaultTeacherTemplate,
  explanationOf,
  spanLogprobs,
  studentSequence,
  targetText,
  teacherPromptText,
  validateTemplate,
} from './template.ts';

const template = { teacher: defaultTeacherTemplate, student: defaultStudentTemplate };
const problem = additionProblem('47', '5');
let model: PolicyBackend;
beforeAll(async () => {
  model = await loadEmbeddedPolicy('examples/checkpoints/ladder-cold', 1);
});
afterAll(async () => {
  await model.close?.();
});

describe('student sequence and spans', () => {
  it('puts the explanation and the solution where the template says, in real token ids', () => {
    const explanation = model.tokenizer.encode('7+5');
    const sequence = studentSequence(model.tokenizer, template, problem, explanation);
    const { tokens } = sequence;
    expect(tokens[0]).toBe(model.tokenizer.bos);
    expect(model.tokenizer.decode(tokens)).toBe(`${problem.prompt}7+5\n${problem.solution}`);
    expect(tokens.slice(sequence.explanation.start, sequence.explanation.end)).toEqual(explanation);
    expect(model.tokenizer.decode(tokens.slice(sequence.solution.start, sequence.solution.end))).toBe(
      problem.solution,
    );
    expect(sequence.solution.end).toBe(tokens.length);
  });

  it("scores the solution's first and last tokens, not their neighbours", async () => {
    const sequence = studentSequence(model.tokenizer, template, problem, model.tokenizer.encode('7+5'));
    const [logprobs] = await model.forward([sequence.tokens]);
    const ell = spanLogprobs(logprobs, sequence.solution);
    expect(ell).toHaveLength(problem.solution.length);
    // log p(first solution token | everything before it): the last log-prob of the sequence cut after it.
    const [upToFirst] = await model.forward([sequence.tokens.slice(0, sequence.solution.start + 1)]);
    expect(ell[0]).toBeCloseTo(upToFirst[upToFirst.length - 1], 4);
    expect(ell[ell.length - 1]).toBe(logprobs[logprobs.length - 1]);
    expect(() => spanLogprobs(logprobs, { start: 0, end: 2 })).toThrow(/first token has none/);
  });

  it('refuses templates without their placeholders, in another order, or with characters out of vocabulary', () => {
    expect(() => validateTemplate({ ...template, teacher: '{question}E:' }, model.tokenizer)).toThrow(
      /rlt\.template\.teacher: must hold \{question\}, \{solution\} once each in that order, found \{question\}/,
    );
    expect(() =>
      validateTemplate({ ...template, student: '{explanation}{question}\n{solution}' }, model.tokenizer),
    ).toThrow(/rlt\.template\.student: must hold/);
    expect(() =>
      validateTemplate({ ...template, student: '{question}{explanation}{solution}.' }, model.tokenizer),
    ).toThrow(/must end with \{solution\}/);
    expect(() =>
      validateTemplate({ ...template, teacher: '{question}{solution}\né:' }, model.tokenizer),
    ).toThrow(/rlt\.template\.teacher: character/);
  });
});

describe('createRltReward', () => {
  it('counts an explanation that reached the token limit (no EOS) as a missing format', async () => {
    const reward = createRltReward({
      teacher: model,
      student: model,
      template,
      options: defaultRltRewardOptions,
      maxTokens: 4,
    });
    const [closed, cut] = await reward.score([
      { problem, completion: '7+5' },
      { problem, completion: '7+5=' },
    ]);
    expect(closed.components.format_miss).toBe(0);
    expect(cut.components.format_miss).toBe(1);
    expect(cut.reason).toMatch(/no EOS within 4 tokens/);
    // Same r_SS and r_KL structure; the cut one pays the −1.
    expect(cut.reward).toBeCloseTo(cut.components.r_ss - cut.components.r_kl - 1, 10);
    expect(closed.reward).toBeCloseTo(closed.components.r_ss - closed.components.r_kl, 10);
  });

  it('charges an empty explanation 3.03 of KL and scores the solution right after the question', async () => {
    const reward = createRltReward({
      teacher: model,
      student: model,
      template,
      options: defaultRltRewardOptions,
      maxTokens: 40,
    });
    const [empty] = await reward.score([{ problem, completion: '' }]);
    expect(empty.components.r_kl).toBeCloseTo(3.03, 10);
  });

  it('throws when the student context does not fit (the loop turns it into a counted reward error)', async () => {
    const reward = createRltReward({
      teacher: model,
      student: model,
      template,
      options: defaultRltRewardOptions,
      maxTokens: 200,
    });
    await expect(reward.score([{ problem, completion: '1'.repeat(120) }])).rejects.toThrow(
      /exceeds its context length 128/,
    );
  });
});

describe("target 'answer' and explanationEnd 'answer-line' (an explanation says what the answer does not)", () => {
  const answerTemplate = {
    teacher: '{question}{solution}\n',
    student: defaultStudentTemplate,
    target: 'answer' as const,
    explanationEnd: 'answer-line' as const,
  };
  const trace = problem.solution.slice(0, problem.solution.lastIndexOf('\nA:'));

  it('the teacher reads the question and the answer line; the student reads the trace, then the answer', () => {
    expect(teacherPromptText(answerTemplate, problem)).toBe(`${problem.prompt}A:${problem.answer}\n`);
    expect(targetText(answerTemplate, problem)).toBe(`A:${problem.answer}`);
    const cut = explanationOf(answerTemplate, problem.solution);
    expect(cut).toEqual({ text: trace, closed: true });
    const sequence = studentSequence(
      model.tokenizer,
      answerTemplate,
      problem,
      model.tokenizer.encode(cut.text),
    );
    // the student's context is exactly the worked solution it was pretrained on
    expect(model.tokenizer.decode(sequence.tokens)).toBe(`${problem.prompt}${problem.solution}`);
    expect(model.tokenizer.decode(sequence.tokens.slice(sequence.solution.start))).toBe(
      `A:${problem.answer}`,
    );
    expect(explanationOf(answerTemplate, '7+4+0=11')).toEqual({ text: '7+4+0=11', closed: false });
    expect(explanationOf({ explanationEnd: 'eos' }, problem.solution)).toEqual({
      text: problem.solution,
      closed: null,
    });
  });

  it("scores the answer after the teacher's trace; a trace that gives the wrong digits scores lower; no answer line misses the format", async () => {
    const reward = createRltReward({
      teacher: model,
      student: model,
      template: answerTemplate,
      options: defaultRltRewardOptions,
      maxTokens: 60,
    });
    const wrongTrace = trace.replace('=12', '=13');
    const [right, wrong, open] = await reward.score([
      { problem, completion: `${trace}\nA:999` },
      { problem, completion: `${wrongTrace}\nA:${problem.answer}` },
      { problem, completion: trace },
    ]);
    // the teacher's own answer line (A:999) is cut off: only the trace reaches the student
    expect(right.components.format_miss).toBe(0);
    expect(right.components.solution_logprob).toBeGreaterThan(wrong.components.solution_logprob + 1);
    expect(open.components.format_miss).toBe(1);
    expect(open.reason).toMatch(/no answer line/);
  });
});
