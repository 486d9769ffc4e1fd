import { describe, expect, it } from 'vitest';
import { comparisonMarkdown } from './eval-comparison.ts';
import { configSection, fence, rewardErrorsSection, samplesSection } from './markdown.ts';

describe('report Markdown pieces', () => {
  it('shows the first n samples, clips long text and drops trailing newlines', () => {
    const samples = [
      {
        problemId: 'p1',
        prompt: '1+1\n\n',
        completion: 'x'.repeat(12),
        reward: 0.5,
        reason: 'partly\nright',
      },
      { problemId: 'p2', prompt: 'b', completion: 'c', reward: 1 },
    ];
    const text = samplesSection(7, samples, { count: 1, maxChars: 10 });
    expect(text).toBe(
      [
        '## Sample completions (step 7)',
        '',
        '1 of the 2 completions logged at this step.',
        '',
        '### 1. `p1` — reward 0.500 — partly right',
        '',
        'Prompt:',
        '',
        '```text\n1+1\n```',
        '',
        'Completion:',
        '',
        '```text\nxxxxxxxxxx… (2 more characters)\n```',
      ].join('\n'),
    );
  });

  it('sums reward errors per reason over steps, most frequent first, and is empty without errors', () => {
    expect(rewardErrorsSection([])).toBe('');
    const text = rewardErrorsSection([
      { step: 1, reason: 'reward error: timeout', count: 1 },
      { step: 1, reason: 'reward was NaN', count: 2 },
      { step: 3, reason: 'reward was NaN', count: 3 },
      { step: 3, reason: 'reward error: a|b', count: 1 },
    ]);
    expect(text).toBe(
      [
        '## Reward errors',
        '',
        '7 completions in 2 steps could not be graded and scored 0 (metric reward/errors; every reason is in run.sqlite, table reward_errors).',
        '',
        '| reason | completions | steps |',
        '| :-- | --: | --: |',
        '| reward was NaN | 5 | 2 |',
        '| reward error: a\\|b | 1 | 1 |',
        '| reward error: timeout | 1 | 1 |',
      ].join('\n'),
    );
  });

  it('collapses the config as YAML and redacts credentials', () => {
    const text = configSection({
      name: 'r',
      backend: { url: 'http://localhost:8000/v1', apiKey: 'sk-123', maxTokens: 64 },
      teachers: [{ client_secret: 'x', password: '' }],
    });
    expect(text).toContain(
      '<details>\n<summary>Resolved config (config.json)</summary>\n\n```yaml\nname: r\n',
    );
    expect(text).toContain('apiKey: <redacted>');
    expect(text).toContain('maxTokens: 64');
    expect(text).toContain('client_secret: <redacted>');
    expect(text).not.toContain('sk-123');
    expect(text.endsWith('```\n\n</details>')).toBe(true);
  });

  it('fences text with a fence longer than any backtick run in it', () => {
    expect(fence('a ```` b', 'text')).toBe('`````text\na ```` b\n`````');
    expect(fence('plain', 'yaml')).toBe('```yaml\nplain\n```');
  });

  it('writes — for missing values, rounds tiny changes to 0.000, and escapes | in task names', () => {
    const table = comparisonMarkdown({
      beforeStep: 0,
      afterStep: 10,
      k: 1,
      rows: [
        { task: 'a|b', difficulty: '1', pass1Before: 0.2, pass1After: 0.20004 },
        { task: 'c', difficulty: '2', pass1After: 0.5 },
      ],
    });
    expect(table.split('\n')).toEqual([
      '| task | difficulty | pass@1 step 0 | pass@1 step 10 | change |',
      '| :-- | :-- | --: | --: | --: |',
      '| a\\|b | 1 | 0.200 | 0.200 | 0.000 |',
      '| c | 2 | — | 0.500 | — |',
    ]);
  });
});
