// The PyTorch baseline's sweep with a stubbed runner (no Python needed): every cell runs with both
// thread pools set in an explicit child environment, every cell is reported, the fastest is the best,
// failures are kept as cells. One test runs the real script at a tiny size when torch is installed.
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.ts';
import {
  parseThreadList,
  runTorchSweep,
  spawnTorchScript,
  sweepCells,
  type TorchRunner,
  torchAvailability,
  torchChildEnv,
} from './torch-sweep.ts';

/** Script output as bench/torch_baseline.py prints it. */
function output(tokensPerSecond: number, threads: number, blasThreads: number) {
  return {
    torch: '1.13.0',
    threads,
    blasThreads,
    blasLibrary: '/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so',
    mode: 'train',
    tokensPerRun: 1024,
    medianMs: (1024 / tokensPerSecond) * 1000,
    tokensPerSecond,
    tokensPerCpuSecond: tokensPerSecond / 2,
    runsMs: [1, 2],
  };
}

/** Stub runner: tokens/s by cell, read back from the arguments and environment it was given. */
function stubRunner(rates: Record<string, number | string>) {
  const calls: { args: string[]; env: NodeJS.ProcessEnv }[] = [];
  const runner: TorchRunner = (args, env) => {
    calls.push({ args, env });
    const threads = Number(args[args.indexOf('--threads') + 1]);
    const key = `${threads}x${env.OPENBLAS_NUM_THREADS}`;
    const rate = rates[key];
    return typeof rate === 'string' ? rate : output(rate, threads, Number(env.OPENBLAS_NUM_THREADS));
  };
  return { runner, calls };
}

