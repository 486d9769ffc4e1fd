// An RL config with every default of the current schema filled in; any other config (pretrain, or one
// that does not parse) as written. `curricula compare` and the dashboard group runs by these configs.
import { rlConfigSchema } from './config.ts';

export function withRlDefaults(config: unknown): unknown {
  const parsed = rlConfigSchema.safeParse(config);
  return parsed.success ? parsed.data : config;
}
