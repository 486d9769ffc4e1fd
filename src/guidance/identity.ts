// No guidance: every attempt is the bare problem. The baseline every scaffold is compared against; it
// keeps the shared guidance metrics (guidance-ledger.ts) so plain GRPO reports the same figures — its
// unguided pass rate and how many zero-success problems it later solved on its own (guidance/unlocked).
import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { defineGuidance } from './define.ts';
import type { Guidance } from './guidance.ts';
import { GuidanceLedger, ledgerStateSchema } from './guidance-ledger.ts';

const optionsSchema = z.strictObject({});

export function createIdentityGuidance(options: unknown): Guidance {
  parseConfig(optionsSchema, options ?? {}, "guidance 'identity' options");
  const ledger = new GuidanceLedger();
  return {
    name: 'identity',
    plan: (problems, step) =>
      ledger.record(
        step,
        problems.map((problem) => ({
          attempt: { problem, prompt: problem.prompt, prefix: '', guided: false },
          strength: 0,
        })),
      ),
    observe(_step, outcomes) {
      ledger.match(outcomes);
    },
    state: () => ledger.state(),
    load(saved) {
      // null: a checkpoint written before identity kept state.
      if (saved === null || saved === undefined) return;
      ledger.load(parseConfig(ledgerStateSchema, saved, "guidance 'identity' saved state"));
    },
    metrics: () => ledger.metrics(),
  };
}

export const identityGuidance = defineGuidance({
  id: 'identity',
  description:
    'no guidance: every attempt is the bare problem (the baseline every scaffold is compared against)',
  optionsSchema: optionsSchema,
  create: createIdentityGuidance,
});
