// The CLI end to end on the `small` model: pretrain → train → eval, a few steps each, plus the
// one-line, exit-code-2 errors for bad input and the guarantee that nothing half-written is left.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeYaml } from './helpers.ts';

describe('curricula CLI', () => {
  it('runs pretrain → train → eval on the small model', () => {
    const dir = tempDir('smoke');
    const tasks = [{ task: 'addition', difficulties: [1, 2] }];
    const pretrain = writeYaml(dir, 'pretrain.yaml', {
      name: 'cold',
      runsDir: dir,
      model: { preset: 'small' },
      // pretrain and train in process (worker start-up costs seconds per command); eval runs with the
      // default, policy.workers auto (one replica per core).
      policy: { workers: 1 },
      tasks,
      train: { steps: 4, batchSize: 8, learningRate: 0.003 },
      eval: { every: 2, problemsPerDifficulty: 4 },
    });
    const pretrained = runCli(['pretrain', '--config', pretrain, '--json', '--quiet']);
    expect(pretrained.status).toBe(0);
    const pretrainResult = JSON.parse(pretrained.stdout);
    expect(pretrainResult.steps).toBe(4);
    expect(pretrainResult.finalEval.groups).toHaveLength(2);

    const train = writeYaml(dir, 'train.yaml', {
      name: 'rl',
      runsDir: dir,
      init: { checkpoint: join(dir, 'cold') },
      policy: { workers: 1 },
      tasks,
      poolSize: 32,
      rollout: { groupSize: 4, maxTokens: 24 },
      train: { steps: 2, batchSize: 4, learningRate: 0.001 },
      eval: { every: 2, problemsPerDifficulty: 4, samples: 2 },
    });
    const trained = runCli([
      'train',
      '--config',
      train,
      '--json',
      '--quiet',
      '--set',
      'selector.name=balanced',
    ]);
    expect(trained.status).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'rl', 'config.json'), 'utf8')).selector.name).toBe('balanced');
    // 2 steps × 4 problems from a pool of 32: a per-problem selector gets a warning (the run goes ahead).
    expect(trained.stderr).toContain("warning: selector 'balanced' acts on each problem's own outcomes");
    const trainResult = JSON.parse(trained.stdout);
    expect(trainResult.steps).toBe(2);
    expect(Object.keys(trainResult.finalEval.overall.passAt)).toEqual(['1', '2']);

    const evaluated = runCli([
      'eval',
      '--checkpoint',
      join(dir, 'rl'),
      '--samples',
      '4',
      '--problems',
      '3',
      '--json',
    ]);
    expect(evaluated.status).toBe(0);
    const evalResult = JSON.parse(evaluated.stdout);
    expect(evalResult.samples).toBe(4);
    expect(evalResult.summary.groups.map((group: { difficulty: number }) => group.difficulty)).toEqual([
      1, 2,
    ]);
    expect(Object.keys(evalResult.summary.overall.majAt)).toEqual(['1', '2', '4']);
  }, 120_000);

  it('rejects bad input with one clear line, exit code 2, and no run directory left behind', () => {
    const dir = tempDir('bad');
    const base = {
      name: 'bad',
      runsDir: dir,
      model: { preset: 'small' },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 1, learningRate: 0.001 },
    };
    const cases: [unknown, RegExp][] = [
      [
        { ...base, tasks: [{ task: 'additon', difficulties: [1] }] },
        /unknown task 'additon'; known: addition, addition-calc, addition-unanswerable, aligned-addition, aligned-addition-confidence, aligned-addition-explain, constraints, constraints-judge, countdown, /,
      ],
      [{ ...base, train: { steps: 'many', learningRate: 0.001 } }, /train\.steps: .*expected number/],
      [
        { ...base, modle: {} },
        /unknown key 'modle' at \(top level\); allowed: name, runsDir, seed, model, tasks/,
      ],
      [
        { ...base, tasks: [{ task: 'addition', difficulties: [12] }] },
        /needs sequences of \d+ tokens .*model\.contextLength is 64/,
      ],
    ];
    for (const [config, message] of cases) {
      const result = runCli(['pretrain', '--config', writeYaml(dir, 'config.yaml', config), '--quiet']);
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
    const grpoOne = writeYaml(dir, 'grpo.yaml', { ...base, rollout: { groupSize: 1 } });
    const rl = runCli(['train', '--config', grpoOne]);
    expect(rl.status).toBe(2);
    expect(rl.stderr).toMatch(/group/i);
    // A reward the task cannot produce: the reference solution has no <think>/<answer> tags.
    const wrongReward = writeYaml(dir, 'reward.yaml', { ...base, reward: { name: 'format' } });
    const unfit = runCli(['train', '--config', wrongReward]);
    expect(unfit.status).toBe(2);
    expect(unfit.stderr).toMatch(/reward 'format' cannot grade task 'addition'.*missing <think>/);
    const badSet = runCli([
      'train',
      '--config',
      grpoOne,
      '--set',
      'rollout.groupSize=4',
      '--set',
      'selector.name=nope',
    ]);
    expect(badSet.status).toBe(2);
    expect(badSet.stderr).toMatch(/nope/);
    const badPath = runCli(['train', '--config', grpoOne, '--set', 'rollout.groupSize']);
    expect(badPath.status).toBe(2);
    expect(badPath.stderr).toMatch(/expected path=value/);
    expect(readdirSync(dir).filter((name) => !name.endsWith('.yaml'))).toEqual([]);

    writeFileSync(join(dir, 'broken.yaml'), 'name: [unclosed\n');
    expect(runCli(['pretrain', '--config', join(dir, 'broken.yaml')]).stderr).toMatch(/not valid YAML/);
    const missing = runCli(['eval', '--checkpoint', join(dir, 'nope'), '--tasks', 'addition:1']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);
    const debug = runCli(['eval', '--checkpoint', join(dir, 'nope'), '--tasks', 'addition:1', '--debug']);
    expect(debug.stderr).toMatch(/at .*resolve-checkpoint\.ts/);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  }, 120_000);
});
