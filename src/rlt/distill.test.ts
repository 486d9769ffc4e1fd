// `curricula distill` for real, small: ladder-cold writes explanations (source teacher) and a copy of it
// is trained on them; the trained student must find its training texts more likely than before.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend } from '../core/policy.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { type DistillExample, distill, distillDatum } from './distill.ts';
import { distillConfigSchema, distillPool } from './distill-config.ts';

const cold = 'examples/checkpoints/ladder-cold';
const dir = mkdtempSync(join(tmpdir(), 'rlt-distill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, overrides: Record<string, unknown> = {}) {
  return distillConfigSchema.parse({
    name,
    runsDir: dir,
    seed: 5,
    student: { checkpoint: cold },
    teacher: { checkpoint: cold },
    tasks: [{ task: 'addition', difficulties: [1, 2] }],
    poolSize: 8,
    sampling: { maxTokens: 40 },
    train: { steps: 4, batchSize: 8, learningRate: 0.003, warmupSteps: 0 },
    eval: { problemsPerDifficulty: 2, samples: 1 },
    policy: { workers: 1 },
    ...overrides,
  });
}

/** Σ log p(completion + EOS | prompt) over the examples, under `model`. */
async function logLikelihood(model: PolicyBackend, examples: readonly DistillExample[]): Promise<number> {
  const { tokenizer } = model;
  const sequences = examples.map((example) => {
    const prompt = [tokenizer.bos, ...tokenizer.encode(example.prompt)];
    return {
      prompt: prompt.length,
      tokens: [...prompt, ...tokenizer.encode(example.completion), tokenizer.eos],
    };
  });
  const logprobs = await model.forward(sequences.map((sequence) => sequence.tokens));
  return sequences.reduce(
    (total, sequence, index) =>
      total + logprobs[index].slice(sequence.prompt - 1).reduce((sum, value) => sum + value, 0),
    0,
  );
}

function readExamples(runDir: string): DistillExample[] {
  return readFileSync(join(runDir, 'explanations.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('curricula distill', () => {
  it('weighs the explanation, delimiter, solution and EOS, never the question', async () => {
    const student: PolicyBackend = await loadEmbeddedPolicy(cold, 1);
    const distillConfig = config('datum');
    const [problem] = distillPool(distillConfig);
    const example = {
      problemId: problem.id,
      prompt: problem.prompt,
      explanation: '1+2',
      completion: '',
      kept: true,
    };
    const datum = distillDatum(student, distillConfig, problem, example);
    const { tokenizer } = student;
    expect(datum.tokens).toEqual([
      tokenizer.bos,
      ...tokenizer.encode(`${problem.prompt}1+2\n${problem.solution}`),
      tokenizer.eos,
    ]);
    // weights[t] weighs tokens[t + 1]: zero on the question's tokens, one from the explanation to EOS.
    const promptLength = 1 + problem.prompt.length;
    expect(datum.weights).toEqual(datum.tokens.slice(1).map((_, t) => (t + 1 >= promptLength ? 1 : 0)));
    const solutions = distillDatum(student, { ...distillConfig, source: 'solutions' }, problem, example);
    expect(tokenizer.decode(solutions.tokens)).toBe(problem.prompt + problem.solution);
    // source answers: the question, then the answer line alone
    const answers = distillDatum(student, { ...distillConfig, source: 'answers' }, problem, example);
    expect(answers.tokens).toEqual([
      tokenizer.bos,
      ...tokenizer.encode(`${problem.prompt}A:${problem.answer}`),
      tokenizer.eos,
    ]);
    expect(answers.weights).toEqual(answers.tokens.slice(1).map((_, t) => (t + 1 >= promptLength ? 1 : 0)));
    // target answer: the explanation, the delimiter, then the answer line (not the worked solution)
    const target = distillDatum(
      student,
      { ...distillConfig, template: { ...distillConfig.template, target: 'answer' } },
      problem,
      example,
    );
    expect(tokenizer.decode(target.tokens)).toBe(`${problem.prompt}1+2\nA:${problem.answer}`);
  });

  it("trains the student on the teacher's explanations + solutions and saves a usable checkpoint", async () => {
    const distillConfig = config('from-teacher');
    const result = await distill(distillConfig);
    expect(result.problems).toBe(8);
    expect(result.examples + result.dropped).toBe(8);
    expect(result.examples).toBeGreaterThan(0);
    expect(resolveCheckpoint(result.runDir).modelPath).toBe(result.checkpoint);

    const examples = readExamples(result.runDir);
    const pool = distillPool(distillConfig);
    expect(examples.map((example) => example.problemId)).toEqual(pool.map((problem) => problem.id));
    for (const [index, example] of examples.entries()) {
      expect(example.completion).toBe(`${example.explanation}\n${pool[index].solution}`);
    }
    const trained = examples.filter((example) => example.kept);
    const before: PolicyBackend = await loadEmbeddedPolicy(cold, 1);
    const after: PolicyBackend = await loadEmbeddedPolicy(result.checkpoint, 1);
    const likelihoodBefore = await logLikelihood(before, trained);
    const likelihoodAfter = await logLikelihood(after, trained);
    expect(likelihoodAfter).toBeGreaterThan(likelihoodBefore + 1);
  }, 60_000);

  it('source solutions trains on the worked solutions (no teacher needed)', async () => {
    const { teacher: _teacher, ...withoutTeacher } = config('from-solutions', {
      source: 'solutions',
      train: { steps: 1, batchSize: 4, learningRate: 0.003 },
    });
    const result = await distill(distillConfigSchema.parse(withoutTeacher));
    const pool = distillPool(config('x'));
    const examples = readExamples(result.runDir);
    expect(examples.map((example) => example.completion)).toEqual(pool.map((problem) => problem.solution));
    expect(result.examples).toBe(8);
  }, 60_000);

  it('refuses source teacher without a teacher, before writing anything', async () => {
    const { teacher: _teacher, ...withoutTeacher } = config('no-teacher');
    await expect(distill(distillConfigSchema.parse(withoutTeacher))).rejects.toThrow(ConfigError);
    await expect(distill(distillConfigSchema.parse(withoutTeacher))).rejects.toThrow(
      /source teacher needs teacher\.checkpoint/,
    );
    expect(existsSync(join(dir, 'no-teacher'))).toBe(false);
    await expect(
      distill(config('bad-student', { student: { checkpoint: join(dir, 'none') } })),
    ).rejects.toThrow(/^student\.checkpoint: checkpoint .* does not exist/);
  });
});
