// The core-contention ceiling (src/bench/core-contention.ts) on its own, as `bench train` measures it:
//
//   node --import tsx src/bench/scripts/core-contention.ts [checkpointDir] [steps] [tfjs|native]
//
// It prints JSON: ms per step alone and together (medians over the steps of each process), the slowdown,
// the implied speed-up ceiling and the load average before and after.
import { trainEngineSchema } from '../../policy/parallel-options.ts';
import { measureCoreContention } from '../core-contention.ts';

const [checkpoint, steps, engine] = process.argv.slice(2);
const result = await measureCoreContention({
  checkpoint: checkpoint ?? 'examples/checkpoints/demo-cold',
  steps: Number(steps ?? 10),
  engine: trainEngineSchema.parse(engine ?? 'tfjs'),
});
console.log(JSON.stringify(result, null, 2));
