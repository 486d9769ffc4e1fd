// A RunStore-written run with flat series (KL at coefficient 0, a uniform selector's probabilities, one
// flat reward component) beside moving ones: the report says the flat ones in a line and draws the rest;
// and it names the dashboard command and URL of the same run.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../run-store.ts';
import { buildReport } from './build-report.ts';
import { constantValue } from './constant-series.ts';
import { dashboardLink } from './dashboard-link.ts';
import { writeReport } from './write-report.ts';

function createFlatRun(parent = mkdtempSync(join(tmpdir(), 'report-flat-'))): string {
  const dir = join(parent, 'flat-run');
  const store = RunStore.create(dir, { name: 'flat-run' });
  for (let step = 1; step <= 4; step++) {
    store.logMetrics(step, {
      'reward/mean': step / 10,
      'reward/format': 1,
      'losses/kl': 0,
      'losses/approx_kl': 0,
      entropy: 2 - 0.1 * step,
      'curriculum/addition:1/prob': 0.5,
      'curriculum/addition:2/prob': 0.5,
      'curriculum/target_difficulty': 3,
      'curriculum/entropy': 0.7 - 0.01 * step,
    });
  }
  store.close();
  return dir;
}

describe('constant series in a report', () => {
  it('replaces an all-constant chart by one line per series and keeps moving series drawn', async () => {
    const runDir = createFlatRun();
    const written = await writeReport(runDir, { samples: 0 });
    const files = written.plots.map((path) => path.slice(written.reportDir.length + 1));
    // KL and the uniform curriculum's probabilities are flat: no SVG; reward, entropy and the moving
    // panel of the curriculum state are drawn.
    expect(files.sort()).toEqual(['curriculum-state.svg', 'entropy.svg', 'reward.svg']);
    expect(existsSync(join(written.reportDir, 'kl.svg'))).toBe(false);
    const md = written.markdown;
    expect(md).toContain('- losses/kl: 0 at every step (4 steps; constant; no chart)');
    expect(md).toContain('- losses/approx_kl: 0 at every step (4 steps; constant; no chart)');
    expect(md).toContain('- curriculum/addition:1/prob: 0.5 at every step (4 steps; constant; no chart)');
    expect(md).not.toContain('](kl.svg)');
    expect(md).not.toContain('](curriculum-probs.svg)');
    // A flat series in a chart whose other series move is drawn with them (a comparison), not said.
    expect(md).toContain('![reward](reward.svg)');
    expect(md).not.toContain('reward/format: 1');
    const { plots } = await buildReport(runDir, { samples: 0 });
    const svg = (file: string) => plots.find((plot) => plot.file === file)!.svg;
    expect(svg('reward.svg')).toContain('>reward/format</text>');
    // Panels are judged one by one: the flat one is said and left out, the moving one drawn.
    expect(md).toContain('![curriculum-state](curriculum-state.svg)');
    expect(md).toContain('- curriculum/target_difficulty: 3 at every step (4 steps; constant; not drawn)');
    expect(svg('curriculum-state.svg')).toContain('entropy');
    expect(svg('curriculum-state.svg')).not.toContain('target_difficulty');
  });

  it('calls a series constant only when every point holds the same value and there are two or more', () => {
    expect(
      constantValue([
        [1, 0],
        [2, 0],
        [3, 0],
      ]),
    ).toBe(0);
    expect(
      constantValue([
        [1, 0],
        [2, 0],
        [3, 1e-12],
      ]),
    ).toBeUndefined();
    expect(
      constantValue([
        [1, 0.3],
        [2, 0.2],
        [3, 0.3],
      ]),
    ).toBeUndefined();
    expect(constantValue([[1, 5]])).toBeUndefined();
    expect(constantValue([])).toBeUndefined();
  });
});

describe('dashboard link in a report', () => {
  it('names the command for the run parent and the run view #/run/<name>, without starting a server', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'report link '));
    const runDir = createFlatRun(parent);
    expect(dashboardLink(runDir)).toEqual({
      command: `curricula dashboard --runs-dir '${parent}'`,
      url: 'http://127.0.0.1:8050/#/run/flat-run',
    });
    const { markdown } = await buildReport(runDir, { samples: 0 });
    expect(markdown).toContain(
      `Live view: \`curricula dashboard --runs-dir '${parent}'\`, then open http://127.0.0.1:8050/#/run/flat-run`,
    );
    // A plain parent path is not quoted; a name the dashboard refuses gets no link.
    expect(dashboardLink('/tmp/runs/a.b_c-1')?.command).toBe('curricula dashboard --runs-dir /tmp/runs');
    expect(dashboardLink('/tmp/runs/.hidden')).toBeUndefined();
  });
});
