// An embedded checkpoint as a judge, served by `curricula serve --openai` (issue 31 items 1 and 6): the
// judge-score reward over /v1/completions with verdict probabilities reads the top log-probabilities the
// server returns, and its expected score equals the one computed here from a direct request for the same
// prompt (independent of the reward's parsing). The model is the demo's cold start, no judge: the point is
// the path (server, client, cache, parser), not the verdict's quality.
import { expect, it } from 'vitest';
import { rewards } from '../src/rewards/index.ts';
import { startServe } from './helpers.ts';

it('judge-score with probabilities against a served embedded checkpoint', async () => {
  const server = await startServe(['--openai', '--checkpoint', 'examples/checkpoints/demo-cold']);
  try {
    const template = 'Grade: {{completion}}\nScore:';
    const reward = rewards.get('judge-score')({
      endpoint: server.url,
      api: 'completions',
      verdict: { type: 'score', min: 0, max: 9 },
      probabilities: true,
      topLogprobs: 5,
      maxTokens: 3,
      template,
    });
    const problem = {
      id: 'p',
      task: 'addition',
      prompt: '1+2\n',
      answer: '3',
      solution: 'A:3',
      category: 'addition',
      difficulty: 1,
      params: {},
    };
    const completion = 'A:3';
    const [result] = await reward.score([{ problem, completion }]);
    await reward.close?.();

    // the same request by hand
    const prompt = `Grade: \`\`\`\n${completion}\n\`\`\`\nScore:`;
    const response = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, max_tokens: 3, temperature: 0, logprobs: 5 }),
    });
    const body = (await response.json()) as {
      choices: { text: string; logprobs: { tokens: string[]; top_logprobs: Record<string, number>[] } }[];
    };
    const { tokens, top_logprobs: top } = body.choices[0].logprobs;
    const at = tokens.findIndex((token) => token.trim() !== '');
    const digits = Object.entries(top[at]).filter(([token]) => /^\d$/.test(token.trim()));
    const mass = digits.reduce((sum, [, logprob]) => sum + Math.exp(logprob), 0);
    if (mass === 0) {
      expect(result.reason).toMatch(
        /^judge verdict malformed: no verdict value among the top log-probabilities/,
      );
      return;
    }
    const expected = digits.reduce(
      (sum, [token, logprob]) => sum + (Math.exp(logprob) / mass) * Number(token.trim()),
      0,
    );
    expect(result.error).toBeUndefined();
    expect(result.reward).toBeCloseTo(expected / 9, 9);
    expect(result.components.judge_prob_mass).toBeCloseTo(Math.min(1, mass), 9);
    expect(result.components.judge_failed).toBe(0);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);
