// The benchmark's pure parts: medians, option parsing, torch detection and the report's verdicts. The
// measurements themselves run in `curricula bench policy` (minutes), not in the test suite.
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import { formatPolicyBench } from './format-policy-bench.ts';
import {
  median,
  type PolicyBenchConfigResult,
  type PolicyBenchResult,
  parseBenchConfigs,
  policyBenchConfigs,
  policyBenchTargets,
  torchAvailability,
} from './policy-bench.ts';

function measurement(tokensPerSecond: number) {
  return {
    tokensPerSecond,
    medianMs: 1000,
    tokensPerCpuSecond: tokensPerSecond * 2,
    cpuMedianMs: 500,
    tokensPerRun: tokensPerSecond,
    runsMs: [1000],
  };
}

function fakeResult(train: number, sample: number, torch: number | null, rssMB: number): PolicyBenchResult {
  const base: PolicyBenchConfigResult = {
    name: 'base',
    config: policyBenchConfigs.base,
    parameters: 826_000,
    train: { ...measurement(train), batch: 8 },
    sample: { ...measurement(sample), batch: 64, promptLength: 8 },
    torchTrain:
      torch === null
        ? null
        : { tokensPerSecond: torch, medianMs: 1, tokensPerCpuSecond: torch, version: '2.0', threads: 2 },
    trainRatioToTorch: torch === null ? null : train / torch,
    trainCpuRatioToTorch: torch === null ? null : (train * 2) / torch,
  };
  return {
    configs: [base],
    peakRssMB: rssMB,
    torch: { used: torch !== null, note: torch === null ? 'torch is not importable' : 'torch 2.0' },
    machine: { cpus: 2, cpuModel: 'test', node: 'v20', loadAverageStart: [9], loadAverageEnd: [8] },
    targets: policyBenchTargets,
  };
}

describe('policy bench helpers', () => {
  it('takes medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('parses config lists and names the known sizes on a mistake', () => {
    expect(parseBenchConfigs('small, base')).toEqual(['small', 'base']);
    expect(() => parseBenchConfigs('small,huge')).toThrow(UserError);
    expect(() => parseBenchConfigs('huge')).toThrow(/known: small, base/);
    expect(() => parseBenchConfigs(' , ')).toThrow(UserError);
  });

  it('reports a missing Python instead of throwing', () => {
    const result = torchAvailability('/nonexistent/python3');
    expect(result.available).toBe(false);
    expect(result.note).toContain('/nonexistent/python3');
  });

  it('states which targets are met, the ratio to PyTorch and a busy machine', () => {
    const report = formatPolicyBench(fakeResult(1500, 4000, 750, 300));
    expect(report).toContain('train ≥ 1,200 tokens/s met');
    expect(report).toContain('sampling ≥ 5,000 tokens/s NOT met');
    expect(report).toContain('peak RSS < 2,048 MB met');
    expect(report).toContain('2.00×'); // 1500 / 750 on the wall clock
    expect(report).toContain('4.00×'); // 3000 / 750 per CPU-second
    expect(report).toContain('the machine was busy');
    const withoutTorch = formatPolicyBench(fakeResult(1000, 6000, null, 3000));
    expect(withoutTorch).toContain('train ≥ 1,200 tokens/s NOT met');
    expect(withoutTorch).toContain('peak RSS < 2,048 MB NOT met');
    expect(withoutTorch).toContain('PyTorch baseline: not run (torch is not importable)');
  });
});
