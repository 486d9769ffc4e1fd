// Crash-safe resume: a real `curricula train` process is killed with SIGKILL between two checkpoints and
// inside checkpoint writes, resumed with --resume, and must end with exactly the metrics and samples of an
// uninterrupted run. Every kill leaves steps logged after the latest checkpoint, so each resume must
// forget and replay them (the 'truncated' and 'resumed' run events name the replayed steps).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { crashPointVariable } from '../src/core/crash-point.ts';
import { readCheckpoint } from '../src/runs/checkpoints.ts';
import { RunStore, readJsonlLines } from '../src/runs/run-store.ts';
import {
  cliPath,
  repoRoot,
  runCli,
  startCli,
  tempDir,
  withoutNativeFallbackLine,
  writeYaml,
} from './helpers.ts';

const deterministic = (entry: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(entry).filter(([key]) => key !== 'time' && !key.startsWith('perf/')));

function metricsOf(runDir: string): Record<string, unknown>[] {
  return (readJsonlLines(join(runDir, 'metrics.jsonl')) as Record<string, unknown>[]).map(deterministic);
}

/** The SQLite side of the store: metric rows (without timings) and stored samples. */
function sqliteOf(runDir: string): { metrics: unknown[]; samples: unknown[] } {
  const db = new Database(join(runDir, 'run.sqlite'), { readonly: true });
  try {
    return {
      metrics: db
        .prepare("SELECT step, key, value FROM metrics WHERE key NOT LIKE 'perf/%' ORDER BY step, key")
        .all(),
      samples: db
        .prepare(
          // Every column: the stored advantage, log-probs, token pieces and guidance replay exactly too.
          'SELECT * FROM samples ORDER BY step, rowid',
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

/** Steps in the store beyond the checkpoint LATEST points to: what a resume has to replay. */
function stepsPastLatest(runDir: string): { latest: number; pastLatest: number[] } {
  const latest = readCheckpoint(join(runDir, 'checkpoints'))?.state.step ?? -1;
  const steps = metricsOf(runDir).map((entry) => Number(entry.step));
  return { latest, pastLatest: steps.filter((step) => step > latest) };
}

function replayEvents(runDir: string): unknown[] {
  const store = RunStore.read(runDir);
  try {
    return store
      .events()
      .filter((event) => event.kind === 'resumed')
      .map((event) => event.detail);
  } finally {
    store.close();
  }
}

function resume(runDir: string, crashAt?: string) {
  const env = { ...process.env };
  delete env[crashPointVariable];
  if (crashAt) env[crashPointVariable] = crashAt;
  const result = spawnSync(process.execPath, [cliPath, 'train', '--resume', runDir, '--quiet'], {
    cwd: repoRoot,
    encoding: 'utf8',
    env,
    timeout: 120_000,
  });
  return { status: result.status, signal: result.signal, stderr: withoutNativeFallbackLine(result.stderr) };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('train --resume after kill -9', () => {
  const dir = tempDir('resume');
  const tasks = [{ task: 'modular-chain', difficulties: [1] }];
  // Checkpoints at steps 0, 4 and 8 (latestEvery 4; the evaluations at 4 and 8 checkpoint too).
  // policy.workers 1 (the in-process path) unless `extra` says otherwise: the 2-worker test compares
  // against it, and the default (auto) would make the reference depend on the machine's cores.
  const trainConfig = (name: string, extra: Record<string, unknown> = {}) =>
    writeYaml(dir, `${name}.yaml`, {
      policy: { workers: 1 },
      name,
      runsDir: dir,
      seed: 5,
      init: { checkpoint: join(dir, 'cold') },
      tasks,
      poolSize: 32,
      rollout: { groupSize: 4, maxTokens: 24 },
      train: { steps: 8, batchSize: 4, learningRate: 0.003 },
      eval: { every: 4, problemsPerDifficulty: 4, samples: 2 },
      checkpoint: { latestEvery: 4 },
      ...extra,
    });
  let reference: Record<string, unknown>[] = [];
  let referenceSqlite: { metrics: unknown[]; samples: unknown[] };

  beforeAll(() => {
    const pretrainConfig = writeYaml(dir, 'pretrain.yaml', {
      name: 'cold',
      runsDir: dir,
      seed: 3,
      model: { preset: 'tiny' },
      policy: { workers: 1 },
      tasks,
      train: { steps: 30, batchSize: 16, learningRate: 0.01 },
      eval: { every: 0, problemsPerDifficulty: 4 },
    });
    expect(runCli(['pretrain', '--config', pretrainConfig, '--quiet']).status).toBe(0);
    expect(runCli(['train', '--config', trainConfig('straight'), '--quiet']).status).toBe(0);
    reference = metricsOf(join(dir, 'straight'));
    referenceSqlite = sqliteOf(join(dir, 'straight'));
    expect(reference.map((entry) => entry.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // The test is only meaningful if the policy actually changed: some step had a non-zero gradient.
    expect(reference.some((entry) => Number(entry['train/grad_norm']) > 0)).toBe(true);
  }, 180_000);

  /** Starts run `name`, SIGKILLs it once step 5 is logged (LATEST at 4), returns the steps to replay. */
  async function killBetweenCheckpoints(name: string, extra: Record<string, unknown> = {}) {
    const crashed = join(dir, name);
    const child = startCli(['train', '--config', trainConfig(name, extra), '--quiet']);
    const metricsPath = join(crashed, 'metrics.jsonl');
    // Kill as soon as step 5 is logged: the next checkpoint (step 8) is three steps and an evaluation away.
    await waitFor(
      () => existsSync(metricsPath) && readFileSync(metricsPath, 'utf8').includes('"step":5,'),
      90_000,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const before = stepsPastLatest(crashed);
    // 4 unless the kill landed after the step-8 checkpoint (three steps later): a lost race, not a bug.
    expect(before.latest, 'SIGKILL arrived after the next checkpoint; nothing left to replay').toBe(4);
    expect(before.pastLatest[0]).toBe(5);
    return { crashed, before };
  }

  it('killed between checkpoints, replays the steps logged after the latest one', async () => {
    const { crashed, before } = await killBetweenCheckpoints('between');

    const resumed = resume(crashed);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(replayEvents(crashed)).toEqual([{ step: 4, replayed: before.pastLatest }]);
    expect(metricsOf(crashed)).toEqual(reference);
    expect(sqliteOf(crashed)).toEqual(referenceSqlite);
    // the start and the resume each recorded their kernel set (the same here, so no warning above)
    const store = RunStore.read(crashed);
    const kernels = store.events().filter((event) => event.kind === 'kernels');
    store.close();
    expect(kernels).toHaveLength(2);
    expect(kernels[1].detail).toEqual(kernels[0].detail);
  }, 180_000);

  it('with 2 policy workers: killed between checkpoints, resumes bit-identical to an uninterrupted 2-worker run', async () => {
    const workers = { policy: { workers: 2 } };
    expect(runCli(['train', '--config', trainConfig('straight-2', workers), '--quiet']).status).toBe(0);
    const reference2 = metricsOf(join(dir, 'straight-2'));
    // The workers really ran: their per-prompt sampling streams give other samples than the in-process run.
    expect(reference2.map((entry) => entry.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(reference2).not.toEqual(reference);
    const { crashed, before } = await killBetweenCheckpoints('between-2', workers);

    const resumed = resume(crashed);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(replayEvents(crashed)).toEqual([{ step: 4, replayed: before.pastLatest }]);
    expect(metricsOf(crashed)).toEqual(reference2);
    expect(sqliteOf(crashed)).toEqual(sqliteOf(join(dir, 'straight-2')));
  }, 240_000);

  it('with guidance, ReLIFT and a teacher: killed between checkpoints, scaffold, SFT buffer and teacher resume exactly', async () => {
    // oracle-prefix remembers prefixes per problem and ReLIFT buffers failed problems across steps: both
    // states live only in the checkpoint's trainer state, so a resume that dropped either would diverge.
    // A pool of 4 problems, so each is planned again at every step and the scaffold acts on what it learnt.
    // A teacher too (the cold start itself, frozen): its OPD term enters every step's advantages, so a
    // resume that rebuilt it from the resumed weights instead of its checkpoint would diverge.
    const helped = {
      poolSize: 4,
      guidance: { name: 'oracle-prefix' },
      algorithm: { relift: { enabled: true, sftDataSize: 4, miniBatchSize: 4 } },
      teacher: {
        pool: [{ name: 'cold', checkpoint: join(dir, 'cold') }],
        opd: { teacher: 'cold', coef: 0.5 },
      },
    };
    expect(runCli(['train', '--config', trainConfig('straight-helped', helped), '--quiet']).status).toBe(0);
    const referenceHelped = metricsOf(join(dir, 'straight-helped'));
    // Both really acted before the kill point (step 5) and after the checkpoint the resume starts from (4).
    const acted = (key: string, from: number, to: number) =>
      referenceHelped.some(
        (entry) => Number(entry.step) >= from && Number(entry.step) <= to && Number(entry[key]) > 0,
      );
    expect(acted('guidance/guided_frac', 1, 4) && acted('guidance/guided_frac', 5, 8)).toBe(true);
    expect(acted('relift/buffer_size', 1, 4) && acted('relift/sft_loss', 5, 8)).toBe(true);
    expect(
      referenceHelped.filter((entry) => entry['teacher/kl'] !== undefined).length,
    ).toBeGreaterThanOrEqual(8);
    const { crashed, before } = await killBetweenCheckpoints('between-helped', helped);

    const resumed = resume(crashed);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(replayEvents(crashed)).toEqual([{ step: 4, replayed: before.pastLatest }]);
    expect(metricsOf(crashed)).toEqual(referenceHelped);
    expect(sqliteOf(crashed)).toEqual(sqliteOf(join(dir, 'straight-helped')));
  }, 240_000);

  it('with rollout.environment: killed between checkpoints, resumes bit-identical to an uninterrupted run', async () => {
    // Every member is a tag-tools episode (runEpisodes, src/environments). This tiny cold start never
    // writes a tool call, so its episodes are single-turn: what is checked is that the episode path, its
    // seeds and its env/* metrics replay exactly, not a kill between two turns of one episode.
    const environment = { rollout: { groupSize: 4, maxTokens: 24, environment: { name: 'tag-tools' } } };
    expect(runCli(['train', '--config', trainConfig('straight-env', environment), '--quiet']).status).toBe(0);
    const referenceEnv = metricsOf(join(dir, 'straight-env'));
    expect(referenceEnv.filter((entry) => entry['env/turns_mean'] !== undefined)).toHaveLength(8);
    const { crashed, before } = await killBetweenCheckpoints('between-env', environment);

    const resumed = resume(crashed);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(replayEvents(crashed)).toEqual([{ step: 4, replayed: before.pastLatest }]);
    expect(metricsOf(crashed)).toEqual(referenceEnv);
    expect(sqliteOf(crashed)).toEqual(sqliteOf(join(dir, 'straight-env')));
  }, 240_000);

  it('with rollout.environment and a cold start that calls the calculator: killed mid-episode, resumes bit-identical', () => {
    // examples/checkpoints/tool-calc-cold calls the tool in some samples at every length, so a step's
    // episodes have several turns. The crash point 'episode-turn@N' SIGKILLs the run the N-th time a turn
    // ends with episodes still going: between a tool output and the next action, mid-episode.
    const calling = {
      init: { checkpoint: join(repoRoot, 'examples/checkpoints/tool-calc-cold') },
      tasks: [{ task: 'addition', difficulties: [6, 7, 8] }],
      // A small learning rate: at the suite's 0.003 the policy stops calling the tool after two steps.
      train: { steps: 8, batchSize: 4, learningRate: 0.0001 },
      rollout: {
        groupSize: 4,
        maxTokens: 64,
        environment: { name: 'tag-tools', tools: ['calc'], limits: { maxTurns: 3 } },
      },
    };
    expect(runCli(['train', '--config', trainConfig('straight-calls', calling), '--quiet']).status).toBe(0);
    const referenceCalls = metricsOf(join(dir, 'straight-calls'));
    const steps = referenceCalls.filter((entry) => entry['env/turns_mean'] !== undefined);
    expect(steps).toHaveLength(8);
    // Episodes really had tool calls and more than one turn, at the step the kill lands in and others.
    expect(steps.filter((entry) => Number(entry['env/tool_calls_mean']) > 0).length).toBeGreaterThanOrEqual(
      4,
    );
    // The 6th such turn of this run falls in step 6 (one per step here: each step's episodes end by their
    // second turn but one), after the step-4 checkpoint; measured, and checked below.
    const midEpisodeKillAt = 6;
    const crashed = join(dir, 'mid-episode');
    const first = spawnSync(
      process.execPath,
      [cliPath, 'train', '--config', trainConfig('mid-episode', calling), '--quiet'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, [crashPointVariable]: `episode-turn@${midEpisodeKillAt}` },
        timeout: 120_000,
      },
    );
    expect(first.signal).toBe('SIGKILL');
    const before = stepsPastLatest(crashed);
    expect(before.latest, 'the kill should land after the step-4 checkpoint').toBe(4);
    const resumed = resume(crashed);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(metricsOf(crashed)).toEqual(referenceCalls);
    expect(sqliteOf(crashed)).toEqual(sqliteOf(join(dir, 'straight-calls')));
  }, 240_000);

  it('killed inside checkpoint writes (staged, and renamed before LATEST moved), replays and matches', () => {
    const crashed = join(dir, 'inside');
    const first = spawnSync(
      process.execPath,
      [cliPath, 'train', '--config', trainConfig('inside'), '--quiet'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, [crashPointVariable]: 'checkpoint-staged@4' },
        timeout: 120_000,
      },
    );
    expect(first.signal).toBe('SIGKILL');
    // Steps 1-4 are logged, the step-4 checkpoint never got its trainer state: LATEST is still step 0.
    expect(stepsPastLatest(crashed)).toEqual({ latest: 0, pastLatest: [1, 2, 3, 4] });
    expect(readdirSync(join(crashed, 'checkpoints')).some((name) => name.startsWith('.staging-'))).toBe(true);

    // Second crash: the step-8 checkpoint directory is complete and in place, but LATEST names step 4.
    const second = resume(crashed, 'checkpoint-renamed@8');
    expect(second.signal).toBe('SIGKILL');
    expect(existsSync(join(crashed, 'checkpoints', 'step-000008', 'trainer.json'))).toBe(true);
    expect(stepsPastLatest(crashed)).toEqual({ latest: 4, pastLatest: [5, 6, 7, 8] });

    const third = resume(crashed);
    expect(third.stderr).toBe('');
    expect(third.status).toBe(0);
    expect(replayEvents(crashed)).toEqual([
      { step: 0, replayed: [1, 2, 3, 4] },
      { step: 4, replayed: [5, 6, 7, 8] },
    ]);
    expect(metricsOf(crashed)).toEqual(reference);
    expect(sqliteOf(crashed)).toEqual(referenceSqlite);
    expect(readdirSync(join(crashed, 'checkpoints')).filter((name) => name.startsWith('.staging-'))).toEqual(
      [],
    );
  }, 240_000);
});
