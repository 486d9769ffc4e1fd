// The PyTorch baseline of `curricula bench policy`, run in its fastest configuration on the same cores.
//
// PyTorch on Debian has two thread pools that do not know about each other: torch's own intra-op pool
// (torch.set_num_threads, OpenMP) and the BLAS library's (OpenBLAS reads OPENBLAS_NUM_THREADS, falling
// back to OMP_NUM_THREADS, and otherwise starts one thread per core). Running torch with 2 threads and
// leaving OpenBLAS at its default gives 4 busy threads on 2 cores, and a figure that swings 2× from run
// to run. So the baseline is a sweep: every cell of torch threads × BLAS threads runs in a child process
// whose environment sets both pools explicitly, every cell is reported, and ratios are taken against the
// best cell (the highest tokens/s on the wall clock). The sweep logic takes the runner as a parameter
// so that tests can stub it; `spawnTorchScript` is the real one.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.ts';

/** One configuration of the two thread pools. */
export interface TorchCell {
  /** torch.set_num_threads and OMP_NUM_THREADS. */
  torchThreads: number;
  /** OPENBLAS_NUM_THREADS. */
  blasThreads: number;
}

/** What bench/torch_baseline.py prints for --mode train or --mode sample (one JSON line). */
export interface TorchMeasurement {
  tokensPerSecond: number;
  medianMs: number;
  /** Per second of the child's CPU time, all threads together. */
  tokensPerCpuSecond: number;
  tokensPerRun: number;
  runsMs: number[];
  version: string;
  /** Threads torch reports (torch.get_num_threads()). */
  threads: number;
  /** Threads OpenBLAS reports (openblas_get_num_threads), null when the BLAS is not OpenBLAS. */
  blasThreads: number | null;
  /** The BLAS shared library the child mapped. */
  blasLibrary: string | null;
}

export type TorchCellResult = TorchCell &
  ({ ok: true; measurement: TorchMeasurement } | { ok: false; error: string });

export interface TorchSweep {
  cells: TorchCellResult[];
  /** The cell with the highest tokens/s, or null when every cell failed. */
  best: (TorchCell & { measurement: TorchMeasurement }) | null;
}

/** Runs the baseline script with the given arguments and environment; returns its parsed JSON or an error. */
export type TorchRunner = (args: string[], env: NodeJS.ProcessEnv) => Record<string, unknown> | string;

/** Parses a thread list such as '1,2' (UserError naming the option on a mistake). */
export function parseThreadList(list: string, option: string): number[] {
  const parts = list.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part) => part === '') || values.some((value) => !Number.isInteger(value) || value < 1))
    throw new UserError(`${option} must be a comma-separated list of positive integers, got '${list}'`);
  return [...new Set(values)];
}

/** Every combination, torch threads outer. */
export function sweepCells(torchThreads: readonly number[], blasThreads: readonly number[]): TorchCell[] {
  return torchThreads.flatMap((torch) =>
    blasThreads.map((blas) => ({ torchThreads: torch, blasThreads: blas })),
  );
}

/** Variables the child inherits from this process when set: what Python and OpenBLAS need to start. */
const inherited = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TMPDIR',
  'PYTHONPATH',
  'OPENBLAS_CORETYPE',
  'OPENBLAS_L2_SIZE',
];
/** Debian's python3-torch finds BLAS through libblas.so.3; OpenBLAS there is ~8x faster than reference. */
const openBlasDir = '/usr/lib/x86_64-linux-gnu/openblas-pthread';

/**
 * The child's explicit environment for one cell: the inherited variables above, both thread pools set,
 * and LD_LIBRARY_PATH preferring Debian's OpenBLAS when it is installed (`openBlas` null skips that).
 */
