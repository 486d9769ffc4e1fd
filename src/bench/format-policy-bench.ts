// Human-readable report of `curricula bench policy` (the --json output is the PolicyBenchResult itself).
import { fmt, type PolicyBenchResult } from './policy-bench.ts';

const ratio = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);

export function formatPolicyBench(result: PolicyBenchResult): string {
  const { machine } = result;
  const load = Math.max(machine.loadAverageStart[0], machine.loadAverageEnd[0]);
  const lines = [
    `machine: ${machine.cpus} × ${machine.cpuModel}, node ${machine.node}, ` +
      `1-min load average ${machine.loadAverageStart[0].toFixed(1)} → ${machine.loadAverageEnd[0].toFixed(1)}`,
  ];
  if (load > machine.cpus)
    lines.push('  the machine was busy: wall-clock figures are pessimistic; per-CPU-second figures less so');
  lines.push('', 'tokens/s (wall clock, median)   train step   sampling (batch)   torch train   ours/torch');
  for (const c of result.configs) {
    const sample = `${fmt(c.sample.tokensPerSecond)} (${c.sample.batch})`;
    const torch = c.torchTrain ? fmt(c.torchTrain.tokensPerSecond) : '—';
    lines.push(
      `  ${c.name} (${(c.parameters / 1e3).toFixed(0)}k params)`.padEnd(32) +
        `${fmt(c.train.tokensPerSecond).padStart(11)}   ${sample.padStart(16)}   ${torch.padStart(11)}   ${ratio(c.trainRatioToTorch).padStart(10)}`,
    );
  }
  lines.push('tokens per CPU-second (median)');
  for (const c of result.configs) {
    const torch = c.torchTrain ? fmt(c.torchTrain.tokensPerCpuSecond) : '—';
    lines.push(
      `  ${c.name}`.padEnd(32) +
        `${fmt(c.train.tokensPerCpuSecond).padStart(11)}   ${fmt(c.sample.tokensPerCpuSecond).padStart(16)}   ${torch.padStart(11)}   ${ratio(c.trainCpuRatioToTorch).padStart(10)}`,
    );
  }
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
  lines.push(
    result.torch.used
      ? `PyTorch baseline: ${result.torch.note}, ${result.configs[0]?.torchTrain?.threads ?? '?'} threads, same run`
      : `PyTorch baseline: not run (${result.torch.note})`,
  );
  return lines.join('\n');
}
