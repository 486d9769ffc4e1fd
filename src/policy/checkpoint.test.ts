import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckpointError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { type CheckpointContents, checkpointFiles, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import { initialParameterValues, parameterSpecs } from './model.ts';
import { decodeSafetensors, encodeSafetensors } from './safetensors.ts';

const root = mkdtempSync(join(tmpdir(), 'curricula-checkpoint-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = { vocabSize: 7, dModel: 4, layers: 1, heads: 2, contextLength: 5 };

function contents(seed: number): CheckpointContents {
  const weights = initialParameterValues(config, new Rng(seed));
  const m = new Map([...weights].map(([name, values]) => [name, values.map((x) => x * 2)]));
  const v = new Map([...weights].map(([name, values]) => [name, values.map((x) => x * x)]));
  return {
    config,
    weights,
    tokenizer: { type: 'stub', vocabSize: 7 },
    tokenizerConfig: { eos_token: 'e' },
    optimizer: { step: 3, m, v },
  };
}

let counter = 0;
function freshDir(): string {
  return join(root, `ckpt-${counter++}`);
}

function expectCheckpointError(dir: string, pattern: RegExp): void {
  expect(() => readCheckpoint(dir)).toThrow(CheckpointError);
  expect(() => readCheckpoint(dir)).toThrow(pattern);
}

describe('checkpoint directories', () => {
  it('round-trips weights, config, tokenizer and Adam state exactly', () => {
    const dir = freshDir();
    const saved = contents(1);
    writeCheckpoint(dir, saved);
    expect(readdirSync(dir).sort()).toEqual(Object.values(checkpointFiles).sort());
    const loaded = readCheckpoint(dir);
    expect(loaded.config).toEqual(config);
    expect(loaded.tokenizer).toEqual(saved.tokenizer);
    expect(loaded.tokenizerConfig).toEqual(saved.tokenizerConfig);
    expect([...loaded.weights.keys()]).toEqual([...saved.weights.keys()]);
    for (const [name, values] of saved.weights) expect(loaded.weights.get(name)).toEqual(values);
    expect(loaded.optimizer?.step).toBe(3);
    expect(loaded.optimizer?.v.get('h.0.mlp.c_fc.weight')).toEqual(
      saved.optimizer?.v.get('h.0.mlp.c_fc.weight'),
    );
  });

  it('replaces an existing checkpoint in one rename and leaves no temporary directories', () => {
    const dir = freshDir();
    writeCheckpoint(dir, contents(1));
    writeCheckpoint(dir, contents(2));
    expect(readCheckpoint(dir).weights.get('wte.weight')).toEqual(contents(2).weights.get('wte.weight'));
    expect(readdirSync(root).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('does not create the directory when writing fails half-way', () => {
    const dir = freshDir();
    const broken = contents(1);
    broken.optimizer?.m.delete('ln_f.bias');
    expect(() => writeCheckpoint(dir, broken)).toThrow(/no Adam state for 'ln_f.bias'/);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(root).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('reads a weights-only checkpoint (no optimizer files) with optimizer null', () => {
    const dir = freshDir();
    writeCheckpoint(dir, { ...contents(1), optimizer: null, tokenizerConfig: undefined });
    expect(readCheckpoint(dir).optimizer).toBeNull();
    expect(readCheckpoint(dir).tokenizerConfig).toBeUndefined();
  });

  it('names the file and the problem for missing or corrupt parts', () => {
    expectCheckpointError(join(root, 'nowhere'), /checkpoint directory .*nowhere does not exist/);
    const damage = (change: (dir: string) => void, pattern: RegExp) => {
      const dir = freshDir();
      writeCheckpoint(dir, contents(1));
      change(dir);
      expectCheckpointError(dir, pattern);
    };
    damage((dir) => rmSync(join(dir, 'model.safetensors')), /model\.safetensors: missing file/);
    damage((dir) => rmSync(join(dir, 'optimizer.json')), /optimizer\.json: missing file/);
    damage((dir) => writeFileSync(join(dir, 'config.json'), '{"format": '), /config\.json: invalid JSON/);
    damage((dir) => writeFileSync(join(dir, 'tokenizer.json'), 'nope'), /tokenizer\.json: invalid JSON/);
    damage(
      (dir) => writeFileSync(join(dir, 'tokenizer_config.json'), '{'),
      /tokenizer_config\.json: invalid JSON/,
    );
    damage((dir) => {
      const path = join(dir, 'model.safetensors');
      const bytes = readFileSync(path);
      writeFileSync(path, bytes.subarray(0, bytes.length - 10));
    }, /model\.safetensors: tensor 'lm_head\.weight' ends at byte \d+ past the \d+-byte data section \(truncated/);
    damage((dir) => {
      const json = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      json.model.dModel = 6;
      writeFileSync(join(dir, 'config.json'), JSON.stringify(json));
    }, /model\.safetensors: tensor 'wte\.weight' has shape \[7,4\], the config needs \[7,6\]/);
    damage((dir) => {
      const json = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
      json.model.heads = 3;
      writeFileSync(join(dir, 'config.json'), JSON.stringify(json));
    }, /config\.json: invalid model config: heads: dModel must be divisible by heads/);
    damage((dir) => {
      const weights = contents(1).weights;
      const renamed = new Map(
        [...weights].map(([name, data]) => [
          name === 'lm_head.weight' ? 'head.weight' : name,
          { shape: [data.length], data },
        ]),
      );
      writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(renamed));
    }, /model\.safetensors: tensor 'wte\.weight' has shape \[28\]/);
    damage((dir) => {
      const spec = contents(1);
      const tensors = new Map(
        [...spec.weights].map(([name, data]) => [name, { shape: shapeOf(name), data }]),
      );
      tensors.delete('lm_head.weight');
      writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tensors));
    }, /model\.safetensors: missing tensor 'lm_head\.weight'/);
    damage(
      (dir) => writeFileSync(join(dir, 'optimizer.json'), '{"formatVersion":1,"step":-1}'),
      /optimizer\.json: step -1/,
    );
  });

  it('refuses NaN or infinite weights and Adam moments at load, naming the tensor', () => {
    const dir = freshDir();
    writeCheckpoint(dir, contents(1));
    patchTensor(join(dir, checkpointFiles.weights), 'h.0.attn.c_attn.weight', [5, 9], Number.NaN);
    expectCheckpointError(
      dir,
      /model\.safetensors: tensor 'h\.0\.attn\.c_attn\.weight' holds 2 non-finite values \(first: NaN at flat index 5\)/,
    );
    const moments = freshDir();
    writeCheckpoint(moments, contents(1));
    patchTensor(
      join(moments, checkpointFiles.optimizerTensors),
      'v.ln_f.bias',
      [0],
      Number.POSITIVE_INFINITY,
    );
    expectCheckpointError(
      moments,
      /optimizer\.safetensors: tensor 'v\.ln_f\.bias' holds 1 non-finite value \(first: Infinity/,
    );
  });

  it('never saves non-finite weights: the write fails and the checkpoint already there stays', () => {
    const dir = freshDir();
    const good = contents(1);
    writeCheckpoint(dir, good);
    const before = readFileSync(join(dir, checkpointFiles.weights));
    const diverged = contents(2);
    diverged.weights.get('ln_f.weight')![3] = Number.NEGATIVE_INFINITY;
    expect(() => writeCheckpoint(dir, diverged)).toThrow(
      /cannot save checkpoint .*: parameter 'ln_f\.weight' holds 1 non-finite value \(first: -Infinity at flat index 3\); training diverged/,
    );
    expect(readFileSync(join(dir, checkpointFiles.weights)).equals(before)).toBe(true);
    expect(readdirSync(join(dir, '..')).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });
});

/** Overwrites values of one tensor in a safetensors file (a checkpoint damaged after it was written). */
function patchTensor(path: string, name: string, indices: number[], value: number): void {
  const { tensors, metadata } = decodeSafetensors(readFileSync(path));
  for (const index of indices) tensors.get(name)!.data[index] = value;
  writeFileSync(path, encodeSafetensors(tensors, metadata));
}

function shapeOf(name: string): number[] {
  return parameterSpecs(config).find((spec) => spec.name === name)!.shape;
}