export function torchChildEnv(
  parent: NodeJS.ProcessEnv,
  cell: TorchCell,
  openBlas: string | null = existsSync(openBlasDir) ? openBlasDir : null,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of inherited) if (parent[name] !== undefined) env[name] = parent[name];
  env.OPENBLAS_NUM_THREADS = String(cell.blasThreads);
  env.OMP_NUM_THREADS = String(cell.torchThreads);
  const libraryPath = [openBlas, parent.LD_LIBRARY_PATH].filter(Boolean).join(':');
  if (libraryPath) env.LD_LIBRARY_PATH = libraryPath;
  return env;
}

/** Reads the script's JSON into a measurement; a string names what is missing. */
export function parseTorchMeasurement(json: Record<string, unknown>): TorchMeasurement | string {
  const numbers = ['tokensPerSecond', 'medianMs', 'tokensPerCpuSecond', 'tokensPerRun', 'threads'] as const;
  for (const key of numbers)
    if (typeof json[key] !== 'number' || !Number.isFinite(json[key]))
      return `torch baseline printed no numeric '${key}'`;
  return {
    tokensPerSecond: json.tokensPerSecond as number,
    medianMs: json.medianMs as number,
    tokensPerCpuSecond: json.tokensPerCpuSecond as number,
    tokensPerRun: json.tokensPerRun as number,
    runsMs: Array.isArray(json.runsMs) ? (json.runsMs as number[]) : [],
    version: String(json.torch ?? 'unknown'),
    threads: json.threads as number,
    blasThreads: typeof json.blasThreads === 'number' ? json.blasThreads : null,
    blasLibrary: typeof json.blasLibrary === 'string' ? json.blasLibrary : null,
  };
}

/**
 * Runs `args` once per cell (torch threads appended as --threads, the pools in the child's environment)
 * and picks the best cell by wall-clock tokens/s. A failed cell is reported, not thrown.
 */
export function runTorchSweep(
  runner: TorchRunner,
  args: readonly string[],
  cells: readonly TorchCell[],
  parentEnv: NodeJS.ProcessEnv = process.env,
  onCell?: (cell: TorchCellResult) => void,
): TorchSweep {
  const results: TorchCellResult[] = [];
  for (const cell of cells) {
    const output = runner([...args, '--threads', String(cell.torchThreads)], torchChildEnv(parentEnv, cell));
    const measurement = typeof output === 'string' ? output : parseTorchMeasurement(output);
    const result: TorchCellResult =
      typeof measurement === 'string'
        ? { ...cell, ok: false, error: measurement }
        : { ...cell, ok: true, measurement };
    results.push(result);
    onCell?.(result);
  }
  return { cells: results, best: bestCell(results) };
}

/** The successful cell with the highest tokens/s (the first of equals), or null. */
export function bestCell(cells: readonly TorchCellResult[]): TorchSweep['best'] {
  let best: TorchSweep['best'] = null;
  for (const cell of cells)
    if (cell.ok && (best === null || cell.measurement.tokensPerSecond > best.measurement.tokensPerSecond))
      best = {
        torchThreads: cell.torchThreads,
        blasThreads: cell.blasThreads,
        measurement: cell.measurement,
      };
  return best;
}

export const torchScript = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../bench/torch_baseline.py',
);

/** The real runner: `python bench/torch_baseline.py ...args`, last stdout line parsed as JSON. */
export function spawnTorchScript(python: string): TorchRunner {
  return (args, env) => {
    const run = spawnSync(python, [torchScript, ...args], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30 * 60_000,
    });
    if (run.status !== 0)
      return `torch baseline failed: ${(run.stderr || run.error?.message || `exit ${run.status}`).trim().slice(-300)}`;
    try {
      return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      return `torch baseline printed no JSON: ${run.stdout.trim().slice(-200)}`;
    }
  };
}

/** Whether `python` can import torch; the reason when it cannot. */
export function torchAvailability(python: string): { available: boolean; note: string } {
  const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (probe.error) return { available: false, note: `${python} not runnable (${probe.error.message})` };
  if (probe.status !== 0) return { available: false, note: `torch is not importable by ${python}` };
  return { available: true, note: `torch ${probe.stdout.trim()} via ${python}` };
}
