// `curricula plan` end to end on real run directories (RunStore), through the CLI binary: the pilot's
// variance components are the hand-computed ones of power.test.ts, and bad input gets one clear line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers.ts';
import { RunStore } from '../runs/run-store.ts';

function makeRun(parent: string, coldStart: string, seed: number, final: number): string {
  const name = `uniform-${coldStart}-s${seed}`;
  const dir = join(parent, name);
  const store = RunStore.create(dir, {
    name,
    seed,
    init: { checkpoint: `runs/cold-${coldStart}` },
    tasks: [{ task: 'addition', difficulties: [1, 2] }],
    eval: { problemsPerDifficulty: 50, samples: 4 },
  });
  store.logMetrics(0, { 'eval/pass@1': 0.3 });
  store.logMetrics(5, { 'eval/pass@1': final, 'reward/mean': final });
  store.close();
  return dir;
}

describe('curricula plan', () => {
  const parent = mkdtempSync(join(tmpdir(), 'plan-'));
  const pilot = [
    makeRun(parent, 'a', 1, 0.5),
    makeRun(parent, 'a', 2, 0.6),
    makeRun(parent, 'b', 1, 0.7),
    makeRun(parent, 'b', 2, 0.8),
  ];

  it("reads a pilot's final values by cold start and plans the seeds for an effect", () => {
    const result = runCli(['plan', ...pilot, '--effect', '0.1', '--cold-starts', '1,2', '--json']);
    expect(result.status, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    // 2 levels × 50 problems × 4 samples; the components of power.test.ts's pilot.
    expect([plan.evalProblems, plan.evalSamples]).toEqual([100, 4]);
    expect(plan.components.rlSeed).toBeCloseTo(0.005 - 0.00056875, 12);
    expect(plan.components.coldStart).toBeCloseTo(0.0175, 12);
    expect(plan.needed[0]).toEqual({ coldStarts: 1, rlSeeds: 9, runsPerArm: 9 });
    expect(plan.table[0].mde[0]).toBeNull();
  });

  it('prints the table and the seeds needed', () => {
    const result = runCli(['plan', ...pilot, '--effect', '0.1']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'pilot of 4 runs on 2 cold start(s), evaluated on 100 problems × 4 samples',
    );
    expect(result.stdout).toContain('1 cold start(s) × 9 RL seeds = 9 runs per arm');
  });

  it('bad input: one line each, exit 2', () => {
    const cases: [string[], RegExp][] = [
      [['plan', ...pilot, '--effect', '2'], /--effect must be a number in \(0, 1\]/],
      [['plan', ...pilot, '--effect', '0.1', '--metric', 'eval/nope'], /has no metric 'eval\/nope'/],
      [['plan', pilot[0], '--effect', '0.1'], /a pilot needs two runs at least/],
      [['plan', ...pilot, '--effect', '0.1', '--sd', '0.02'], /pilot runs or --sd, not both/],
      [['plan', '--effect', '0.1', '--sd', '0.02'], /give --eval-problems and --eval-samples/],
      [['plan', ...pilot, '--effect', '0.1', '--cold-starts', '0,x'], /--cold-starts must be/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});
