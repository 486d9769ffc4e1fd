// The `policy` block of the train (RL) config: the embedded policy's settings (parallel-options.ts) plus
// which PolicyBackend runs it. `backend` has no default, so a config without it resolves (and is stored
// in the run) exactly as before; its names are checked against the registry in policy-backends.ts.
// Pretrain keeps the embedded-only block: it trains the local model and has no remote backend.
import { z } from 'zod';
import { tinkerClientOptionsSchema } from '../backends/tinker/client/options.ts';
import { policyBlockSchema } from '../policy/parallel-options.ts';

export const rlPolicyBlockSchema = policyBlockSchema.extend({
  /** absent = 'embedded' (in process / worker threads); 'tinker' = a Tinker-compatible service. */
  backend: z.string().optional(),
  /**
   * Options of the Tinker client (src/backends/tinker/client/options.ts). The API key comes from the
   * environment (TINKER_API_KEY) only, so it is never written into a run's stored config.
   */
  tinker: tinkerClientOptionsSchema.omit({ apiKey: true }).optional(),
});

export type RlPolicyBlock = z.output<typeof rlPolicyBlockSchema>;
