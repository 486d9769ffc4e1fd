// Human-readable report of `curricula bench policy` (the --json output is the PolicyBenchResult itself).
import {
  fmt,
  type PolicyBenchConfigResult,
  type PolicyBenchResult,
  type PolicyBenchWorkersResult,
} from './policy-bench.ts';
import { bestBlasPeak } from './roofline.ts';
import type { TorchSweep } from './torch-sweep.ts';

const ratio = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);
const best = (sweep: TorchSweep | null, key: 'tokensPerSecond' | 'tokensPerCpuSecond') =>
  sweep?.best ? fmt(sweep.best.measurement[key]) : '—';

const workersLabel = (run: PolicyBenchWorkersResult) =>
  `${run.workers} worker${run.workers === 1 ? '' : 's'}` +
  (run.engineThreads === null ? '' : ` × ${run.engineThreads} thread${run.engineThreads === 1 ? '' : 's'}`);

/** native/model.c's own profile of the timed steps: where each step's pass spends its thread time. */
function nativePhaseLines(result: PolicyBenchResult): string[] {
  const lines: string[] = [];
  for (const c of result.configs) {
    for (const run of c.runs) {
      if (!run.nativePhases) continue;
      lines.push(
        '',
        `native/model.c per step (${c.name}, ${workersLabel(run)}): ms summed over threads, share, matrix-product GFLOP/s per thread and % of one thread's peak`,
      );
      for (const phase of run.nativePhases) {
        const rate =
          phase.gflops === null
            ? ''
            : `  ${phase.gflops.toFixed(1)} GFLOP/s` +
              (phase.fractionOfPeak === null ? '' : ` (${(100 * phase.fractionOfPeak).toFixed(0)}%)`);
        lines.push(
          `  ${phase.phase.padEnd(18)} ${phase.msPerStep.toFixed(2).padStart(8)} ms ${(100 * phase.share).toFixed(1).padStart(5)}%${rate}`,
        );
      }
      const products = run.nativePhases.filter((phase) => phase.gflops !== null);
      const other = run.nativePhases.filter((phase) => phase.gflops === null);
      const sum = (list: typeof products) => list.reduce((total, phase) => total + phase.share, 0);
      lines.push(
        `  matrix products (linear layers and attention) ${(100 * sum(products)).toFixed(0)}% of the pass, the rest ${(100 * sum(other)).toFixed(0)}%`,
      );
    }
  }
  return lines;
}

function throughputRow(
  c: PolicyBenchConfigResult,
  run: PolicyBenchWorkersResult,
  key: 'tokensPerSecond' | 'tokensPerCpuSecond',
  label: string,
) {
  const cpu = key === 'tokensPerCpuSecond';
  const sample = cpu ? fmt(run.sample[key]) : `${fmt(run.sample[key])} (${run.sample.batch})`;
  return (
    label.padEnd(32) +
    `${fmt(run.train[key]).padStart(10)} ${best(c.torchTrain, key).padStart(12)} ${ratio(cpu ? run.trainCpuRatioToTorch : run.trainRatioToTorch).padStart(8)}` +
    `   ${sample.padStart(14)} ${best(c.torchSample, key).padStart(12)} ${ratio(cpu ? run.sampleCpuRatioToTorch : run.sampleRatioToTorch).padStart(8)}`
  );
}

/** Every cell of a sweep on one line: 'torch×BLAS tokens/s', the best marked with '*'. */
function sweepLine(sweep: TorchSweep): string {
  return sweep.cells
    .map((cell) => {
      const label = `${cell.torchThreads}×${cell.blasThreads}`;
      if (!cell.ok) return `${label} failed`;
      const isBest =
        sweep.best?.torchThreads === cell.torchThreads && sweep.best?.blasThreads === cell.blasThreads;
      return `${label} ${fmt(cell.measurement.tokensPerSecond)}${isBest ? '*' : ''}`;
    })
    .join(', ');
}

