// The critic's value model on a tiny real transformer: causal values at the log-prob positions, the
// clipped value loss and its gradient against central differences of the loss (float32, h = 3e-3), a step
// that lowers the loss, and a save → load round trip that resumes the same next step.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { stubTokenizer } from '../testing/policy/test-helpers.ts';
import { EmbeddedBackend } from './embedded-backend.ts';
import { ValueModel, type ValueRow, valueHeadFile } from './value-model.ts';

const root = mkdtempSync(join(tmpdir(), 'critic-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A policy checkpoint of a fresh tiny model: the critic's init. */
async function policyCheckpoint(): Promise<string> {
  const dir = join(root, `policy-${Math.random().toString(36).slice(2)}`);
  const backend = await EmbeddedBackend.create(
    { vocabSize: 8, dModel: 16, layers: 1, heads: 2, contextLength: 16 },
    stubTokenizer(8),
    3,
  );
  await backend.save(dir);
  backend.dispose();
  return dir;
}

const rows: ValueRow[] = [
  { tokens: [1, 3, 4, 5, 6, 2], start: 2, returns: [1, 1, 1], oldValues: [0.1, -0.2, 0.3] },
  { tokens: [1, 5, 3, 6, 4], start: 3, returns: [0], oldValues: [0.05] },
];
const options = { learningRate: 1e-2, valueClip: 0.5, gradClip: 0, weightDecay: 0, tokenBudget: 4096 };

describe('ValueModel', () => {
  it('gives one value per log-prob position, each depending only on the tokens up to it', async () => {
    const critic = await ValueModel.load(await policyCheckpoint(), 1);
    const [a, b] = critic.values(
      [
        [1, 3, 4, 5, 6],
        [1, 3, 4, 7, 7],
      ],
      4096,
    );
    expect(a).toHaveLength(4);
    // positions 0–2 see the same prefix (1, 3, 4): the same values; position 3 sees token 5 or 7
    for (let j = 0; j < 3; j++) expect(b[j]).toBe(a[j]);
    expect(b[3]).not.toBe(a[3]);
    critic.dispose();
  });

  it("the value loss's gradient is its derivative (central differences on head and trunk entries)", async () => {
    const critic = await ValueModel.load(await policyCheckpoint(), 1);
    // valueClip large: the unclipped branch everywhere, a smooth loss: ½ · mean over the 4 tokens of (V − R)²
    const { gradients, loss } = critic.lossAndGradients(rows, 100, 4096);
    const predicted = critic.values(
      rows.map((row) => row.tokens),
      4096,
    );
    const squares = rows.flatMap((row, i) =>
      row.returns.map((target, t) => (predicted[i][row.start + t] - target) ** 2),
    );
    expect(loss).toBeCloseTo((0.5 * squares.reduce((sum, value) => sum + value, 0)) / 4, 6);
    const values = critic.trainedValues();
    const h = 3e-3;
    const checks = [
      { name: 'value_head.weight', index: 3 },
      { name: 'value_head.bias', index: 0 },
      { name: 'ln_f.weight', index: 5 },
      { name: 'wte.weight', index: 4 * 16 + 2 },
    ];
    for (const { name, index } of checks) {
      const original = values.get(name)![index];
      const lossAt = (value: number) => {
        critic.setTrainedValue(name, index, value);
        const result = critic.lossAndGradients(rows, 100, 4096);
        for (const gradient of result.gradients.values()) gradient.dispose();
        return result.loss;
      };
      const numeric = (lossAt(original + h) - lossAt(original - h)) / (2 * h);
      critic.setTrainedValue(name, index, original);
      const analytic = (gradients.get(name)!.dataSync() as Float32Array)[index];
      expect(Math.abs(analytic - numeric), `${name}[${index}]: ${analytic} vs ${numeric}`).toBeLessThan(
        5e-3 * Math.abs(numeric) + 2e-5,
      );
    }
    for (const gradient of gradients.values()) gradient.dispose();
    critic.dispose();
  });

  it('clips relative to the old values: a prediction far from them counts as clipped', async () => {
    const critic = await ValueModel.load(await policyCheckpoint(), 1);
    const far: ValueRow[] = [{ tokens: [1, 3, 4, 5], start: 1, returns: [5, 5], oldValues: [4, 4] }];
    // values near 0 lie 4 below the old values: the clipped prediction (3.99…) is nearer the target 5,
    // so the unclipped term is the larger and nothing counts as clipped; targets below them flip it
    expect(critic.lossAndGradients(far, 0.01, 4096).clipfrac).toBe(0);
    const below: ValueRow[] = [{ tokens: [1, 3, 4, 5], start: 1, returns: [-5, -5], oldValues: [4, 4] }];
    const result = critic.lossAndGradients(below, 0.01, 4096);
    expect(result.clipfrac).toBe(1);
    for (const gradient of result.gradients.values()) gradient.dispose();
    critic.dispose();
  });

  it('a few steps lower the loss; save → load resumes the same next step', async () => {
    const critic = await ValueModel.load(await policyCheckpoint(), 1);
    const first = critic.train(rows, options).loss;
    for (let step = 0; step < 5; step++) critic.train(rows, options);
    expect(critic.train(rows, options).loss).toBeLessThan(first);
    const dir = join(root, 'saved');
    critic.save(dir);
    const restored = await ValueModel.load(dir, 999); // the seed is unused: the head is read back
    const next = critic.train(rows, options);
    const again = restored.train(rows, options);
    expect(again.loss).toBe(next.loss);
    expect(restored.values([rows[0].tokens], 4096)).toEqual(critic.values([rows[0].tokens], 4096));
    critic.dispose();
    restored.dispose();
  });

  it('a fresh head is drawn from the seed; a damaged head file is refused naming it', async () => {
    const init = await policyCheckpoint();
    const a = await ValueModel.load(init, 1);
    const b = await ValueModel.load(init, 2);
    expect(a.values([[1, 3, 4]], 4096)).not.toEqual(b.values([[1, 3, 4]], 4096));
    const dir = join(root, 'damaged');
    a.save(dir);
    writeFileSync(join(dir, valueHeadFile), new Uint8Array(new Rng(1).int(1, 5)));
    await expect(ValueModel.load(dir, 1)).rejects.toThrow(/critic checkpoint .*value-head\.safetensors/);
    a.dispose();
    b.dispose();
  });
});
