// Human-readable report of `curricula bench policy` (the --json output is the PolicyBenchResult itself).
import { fmt, type PolicyBenchConfigResult, type PolicyBenchResult } from './policy-bench.ts';
import { bestBlasPeak } from './roofline.ts';
import type { TorchSweep } from './torch-sweep.ts';

const ratio = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);
const best = (sweep: TorchSweep | null, key: 'tokensPerSecond' | 'tokensPerCpuSecond') =>
  sweep?.best ? fmt(sweep.best.measurement[key]) : '—';

function throughputRow(
  c: PolicyBenchConfigResult,
  key: 'tokensPerSecond' | 'tokensPerCpuSecond',
  label: string,
) {
  const cpu = key === 'tokensPerCpuSecond';
  const sample = cpu ? fmt(c.sample[key]) : `${fmt(c.sample[key])} (${c.sample.batch})`;
  return (
    label.padEnd(24) +
    `${fmt(c.train[key]).padStart(10)} ${best(c.torchTrain, key).padStart(12)} ${ratio(cpu ? c.trainCpuRatioToTorch : c.trainRatioToTorch).padStart(8)}` +
    `   ${sample.padStart(14)} ${best(c.torchSample, key).padStart(12)} ${ratio(cpu ? c.sampleCpuRatioToTorch : c.sampleRatioToTorch).padStart(8)}`
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
  if (!result.configs.some((c) => c.roofline)) return [];
  const lines = ['', 'roofline: peak float32 matrix products on this machine (GFLOP/s, median)'];
  const { blasPeaks } = result;
  for (const peak of [blasPeaks?.oneThread, blasPeaks?.allCores]) {
    if (!peak) continue;
    const shapes = peak.shapes.map((s) => `${s.m}×${s.k}×${s.n} ${s.gflops.toFixed(1)}`).join(', ');
    lines.push(`  OpenBLAS sgemm (torch.mm), ${peak.torchThreads} thread(s): ${shapes}`);
  }
  if (!blasPeaks?.oneThread) lines.push('  OpenBLAS sgemm: not measured (needs PyTorch)');
  const blas = blasPeaks ? bestBlasPeak(blasPeaks) : null;
  for (const c of result.configs) {
    if (!c.roofline) continue;
    for (const rate of c.roofline.wasm)
      lines.push(`  ${c.name} tfjs-wasm ${rate.label}`.padEnd(60) + rate.gflops.toFixed(1).padStart(8));
  }
  lines.push(
    '',
    "achieved: analytic FLOPs / median time; % of the size's tfjs-wasm peak" +
      (blas
        ? `; % of the best OpenBLAS rate, ${blas.gflops.toFixed(1)} GFLOP/s on ${blas.torchThreads} thread(s)`
        : ''),
  );
  for (const c of result.configs) {
    if (!c.roofline) continue;
    for (const phase of c.roofline.phases) {
      const ofBlas =
        phase.fractionOfBlasPeak === null ? '' : `  ${(100 * phase.fractionOfBlasPeak).toFixed(1)}%`;
      lines.push(
        `  ${c.name} ${phase.phase}`.padEnd(20) +
          `${(phase.flops / 1e9).toFixed(3)} GFLOP in ${fmt(phase.medianMs)} ms: ${phase.gflops.toFixed(1)} GFLOP/s  ` +
          `${(100 * phase.fractionOfWasmPeak).toFixed(0)}% of ${c.roofline.wasmPeakGflops.toFixed(1)}${ofBlas}`,
      );
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
  );
  if (load > machine.cpus)
    lines.push('  the machine was busy: wall-clock figures are pessimistic; per-CPU-second figures less so');
  lines.push(
    '',
    'tokens/s (median)         train ours   torch best  ours/torch   sampling ours   torch best  ours/torch',
  );
  for (const c of result.configs)
    lines.push(
      throughputRow(c, 'tokensPerSecond', `  ${c.name} (${(c.parameters / 1e3).toFixed(0)}k params)`),
    );
  lines.push('per CPU-second');
  for (const c of result.configs) lines.push(throughputRow(c, 'tokensPerCpuSecond', `  ${c.name}`));

  if (result.torch.used) {
    lines.push('', 'PyTorch cells (torch threads × OpenBLAS threads: tokens/s, * = best, the ratios use it)');
    for (const c of result.configs) {
      if (c.torchTrain) lines.push(`  ${c.name} train:    ${sweepLine(c.torchTrain)}`);
      if (c.torchSample) lines.push(`  ${c.name} sampling: ${sweepLine(c.torchSample)}`);
    }
  }
  lines.push(...rooflineLines(result));

  lines.push('', `peak RSS: ${fmt(result.peakRssMB)} MB (this process)`);
  const base = result.configs.find((c) => c.name === 'base');
  const t = result.targets;
  if (base) {
    const check = (ok: boolean) => (ok ? 'met' : 'NOT met');
    lines.push(
      `targets (base, wall clock): train ≥ ${fmt(t.baseTrainTokensPerSecond)} tokens/s ${check(base.train.tokensPerSecond >= t.baseTrainTokensPerSecond)}; ` +
        `sampling ≥ ${fmt(t.sampleTokensPerSecond)} tokens/s ${check(base.sample.tokensPerSecond >= t.sampleTokensPerSecond)}; ` +
        `peak RSS < ${fmt(t.peakRssMB)} MB ${check(result.peakRssMB < t.peakRssMB)}`,
    );
  }
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
