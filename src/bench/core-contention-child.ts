// The child process of core-contention.ts: loads a checkpoint in process (one replica, the native engine
// on one thread), runs 2 untimed and then `steps` timed training steps (forwardBackward on half the demo
// batch + AdamW) and prints the timed steps' milliseconds as JSON on stdout.
//   node [--import tsx] core-contention-child.(ts|js) <checkpoint> <steps> <tfjs|native>
import { pathToFileURL } from 'node:url';
import { EmbeddedBackend } from '../policy/embedded-backend.ts';
import { trainEngineSchema } from '../policy/parallel-options.ts';
import { demoBatch } from './demo-batch.ts';

async function main(dir: string, steps: number, engine: unknown): Promise<void> {
  const backend = await EmbeddedBackend.load(dir, {
    maxTokensPerMicroBatch: 2048,
    engine: trainEngineSchema.parse(engine),
    engineThreads: 1,
  });
  const half = demoBatch().slice(0, 64);
  const times: number[] = [];
  for (let step = 0; step < steps + 2; step++) {
    const start = performance.now();
    await backend.forwardBackward(half, 'linear');
    await backend.optimStep({ learningRate: 1e-5 });
    if (step >= 2) times.push(performance.now() - start);
  }
  backend.dispose();
  process.stdout.write(`${JSON.stringify(times)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, steps, engine] = process.argv.slice(2);
  const count = Number(steps);
  if (!dir || !Number.isInteger(count) || count < 1) {
    console.error('usage: core-contention-child <checkpoint> <steps ≥ 1> [tfjs|native]');
    process.exit(2);
  }
  await main(dir, count, engine ?? 'tfjs');
}
