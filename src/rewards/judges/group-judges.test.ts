// The group judges (RULER ranking, pairwise preference) against a scripted judge: one call per group (or
// per pair), scores mapped back to the batch's inputs in any order, failures failing the whole group.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../core/problem.ts';
import type { RewardInput } from '../../core/reward.ts';
import { scriptedJudge } from '../../testing/rewards/scripted-judge.ts';
import { createPairwiseReward } from './pairwise.ts';
import { createRankingReward } from './ranking.ts';

const problem = (id: string): Problem => ({
  id,
  task: 'constraints',
  prompt: `task ${id}\n`,
  answer: 'ref',
  solution: 'A:ref',
  category: 'c',
  difficulty: 1,
  params: {},
});
const endpoint = { endpoint: 'http://judge.test:8000', maxRetries: 0 };

/** A batch of two groups, the inputs interleaved (the reward must not rely on order). */
function batch(): RewardInput[] {
  const g1 = ['alpha', 'beta', 'alpha'];
  const g2 = ['gamma', 'delta'];
  const p1 = problem('p1');
  const p2 = problem('p2');
  return [
    { problem: p1, completion: 'alpha', group: g1 },
    { problem: p2, completion: 'delta', group: g2 },
    { problem: p1, completion: 'beta', group: g1 },
    { problem: p2, completion: 'gamma', group: g2 },
    { problem: p1, completion: 'alpha', group: g1 },
  ];
}

describe('judge-ranking (RULER)', () => {
  it('one call per group; each member gets its own score', async () => {
    const { fetch, calls } = scriptedJudge((prompt) =>
      prompt.includes('task p1')
        ? 'Thinking...\n{"scores": [{"id": 1, "explanation": "ok", "score": 0.9}, {"id": 2, "explanation": "meh", "score": 0.2}, {"id": 3, "explanation": "ok", "score": 0.7}]}'
        : '```json\n{"scores": [{"id": 2, "score": 1}, {"id": 1, "score": 0}]}\n```',
    );
    const results = await createRankingReward(endpoint, { fetch }).score(batch());
    expect(calls).toHaveLength(2);
    expect(results.map((result) => result.reward)).toEqual([0.9, 1, 0.2, 0, 0.7]);
    const prompt = (calls[0].body.messages as { content: string }[])[0].content;
    expect(prompt).toContain('Response 1:\n```\nalpha\n```\n\nResponse 2:\n```\nbeta\n```');
    // usage shared over the group's 3 members
    expect(results[0].components.judge_prompt_tokens).toBeCloseTo(100 / 3, 12);
  });

  it('a verdict missing a member, out of range or not JSON fails the whole group with the policy', async () => {
    const replies: Record<string, string> = {
      p1: '{"scores": [{"id": 1, "score": 0.9}, {"id": 2, "score": 0.2}]}',
      p2: '{"scores": [{"id": 1, "score": 1.5}, {"id": 2, "score": 0}]}',
    };
    const { fetch } = scriptedJudge((prompt) => replies[prompt.includes('task p1') ? 'p1' : 'p2']);
    const results = await createRankingReward(endpoint, { fetch }).score(batch());
    expect(results.every((result) => result.error && result.failure?.policy === 'drop-group')).toBe(true);
    expect(results[0].reason).toBe('judge verdict malformed: 2 of 3 responses scored');
    expect(results[1].reason).toBe('judge verdict malformed: response 1: score 1.5 is not in [0, 1]');
  });
});

describe('judge-pairwise', () => {
  it('win rates over every pair in both orders; an inconsistent pair counts half', async () => {
    // the judge always prefers the longer response, but for the pair (gamma, delta) it always says A
    const { fetch, calls } = scriptedJudge((prompt) => {
      const [a, b] = [...prompt.matchAll(/```\n(.*)\n```/g)].map((match) => match[1]);
      if ([a, b].includes('gamma')) return 'Preference: A';
      return a.length === b.length ? 'Preference: tie' : `Preference: ${a.length > b.length ? 'A' : 'B'}`;
    });
    const results = await createPairwiseReward(endpoint, { fetch }).score(batch());
    expect(calls).toHaveLength(3 * 2 + 1 * 2);
    // group 1: alpha(5) beta(4) alpha(5): each alpha beats beta twice and ties the other alpha twice:
    // (2 + 1) / 4; beta loses all 4: 0
    expect(results.map((result) => result.reward)).toEqual([0.75, 0.5, 0, 0.5, 0.75]);
  });

  it('one order only when asked; a pair without a preference fails the group', async () => {
    const one = scriptedJudge(() => 'Preference: B');
    const results = await createPairwiseReward(
      { ...endpoint, bothOrders: false },
      { fetch: one.fetch },
    ).score(batch());
    expect(one.calls).toHaveLength(3 + 1);
    // group 2 asked (gamma, delta) once: B = delta wins
    expect(results[1].reward).toBe(1);
    const bad = scriptedJudge(() => 'They are both fine.');
    const [failed] = await createPairwiseReward(endpoint, { fetch: bad.fetch }).score(batch());
    expect(failed.reason).toBe("judge verdict malformed: pair 1/2: no 'Preference: A|B|tie' line");
  });
});