function rooflineLines(result: PolicyBenchResult): string[] {
  if (!result.configs.some((c) => c.wasm)) return [];
  const lines = ['', 'roofline: peak float32 matrix products on this machine (GFLOP/s, median)'];
  const { blasPeaks } = result;
  for (const peak of [blasPeaks?.oneThread, blasPeaks?.allCores]) {
    if (!peak) continue;
    const shapes = peak.shapes.map((s) => `${s.m}×${s.k}×${s.n} ${s.gflops.toFixed(1)}`).join(', ');
    lines.push(`  OpenBLAS sgemm (torch.mm), ${peak.torchThreads} thread(s): ${shapes}`);
  }
  if (!blasPeaks?.oneThread) lines.push('  OpenBLAS sgemm: not measured (needs PyTorch)');
  const blas = blasPeaks ? bestBlasPeak(blasPeaks) : null;
  // tf.matMul runs the native OpenBLAS kernel when the addon is active, the wasm one otherwise.
  const runtime = result.machine.kernels.active ? 'tf.matMul (native)' : 'tfjs-wasm';
  for (const c of result.configs) {
    if (!c.wasm) continue;
    for (const rate of c.wasm.rates)
      lines.push(`  ${c.name} ${runtime} ${rate.label}`.padEnd(60) + rate.gflops.toFixed(1).padStart(8));
  }
  lines.push(
    '',
    `achieved: analytic FLOPs / median time; % of the size's ${runtime} peak on one thread` +
      (blas
        ? `; % of the best OpenBLAS rate, ${blas.gflops.toFixed(1)} GFLOP/s on ${blas.torchThreads} thread(s)`
        : ''),
  );
  for (const c of result.configs) {
    if (!c.wasm) continue;
    for (const run of c.runs) {
      for (const phase of run.phases ?? []) {
        const ofBlas =
          phase.fractionOfBlasPeak === null ? '' : `  ${(100 * phase.fractionOfBlasPeak).toFixed(1)}%`;
        lines.push(
          `  ${c.name}, ${workersLabel(run)}: ${phase.phase}`.padEnd(32) +
            `${(phase.flops / 1e9).toFixed(3)} GFLOP in ${fmt(phase.medianMs)} ms: ${phase.gflops.toFixed(1)} GFLOP/s  ` +
            `${(100 * phase.fractionOfWasmPeak).toFixed(0)}% of ${c.wasm.peakGflops.toFixed(1)}${ofBlas}`,
        );
      }
    }
  }
  return lines;
}

export function formatPolicyBench(result: PolicyBenchResult): string {
  const { machine } = result;
  const load = Math.max(machine.loadAverageStart[0], machine.loadAverageEnd[0]);
  const lines = [
    `machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, ` +
      `1-min load average ${machine.loadAverageStart[0].toFixed(1)} → ${machine.loadAverageEnd[0].toFixed(1)}`,
  ];
  lines.push(
    machine.kernels.active
      ? `kernels: native OpenBLAS matmul (${machine.kernels.threads} BLAS thread${machine.kernels.threads === 1 ? '' : 's'} per process)`
      : `kernels: tfjs-wasm only (${machine.kernels.reason})`,
    `training engine: ${result.engine === 'native' ? 'native (native/model.c forward and backward; × N threads per worker)' : 'tfjs'}`,
  );
  if (load > machine.cpus)
    lines.push('  the machine was busy: wall-clock figures are pessimistic; per-CPU-second figures less so');
  lines.push(
    '',
    'tokens/s (median)               train ours   torch best  ours/torch   sampling ours   torch best  ours/torch',
  );
  for (const c of result.configs) {
    lines.push(`  ${c.name} (${(c.parameters / 1e3).toFixed(0)}k params)`);
    for (const run of c.runs)
      lines.push(throughputRow(c, run, 'tokensPerSecond', `    ${workersLabel(run)}`));
  }
  lines.push('per CPU-second');
  for (const c of result.configs)
    for (const run of c.runs)
      lines.push(throughputRow(c, run, 'tokensPerCpuSecond', `  ${c.name}, ${workersLabel(run)}`));

  if (result.torch.used) {
    lines.push('', 'PyTorch cells (torch threads × OpenBLAS threads: tokens/s, * = best, the ratios use it)');
    for (const c of result.configs) {
      if (c.torchTrain) lines.push(`  ${c.name} train:    ${sweepLine(c.torchTrain)}`);
      if (c.torchSample) lines.push(`  ${c.name} sampling: ${sweepLine(c.torchSample)}`);
    }
  }
  lines.push(...rooflineLines(result), ...nativePhaseLines(result));

  lines.push('', `peak RSS: ${fmt(result.peakRssMB)} MB (this process)`);
  const base = result.configs.find((c) => c.name === 'base');
  const t = result.targets;
  const check = (ok: boolean | null) => (ok === null ? 'not measured' : ok ? 'met' : 'NOT met');
  const atLeast = (value: number | null, target: number) => (value === null ? null : value >= target);
  for (const run of base?.runs ?? []) {
    lines.push(
      `targets (base, ${workersLabel(run)}, wall clock): train ≥ ${t.baseTrainRatioToTorch}× the best PyTorch ${check(atLeast(run.trainRatioToTorch, t.baseTrainRatioToTorch))}; ` +
        `sampling ≥ ${fmt(t.sampleTokensPerSecond)} tokens/s ${check(run.sample.tokensPerSecond >= t.sampleTokensPerSecond)} ` +
        `and ≥ ${t.sampleRatioToTorch}× the best PyTorch ${check(atLeast(run.sampleRatioToTorch, t.sampleRatioToTorch))}`,
    );
  }
  lines.push(`target: peak RSS < ${fmt(t.peakRssMB)} MB ${check(result.peakRssMB < t.peakRssMB)}`);
  const measured = result.configs.find((c) => c.torchTrain?.best)?.torchTrain?.best?.measurement;
  const env = Object.entries(result.torch.env)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  lines.push(
    result.torch.used
      ? `PyTorch baseline: ${result.torch.note}, same run, BLAS ${measured?.blasLibrary ?? 'unknown'}${env ? `, ${env}` : ''}`
      : `PyTorch baseline: not run (${result.torch.note})`,
  );
  return lines.join('\n');
}
