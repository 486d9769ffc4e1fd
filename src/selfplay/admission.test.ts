import { describe, expect, it } from 'vitest';
import { bandVerdict, generatorReward } from './admission.ts';
import { selfPlaySchema } from './config.ts';

const band = { minPass: 0.25, maxPass: 0.75, samples: 8 };

describe('admission band', () => {
  it('admits exactly the pass rates inside [minPass, maxPass], edges included', () => {
    const verdicts = Array.from({ length: 9 }, (_, passes) => bandVerdict(passes, 8, band));
    expect(verdicts).toEqual([
      'too-hard',
      'too-hard',
      'admitted',
      'admitted',
      'admitted',
      'admitted',
      'admitted',
      'too-easy',
      'too-easy',
    ]);
    expect(() => bandVerdict(9, 8, band)).toThrow(RangeError);
    expect(() => bandVerdict(0, 0, band)).toThrow(RangeError);
  });

  it('hard-but-solvable peaks at the band centre, is positive inside, 0 outside or when rejected', () => {
    expect(generatorReward('hard-but-solvable', 0.5, band)).toBe(1);
    expect(generatorReward('hard-but-solvable', 0.25, band)).toBeCloseTo(0.2);
    expect(generatorReward('hard-but-solvable', 0.75, band)).toBeCloseTo(0.2);
    expect(generatorReward('hard-but-solvable', 0.375, band)).toBeGreaterThan(
      generatorReward('hard-but-solvable', 0.25, band),
    );
    expect(generatorReward('hard-but-solvable', 0.2, band)).toBe(0);
    expect(generatorReward('hard-but-solvable', 0.8, band)).toBe(0);
    expect(generatorReward('hard-but-solvable', 0, band)).toBe(0);
    expect(generatorReward('hard-but-solvable', 1, band)).toBe(0);
    expect(generatorReward('hard-but-solvable', null, band)).toBe(0);
    expect(generatorReward('admitted', 0.7, band)).toBe(1);
  });
});

describe('selfPlay config', () => {
  it('is off when absent, takes the defaults when empty, and rejects unknown keys and an inverted band', () => {
    expect(selfPlaySchema.parse(undefined)).toBeUndefined();
    expect(selfPlaySchema.parse({})).toMatchObject({
      every: 10,
      proposals: 8,
      generator: 'policy',
      admit: { minPass: 0.2, maxPass: 0.8, samples: 8 },
      reward: 'hard-but-solvable',
      poolLimit: 256,
    });
    expect(selfPlaySchema.parse({ generator: { checkpoint: 'runs/x' } })?.generator).toEqual({
      checkpoint: 'runs/x',
    });
    expect(selfPlaySchema.safeParse({ evry: 3 }).success).toBe(false);
    expect(selfPlaySchema.safeParse({ admit: { minPass: 0.9, maxPass: 0.1 } }).success).toBe(false);
  });
});
