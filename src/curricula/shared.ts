// Helpers shared by the task selectors: option parsing (zod → ConfigError), metadata checks that name the
// selector, the field and an example problem, numerically stable softmax and entropy, grouping of a pool
// into arms, and per-arm shuffled lists drawn without replacement (refilled when exhausted).
import type { z } from 'zod';
import { configError } from '../core/config.ts';
import { CheckpointError, ConfigError } from '../core/errors.ts';
import type { Problem } from '../core/problem.ts';
import type { Rng } from '../core/rng.ts';

/** Validates `options` against a selector's schema; unknown keys (with the allowed ones) and bad values become one ConfigError. */
export function parseOptions<Schema extends z.ZodType>(
  selector: string,
  schema: Schema,
  options: unknown,
): z.infer<Schema> {
  const result = schema.safeParse(options ?? {});
  if (result.success) return result.data;
  throw configError(schema, result.error.issues, `selector '${selector}': invalid options: `, '(options)');
}

/** The error for a problem that lacks the metadata a selector needs. */
export function missingField(selector: string, field: string, problem: Problem, hint: string): ConfigError {
  return new ConfigError(
    `selector '${selector}' needs '${field}' on every problem; problem '${problem.id}' has none. ${hint}`,
  );
}

export function requireNonEmptyPool(selector: string, pool: readonly Problem[]): void {
  if (pool.length === 0) throw new ConfigError(`selector '${selector}': the problem pool is empty`);
}

/** Every problem must carry a finite numeric difficulty. */
export function requireDifficulty(
  selector: string,
  pool: readonly Problem[],
  hint = 'Give every problem a numeric difficulty.',
): void {
  for (const problem of pool) {
    if (typeof problem.difficulty !== 'number' || !Number.isFinite(problem.difficulty)) {
      throw missingField(selector, 'difficulty', problem, hint);
    }
  }
}

/** Checks that a loaded state belongs to this selector and returns it typed. */
export function expectState<T extends { selector: string }>(selector: string, state: unknown): T {
  if (
    typeof state !== 'object' ||
    state === null ||
    (state as { selector?: unknown }).selector !== selector
  ) {
    throw new CheckpointError(`selector '${selector}': the saved state belongs to a different selector`);
  }
  return state as T;
}

/**
 * A saved per-arm state must have one entry per arm of this pool and these options; a checkpoint saved
 * with other arms (e.g. under an older default `arms`) is refused with the way out.
 */
export function requireArmCount(
  selector: string,
  saved: readonly unknown[] | undefined,
  names: readonly string[],
): void {
  if (saved?.length === names.length) return;
  throw new CheckpointError(
    `selector '${selector}': the saved state has ${saved?.length ?? 0} arms but this pool and options give ${names.length} (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''}); it was saved with other arms (older versions defaulted to other arms): set selector.options.arms to the kind it was saved with`,
  );
}

/** softmax(values / temperature), shifted by the maximum for stability. */
export function softmax(values: readonly number[], temperature: number): number[] {
  let maximum = Number.NEGATIVE_INFINITY;
  for (const value of values) maximum = Math.max(maximum, value / temperature);
  const exps = values.map((value) => Math.exp(value / temperature - maximum));
  const total = exps.reduce((sum, value) => sum + value, 0);
  return exps.map((value) => value / total);
}

/** Shannon entropy in nats of a probability vector. */
export function entropy(probabilities: readonly number[]): number {
  let result = 0;
  for (const p of probabilities) if (p > 0) result -= p * Math.log(p);
  return result;
}

export { mean } from '../core/stats.ts';

export const armKinds = ['difficulty', 'task', 'category', 'both', 'task-difficulty'] as const;
export type ArmKind = (typeof armKinds)[number];

/**
 * The arm of a problem: its difficulty level, task, category, category×difficulty ('both') or
 * task×difficulty ('task-difficulty', one stratum per task and level, as DUMP's data sources).
 */
export function armKey(problem: Problem, kind: ArmKind): string {
  switch (kind) {
    case 'task-difficulty':
      return `${problem.task}-${problem.difficulty}`;
    case 'difficulty':
      return String(problem.difficulty);
    case 'task':
      return problem.task;
    case 'category':
      return problem.category;
    case 'both':
      return `${problem.category}-${problem.difficulty}`;
  }
}

/** The hint of a selector whose arms need a difficulty: the options that do without one. */
export const armDifficultyHint =
  "Give every problem a numeric difficulty, or set selector.options.arms to 'task' or 'category'.";

/** Whether arms of this kind need a numeric difficulty on every problem. */
export function usesDifficulty(kind: ArmKind): boolean {
  return kind === 'difficulty' || kind === 'both' || kind === 'task-difficulty';
}

export interface ArmGrouping {
  /** Arm names, sorted (numerically when all are numbers). */
  names: string[];
  /** members[arm] = pool indices, in pool order. */
  members: number[][];
  /** armOf[poolIndex] = arm index. */
  armOf: Int32Array;
  indexOfName: Map<string, number>;
}

