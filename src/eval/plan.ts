// `curricula plan`'s result: from variance components (a pilot's, or a spread given by hand) the
// minimum detectable effect of each design (cold starts × RL seeds at one evaluation size) and the RL
// seeds each number of cold starts needs for the effect asked about (power.ts holds the model).
import {
  type Design,
  evalSamplingVariance,
  minimumDetectableEffect,
  seedsNeeded,
  type Test,
  type VarianceComponents,
} from './power.ts';

export interface PlanRequest {
  components: VarianceComponents;
  /** Where the components came from, in words (the pilot's runs, or --sd). */
  source: string;
  metric: string;
  effect: number;
  test: Test;
  coldStarts: number[];
  maxSeeds: number;
  evalProblems: number;
  evalSamples: number;
  blocked: boolean;
}

export interface PlanResult extends PlanRequest {
  /** σ²_eval at the planned evaluation size. */
  evalVariance: number;
  /** MDE by cold starts (outer) and RL seeds 1..maxSeeds (inner); null where no degrees of freedom. */
  table: { coldStarts: number; mde: (number | null)[] }[];
  /** RL seeds per cold start for the effect; null: more than maxSeeds. */
  needed: { coldStarts: number; rlSeeds: number | null; runsPerArm: number | null }[];
}

export function planExperiment(request: PlanRequest): PlanResult {
  const design = (coldStarts: number, rlSeeds: number): Design => ({
    coldStarts,
    rlSeeds,
    evalProblems: request.evalProblems,
    evalSamples: request.evalSamples,
    blocked: request.blocked,
  });
  const table = request.coldStarts.map((coldStarts) => ({
    coldStarts,
    mde: Array.from({ length: request.maxSeeds }, (_, index) => {
      const mde = minimumDetectableEffect(request.components, design(coldStarts, index + 1), request.test);
      return Number.isFinite(mde) ? mde : null;
    }),
  }));
  const needed = request.coldStarts.map((coldStarts) => {
    const { rlSeeds: _, ...rest } = design(coldStarts, 1);
    const rlSeeds = seedsNeeded(request.components, rest, request.test, request.effect, request.maxSeeds);
    return { coldStarts, rlSeeds, runsPerArm: rlSeeds === null ? null : rlSeeds * coldStarts };
  });
  return {
    ...request,
    evalVariance: evalSamplingVariance(request.components.pass, request.evalProblems, request.evalSamples),
    table,
    needed,
  };
}

const sd = (variance: number) => Math.sqrt(variance).toFixed(4);

export function formatPlan(plan: PlanResult): string {
  const { components, test } = plan;
  const lines = [
    `metric ${plan.metric}: ${plan.source}`,
    `  spread (SD) of a run's final value: cold start ${components.coldStartEstimated ? sd(components.coldStart) : 'not estimated (one cold start in the pilot: taken as 0)'}, RL seed ${sd(components.rlSeed)}, evaluation sampling ${sd(plan.evalVariance)} (${plan.evalProblems} problems × ${plan.evalSamples} samples at ${components.pass.toFixed(3)})`,
    `  design: ${plan.blocked ? 'blocked (both arms start from the same cold starts)' : 'unblocked (each arm its own cold starts)'}; two-sided α ${test.alpha}, power ${test.power}`,
    '',
    `minimum detectable effect (absolute ${plan.metric}) by RL seeds per cold start:`,
  ];
  const seeds = Array.from({ length: plan.maxSeeds }, (_, index) => index + 1);
  const header = ['cold starts', ...seeds.map(String)];
  const rows = plan.table.map((row) => [
    String(row.coldStarts),
    ...row.mde.map((value) => (value === null ? '—' : value.toFixed(3))),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column].length)),
  );
  const render = (cells: string[]) =>
    `  ${cells.map((cell, column) => cell.padStart(widths[column])).join('  ')}`;
  lines.push(render(header), ...rows.map(render), '');
  lines.push(`to detect ${plan.effect}:`);
  for (const need of plan.needed) {
    lines.push(
      need.rlSeeds === null
        ? `  ${need.coldStarts} cold start(s): more than ${plan.maxSeeds} RL seeds each (raise --max-seeds, or evaluate more problems)`
        : `  ${need.coldStarts} cold start(s) × ${need.rlSeeds} RL seeds = ${need.runsPerArm} runs per arm`,
    );
  }
  return lines.join('\n');
}
