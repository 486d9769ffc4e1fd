// The CLI never deletes what is not a run of its own, and --resume continues only what it can continue
// honestly: run names that escape the runs directory, --overwrite of something that is not a run, a
// resume of the other command's run and options a resume would ignore are each one clear line, exit 2,
// with everything on disk left as it was; --steps on a resume extends the run.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultEngine } from '../src/policy/default-engine.ts';
import { RunStore, readJsonlLines } from '../src/runs/run-store.ts';
import { runCli, tempDir, writeYaml } from './helpers.ts';

const tasks = [{ task: 'addition', difficulties: [1] }];

/** Everything under `dir` (paths and file contents), to show a failed command changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files[path] = readFileSync(path).toString('base64');
    }
  }
  return files;
}

function expectOneLineError(result: { status: number | null; stderr: string }, message: RegExp): void {
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.status).toBe(2);
}

const stepsOf = (runDir: string) =>
  (readJsonlLines(join(runDir, 'metrics.jsonl')) as { step: number }[]).map((entry) => entry.step);

describe('run safety', () => {
  let root: string;
  let runs: string;
  let pretrainConfig: string;
  let trainConfig: string;
  beforeAll(() => {
    root = tempDir('safety');
    runs = join(root, 'runs');
    writeFileSync(join(root, 'precious.txt'), 'not a run');
    pretrainConfig = writeYaml(root, 'pretrain.yaml', {
      name: 'cold',
      runsDir: runs,
      model: { preset: 'tiny' },
      // In process: these runs test run safety, and worker start-up (policy.workers auto) would cost
      // seconds per command.
      policy: { workers: 1 },
      tasks,
      train: { steps: 2, batchSize: 4, learningRate: 0.003 },
      eval: { every: 0, problemsPerDifficulty: 2 },
    });
    expect(runCli(['pretrain', '--config', pretrainConfig, '--quiet']).status).toBe(0);
    trainConfig = writeYaml(root, 'train.yaml', {
      name: 'rl',
      runsDir: runs,
      init: { checkpoint: join(runs, 'cold') },
      policy: { workers: 1 },
      tasks,
      poolSize: 8,
      rollout: { groupSize: 2, maxTokens: 16 },
      train: { steps: 1, batchSize: 2, learningRate: 0.001 },
      eval: { every: 0, problemsPerDifficulty: 2 },
    });
    expect(runCli(['train', '--config', trainConfig, '--quiet', '--no-report']).status).toBe(0);
  }, 120_000);

  it("refuses run names '.' and '..', and never deletes the runs directory or its parent", () => {
    const before = snapshot(root);
    for (const name of ['.', '..']) {
      const result = runCli([
        'pretrain',
        '--config',
        pretrainConfig,
        '--name',
        name,
        '--overwrite',
        '--quiet',
      ]);
      expectOneLineError(
        result,
        /name: use letters, digits, dot, dash or underscore, not starting with a dot/,
      );
    }
    // The demo overwrites by default: `--name ..` would have removed the parent of the runs directory.
    const demo = runCli(['demo', '--runs-dir', runs, '--name', '..', '--steps', '1', '--quiet']);
    expectOneLineError(demo, /run name "\.\." is not allowed/);
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses to --overwrite a directory that is not a run', () => {
    mkdirSync(join(runs, 'notes'));
    writeFileSync(join(runs, 'notes', 'todo.txt'), 'mine');
    const before = snapshot(root);
    const notRun = runCli([
      'pretrain',
      '--config',
      pretrainConfig,
      '--name',
      'notes',
      '--overwrite',
      '--quiet',
    ]);
    expectOneLineError(
      notRun,
      /runs\/notes exists and is not a Curricula run .*move it away or choose another name/,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses to resume the other command’s run, and leaves it untouched', () => {
    const before = snapshot(root);
    expectOneLineError(
      runCli(['pretrain', '--resume', join(runs, 'rl'), '--quiet']),
      /pretrain --resume .*rl: it is an RL run \(made by curricula train\), not a pretrain run .*; continue it with curricula train --resume/,
    );
    expectOneLineError(
      runCli(['train', '--resume', join(runs, 'cold'), '--quiet']),
      /train --resume .*cold: it is a pretrain run \(made by curricula pretrain\), not an RL run .*; continue it with curricula pretrain --resume/,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses each option a resume would ignore, by name', () => {
    const rl = join(runs, 'rl');
    const changed = writeYaml(root, 'changed.yaml', {
      ...JSON.parse(readFileSync(join(rl, 'config.json'), 'utf8')),
      seed: 9,
      rollout: { groupSize: 4, maxTokens: 16 },
    });
    const before = snapshot(root);
    const cases: [string[], RegExp][] = [
      [['--seed', '3'], /train --resume cannot take --seed: it continues with its stored seed/],
      [['--set', 'rollout.groupSize=4'], /train --resume cannot take --set/],
      [['--name', 'other'], /train --resume cannot take --name/],
      [['--overwrite'], /train --resume cannot take --overwrite/],
      [
        ['--workers', '2'],
        /train --resume cannot take --workers: it continues with its stored policy\.workers/,
      ],
      [['--config', trainConfig, '--set', 'rollout.groupSize=4'], /train --resume cannot take --set/],
    ];
    for (const [extra, message] of cases) {
      expectOneLineError(runCli(['train', '--resume', rl, ...extra, '--quiet']), message);
    }
    expectOneLineError(
      runCli(['train', '--resume', rl, '--config', changed, '--quiet']),
      /the given --config differs from the run's stored config at seed, rollout\.groupSize; a resume uses the stored config/,
    );
    expectOneLineError(
      runCli(['pretrain', '--resume', join(runs, 'cold'), '--seed', '1', '--quiet']),
      /pretrain --resume cannot take --seed/,
    );
    expectOneLineError(
      runCli(['train', '--config', trainConfig, '--workers', '0', '--quiet']),
      /--workers must be a positive integer or 'auto', got '0'/,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('--steps extends a resumed run (pretrain and train)', () => {
    const rl = join(runs, 'rl');
    const extended = runCli(['train', '--resume', rl, '--steps', '2', '--quiet', '--no-report', '--json']);
    expect(extended.stderr).toBe('');
    expect(extended.status).toBe(0);
    expect(JSON.parse(extended.stdout).steps).toBe(2);
    expect(stepsOf(rl)).toEqual([0, 1, 2]);
    expect(JSON.parse(readFileSync(join(rl, 'config.json'), 'utf8')).train.steps).toBe(2);
    const store = RunStore.read(rl);
    expect(store.events().find((event) => event.kind === 'config-changed')?.detail).toEqual({
      'train.steps': { from: 1, to: 2 },
    });
    store.close();

    const cold = join(runs, 'cold');
    const pretrained = runCli(['pretrain', '--resume', cold, '--steps', '3', '--quiet', '--json']);
    expect(pretrained.status).toBe(0);
    expect(JSON.parse(pretrained.stdout).steps).toBe(3);
    expect(stepsOf(cold)).toEqual([1, 2, 3]);
    expectOneLineError(
      runCli(['pretrain', '--resume', cold, '--steps', '1', '--quiet']),
      /is at step 3 \(its latest checkpoint\); --steps 1 would end before it: give at least 3/,
    );
  });

  it('--overwrite of a run names what it removes, even with --quiet', () => {
    const overwritten = runCli(['pretrain', '--config', pretrainConfig, '--overwrite', '--quiet']);
    expect(overwritten.status).toBe(0);
    expect(overwritten.stderr).toMatch(
      /^overwriting run .*runs\/cold \(created .*, last logged step 3, \d+ checkpoints?\): removing it\n$/,
    );
    expect(stepsOf(join(runs, 'cold'))).toEqual([1, 2]);
    expect(readdirSync(runs).sort()).toEqual(['cold', 'notes', 'rl']);
    expect(existsSync(join(root, 'precious.txt'))).toBe(true);
  });

  it('stores policy.workers auto as the count it ran with, and a resume with the same --config matches it', () => {
    const config = (name: string, extra: object) =>
      writeYaml(root, `${name}.yaml`, { name, runsDir: runs, ...extra });
    const autoPretrain = config('auto-cold', {
      model: { preset: 'tiny' },
      tasks,
      train: { steps: 1, batchSize: 4, learningRate: 0.003 },
      eval: { every: 0, problemsPerDifficulty: 2 },
    });
    const autoTrain = config('auto-rl', {
      init: { checkpoint: join(runs, 'cold') },
      tasks,
      poolSize: 8,
      rollout: { groupSize: 2, maxTokens: 8 },
      train: { steps: 1, batchSize: 2, learningRate: 0.001 },
      eval: { every: 0, problemsPerDifficulty: 2 },
    });
    const cores = availableParallelism();
    for (const [command, file, dir] of [
      ['pretrain', autoPretrain, 'auto-cold'],
      ['train', autoTrain, 'auto-rl'],
    ] as const) {
      const extra = command === 'train' ? ['--no-report'] : [];
      expect(runCli([command, '--config', file, '--quiet', ...extra]).status).toBe(0);
      const stored = JSON.parse(readFileSync(join(runs, dir, 'config.json'), 'utf8'));
      // the default engine by name, and on native its threads for that many workers (default-engine.ts)
      const { engine } = defaultEngine();
      expect(stored.policy).toEqual(
        engine === 'native' ? { workers: cores, engine, threads: 1 } : { workers: cores, engine },
      );
      // The config file still says auto and names no engine (no policy block): a resume with it is the same config.
      const resumed = runCli([
        command,
        '--resume',
        join(runs, dir),
        '--config',
        file,
        '--steps',
        '2',
        '--quiet',
        ...extra,
      ]);
      expect(resumed.stderr).toBe('');
      expect(resumed.status).toBe(0);
      expect(stepsOf(join(runs, dir)).at(-1)).toBe(2);
    }
  }, 120_000);
});
