// Speed of the fused native kernels (native-fused.ts) in the base train step: forwardBackward + AdamW
// (weight decay and clipping on) on 8 sequences of 128 tokens with `curricula bench policy`'s base model
// (d128, 4 layers), fused kernels on and off alternately in one process (the native matmuls stay on),
// medians. Run:
//
//   node --import tsx src/bench/scripts/fused-speed.ts [rounds]
//
// It prints wall and CPU milliseconds (process.cpuUsage: the step runs on one thread) for the
// forward-backward half, the optimizer and the whole step, with the load average: on a shared machine the
// wall times say little and the CPU times are the figures to compare.
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Rng } from '../../core/rng.ts';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { nativeFusedActive, setNativeFused } from '../../policy/native-fused.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { policyBenchConfigs } from '../policy-bench-configs.ts';

interface StepTimes {
  wall: { forwardBackward: number; optimizer: number; step: number };
  cpu: { forwardBackward: number; optimizer: number; step: number };
}

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median times of `rounds` steps with the fused kernels on and `rounds` with them off, alternating. */
export async function measureFusedSpeed(rounds: number): Promise<{ on: StepTimes; off: StepTimes }> {
  const config = policyBenchConfigs.base;
  const tokenizer = new CharTokenizer(
    Array.from({ length: config.vocabSize - 3 }, (_, i) => String.fromCharCode(0x21 + i)),
  );
  const backend = await EmbeddedBackend.create(config, tokenizer, 1);
  const rng = new Rng(7);
  const data = Array.from({ length: 8 }, () => ({
    tokens: Array.from({ length: config.contextLength }, () => rng.int(0, config.vocabSize - 1)),
    weights: new Array<number>(config.contextLength - 1).fill(1),
  }));
  const step = async () => {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    await backend.forwardBackward(data, 'cross_entropy');
    const middle = performance.now();
    const middleCpu = process.cpuUsage();
    await backend.optimStep({ learningRate: 1e-3, weightDecay: 0.01, gradClip: 1 });
    const end = performance.now();
    const endCpu = process.cpuUsage();
    return {
      wall: [middle - start, end - middle],
      cpu: [cpuMs(middleCpu) - cpuMs(startCpu), cpuMs(endCpu) - cpuMs(middleCpu)],
    };
  };
  const runs = {
    on: [] as Awaited<ReturnType<typeof step>>[],
    off: [] as Awaited<ReturnType<typeof step>>[],
  };
  try {
    for (const on of [true, false, true, false]) {
      setNativeFused(on);
      await step(); // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      for (const on of [true, false]) {
        setNativeFused(on);
        runs[on ? 'on' : 'off'].push(await step());
      }
    }
  } finally {
    setNativeFused(true);
    backend.dispose();
  }
  const summary = (list: Awaited<ReturnType<typeof step>>[]): StepTimes => {
    const of = (kind: 'wall' | 'cpu') => ({
      forwardBackward: median(list.map((run) => run[kind][0])),
      optimizer: median(list.map((run) => run[kind][1])),
      step: median(list.map((run) => run[kind][0] + run[kind][1])),
    });
    return { wall: of('wall'), cpu: of('cpu') };
  };
  return { on: summary(runs.on), off: summary(runs.off) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rounds = Number(process.argv[2] ?? 9);
  const loadBefore = loadavg()[0];
  const result = await measureFusedSpeed(rounds);
  if (!nativeFusedActive())
    console.log('fused kernels inactive (no addon, or CURRICULA_NATIVE=0): both rows are tfjs');
  const format = (times: StepTimes['wall']) =>
    `forward+backward ${times.forwardBackward.toFixed(1)}, optimizer ${times.optimizer.toFixed(1)}, step ${times.step.toFixed(1)}`;
  for (const [label, times] of Object.entries(result)) {
    console.log(`fused ${label.padEnd(3)} wall ms: ${format(times.wall)}`);
    console.log(`fused ${label.padEnd(3)} CPU ms:  ${format(times.cpu)}`);
  }
  console.log(
    `${rounds} alternating rounds, medians; load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
}
