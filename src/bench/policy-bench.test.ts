// The benchmark's pure parts: medians, option parsing, torch detection, the roofline's phases and the
// report's verdicts. The measurements themselves run in `curricula bench policy` (minutes), not in the
// test suite.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import { parseWorkersList } from '../policy/parallel-options.ts';
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
import { bestBlasPeak, phaseRooflines, rooflinePhases } from './roofline.ts';
import { bestCell, type TorchCellResult, type TorchMeasurement } from './torch-sweep.ts';

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

function torchMeasurement(tokensPerSecond: number): TorchMeasurement {
  return {
    tokensPerSecond,
    medianMs: 1,
    tokensPerCpuSecond: tokensPerSecond,
    tokensPerRun: 1024,
    runsMs: [1],
    version: '1.13',
    threads: 1,
    blasThreads: 1,
    blasLibrary: 'libopenblas.so.0',
  };
}

/** A sweep whose best cell (torch 1 × BLAS 2) does `best` tokens/s; the others do less. */
function sweep(best: number) {
  const cells: TorchCellResult[] = [
    { torchThreads: 1, blasThreads: 1, ok: true, measurement: torchMeasurement(best / 2) },
    { torchThreads: 1, blasThreads: 2, ok: true, measurement: torchMeasurement(best) },
    { torchThreads: 2, blasThreads: 2, ok: false, error: 'torch baseline failed: killed' },
  ];
  return { cells, best: bestCell(cells) };
}

/** One worker count's figures; the 2-worker run of fakeResult is 1.6× (train) and 3× (sampling) faster. */
function run(workers: number, train: number, sample: number, torch: number | null) {
  return {
    workers,
    train: { ...measurement(train), batch: 8 },
    sample: { ...measurement(sample), batch: 64, promptLength: 8 },
    trainRatioToTorch: torch === null ? null : train / torch,
    trainCpuRatioToTorch: torch === null ? null : (train * 2) / torch,
    sampleRatioToTorch: torch === null ? null : sample / (torch * 4),
    sampleCpuRatioToTorch: torch === null ? null : (sample * 2) / (torch * 4),
    phases: null,
    engineThreads: null,
    nativePhases: null,
  };
}

