// retry (reflect-then-retry): the diagnosis by hand, the retry prompt (failed attempt + feedback +
// original problem, never the gold answer, even from adversarial completions and reasons), which groups
// are retried and how many members a retry may replace, the metrics, resume, and config refusals.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { RewardResult } from '../core/reward.ts';
import { additionProblem } from '../tasks/addition.ts';
import { stringComposeProblem } from '../tasks/string-compose.ts';
import { guidances } from './index.ts';
import { answerPosition } from './leakage.ts';
import type { GradedGroup } from './retry-contract.ts';
import { diagnose, retryPrompt } from './retry-feedback.ts';

const problem = additionProblem('758', '67'); // 825
const wrong = (reason = "answer '835' is wrong"): RewardResult => ({ reward: 0, components: {}, reason });
const right: RewardResult = { reward: 1, components: {} };

const graded = (results: RewardResult[], completions?: string[]): GradedGroup => ({
  attempt: { problem, prompt: problem.prompt, prefix: '', guided: false },
  completions: completions ?? results.map((_, index) => `8+7+0=15\nA:8${index}5`),
  results,
});

describe('retry feedback', () => {
  it('diagnoses where the answer departs, never what it is', () => {
    expect(diagnose('825', '835')).toBe('wrong digit 2 from right');
    expect(diagnose('825', '826')).toBe('wrong digit 1 from right');
    expect(diagnose('1825', '825')).toBe('4 digits, not 3');
    expect(diagnose('825', null)).toBe('no answer line');
    expect(diagnose('debc', 'dcbc')).toBe('wrong char 2');
    expect(diagnose('debc', 'deb')).toBe('4 chars, not 3');
  });

  it('builds the retry prompt: attempt, reason and diagnosis, then the original problem', () => {
    const prompt = retryPrompt({
      problem,
      prompt: problem.prompt,
      attempt: 'A:835',
      result: wrong(),
      feedback: 'both',
      template: 'Previous attempt:\n{attempt}\nFeedback: {feedback}\nTry again.\n{prompt}',
    });
    expect(prompt).toEqual({
      text: `Previous attempt:\nA:835\nFeedback: answer '835' is wrong; wrong digit 2 from right\nTry again.\n${problem.prompt}`,
      violated: false,
      dropped: false,
    });
  });

  it('never shows the gold answer: an adversarial attempt and reason are cut before it', () => {
    // The attempt holds the right sum with a wrong format; the reason (a careless reward) names the gold.
    const prompt = retryPrompt({
      problem,
      prompt: problem.prompt,
      attempt: '5+6+1=12\nthe sum is 825 A:',
      result: wrong('expected 825'),
      feedback: 'reason',
      template: '{attempt}|{feedback}|{prompt}',
    });
    expect(prompt.violated).toBe(true);
    expect(prompt.text).toBe(`5+6+1=12\nthe sum is |expected |${problem.prompt}`);
    const inserted = prompt.text.slice(0, -problem.prompt.length);
    expect(answerPosition(inserted, problem.answer)).toBe(-1);
    const text = stringComposeProblem('abcd', ['rev', 'swp', 'inc']); // answer debc
    const cut = retryPrompt({
      problem: text,
      prompt: text.prompt,
      attempt: 'rev:dcba\nA:d e b c',
      result: wrong("answer 'd e b c' is wrong"),
      feedback: 'both',
      template: '{attempt}|{feedback}|{prompt}',
    });
    expect(cut.text).toBe(`rev:dcba\nA:|answer '|${text.prompt}`);
  });
});

