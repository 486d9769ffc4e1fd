// `curricula bench policy --roofline`: how far each phase of the embedded policy is from what this
// machine's arithmetic can do. Measures peak float32 matrix-product rates — tfjs-wasm (the runtime the
// policy uses) at the model's own shapes, and OpenBLAS sgemm through PyTorch on one thread and on every
// core when torch is installed — and divides each phase's analytic FLOPs (flops.ts) by its measured
// time. A compute roofline only: memory bandwidth is not measured.
import type { ModelConfig } from '../policy/model-config.ts';
import { tf } from '../policy/runtime.ts';
import type { TrainStepFlops } from './flops.ts';
import { median } from './median.ts';
import { type TorchCell, type TorchRunner, torchChildEnv } from './torch-sweep.ts';

/** One matrix product [m,k]@[k,n] (operands stored transposed where the flags say so). */
export interface MatmulShape {
  label: string;
  m: number;
  k: number;
  n: number;
  transposeA: boolean;
  transposeB: boolean;
}

export interface MatmulRate extends MatmulShape {
  medianMs: number;
  gflops: number;
}

/**
 * The products that dominate a training step and a decode step at this size, N = batch·(T−1) rows:
 * the MLP's up-projection forward, its two backward products (input gradient with Wᵀ, weight gradient
 * with Xᵀ), and the decode step's up-projection at the sampling batch.
 */
export function modelMatmulShapes(
  config: ModelConfig,
  trainBatch: number,
  sampleBatch: number,
): MatmulShape[] {
  const d = config.dModel;
  const rows = trainBatch * (config.contextLength - 1);
  return [
    {
      label: `forward X·W [${rows},${d}]@[${d},${4 * d}]`,
      m: rows,
      k: d,
      n: 4 * d,
      transposeA: false,
      transposeB: false,
    },
    {
      label: `backward dY·Wᵀ [${rows},${4 * d}]@[${4 * d},${d}]`,
      m: rows,
      k: 4 * d,
      n: d,
      transposeA: false,
      transposeB: true,
    },
    {
      label: `backward Xᵀ·dY [${d},${rows}]@[${rows},${4 * d}]`,
      m: d,
      k: rows,
      n: 4 * d,
      transposeA: true,
      transposeB: false,
    },
    {
      label: `decode x·W [${sampleBatch},${d}]@[${d},${4 * d}]`,
      m: sampleBatch,
      k: d,
      n: 4 * d,
      transposeA: false,
      transposeB: false,
    },
  ];
}

/** Times tf.matMul at each shape (result read back), median of `repeats` after one warm-up. */
export function measureWasmMatmuls(shapes: readonly MatmulShape[], repeats: number): MatmulRate[] {
  return shapes.map((shape) => {
    const a = shape.transposeA ? tf.randomNormal([shape.k, shape.m]) : tf.randomNormal([shape.m, shape.k]);
    const b = shape.transposeB ? tf.randomNormal([shape.n, shape.k]) : tf.randomNormal([shape.k, shape.n]);
    const flops = 2 * shape.m * shape.k * shape.n;
    const product = () => {
      const result = tf.matMul(a, b, shape.transposeA, shape.transposeB);
      result.dataSync();
      result.dispose();
    };
    product();
    // Several products per timed repeat so that each repeat lasts ≥ ~20 ms at 20 GFLOP/s.
    const inner = Math.max(1, Math.round(4e8 / flops));
    const runsMs: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const start = performance.now();
      for (let j = 0; j < inner; j++) product();
      runsMs.push((performance.now() - start) / inner);
    }
    a.dispose();
    b.dispose();
    const medianMs = median(runsMs);
    return { ...shape, medianMs, gflops: flops / medianMs / 1e6 };
  });
}

export interface BlasPeak extends TorchCell {
  /** 'm,k,n' → GFLOP/s. */
  shapes: { m: number; k: number; n: number; gflops: number }[];
  /** The best of the shapes. */
  gflops: number;
}

export interface BlasPeaks {
  oneThread: BlasPeak | null;
  /** null on a one-core machine or when the run failed. */
  allCores: BlasPeak | null;
  errors: string[];
}

/**
 * OpenBLAS sgemm through torch.mm at each config's forward shape and at 1024³, on one thread and on all
 * `cores` (both pools set to the same count); null entries when a run fails.
 */
