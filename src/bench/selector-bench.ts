// Selector overhead: the cost of select() + observe() per training step on a large pool, for every
// registered selector (or a chosen few). The goal is well under 1% of an RL step (≈ 10 ms on a step of
// about a second; real LLM steps take minutes). Outcome generation is not timed; construction is reported
// separately (it embeds prompts, sorts, groups arms).
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome } from '../core/selector.ts';
import { selectors } from '../curricula/index.ts';

export interface SelectorBenchOptions {
  /** Problems in the pool (default 100 000). */
  poolSize?: number;
  /** Timed steps per selector (default 20) after `warmupSteps` (default 5). */
  steps?: number;
  warmupSteps?: number;
  batchSize?: number;
  groupSize?: number;
  /** Selector names (default: all registered). */
  names?: string[];
  /** Extra options per selector name. */
  options?: Record<string, Record<string, unknown>>;
}

export interface SelectorBenchResult {
  name: string;
  poolSize: number;
  batchSize: number;
  constructionMilliseconds: number;
  /** Mean select + observe time per step, in microseconds. */
  microsecondsPerStep: number;
  selectMicroseconds: number;
  observeMicroseconds: number;
  /** Process CPU time (user + system) per step, in microseconds: robust when other processes share the cores. */
  cpuMicrosecondsPerStep: number;
}

const CATEGORIES = ['addition', 'countdown', 'modular-chain', 'string-compose', 'sorting'];

/** A synthetic pool with every field the selectors read (difficulty, numeric params, solution, prompt). */
export function benchPool(size: number): Problem[] {
  return Array.from({ length: size }, (_, index) => {
    const category = CATEGORIES[index % CATEGORIES.length];
    const difficulty = Math.floor(index / CATEGORIES.length) % 10;
    return {
      id: `${category}-${index}`,
      task: category,
      category,
      difficulty,
      prompt: `${category} problem ${index}: combine ${difficulty + 2} numbers ${index % 97} and ${index % 89}.`,
      answer: String(index % 100),
      solution: `first ${index % 7}\nthen ${index % 11}\nanswer ${index % 100}`,
      params: { digits: difficulty + 1, terms: (index % 4) + 2 },
    };
  });
}

function defaultsFor(name: string): Record<string, unknown> {
  if (name === 'e2h' || name === 'hard-first') return { totalSteps: 1000 };
  if (name === 'target-relevance') return { targets: ['countdown problem: combine 4 numbers 12 and 7.'] };
  return {};
}

export function benchmarkSelectors(options: SelectorBenchOptions = {}): SelectorBenchResult[] {
  const poolSize = options.poolSize ?? 100_000;
  const steps = options.steps ?? 20;
  const warmupSteps = options.warmupSteps ?? 5;
  const batchSize = options.batchSize ?? 128;
  const groupSize = options.groupSize ?? 8;
  const pool = benchPool(poolSize);
  const names = options.names ?? selectors.names();
  return names.map((name) => {
    const constructionStart = performance.now();
    const selector = selectors.get(name)(pool, { ...defaultsFor(name), ...options.options?.[name] });
    const constructionMilliseconds = performance.now() - constructionStart;
    const rng = new Rng(1);
    const outcomeRng = new Rng(2);
    let selectTime = 0;
    let observeTime = 0;
    let cpuTime = 0;
    for (let step = 0; step < warmupSteps + steps; step++) {
      const cpuBeforeSelect = process.cpuUsage();
      const selectStart = performance.now();
      const problems = selector.select(batchSize, rng);
      const selectEnd = performance.now();
      const cpuSelect = process.cpuUsage(cpuBeforeSelect);
      const outcomes: GroupOutcome[] = problems.map((problem) => {
        const rewards: number[] = Array.from({ length: groupSize }, () => (outcomeRng.next() < 0.5 ? 1 : 0));
        const average = rewards.reduce((sum, reward) => sum + reward, 0) / groupSize;
        return { problem, rewards, advantages: rewards.map((reward) => reward - average) };
      });
      const cpuBeforeObserve = process.cpuUsage();
      const observeStart = performance.now();
      selector.observe(step, outcomes);
      const observeEnd = performance.now();
      const cpuObserve = process.cpuUsage(cpuBeforeObserve);
      if (step >= warmupSteps) {
        cpuTime += cpuSelect.user + cpuSelect.system + cpuObserve.user + cpuObserve.system;
        selectTime += selectEnd - selectStart;
        observeTime += observeEnd - observeStart;
      }
    }
    return {
      name,
      poolSize,
      batchSize,
      constructionMilliseconds,
      microsecondsPerStep: ((selectTime + observeTime) * 1000) / steps,
      selectMicroseconds: (selectTime * 1000) / steps,
      observeMicroseconds: (observeTime * 1000) / steps,
      cpuMicrosecondsPerStep: cpuTime / steps,
    };
  });
}
