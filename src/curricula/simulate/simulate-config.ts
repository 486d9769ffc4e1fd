// The config of a selector simulation (`curricula simulate`, and `simulate` in the public API,
// src/api/simulate.ts): one strict schema and one function for both. It checks the selector and learner
// names against their registries (an unknown name lists the known ones) and runs simulateParallel.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseConfig } from '../../core/config.ts';
import { UserError } from '../../core/errors.ts';
import { selectors as selectorRegistry } from '../index.ts';
import { learners } from './learners.ts';
import { type SimulationResult, simulateParallel } from './simulate.ts';

const selectorChoiceSchema = z.union([
  z.string(),
  z.strictObject({
    name: z.string(),
    options: z.record(z.string(), z.unknown()).optional(),
    label: z.string().optional(),
  }),
]);

/** Schema of a selector-simulation config (`simulate()`; the flags of `curricula simulate`). */
export const simulateConfigSchema = z.strictObject({
  /** Selectors to compare, by name or {name, options, label} (default: every registered selector). */
  selectors: z.array(selectorChoiceSchema).min(1).optional(),
  /** Simulated learner (src/curricula/simulate/learners.ts). */
  learner: z.string().default('irt'),
  /** Training steps per run. */
  steps: z.number().int().positive().default(500),
  /** Seeds per selector (1..n), or the seeds themselves. */
  seeds: z.union([z.number().int().positive(), z.array(z.number().int()).min(1)]).default(5),
  /** Problems per step. */
  batchSize: z.number().int().positive().default(32),
  /** Samples per problem (G). */
  groupSize: z.number().int().positive().default(8),
  /** Held-out accuracy counted as reached. */
  target: z.number().gt(0).max(1).default(0.8),
  /** Pool problems per category × level. */
  perLevel: z.number().int().positive().optional(),
  /** Worker threads running (selector, seed) runs in parallel; results do not depend on it (default: one per core). */
  jobs: z.number().int().positive().optional(),
});

/** A simulation config as a user writes it (defaults optional). */
export type SimulateConfigInput = z.input<typeof simulateConfigSchema>;

/** Options of `simulate` that are not part of the config: progress, and the config's name in errors. */
export interface SimulateRunOptions {
  /** Called after each (selector, seed) run. */
  onRun?: (label: string, seed: number) => void;
  /** Names the config in error messages (default 'simulate config'). */
  source?: string;
}

/** Validates a simulation config (every invalid field listed, unknown names with the known ones) and runs it. */
export async function simulateFromConfig(
  given: SimulateConfigInput,
  options: SimulateRunOptions = {},
): Promise<SimulationResult> {
  const config = parseConfig(simulateConfigSchema, given, options.source ?? 'simulate config');
  const choices = config.selectors ?? selectorRegistry.names();
  const unknown = choices
    .map((choice) => (typeof choice === 'string' ? choice : choice.name))
    .filter((name) => !selectorRegistry.has(name));
  if (unknown.length > 0) {
    throw new UserError(
      `unknown selector '${unknown.join("', '")}'; known: ${selectorRegistry.names().join(', ')}`,
    );
  }
  if (!learners.has(config.learner)) {
    throw new UserError(`unknown learner '${config.learner}'; known: ${learners.names().join(', ')}`);
  }
  return simulateParallel({
    jobs: config.jobs ?? availableParallelism(),
    selectors: choices,
    learner: config.learner,
    steps: config.steps,
    seeds: config.seeds,
    batchSize: config.batchSize,
    groupSize: config.groupSize,
    target: config.target,
    perLevel: config.perLevel,
    onRun: options.onRun,
  });
}

/** How many (selector, seed) runs a config makes (for a progress bar). */
export function simulationRunCount(given: SimulateConfigInput): number {
  const config = parseConfig(simulateConfigSchema, given, 'simulate config');
  const seeds = typeof config.seeds === 'number' ? config.seeds : config.seeds.length;
  return (config.selectors ?? selectorRegistry.names()).length * seeds;
}
