// alp-gmm — absolute learning progress over a continuous task space, modelled by a Gaussian mixture.
// Paper: Portelas et al., "Teacher algorithms for curriculum learning of Deep RL in continuously
// parameterized environments", CoRL 2019, arXiv 1910.07224. Authors' code: flowersteam/teachDeepRL
// teachDRL/teachers/algos/alp_gmm.py.
// Task space: numeric `problem.params`, each scaled to [0, 1] by the pool's min and max — `paramKeys` if
// given (every problem must have them), otherwise the union of the pool's numeric params (a problem
// lacking one sits at 0 on that axis) plus, for a pool of several tasks, a task axis (task index scaled to
// [0, 1]; a deviation: teachDeepRL has one task family). Reward r = the group's pass rate.
// ALP: for a new (τ, r), alp = |r − r(τ')| with τ' the nearest earlier task; alp = 0 until the history holds
// more than 5 points. Fit: after `bootstrapEpisodes` (250) observed groups and then every `fitRate` (250),
// fit GMMs with k ∈ [2, 10] to the last `fitWindow` (250) vectors [τ, alp] and keep the lowest AIC.
// Sample: with probability 0.2 (or before the first fit) τ ~ U[0,1]^d; otherwise pick component g with
// probability ∝ its mean ALP (last mean coordinate), draw [τ, alp] ~ N(μ_g, Σ_g), drop alp, clip.
// Deviations: (1) a pool is discrete, so a sampled τ maps to the nearest distinct parameter vector of
// the pool (Euclidean, scaled space) and then to that vector's next problem (shuffled, no replacement).
// (2) the nearest earlier task is looked up exactly first (same vector → its latest reward, which is the
// common case in a discrete pool) and by brute force over the last `historySize` points otherwise;
// teachDeepRL keeps the whole history in a kd-tree. (3) our EM starts from k-means++ seeds, not a k-means solution.
// `warmStart` (teachDeepRL's warm_start, default off there too) starts each k's EM from its previous fit:
// fewer iterations, a fraction of the fit cost.
// [unverified]: none of the values (teachDeepRL defaults); counting one graded group as one episode is ours.
import { z } from 'zod';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import type { GroupOutcome, TaskSelector } from '../core/selector.ts';
import { defineSelector } from './define.ts';
import { fitBestGmm, type Gmm, sampleComponent } from './gmm.ts';
import {
  ArmLists,
  type ArmListsState,
  batchMetrics,
  expectState,
  groupIntoArms,
  missingField,
  parseOptions,
  passRate,
  requireNonEmptyPool,
} from './shared.ts';

export const alpGmmOptions = z.strictObject({
  paramKeys: z.array(z.string()).min(1).nullable().default(null),
  randomTaskRatio: z.number().min(0).max(1).default(0.2),
  bootstrapEpisodes: z.number().int().min(0).default(250),
  fitRate: z.number().int().positive().default(250),
  fitWindow: z.number().int().min(2).default(250),
  minComponents: z.number().int().positive().default(2),
  maxComponents: z.number().int().positive().default(10),
  historySize: z.number().int().positive().default(10000),
  maxIterations: z.number().int().positive().default(100),
  warmStart: z.boolean().default(false),
});

interface AlpGmmState {
  selector: 'alp-gmm';
  historyTasks: number[][];
  historyRewards: number[];
  latestByVector: [string, number][];
  fitBuffer: number[][];
  episodes: number;
  lastFit: number;
  model: Gmm | null;
  warmFits: [number, Gmm][];
  lists: ArmListsState;
  lastBatch: string[];
  lastAlp: number;
}

