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
  /**
   * Remote backends: a local directory holding the remote model's tokenizer (tokenizer.json, and for
   * chat models tokenizer_config.json with its chat template); default: the init checkpoint's.
   */
  tokenizer: z.string().min(1).optional(),
  /** Remote backends: raw = [BOS] + prompt (default); chat = the model's chat template (needs tokenizer). */
  promptFormat: z.enum(['raw', 'chat']).optional(),
  /** With promptFormat chat: extra chat-template variables, e.g. {enable_thinking: false} (Qwen3). */
  chatTemplateVariables: z.record(z.string(), z.unknown()).optional(),
});

export type RlPolicyBlock = z.output<typeof rlPolicyBlockSchema>;
