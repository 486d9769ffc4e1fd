// Writes the training pool a train config draws at a seed (src/training/rl/setup.ts drawPool: the same
// pool every setting of that seed trains on) as a JSONL problem set, for `curricula eval --problem-set`.
//   node --import tsx experiments/ladder-guidance/pool.ts <train config> <seed> <out.jsonl>
import { parseConfig, readConfigFile } from '../../src/core/config.ts';
import { writeProblemSet } from '../../src/tasks/problem-set.ts';
import { rlConfigSchema } from '../../src/training/rl/config.ts';
import { drawPool } from '../../src/training/rl/setup.ts';

const [configPath, seedText, out] = process.argv.slice(2);
if (!configPath || !seedText || !out) {
  console.error('usage: pool.ts <train config> <seed> <out.jsonl>');
  process.exit(2);
}
const raw = readConfigFile(configPath) as Record<string, unknown>;
const config = parseConfig(rlConfigSchema, { ...raw, seed: Number(seedText) }, configPath);
await writeProblemSet(out, drawPool(config));