describe('torch thread sweep', () => {
  it('parses thread lists and rejects anything but positive integers with one line', () => {
    expect(parseThreadList('1,2', '--torch-threads')).toEqual([1, 2]);
    expect(parseThreadList(' 2 , 1, 2', '--blas-threads')).toEqual([2, 1]);
    for (const bad of ['', '0', '1,,2', 'two', '1.5', '-1'])
      expect(() => parseThreadList(bad, '--blas-threads')).toThrow(UserError);
    expect(() => parseThreadList('1,x', '--torch-threads')).toThrow(
      "--torch-threads must be a comma-separated list of positive integers, got '1,x'",
    );
  });

  it('crosses torch threads with BLAS threads, torch outer', () => {
    expect(sweepCells([1, 2], [1, 2])).toEqual([
      { torchThreads: 1, blasThreads: 1 },
      { torchThreads: 1, blasThreads: 2 },
      { torchThreads: 2, blasThreads: 1 },
      { torchThreads: 2, blasThreads: 2 },
    ]);
  });

  it('gives the child an explicit environment with both pools set', () => {
    const parent = {
      PATH: '/usr/bin',
      HOME: '/root',
      OPENBLAS_CORETYPE: 'Haswell',
      OPENBLAS_NUM_THREADS: '8',
      OMP_NUM_THREADS: '8',
      SECRET_TOKEN: 'x',
      LD_LIBRARY_PATH: '/opt/lib',
    };
    const env = torchChildEnv(parent, { torchThreads: 2, blasThreads: 1 }, '/openblas');
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      OPENBLAS_CORETYPE: 'Haswell', // left as the environment has it
      OPENBLAS_NUM_THREADS: '1',
      OMP_NUM_THREADS: '2',
      LD_LIBRARY_PATH: '/openblas:/opt/lib',
    });
    expect(torchChildEnv({}, { torchThreads: 1, blasThreads: 1 }, null).LD_LIBRARY_PATH).toBeUndefined();
  });

  it('runs every cell, reports each, and takes the fastest as the best', () => {
    // The shape: 2 torch threads with 2 BLAS threads oversubscribe 2 cores and collapse.
    const { runner, calls } = stubRunner({ '1x1': 9000, '1x2': 12000, '2x1': 10000, '2x2': 3000 });
    const seen: string[] = [];
    const sweep = runTorchSweep(
      runner,
      ['--mode', 'train', '--batch', '8'],
      sweepCells([1, 2], [1, 2]),
      { PATH: '/usr/bin' },
      (cell) => seen.push(`${cell.torchThreads}x${cell.blasThreads}`),
    );
    expect(calls.map((call) => call.args.join(' '))).toEqual([
      '--mode train --batch 8 --threads 1',
      '--mode train --batch 8 --threads 1',
      '--mode train --batch 8 --threads 2',
      '--mode train --batch 8 --threads 2',
    ]);
    expect(calls.map((call) => [call.env.OMP_NUM_THREADS, call.env.OPENBLAS_NUM_THREADS])).toEqual([
      ['1', '1'],
      ['1', '2'],
      ['2', '1'],
      ['2', '2'],
    ]);
    expect(seen).toEqual(['1x1', '1x2', '2x1', '2x2']);
    expect(sweep.cells.map((cell) => (cell.ok ? cell.measurement.tokensPerSecond : null))).toEqual([
      9000, 12000, 10000, 3000,
    ]);
    expect(sweep.best).toMatchObject({ torchThreads: 1, blasThreads: 2 });
    expect(sweep.best?.measurement).toMatchObject({
      tokensPerSecond: 12000,
      blasThreads: 2,
      version: '1.13.0',
    });
  });

  it('keeps failed cells and picks the best of the rest; null when all fail', () => {
    const { runner } = stubRunner({ '1x1': 'torch baseline failed: Killed', '2x1': 5000 });
    const sweep = runTorchSweep(runner, [], sweepCells([1, 2], [1]), {});
    expect(sweep.cells[0]).toEqual({
      torchThreads: 1,
      blasThreads: 1,
      ok: false,
      error: 'torch baseline failed: Killed',
    });
    expect(sweep.best).toMatchObject({ torchThreads: 2, blasThreads: 1 });
    const none = runTorchSweep(stubRunner({ '1x1': 'failed' }).runner, [], sweepCells([1], [1]), {});
    expect(none.best).toBeNull();
  });

  it('turns output without the numbers into a failed cell', () => {
    const sweep = runTorchSweep(
      () => ({ torch: '1.13', tokensPerSecond: 'fast' }),
      [],
      sweepCells([1], [1]),
      {},
    );
    expect(sweep.cells[0]).toMatchObject({
      ok: false,
      error: "torch baseline printed no numeric 'tokensPerSecond'",
    });
  });
});

const python = '/usr/bin/python3';
const torch = torchAvailability(python);

describe.skipIf(!torch.available)(`real PyTorch baseline (skipped when ${torch.note})`, () => {
  it('runs train, sample and gemm at a tiny size with the requested thread counts', () => {
    const runner = spawnTorchScript(python);
    const model = ['--d-model', '16', '--layers', '1', '--heads', '2', '--context', '16', '--vocab', '8'];
    const quick = ['--warmup', '0', '--repeats', '1'];
    const cells = sweepCells([1], [1]);
    const train = runTorchSweep(runner, [...model, ...quick, '--mode', 'train', '--batch', '2'], cells);
    expect(train.best?.measurement).toMatchObject({ threads: 1, tokensPerRun: 32 });
    const sample = runTorchSweep(
      runner,
      [...model, ...quick, '--mode', 'sample', '--prompts', '2', '--samples', '3', '--prompt-length', '4'],
      cells,
    );
    // 6 rows × (16 − 4) new tokens each.
    expect(sample.best?.measurement.tokensPerRun).toBe(72);
    const gemm = runner(
      ['--mode', 'gemm', '--shapes', '8,4,2', ...quick, '--threads', '1'],
      torchChildEnv(process.env, cells[0]),
    );
    expect(gemm).toMatchObject({ mode: 'gemm', shapes: [{ m: 8, k: 4, n: 2 }] });
  }, 60_000);
});
