// What the run view asks of one run, each answer read through RunStore.read (read-only SQLite in WAL
// mode, no lock: a reader never blocks the training process, which keeps appending meanwhile):
// config and a config diff, metric keys, metric series after a step (live polling sends only new steps),
// the samples of a step grouped by problem (one GRPO group side by side), and a reward histogram per step.
// Each completion comes with what the store kept of it (src/runs/sample-columns.ts): the advantage the loss
// used, per-token sampler log-probs with each token's text, and the guidance (scaffold name, plain prompt,
// added texts, guided / expert / retry) and, for a multi-turn episode, its turns (SampleEpisode: each
// turn's policy and tool-output token spans, reward, stop reason, error; the end reason). A run made before
// those columns has none of them: its completions carry `centeredReward` (reward minus the group's mean
// reward, the GRPO advantage before any std scaling), which the browser labels as computed; it is sent
// for every run.
import { flattenConfig } from '../runs/compare/group-runs.ts';
import { RunStore, type SampleEpisode, type SampleGuidance } from '../runs/run-store.ts';
import { DashboardError } from './errors.ts';

function withStore<T>(dir: string, read: (store: RunStore) => T): T {
  const store = RunStore.read(dir);
  try {
    return read(store);
  } finally {
    store.close();
  }
}

export function runConfig(dir: string): unknown {
  return withStore(dir, (store) => store.config());
}

export interface ConfigDifference {
  key: string;
  /** JSON text of the value in this run (undefined: absent). */
  value?: string;
  /** JSON text in the other run. */
  other?: string;
}

/** Dot-path keys whose values differ between two configs (absent keys included). */
export function configDiff(config: unknown, other: unknown): ConfigDifference[] {
  const a = flattenConfig(config);
  const b = flattenConfig(other);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys
    .filter((key) => a.get(key) !== b.get(key))
    .map((key) => ({ key, value: a.get(key), other: b.get(key) }));
}

export function metricKeys(dir: string): { keys: string[]; lastStep: number | null; sampleSteps: number[] } {
  return withStore(dir, (store) => ({
    keys: store.keys(),
    lastStep: store.lastStep(),
    sampleSteps: store.sampleSteps(),
  }));
}

/** key → [steps, values] after `after` (non-finite values, stored as NULL, come back as null). */
export function metricSeries(
  dir: string,
  keys: readonly string[],
  after: number,
): { lastStep: number | null; series: Record<string, [number[], (number | null)[]]> } {
  return withStore(dir, (store) => {
    const series: Record<string, [number[], (number | null)[]]> = {};
    for (const key of keys) {
      const rows = store.seriesAfter(key, after);
      series[key] = [rows.map((row) => row.step), rows.map((row) => row.value)];
    }
    return { lastStep: store.lastStep(), series };
  });
}

export interface SampleGroup {
  problemId: string;
  /** Parsed from the problem id `<task>-<level>-<hash>` (src/tasks); null when it has another shape. */
  task: string | null;
  level: string | null;
  /** The prompt the policy was given (the first completion's; a hint included). */
  prompt: string;
  meanReward: number;
  completions: SampleCompletion[];
}

export interface SampleCompletion {
  completion: string;
  reward: number;
  reason: string | null;
  /** Reward minus the group's mean reward (computed here, for every run). */
  centeredReward: number;
  /** The advantage the loss used, as stored (null: not trained; absent: the run did not store it). */
  advantage?: number | null;
  advantageKind?: string;
  /** Per-token sampler log-probs and each token's text (absent: not stored). */
  logprobs?: number[];
  tokens?: string[];
  scaffold?: string;
  guidance?: SampleGuidance;
  guided?: boolean;
  expert?: boolean;
  retry?: boolean;
  /** A multi-turn episode's turns, spans indexing `tokens` (absent: single-turn, or a run before the column). */
  episode?: SampleEpisode;
}

const PROBLEM_ID = /^(.+)-(\d+)-[^-]+$/;

/** The samples of one step, grouped by problem id in logging order. */
export function sampleGroups(dir: string, step: number): SampleGroup[] {
  const rows = withStore(dir, (store) => store.samples(step));
  const groups = new Map<string, SampleGroup>();
  for (const row of rows) {
    const id = row.problemId ?? '(no id)';
    if (!groups.has(id)) {
      const parsed = PROBLEM_ID.exec(id);
      groups.set(id, {
        problemId: id,
        task: parsed?.[1] ?? null,
        level: parsed?.[2] ?? null,
        prompt: row.prompt,
        meanReward: 0,
        completions: [],
      });
    }
    const { step: _step, problemId: _id, prompt: _prompt, reason, ...stored } = row;
    groups.get(id)!.completions.push({
      ...stored,
      logprobs: row.logprobs && [...row.logprobs],
      tokens: row.tokens && [...row.tokens],
      reason: reason ?? null,
      centeredReward: 0,
    });
  }
  for (const group of groups.values()) {
    const rewards = group.completions.map((c) => c.reward);
    group.meanReward = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
    for (const completion of group.completions)
      completion.centeredReward = completion.reward - group.meanReward;
  }
  return [...groups.values()];
}

export interface Histogram {
  step: number;
  /** bins+1 edges from lo to hi. */
  edges: number[];
  counts: number[];
  total: number;
}

/** Reward histogram of the logged samples of one step: `bins` equal bins over [min(0, lo), max(1, hi)]. */
export function rewardHistogram(dir: string, step: number, bins = 10): Histogram {
  if (!Number.isInteger(bins) || bins < 1 || bins > 100) {
    throw new DashboardError(400, `bins must be an integer from 1 to 100, got ${bins}`);
  }
  const rewards = withStore(dir, (store) => store.samples(step))
    .map((row) => row.reward)
    .filter((reward) => Number.isFinite(reward));
  const lo = Math.min(0, ...rewards);
  const hi = Math.max(1, ...rewards);
  const width = (hi - lo) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + i * width);
  const counts = new Array<number>(bins).fill(0);
  for (const reward of rewards) counts[Math.min(bins - 1, Math.floor((reward - lo) / width))]++;
  return { step, edges, counts, total: rewards.length };
}