function fakeResult(train: number, sample: number, torch: number | null, rssMB: number): PolicyBenchResult {
  const base: PolicyBenchConfigResult = {
    name: 'base',
    config: policyBenchConfigs.base,
    parameters: 826_000,
    runs: [run(1, train, sample, torch), run(2, train * 1.6, sample * 3, torch)],
    torchTrain: torch === null ? null : sweep(torch),
    torchSample: torch === null ? null : sweep(torch * 4),
    wasm: null,
  };
  return {
    configs: [base],
    engine: 'tfjs',
    peakRssMB: rssMB,
    torch: {
      used: torch !== null,
      note: torch === null ? 'torch is not importable' : 'torch 1.13',
      cells: [],
      env: { OPENBLAS_CORETYPE: 'Haswell', OPENBLAS_L2_SIZE: null },
    },
    blasPeaks: null,
    machine: {
      cpus: 2,
      cpuModel: 'test',
      node: 'v20',
      loadAverageStart: [9],
      loadAverageEnd: [8],
      kernels: { active: false, reason: 'CURRICULA_NATIVE=0', threads: null, blas: null },
    },
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

  it('states which targets are met for each worker count, the ratios to PyTorch and a busy machine', () => {
    const report = formatPolicyBench(fakeResult(600, 4000, 750, 300));
    // 1 worker: 600 / 750 = 0.8× the best PyTorch train cell; sampling 4,000 < 10k, but 1.33× PyTorch (3,000).
    expect(report).toContain(
      'targets (base, 1 worker, wall clock): train ≥ 1.2× the best PyTorch NOT met; sampling ≥ 10,000 tokens/s NOT met and ≥ 1× the best PyTorch met',
    );
    // 2 workers: 960 / 750 = 1.28×; sampling 12,000.
    expect(report).toContain(
      'targets (base, 2 workers, wall clock): train ≥ 1.2× the best PyTorch met; sampling ≥ 10,000 tokens/s met and ≥ 1× the best PyTorch met',
    );
    expect(report).toContain('target: peak RSS < 2,048 MB met');
    expect(report).toMatch(/ {4}1 worker +600 +750 +0\.80× +4,000 \(64\) +3,000 +1\.33×/);
    expect(report).toMatch(/ {4}2 workers +960 +750 +1\.28× +12,000 \(64\) +3,000 +4\.00×/);
    expect(report).toMatch(/base, 1 worker +1,200 +750 +1\.60×/); // per CPU-second: 1200 / 750
    expect(report).toContain('the machine was busy');
    expect(report).toContain('kernels: tfjs-wasm only (CURRICULA_NATIVE=0)');
    // Every cell is listed, the best one marked, the failed one named.
    expect(report).toContain('base train:    1×1 375, 1×2 750*, 2×2 failed');
    expect(report).toContain('OPENBLAS_CORETYPE=Haswell');
    const withoutTorch = formatPolicyBench(fakeResult(1000, 6000, null, 3000));
    expect(withoutTorch).toContain(
      'targets (base, 1 worker, wall clock): train ≥ 1.2× the best PyTorch not measured; sampling ≥ 10,000 tokens/s NOT met and ≥ 1× the best PyTorch not measured',
    );
    expect(withoutTorch).toContain('peak RSS < 2,048 MB NOT met');
    expect(withoutTorch).toContain('PyTorch baseline: not run (torch is not importable)');
  });

  it('parses --workers lists: counts, auto, duplicates, and one clear error for a bad entry', () => {
    expect(parseWorkersList('1,2')).toEqual([1, 2]);
    expect(parseWorkersList(' 2 , 1,2')).toEqual([2, 1]);
    expect(parseWorkersList('auto')).toEqual([availableParallelism()]);
    for (const bad of ['0', '1,', 'two', '1.5', '-1', ''])
      expect(() => parseWorkersList(bad)).toThrow(
        new UserError(
          `--workers must be a comma-separated list of positive integers or 'auto', got '${bad}'`,
        ),
      );
  });

  it('splits the train step into phases and divides FLOPs by time', () => {
    const phases = rooflinePhases(
      { forward: 1e9, backward: 2e9, optimizer: 1e6 },
      { forward: 100, forwardBackward: 400, optimizer: 10 },
      420,
      { flops: 5e8, medianMs: 50 },
    );
    expect(phases.map((phase) => [phase.phase, phase.medianMs])).toEqual([
      ['forward', 100],
      ['backward', 300], // forward + backward minus the forward-only pass
      ['optimizer', 10],
      ['train step', 420],
      ['sampling', 50],
    ]);
    const rooflines = phaseRooflines(phases, 20, 200);
    // 1e9 FLOPs in 100 ms = 10 GFLOP/s: half the 20 GFLOP/s peak, 5% of 200.
    expect(rooflines[0]).toMatchObject({ gflops: 10, fractionOfWasmPeak: 0.5, fractionOfBlasPeak: 0.05 });
    // 3.001e9 FLOPs in 420 ms.
    expect(rooflines[3].gflops).toBeCloseTo(3.001e9 / 0.42 / 1e9, 9);
    expect(phaseRooflines(phases, 20, null)[4].fractionOfBlasPeak).toBeNull();
  });

  it('takes the faster OpenBLAS rate as the ceiling, even when it is the one-thread one', () => {
    const peak = (threads: number, gflops: number) => ({
      torchThreads: threads,
      blasThreads: threads,
      shapes: [{ m: 1024, k: 1024, n: 1024, gflops }],
      gflops,
    });
    // A busy machine: two threads slower than one.
    expect(bestBlasPeak({ oneThread: peak(1, 127), allCores: peak(2, 69), errors: [] })?.gflops).toBe(127);
    expect(bestBlasPeak({ oneThread: peak(1, 100), allCores: peak(2, 206), errors: [] })?.gflops).toBe(206);
    expect(bestBlasPeak({ oneThread: null, allCores: peak(2, 69), errors: [] })?.gflops).toBe(69);
    expect(bestBlasPeak({ oneThread: null, allCores: null, errors: ['failed'] })).toBeNull();
  });
});
