// `curricula compare` end to end on real run directories (RunStore), through the CLI binary.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers.ts';
import { RunStore } from '../run-store.ts';

function makeRun(parent: string, selector: string, seed: number, final: number): string {
  const dir = join(parent, `${selector}-s${seed}`);
  const store = RunStore.create(dir, { name: `${selector}-s${seed}`, seed, selector: { name: selector } });
  store.logMetrics(0, { 'eval/pass@1': 0.5, 'eval/pass@1/addition/3': 0.4 });
  store.logMetrics(1, { 'reward/mean': 0.5, 'selection/share/addition/3': 1 });
  store.logMetrics(2, { 'reward/mean': 0.6, 'eval/pass@1': final, 'eval/pass@1/addition/3': final - 0.1 });
  store.close();
  return dir;
}

describe('curricula compare', () => {
  it('groups runs by the differing config key and writes compare.md, SVGs and comparison.json', () => {
    const parent = mkdtempSync(join(tmpdir(), 'compare-'));
    const dirs = [
      makeRun(parent, 'uniform', 1, 0.6),
      makeRun(parent, 'uniform', 2, 0.7),
      makeRun(parent, 'sec', 1, 0.75),
      makeRun(parent, 'sec', 2, 0.65),
    ];
    const result = runCli(['compare', ...dirs, '--json']);
    expect(result.status).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.groupedBy).toEqual(['selector.name']);
    expect(json.baseline).toBe('uniform');
    expect(json.target).toBeCloseTo(0.65, 12);
    const sec = json.groups.find((group: { group: string }) => group.group === 'sec');
    expect(sec.final['eval/pass@1'].mean).toBeCloseTo(0.7, 12);
    expect(sec.pairedDelta.values.map((value: number) => Number(value.toFixed(9)))).toEqual([0.15, -0.05]);
    expect(sec.stepsToTarget).toBe(2);
    expect(sec.means['selection/share/addition/3'].mean).toBe(0.5);
    expect(json.markdownPath).toBe(join(parent, 'compare', 'compare.md'));
    const markdown = readFileSync(json.markdownPath, 'utf8');
    expect(markdown).toContain('| sec | 2 | 0.600 ± 0.071 | 0.700 ± 0.071 | +0.050 ± 0.141 (n 2) |');
    expect(readFileSync(join(parent, 'compare', 'pass@1_addition_3.svg'), 'utf8')).toMatch(/^<svg/);
    expect(existsSync(join(parent, 'compare', 'comparison.json'))).toBe(true);
  }, 60_000);

  it('rejects a directory that is not a run, an unknown baseline and a bad target with exit code 2', () => {
    const parent = mkdtempSync(join(tmpdir(), 'compare-bad-'));
    const good = makeRun(parent, 'uniform', 1, 0.6);
    const notRun = runCli(['compare', good, parent]);
    expect(notRun.status).toBe(2);
    expect(notRun.stderr).toMatch(/is not a run directory/);
    const baseline = runCli(['compare', good, '--baseline', 'bots']);
    expect(baseline.status).toBe(2);
    expect(baseline.stderr.trim()).toBe(
      "error: baseline 'bots' is neither a group nor a run; groups: all runs",
    );
    const target = runCli(['compare', good, '--target', 'high']);
    expect(target.status).toBe(2);
    expect(target.stderr).toMatch(/--target must be a number, got 'high'/);
  }, 60_000);
});
