// refusal-aware: the reward table (refusal paid on unanswerable problems, made-up answers and false
// refusals penalised by the options), its components, and the per-step rates they become.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { summarizeOutcomes } from '../eval/aggregate.ts';
import { countdown } from '../tasks/countdown.ts';
import { unanswerableCountdown } from '../tasks/unanswerable-countdown.ts';
import { rolloutMetrics } from '../training/rl/metrics.ts';
import { rewards } from './index.ts';

const answerable = countdown.generate(new Rng(1), 3);
const unanswerable = unanswerableCountdown.generate(new Rng(1), 3);
const refusal = 'hmm\nA:unanswerable';

describe('refusal-aware', () => {
  it('pays the table: refusal / made-up / false refusal / correct / wrong', async () => {
    const reward = rewards.get('refusal-aware')({ madeUp: -1, falseRefusal: -0.5, wrong: -0.25 });
    const cases = [
      { problem: unanswerable, completion: refusal },
      { problem: unanswerable, completion: 'A:1+2+3' },
      { problem: unanswerable, completion: 'no answer line' },
      { problem: answerable, completion: refusal },
      { problem: answerable, completion: answerable.solution },
      { problem: answerable, completion: 'A:1' },
    ];
    const results = await reward.score(cases);
    expect(results.map((result) => result.reward)).toEqual([1, -1, -1, -0.5, 1, -0.25]);
    expect(results.map((result) => result.components.refused)).toEqual([1, 0, 0, 1, 0, 0]);
    expect(results.map((result) => result.components.made_up)).toEqual([
      undefined,
      1,
      1,
      undefined,
      undefined,
      undefined,
    ]);
    expect(results.map((result) => result.components.false_refusal)).toEqual([
      undefined,
      undefined,
      undefined,
      1,
      0,
      0,
    ]);
    expect(results[1].reason).toMatch(/made-up/);
    expect(results[3].reason).toMatch(/refused/);
  });

  it('defaults are the paper’s binary reward (1 for the right answer or the right refusal)', async () => {
    const reward = rewards.get('refusal-aware')({});
    const results = await reward.score([
      { problem: unanswerable, completion: refusal },
      { problem: unanswerable, completion: 'A:5' },
      { problem: answerable, completion: refusal },
      { problem: answerable, completion: answerable.solution },
    ]);
    expect(results.map((result) => result.reward)).toEqual([1, 0, 0, 1]);
  });

  it('components become the step rates: refusal on unanswerable, false refusal and accuracy on answerable', async () => {
    const reward = rewards.get('refusal-aware')({});
    const completions = [
      refusal,
      'A:7',
      'A:8',
      refusal,
      answerable.solution,
      'A:1',
      refusal,
      answerable.solution,
    ];
    const problems = [
      unanswerable,
      unanswerable,
      unanswerable,
      answerable,
      answerable,
      answerable,
      answerable,
      answerable,
    ];
    const results = await reward.score(
      completions.map((completion, i) => ({ problem: problems[i], completion })),
    );
    const group = (from: number, to: number) => ({
      attempt: { problem: problems[from], prompt: '', prefix: '' },
      context: [],
      rollouts: completions.slice(from, to).map(() => ({
        tokens: [1],
        text: '',
        logprobs: [0],
        samplingLogprobs: [0],
        stopReason: 'eos' as const,
      })),
      completions: completions.slice(from, to),
      results: results.slice(from, to),
      rewards: results.slice(from, to).map((result) => result.reward),
    });
    const metrics = rolloutMetrics([group(0, 3), group(3, 8)] as never);
    expect(metrics['reward/unanswerable_refused']).toBeCloseTo(1 / 3, 10);
    expect(metrics['reward/false_refusal']).toBeCloseTo(2 / 5, 10);
    expect(metrics['reward/correct']).toBeCloseTo(2 / 5, 10);
  });
});

describe('evaluation refusal metrics', () => {
  it('refusal rate on unanswerable, false-refusal rate and accuracy on answerable, in the eval summary', () => {
    const outcome = (problem: typeof answerable, completions: string[]) => ({
      problem,
      completions,
      correct: completions.map(
        (completion) =>
          (problem === unanswerable ? unanswerableCountdown : countdown).verify(problem, completion).correct,
      ),
      answers: completions.map(() => null),
      reasons: completions.map(() => undefined),
      confidences: completions.map(() => null),
    });
    const summary = summarizeOutcomes([
      outcome(unanswerable, [refusal, 'A:1', refusal, refusal]),
      outcome(answerable, [refusal, answerable.solution, 'A:1', answerable.solution]),
    ]);
    expect(summary.metrics['eval/refusal/unanswerable_rate']).toBe(0.75);
    expect(summary.metrics['eval/refusal/false_rate']).toBe(0.25);
    expect(summary.metrics['eval/refusal/answerable_accuracy']).toBe(0.5);
    expect(
      summarizeOutcomes([outcome(answerable, ['A:1'])]).metrics['eval/refusal/false_rate'],
    ).toBeUndefined();
  });
});
