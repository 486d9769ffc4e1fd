// Absolute paths of the checkpoints shipped with the package (examples/checkpoints/), so a script can
// start from one without knowing where the package is installed: `init: {checkpoint: checkpoints.demoCold}`.
// Resolved from this file's URL: src/api/ (sources) and dist/api/ (the compiled package) both lie two
// levels below the package root.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The shipped checkpoints (model directories, each with model.safetensors, config and tokenizer). */
export const checkpoints = {
  /** The demo's cold start: a small model pretrained on 1-4 digit addition (examples/demo-pretrain.yaml). */
  demoCold: `${root}examples/checkpoints/demo-cold`,
  /** The edge-of-competence ladder's cold start: the base model, 1-6 digit addition (docs/ladder.md). */
  ladderCold: `${root}examples/checkpoints/ladder-cold`,
} as const;