describe('retry guidance', () => {
  const context = { pool: [problem], totalSteps: 10, source: 'test', groupSize: 4 };

  it('plans bare prompts; retries only zero-success groups by default, trained on the original prompt', () => {
    const guidance = guidances.get('retry')({}, context);
    expect(guidance.plan([problem], 1)).toEqual([
      { problem, prompt: problem.prompt, prefix: '', guided: false },
    ]);
    const requests = guidance.retry!.plan(1, [
      graded([wrong(), right, wrong(), wrong()]),
      graded([wrong(), wrong(), wrong(), wrong()]),
    ]);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request.group).toBe(1);
    expect(request.samples).toBe(4); // rollout.groupSize
    expect(request.maxReplace).toBe(3); // all failures but one
    expect(request.attempt).toEqual({
      problem,
      prompt: `Previous attempt:\n8+7+0=15\nA:805\nFeedback: answer '835' is wrong; wrong digit 2 from right\nTry again.\n${problem.prompt}`,
      prefix: '',
      guided: true,
      trainPrompt: problem.prompt,
    });
  });

  it('any-failure, shortest, last-line, diagnosis, maxReplace and samples options', () => {
    const guidance = guidances.get('retry')(
      {
        trigger: 'any-failure',
        pick: 'shortest',
        shown: 'last-line',
        feedback: 'diagnosis',
        maxReplace: 1,
        samples: 2,
        template: '{attempt} {feedback}\n{prompt}',
      },
      context,
    );
    const [request] = guidance.retry!.plan(1, [
      graded([right, wrong(), wrong(), right], ['A:825', '1+1=2\n7+7=14\nA:835', '9+9=18\nA:8', 'A:825']),
    ]);
    expect(request.attempt.prompt).toBe(`A:8 3 digits, not 1\n${problem.prompt}`);
    expect(request.maxReplace).toBe(1);
    expect(request.samples).toBe(2);
  });

  it('metrics: the ledger on the first round, retry fraction, pass rate, trained and unlocked', () => {
    const guidance = guidances.get('retry')({}, context);
    guidance.plan([problem, problem], 3);
    const groups = [graded([wrong(), wrong(), wrong(), wrong()]), graded([right, wrong(), wrong(), wrong()])];
    const [request] = guidance.retry!.plan(3, groups);
    guidance.retry!.observe(3, [{ request, rewards: [0, 1, 1, 0], replaced: 2 }]);
    // The step's outcome of the retried group holds the merged rewards; the ledger must see the first round.
    guidance.observe(3, [
      { problem, rewards: [0, 0, 1, 1], advantages: [] },
      { problem, rewards: [1, 0, 0, 0], advantages: [] },
    ]);
    expect(guidance.metrics()).toEqual({
      'guidance/guided_frac': 0.5,
      'guidance/strength': 0,
      'guidance/unlocked': 1, // zero-success first, then the policy's own success in the second group
      'guidance/leak_cut': 0,
      'guidance/leak_dropped': 0,
      'guidance/unguided_pass_rate': 1 / 8,
      'guidance/retry_frac': 0.5,
      'guidance/retry_samples': 4,
      'guidance/retry_trained': 2,
      'guidance/retry_unlocked': 1,
      'guidance/retry_pass_rate': 0.5,
      'guidance/guided_pass_rate': 0.5,
    });
  });

  it('resumes exactly: state survives JSON and a fresh instance reports and retries the same', () => {
    const first = guidances.get('retry')({}, context);
    first.plan([problem], 1);
    const [request] = first.retry!.plan(1, [graded([wrong(), wrong(), wrong(), wrong()])]);
    first.retry!.observe(1, [{ request, rewards: [1, 0, 0, 0], replaced: 1 }]);
    first.observe(1, [{ problem, rewards: [1, 0, 0, 0], advantages: [] }]);
    const saved = JSON.parse(JSON.stringify(first.state()));
    const resumed = guidances.get('retry')({}, context);
    resumed.load(saved);
    expect(resumed.state()).toEqual(first.state());
    const group = graded([wrong('x'), wrong(), wrong(), wrong()]);
    expect(resumed.plan([problem], 2)).toEqual(first.plan([problem], 2));
    expect(resumed.retry!.plan(2, [group])).toEqual(first.retry!.plan(2, [group]));
    expect(resumed.metrics()['guidance/retry_unlocked']).toBe(1);
  });

  it('refuses a template without {prompt} and unknown options', () => {
    expect(() => guidances.get('retry')({ template: '{attempt}' }, context)).toThrow(
      'template must contain {prompt}',
    );
    expect(() => guidances.get('retry')({ tries: 2 }, context)).toThrow(ConfigError);
  });
});
