// train-rm end to end on a real checkpoint (the demo's cold start): preference pairs whose chosen
// completion is the task's worked solution and whose rejected one is a word of letters; a few Bradley–
// Terry steps must order the held-out pairs, and the `reward-model` reward must then score chosen above
// rejected. Pairs files with bad lines are refused with file:line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import { rewards } from '../../rewards/index.ts';
import { headData, headInput, headScores, RM_SUFFIX } from '../../rewards/reward-model/head.ts';
import { tasks } from '../../tasks/index.ts';
import { parsePairs } from './pairs.ts';
import { trainRm } from './train-rm.ts';

const dir = mkdtempSync(join(tmpdir(), 'train-rm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pairsFile(count: number): string {
  const rng = new Rng(4);
  const addition = tasks.get('addition');
  const lines = Array.from({ length: count }, () => {
    const problem = addition.generate(rng, 1 + rng.int(0, 1));
    const word = Array.from({ length: 3 + rng.int(0, 3) }, () => 'abcdefghij'[rng.int(0, 9)]).join('');
    return JSON.stringify({ prompt: problem.prompt, chosen: problem.solution, rejected: `A:${word}` });
  });
  const path = join(dir, 'pairs.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('train-rm', () => {
  it('learns to order held-out pairs, and serves as the reward-model reward', async () => {
    const file = pairsFile(60);
    const result = await trainRm({
      name: 'rm',
      runsDir: dir,
      seed: 1,
      init: { checkpoint: 'examples/checkpoints/demo-cold' },
      pairs: { file, heldOutFraction: 0.25 },
      train: { steps: 12, batchSize: 8, learningRate: 0.002 },
      evalEvery: 6,
    });
    expect(result.heldOutPairs).toBeGreaterThan(5);
    expect(result.trainPairs + result.heldOutPairs).toBe(60);
    expect(result.heldOutAccuracy).toBeGreaterThanOrEqual(0.9);
    const metrics = readFileSync(join(result.runDir, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(metrics).toHaveLength(12);
    expect(metrics[11].loss).toBeLessThan(metrics[0].loss);

    const reward = rewards.get('reward-model')({
      checkpoint: join(result.runDir, 'model'),
      output: 'probability',
    });
    const problem = { ...tasks.get('addition').generate(new Rng(99), 2) };
    const [chosen, rejected, long] = await reward.score([
      { problem, completion: problem.solution },
      { problem, completion: 'A:cabbage' },
      { problem, completion: 'x'.repeat(500) },
    ]);
    await reward.close?.();
    expect(chosen.reward).toBeGreaterThan(rejected.reward);
    expect(chosen.reward).toBeGreaterThan(0);
    expect(chosen.reward).toBeLessThan(1);
    // the task verifier's verdict rides along as the gold (never the reward)
    expect(chosen.components.gold_correct).toBe(1);
    expect(rejected.components.gold_correct).toBe(0);
    expect(reward.usesJudge).toBe(true);
    expect(long).toMatchObject({ reward: 0, error: true });
    expect(long.reason).toMatch(/do not fit the reward model's context \(128\)/);
  }, 120_000);

  it('the head is log p(Y) − log p(N) after the RM suffix (checked against a direct forward pass)', async () => {
    const policy = await loadEmbeddedPolicy('examples/checkpoints/demo-cold', 1);
    const input = headInput(policy.tokenizer, policy.contextLength, '12+7\n', 'A:19');
    expect(policy.tokenizer.decode(input!.slice(1))).toBe(`12+7\nA:19${RM_SUFFIX}`);
    const [score] = await headScores(policy, [input!]);
    const [withY, withN] = await policy.forward([
      [...input!, ...policy.tokenizer.encode('Y')],
      [...input!, ...policy.tokenizer.encode('N')],
    ]);
    expect(score).toBeCloseTo(withY[withY.length - 1] - withN[withN.length - 1], 9);
    // the gradient data: +w on Y, −w on N, at the last position only
    const data = headData(policy.tokenizer, input!, 0.25);
    expect(data.map((datum) => datum.weights.filter((w) => w !== 0))).toEqual([[0.25], [-0.25]]);
    expect(data.map((datum) => datum.weights[datum.weights.length - 1])).toEqual([0.25, -0.25]);
  });

  it('refuses bad pairs files and an existing run directory', async () => {
    expect(() => parsePairs('{"prompt": "p", "chosen": "a", "rejected": "a"}\n', 'f.jsonl')).toThrow(
      /f\.jsonl:1: chosen equals rejected/,
    );
    expect(() => parsePairs('\n{"prompt": "p", "chosen": 3, "rejected": "a"}', 'f.jsonl')).toThrow(
      /f\.jsonl:2: 'chosen' must be a string/,
    );
    expect(() => parsePairs('[1]', 'f.jsonl')).toThrow(/f\.jsonl:1: expected an object/);
    expect(() => parsePairs('{oops', 'f.jsonl')).toThrow(/f\.jsonl:1: not JSON/);
    expect(() => parsePairs('\n\n', 'f.jsonl')).toThrow(/no preference pairs/);
    const config = {
      name: 'rm',
      runsDir: dir,
      init: { checkpoint: 'examples/checkpoints/demo-cold' },
      pairs: { file: pairsFile(4) },
      train: { steps: 1, learningRate: 0.001 },
    };
    await expect(trainRm(config)).rejects.toThrow(/exists; choose another name/);
    await expect(
      trainRm({ ...config, name: 'other', pairs: { file: join(dir, 'missing.jsonl') } }),
    ).rejects.toThrow(/cannot read .*missing\.jsonl: ENOENT/);
  });
});