export function createAlpGmm(pool: Problem[], options: unknown): TaskSelector {
  const config = parseOptions('alp-gmm', alpGmmOptions, options);
  requireNonEmptyPool('alp-gmm', pool);
  // The task space: the given paramKeys (every problem must have them), or by default the union of the
  // numeric params of the pool — a problem lacking a key sits at 0 on that axis — plus one axis for the
  // task when the pool mixes tasks (their parameters mean different things).
  const explicitKeys = config.paramKeys !== null;
  const numericKeys = (problem: Problem) =>
    Object.keys(problem.params ?? {}).filter(
      (key) => typeof problem.params[key] === 'number' && Number.isFinite(problem.params[key]),
    );
  const keys = config.paramKeys ?? [...new Set(pool.flatMap(numericKeys))].sort();
  const taskNames = [...new Set(pool.map((problem) => problem.task))].sort();
  const taskAxis = !explicitKeys && taskNames.length > 1;
  const taskIndex = new Map(taskNames.map((task, index) => [task, index]));
  const low = keys.map(() => Number.POSITIVE_INFINITY);
  const high = keys.map(() => Number.NEGATIVE_INFINITY);
  for (const problem of pool) {
    if (!explicitKeys && numericKeys(problem).length === 0) {
      throw missingField(
        'alp-gmm',
        'params (numeric)',
        problem,
        'ALP-GMM needs numeric generator parameters.',
      );
    }
    keys.forEach((key, j) => {
      const value = problem.params?.[key];
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        if (explicitKeys) {
          throw missingField(
            'alp-gmm',
            `params.${key} (numeric)`,
            problem,
            'Every problem needs the paramKeys.',
          );
        }
        return;
      }
      low[j] = Math.min(low[j], value);
      high[j] = Math.max(high[j], value);
    });
  }
  const dimension = keys.length + (taskAxis ? 1 : 0);
  const scale = (problem: Problem) => {
    const vector = keys.map((key, j) => {
      const value = problem.params?.[key];
      if (typeof value !== 'number' || !Number.isFinite(value) || !(high[j] > low[j])) return 0;
      return (value - low[j]) / (high[j] - low[j]);
    });
    if (taskAxis) vector.push((taskIndex.get(problem.task) ?? 0) / (taskNames.length - 1));
    return vector;
  };
  const vectorKey = (vector: readonly number[]) => vector.join(',');
  const vectors = groupIntoArms(pool, (problem) => vectorKey(scale(problem)));
  const points = vectors.names.map((name) => name.split(',').map(Number));
  const lists = new ArmLists(vectors.members);
  const byId = new Map(pool.map((problem) => [problem.id, problem]));

  let historyTasks: number[][] = [];
  let historyRewards: number[] = [];
  let latestByVector = new Map<string, number>();
  let fitBuffer: number[][] = [];
  let episodes = 0;
  let lastFit = 0;
  let model: Gmm | null = null;
  let warmFits = new Map<number, Gmm>(); // last fit per k, when warmStart
  let lastBatch: Problem[] = [];
  let lastAlp = 0;

  function nearestVector(task: readonly number[]): number {
    let best = 0;
    let bestDistance = Number.POSITIVE_INFINITY;
    points.forEach((point, index) => {
      let distance = 0;
      for (let j = 0; j < point.length; j++) distance += (point[j] - task[j]) ** 2;
      if (distance < bestDistance) {
        bestDistance = distance;
        best = index;
      }
    });
    return best;
  }

  function sampleTask(rng: Rng): number[] {
    if (model === null || rng.next() < config.randomTaskRatio)
      return Array.from({ length: dimension }, () => rng.next());
    const alpMeans = model.means.map((mean) => Math.max(mean[mean.length - 1], 1e-12));
    const draw = sampleComponent(model, rng.categorical(alpMeans), rng);
    return draw.slice(0, dimension).map((value) => Math.min(1, Math.max(0, value)));
  }

  function record(task: number[], reward: number): number {
    const key = vectorKey(task);
    let alp = 0;
    if (historyRewards.length > 5) {
      const exact = latestByVector.get(key);
      if (exact !== undefined) alp = Math.abs(reward - exact);
      else {
        let bestDistance = Number.POSITIVE_INFINITY;
        historyTasks.forEach((earlier, index) => {
          let distance = 0;
          for (let j = 0; j < earlier.length; j++) distance += (earlier[j] - task[j]) ** 2;
          if (distance < bestDistance) {
            bestDistance = distance;
            alp = Math.abs(reward - historyRewards[index]);
          }
        });
      }
    }
    historyTasks.push(task);
    historyRewards.push(reward);
    if (historyTasks.length > config.historySize) {
      historyTasks.shift();
      historyRewards.shift();
    }
    latestByVector.set(key, reward);
    return alp;
  }

  return {
    name: 'alp-gmm',
    select(count: number, rng: Rng): Problem[] {
      lastBatch = [];
      for (let slot = 0; slot < count; slot++)
        lastBatch.push(pool[lists.next(nearestVector(sampleTask(rng)), rng)]);
      return lastBatch;
    },
    observe(_step: number, outcomes: readonly GroupOutcome[]): void {
      const alps: number[] = [];
      for (const outcome of outcomes) {
        if (outcome.rewards.length === 0) continue;
        const task = scale(outcome.problem);
        const alp = record(task, passRate(outcome.rewards));
        alps.push(alp);
        fitBuffer.push([...task, alp]);
        if (fitBuffer.length > config.fitWindow) fitBuffer.shift();
        episodes++;
      }
      if (alps.length > 0) lastAlp = alps.reduce((sum, value) => sum + value, 0) / alps.length;
      const due =
        model === null ? episodes >= config.bootstrapEpisodes : episodes - lastFit >= config.fitRate;
      if (due && fitBuffer.length >= config.minComponents) {
        // EM needs its own randomness; derive it from the data so that observe() stays Rng-free and a
        // reloaded state refits identically.
        const fitRng = new Rng(episodes * 7919 + fitBuffer.length);
        model = fitBestGmm(
          fitBuffer,
          config.minComponents,
          config.maxComponents,
          fitRng,
          { maxIterations: config.maxIterations },
          config.warmStart ? warmFits : undefined,
        );
        lastFit = episodes;
      }
    },
    state: (): AlpGmmState => ({
      selector: 'alp-gmm',
      historyTasks: historyTasks.map((task) => [...task]),
      historyRewards: [...historyRewards],
      latestByVector: [...latestByVector],
      fitBuffer: fitBuffer.map((row) => [...row]),
      episodes,
      lastFit,
      model: model === null ? null : structuredClone(model),
      warmFits: structuredClone([...warmFits]),
      lists: lists.state(),
      lastBatch: lastBatch.map((problem) => problem.id),
      lastAlp,
    }),
    load(state: unknown): void {
      const saved = expectState<AlpGmmState>('alp-gmm', state);
      historyTasks = saved.historyTasks.map((task) => [...task]);
      historyRewards = [...saved.historyRewards];
      latestByVector = new Map(saved.latestByVector);
      fitBuffer = saved.fitBuffer.map((row) => [...row]);
      episodes = saved.episodes;
      lastFit = saved.lastFit;
      model = saved.model === null ? null : structuredClone(saved.model);
      warmFits = new Map(structuredClone(saved.warmFits));
      lists.load(saved.lists);
      lastBatch = saved.lastBatch.map((id) => byId.get(id)!).filter(Boolean);
      lastAlp = saved.lastAlp;
    },
    metrics(): Record<string, number> {
      const metrics: Record<string, number> = { ...batchMetrics(lastBatch), 'curriculum/alp': lastAlp };
      if (model !== null) metrics['curriculum/components'] = model.weights.length;
      return metrics;
    },
  };
}

export const alpGmmSelector = defineSelector({
  id: 'alp-gmm',
  description: 'absolute learning progress over a continuous task space, modelled by a Gaussian mixture',
  paper: {
    title: 'Teacher algorithms for curriculum learning of Deep RL in continuously parameterized environments',
    arxiv: '1910.07224',
    code: 'flowersteam/teachDeepRL teachDRL/teachers/algos/alp_gmm.py',
  },
  optionsSchema: alpGmmOptions,
  create: createAlpGmm,
});
