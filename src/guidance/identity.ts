// No guidance: every attempt is the bare problem. The baseline every scaffold is compared against.
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import type { Guidance } from './guidance.ts';

const optionsSchema = z.strictObject({});

export function createIdentityGuidance(options: unknown): Guidance {
  parseConfig(optionsSchema, options ?? {}, "guidance 'identity' options");
  return {
    name: 'identity',
    plan: (problems) =>
      problems.map((problem) => ({ problem, prompt: problem.prompt, prefix: '', guided: false })),
    observe() {},
    state: () => null,
    load() {},
    metrics: () => ({ 'guidance/guided_frac': 0 }),
  };
}