export function groupIntoArms(pool: readonly Problem[], keyOf: (problem: Problem) => string): ArmGrouping {
  const keys = pool.map(keyOf);
  const distinct = [...new Set(keys)];
  const numeric = distinct.every((name) => name.trim() !== '' && Number.isFinite(Number(name)));
  distinct.sort(numeric ? (a, b) => Number(a) - Number(b) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const indexOfName = new Map(distinct.map((name, index) => [name, index]));
  const members: number[][] = distinct.map(() => []);
  const armOf = new Int32Array(pool.length);
  keys.forEach((key, poolIndex) => {
    const arm = indexOfName.get(key)!;
    armOf[poolIndex] = arm;
    members[arm].push(poolIndex);
  });
  return { names: distinct, members, armOf, indexOfName };
}

/** Maps problem ids to pool indices; observe() uses it to find the problem behind an outcome. */
export function indexById(pool: readonly Problem[]): Map<string, number> {
  const index = new Map<string, number>();
  pool.forEach((problem, poolIndex) => {
    if (index.has(problem.id)) throw new ConfigError(`duplicate problem id '${problem.id}' in the pool`);
    index.set(problem.id, poolIndex);
  });
  return index;
}

export interface ArmListsState {
  orders: (number[] | null)[];
  cursors: number[];
}

/**
 * Per-arm lists of pool indices, each consumed in a shuffled order without replacement and reshuffled
 * when exhausted ("perpetual" mode of the SEC dataloader, the cyclic per-level lists of E2H). Shuffles
 * happen lazily, with the Rng given to select(), so construction needs no randomness.
 */
export class ArmLists {
  private orders: (number[] | null)[];
  private cursors: number[];

  constructor(private readonly members: readonly (readonly number[])[]) {
    this.orders = members.map(() => null);
    this.cursors = members.map(() => 0);
  }

  next(arm: number, rng: Rng): number {
    let order = this.orders[arm];
    if (order === null || this.cursors[arm] >= order.length) {
      order = rng.shuffle([...this.members[arm]]);
      this.orders[arm] = order;
      this.cursors[arm] = 0;
    }
    return order[this.cursors[arm]++];
  }

  state(): ArmListsState {
    return {
      orders: this.orders.map((order) => (order === null ? null : [...order])),
      cursors: [...this.cursors],
    };
  }

  load(state: ArmListsState): void {
    this.orders = state.orders.map((order) => (order === null ? null : [...order]));
    this.cursors = [...state.cursors];
  }
}

/** Metrics for selectors without a natural arm distribution: the share of each category in the last batch. */
export function batchMetrics(lastBatch: readonly Problem[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const problem of lastBatch) counts.set(problem.category, (counts.get(problem.category) ?? 0) + 1);
  const metrics: Record<string, number> = {};
  const shares: number[] = [];
  for (const [category, count] of [...counts].sort()) {
    const share = count / lastBatch.length;
    metrics[`curriculum/${category}/prob`] = share;
    shares.push(share);
  }
  metrics['curriculum/entropy'] = entropy(shares);
  return metrics;
}

/** Metrics for an arm distribution: curriculum/<arm>/prob for each arm plus curriculum/entropy. */
export function armMetrics(
  names: readonly string[],
  probabilities: readonly number[],
): Record<string, number> {
  const metrics: Record<string, number> = {};
  names.forEach((name, arm) => {
    metrics[`curriculum/${name}/prob`] = probabilities[arm];
  });
  metrics['curriculum/entropy'] = entropy(probabilities);
  return metrics;
}

/** Fraction of successes in a group, treating reward > 0.5 as success (binary verifiable rewards). */
export function passRate(rewards: readonly number[]): number {
  if (rewards.length === 0) return 0;
  let successes = 0;
  for (const reward of rewards) if (reward > 0.5) successes++;
  return successes / rewards.length;
}

/**
 * Mean reward of a group clipped to [0, 1]: the pass rate with partial credit (the authors of BOTS and
 * TTC-RL average the raw rewards; the clip keeps Beta counts and logits defined when a reward shaping
 * goes below 0 or above 1). For 0/1 rewards it equals passRate.
 */
export function meanReward(rewards: readonly number[]): number {
  if (rewards.length === 0) return 0;
  let total = 0;
  for (const reward of rewards) total += reward;
  return Math.min(1, Math.max(0, total / rewards.length));
}

/** What the trainer knows about the run; selectors whose schedules need it take their defaults from it. */
export interface SelectorContext {
  /** Training steps of the run (the schedule length of e2h and hard-first unless their options say otherwise). */
  totalSteps?: number;
}

/** Options with the run's context filled in where the user gave nothing. */
export function withRunDefaults(options: unknown, context: SelectorContext | undefined): unknown {
  if (
    context?.totalSteps === undefined ||
    (options !== undefined && (typeof options !== 'object' || options === null))
  ) {
    return options;
  }
  return { totalSteps: context.totalSteps, ...(options as object | undefined) };
}
