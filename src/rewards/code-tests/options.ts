// Options of the code-tests reward (zod, strict), with defaults from the graders it follows: TAROT's 5 s
// per-test execution timeout and uniform tier weights, LiveCodeBench's whitespace-insensitive comparison,
// partial credit (TAROT) rather than all-or-nothing (DeepCoder), one sandbox per core.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { weightSets } from './tiers.ts';

const mib = 1024 * 1024;

const weightsSchema = z.union([
  z.enum(Object.keys(weightSets) as [keyof typeof weightSets, ...(keyof typeof weightSets)[]]),
  z.strictObject({
    basic: z.number().min(0),
    intermediate: z.number().min(0),
    complex: z.number().min(0),
    edge: z.number().min(0),
  }),
]);

export const codeTestsOptionsSchema = z
  .strictObject({
    /** Wall-clock limit per test run (ms); CPU limit is the same rounded up to whole seconds. */
    timeoutMs: z.number().int().min(100).max(600_000).default(5000),
    /** Memory per run (MiB): RLIMIT_AS for python, V8 old space (+ RLIMIT_DATA) for node. */
    memoryMb: z.number().int().min(64).max(65_536).default(1024),
    /** RLIMIT_NPROC (processes + threads) inside one sandbox. */
    maxProcesses: z.number().int().min(1).max(4096).default(64),
    /** stdout (and stderr) cap per run in bytes; raised to 2× the expected output when that is larger. */
    maxOutputBytes: z.number().int().min(1024).default(mib),
    /** RLIMIT_FSIZE: largest file a program may write (bytes). */
    maxFileBytes: z
      .number()
      .int()
      .min(0)
      .default(8 * mib),
    /** Size of each tmpfs (/work, /tmp, /dev/shm) in bytes. */
    tmpfsBytes: z
      .number()
      .int()
      .min(mib)
      .default(32 * mib),
    /** Concurrent sandboxes (default: number of cores). */
    concurrency: z.number().int().min(1).max(256).default(availableParallelism()),
    /** Default comparison mode; a problem's metadata.compare overrides it. */
    compare: z.enum(['exact', 'whitespace', 'float']).default('whitespace'),
    relTol: z.number().min(0).default(1e-6),
    absTol: z.number().min(0).default(1e-6),
    /** 'partial': (weighted) fraction of tests passed (TAROT); 'all': 1 only when every test passes. */
    aggregate: z.enum(['partial', 'all']).default('partial'),
    /** 'per-test': each test weighs its tier's weight (TAROT); 'per-tier': tiers weigh w_tier whatever their size. */
    weighting: z.enum(['per-test', 'per-tier']).default('per-test'),
    /** TAROT weight set name or explicit weights per tier. */
    weights: weightsSchema.default('uniform'),
    /** Which tiers count as training progresses (TAROT label_schedule); needs totalSteps unless 'all'. */
    schedule: z.enum(['all', 'easy-to-hard', 'hard-first']).default('all'),
    totalSteps: z.number().int().min(1).optional(),
    /** Stop a completion's remaining tests after its first failure (they count as failed). */
    failFast: z.boolean().default(false),
    bwrapPath: z.string().default('/usr/bin/bwrap'),
    prlimitPath: z.string().default('/usr/bin/prlimit'),
    pythonPath: z.string().default('/usr/bin/python3'),
    nodePath: z.string().default('/usr/bin/node'),
  })
  .refine((options) => options.schedule === 'all' || options.totalSteps !== undefined, {
    message: "schedule other than 'all' needs totalSteps",
    path: ['totalSteps'],
  });

export type CodeTestsOptions = z.output<typeof codeTestsOptionsSchema>;

/** Validates options; bad ones become one ConfigError that lists the offending keys. */
export function parseCodeTestsOptions(options: unknown): CodeTestsOptions {
  return parseConfig(codeTestsOptionsSchema, options ?? {}, "reward 'code-tests' options");
}
