// User mistakes and damaged files through the real CLI: each is one line on stderr that names the file or
// option and what to do, exit code 2, and nothing written. A diverged checkpoint (NaN weights), a run store
// that is not SQLite, a --tasks range that selects nothing, and a misspelt loss option key.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeSafetensors, encodeSafetensors } from '../src/policy/safetensors.ts';
import { RunStore } from '../src/runs/run-store.ts';
import { rlConfigSchema } from '../src/training/rl/config.ts';
import { repoRoot, runCli, tempDir, writeYaml } from './helpers.ts';

const demoCold = join(repoRoot, 'examples/checkpoints/demo-cold');

function expectOneLineError(result: { status: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.status).toBe(2);
}

describe('damaged inputs and user mistakes on the command line', () => {
  it('a checkpoint with a NaN weight is refused by eval and train, naming the tensor; no run is created', () => {
    const dir = tempDir('nan');
    const diverged = join(dir, 'diverged');
    cpSync(demoCold, diverged, { recursive: true });
    const path = join(diverged, 'model.safetensors');
    const { tensors, metadata } = decodeSafetensors(readFileSync(path));
    tensors.get('h.1.mlp.c_fc.weight')!.data[7] = Number.NaN;
    writeFileSync(path, encodeSafetensors(tensors, metadata));
    const named = /model\.safetensors: tensor 'h\.1\.mlp\.c_fc\.weight' holds 1 non-finite value/;

    expectOneLineError(runCli(['eval', '--checkpoint', diverged, '--tasks', 'addition:1', '--quiet']), named);
    const config = writeYaml(dir, 'train.yaml', {
      name: 'from-nan',
      runsDir: dir,
      init: { checkpoint: diverged },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 2, batchSize: 2, learningRate: 0.001 },
    });
    expectOneLineError(runCli(['train', '--config', config, '--quiet']), named);
    expect(existsSync(join(dir, 'from-nan'))).toBe(false);
  });

  it('a run.sqlite that is not a database is named, for report and for resume', () => {
    const run = resolve(tempDir('garbage'), 'run');
    mkdirSync(join(run, 'checkpoints'), { recursive: true });
    // A valid RL config, so `train --resume` gets past the run-kind check to the store itself.
    const stored = rlConfigSchema.parse({
      name: 'run',
      init: { checkpoint: demoCold },
      tasks: [{ task: 'addition', difficulties: [1] }],
      train: { steps: 2, batchSize: 2, learningRate: 0.001 },
    });
    writeFileSync(join(run, 'config.json'), `${JSON.stringify(stored)}\n`);
    writeFileSync(join(run, 'metrics.jsonl'), '');
    writeFileSync(
      join(run, 'run.sqlite'),
      'this is not a database, just some text that is long enough\n'.repeat(20),
    );
    const named = new RegExp(`run store ${join(run, 'run.sqlite')} cannot be opened: file is not a database`);
    expectOneLineError(runCli(['report', run]), named);
    expectOneLineError(runCli(['train', '--resume', run, '--quiet']), named);
  });

  it('a run config.json that is not JSON is named', () => {
    const run = resolve(tempDir('bad-config'), 'run');
    RunStore.create(run, { name: 'run' }).close();
    writeFileSync(join(run, 'config.json'), '{"name": "run", trunc');
    expectOneLineError(
      runCli(['report', run]),
      new RegExp(`run config ${join(run, 'config.json')} cannot be read: `),
    );
  });

  it('eval --tasks with a reversed range is refused before anything is evaluated', () => {
    const result = runCli(['eval', '--checkpoint', demoCold, '--tasks', 'addition:4-1', '--quiet']);
    expectOneLineError(
      result,
      /--tasks: addition:4-1 is a reversed range and selects nothing; write addition:1-4/,
    );
    expect(result.stdout).toBe('');
  });

  it('eval --tools with an unknown tool, or a bad --environment file, is refused in one line', () => {
    const evalWith = (extra: string[]) =>
      runCli(['eval', '--checkpoint', demoCold, '--tasks', 'addition:1', ...extra, '--quiet']);
    const unknown = evalWith(['--tools', 'calc,shell']);
    expectOneLineError(unknown, /--tools: unknown tool 'shell' \(choose from calc, python, search, or none;/);
    const dir = tempDir('eval-environment');
    const typo = writeYaml(dir, 'environment.yaml', {
      name: 'tag-tools',
      tools: ['search'],
      searchResult: 1,
    });
    expectOneLineError(evalWith(['--environment', typo]), /unknown key 'searchResult' at environment/);
    expectOneLineError(
      evalWith(['--environment', join(dir, 'absent.yaml')]),
      /cannot read config .*absent\.yaml: ENOENT/,
    );
    const both = evalWith(['--tools', 'calc', '--environment', typo]);
    expectOneLineError(both, /give either --tools or --environment, not both/);
    expect(unknown.stdout + both.stdout).toBe('');
  });

  it("eval --environment runs every sample in that environment (search over each problem's documents)", () => {
    const dir = tempDir('eval-environment-ok');
    const file = writeYaml(dir, 'environment.yaml', {
      name: 'tag-tools',
      tools: ['search'],
      searchResults: 1,
    });
    const result = runCli([
      'eval',
      '--checkpoint',
      demoCold,
      '--tasks',
      'search-facts:1',
      '--problems',
      '2',
      '--samples',
      '2',
      '--environment',
      file,
      '--workers',
      '1',
      '--json',
      '--quiet',
    ]);
    expect(result.status).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.environment).toMatchObject({ name: 'tag-tools', tools: ['search'] });
    expect(output.summary.groups[0].tools.samples).toBe(4);
  });

  it('a misspelt loss option key lists the valid keys', () => {
    const dir = tempDir('option-key');
    const config = writeYaml(dir, 'train.yaml', {
      name: 'typo',
      runsDir: dir,
      model: { preset: 'tiny' },
      tasks: [{ task: 'addition', difficulties: [1] }],
      algorithm: { loss: { name: 'ppo-clip', options: { epsilon_low: 0.2 } } },
      train: { steps: 2, batchSize: 2, learningRate: 0.001 },
    });
    expectOneLineError(
      runCli(['train', '--config', config, '--quiet']),
      /invalid options for loss 'ppo-clip': unknown key 'epsilon_low' at \(options\); allowed: aggregation, tokenSumNormaliser, rolloutCorrection, epsilonLow, epsilonHigh, dualClipBound, logRatioClamp/,
    );
    expect(existsSync(join(dir, 'typo'))).toBe(false);
  });
});
