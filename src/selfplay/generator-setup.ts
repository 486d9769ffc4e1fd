// The frozen self-play generator (`selfPlay.generator: {checkpoint}`): an embedded model loaded from a run
// directory (its best checkpoint), a checkpoint or a model directory, frozen like a teacher and run in
// process (generator rounds are a few dozen short samples). It writes the proposals; the student still
// measures and learns them. A path that is not a checkpoint is a ConfigError naming the field.
import type { PolicyBackend } from '../core/policy.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { configCheckpointModelPath } from '../runs/resolve-checkpoint.ts';
import type { SelfPlayConfig } from './config.ts';

/** The frozen generator, or null when the student writes the problems (or self-play is off). */
export async function buildSelfPlayGenerator(
  block: SelfPlayConfig | undefined,
): Promise<PolicyBackend | null> {
  if (block === undefined || block.generator === 'policy') return null;
  const modelPath = configCheckpointModelPath(block.generator.checkpoint, 'selfPlay.generator.checkpoint');
  return loadEmbeddedPolicy(modelPath, 1);
}