export function measureBlasPeaks(
  runner: TorchRunner,
  configs: readonly ModelConfig[],
  trainBatch: number,
  cores: number,
  repeats: number,
  parentEnv: NodeJS.ProcessEnv = process.env,
): BlasPeaks {
  const shapes = [
    ...configs.map(
      (config) => `${trainBatch * (config.contextLength - 1)},${config.dModel},${4 * config.dModel}`,
    ),
    '1024,1024,1024',
  ].join(';');
  const args = ['--mode', 'gemm', '--shapes', shapes, '--warmup', '1', '--repeats', String(repeats)];
  const errors: string[] = [];
  const peak = (threads: number): BlasPeak | null => {
    const cell = { torchThreads: threads, blasThreads: threads };
    const output = runner([...args, '--threads', String(threads)], torchChildEnv(parentEnv, cell));
    if (typeof output === 'string' || !Array.isArray(output.shapes)) {
      errors.push(typeof output === 'string' ? output : 'torch gemm printed no shapes');
      return null;
    }
    const rates = output.shapes as BlasPeak['shapes'];
    return { ...cell, shapes: rates, gflops: Math.max(...rates.map((rate) => rate.gflops)) };
  };
  return { oneThread: peak(1), allCores: cores > 1 ? peak(cores) : null, errors };
}

export type Phase = 'forward' | 'backward' | 'forward+backward' | 'optimizer' | 'train step' | 'sampling';

/**
 * The faster of the one-thread and all-core OpenBLAS rates: on a busy machine a second thread can make
 * sgemm slower, and the roofline's ceiling is what the machine delivered, not what it would idle.
 */
export function bestBlasPeak(peaks: BlasPeaks): BlasPeak | null {
  const measured = [peaks.oneThread, peaks.allCores].filter((peak): peak is BlasPeak => peak !== null);
  return measured.reduce<BlasPeak | null>(
    (best, peak) => (best && best.gflops >= peak.gflops ? best : peak),
    null,
  );
}

export interface PhaseRoofline {
  phase: Phase;
  flops: number;
  medianMs: number;
  gflops: number;
  /** Achieved / the tfjs-wasm peak measured here. */
  fractionOfWasmPeak: number;
  /** Achieved / the best OpenBLAS rate measured (bestBlasPeak), or null when not measured. */
  fractionOfBlasPeak: number | null;
}

/** Achieved GFLOP/s and fractions of the peaks for each phase (pure; times in ms). */
export function phaseRooflines(
  phases: { phase: Phase; flops: number; medianMs: number }[],
  wasmPeakGflops: number,
  blasPeakGflops: number | null,
): PhaseRoofline[] {
  return phases.map(({ phase, flops, medianMs }) => {
    const gflops = flops / medianMs / 1e6;
    return {
      phase,
      flops,
      medianMs,
      gflops,
      fractionOfWasmPeak: gflops / wasmPeakGflops,
      fractionOfBlasPeak: blasPeakGflops === null ? null : gflops / blasPeakGflops,
    };
  });
}

/**
 * The phases from the measured medians (ms): backward is forward+backward minus the forward-only pass
 * (tfjs computes the forward again inside variableGrads); the train step is the whole step.
 */
export function rooflinePhases(
  flops: TrainStepFlops,
  times: { forward: number | null; forwardBackward: number; optimizer: number },
  trainStepMs: number,
  sampling: { flops: number; medianMs: number },
): { phase: Phase; flops: number; medianMs: number }[] {
  // times.forward null: the training pass does not run the timed forward (policy.engine native runs
  // forwardBackward in native/model.c, forward in tfjs), so the pass is one phase.
  const pass =
    times.forward === null
      ? [
          {
            phase: 'forward+backward' as const,
            flops: flops.forward + flops.backward,
            medianMs: times.forwardBackward,
          },
        ]
      : [
          { phase: 'forward' as const, flops: flops.forward, medianMs: times.forward },
          {
            phase: 'backward' as const,
            flops: flops.backward,
            medianMs: Math.max(1e-3, times.forwardBackward - times.forward),
          },
        ];
  return [
    ...pass,
    { phase: 'optimizer', flops: flops.optimizer, medianMs: times.optimizer },
    { phase: 'train step', flops: flops.forward + flops.backward + flops.optimizer, medianMs: trainStepMs },
    { phase: 'sampling', flops: sampling.flops, medianMs: sampling.medianMs },
  ];
}
