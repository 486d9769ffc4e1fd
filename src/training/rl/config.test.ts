// The RL config's defaults, as docs/config.md documents them: a partial block keeps the documented
// default of every key it leaves out.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config.ts';
import { pretrainConfigSchema } from '../pretrain-config.ts';
import { rlConfigSchema } from './config.ts';

const minimal = {
  tasks: [{ task: 'addition', difficulties: [1] }],
  train: { steps: 1, learningRate: 0.001 },
};

describe('rlConfigSchema', () => {
  it('evaluates every 20 steps with 4 samples at temperature 1 when eval is not given', () => {
    expect(parseConfig(rlConfigSchema, minimal, 'x.yaml').eval).toEqual({
      every: 20,
      problemsPerDifficulty: 50,
      samples: 4,
      temperature: 1,
    });
  });

  it('merges a partial eval block with those defaults, key by key', () => {
    const parse = (block: object) => parseConfig(rlConfigSchema, { ...minimal, eval: block }, 'x.yaml').eval;
    expect(parse({ every: 5 })).toEqual({ every: 5, problemsPerDifficulty: 50, samples: 4, temperature: 1 });
    expect(parse({ samples: 2 })).toEqual({
      every: 20,
      problemsPerDifficulty: 50,
      samples: 2,
      temperature: 1,
    });
    expect(parse({ temperature: 0, samples: 1 })).toMatchObject({ every: 20, samples: 1, temperature: 0 });
    expect(() => parse({ samples: 0 })).toThrow(/x\.yaml: eval\.samples/);
  });

  it.each([
    ['train', rlConfigSchema],
    ['pretrain', pretrainConfigSchema],
  ] as const)('%s: an empty block at any path gives the same config as no block', (_, schema) => {
    const full = parseConfig(schema, minimal, 'x.yaml') as Record<string, unknown>;
    const blockPaths = (value: unknown, path: string[]): string[][] =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? [path, ...Object.entries(value).flatMap(([key, inner]) => blockPaths(inner, [...path, key]))]
        : [];
    const paths = blockPaths(full, []).filter(
      (path) => path.length > 0 && !['train', 'tasks', 'model'].includes(path[0]),
    );
    expect(paths.map((path) => path.join('.'))).toContain('eval');
    for (const path of paths) {
      const config: Record<string, unknown> = structuredClone(minimal);
      let parent = config;
      for (const key of path.slice(0, -1)) {
        parent[key] ??= {};
        parent = parent[key] as Record<string, unknown>;
      }
      parent[path[path.length - 1]] = {};
      expect([path.join('.'), parseConfig(schema, config, 'x.yaml')]).toEqual([path.join('.'), full]);
    }
  });
});
