// The RL config's defaults, as docs/config.md documents them: a partial block keeps the documented
// default of every key it leaves out.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config.ts';
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
});
