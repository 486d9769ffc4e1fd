import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSyntheticRun } from '../../testing/runs/report/synthetic-run.ts';
import { buildReport } from './build-report.ts';
import { type WrittenReport, writeReport } from './write-report.ts';

// The SVG files and the legend names each must show.
const EXPECTED_PLOTS: Record<string, string[]> = {
  'reward.svg': ['reward/mean', 'reward/correct'],
  'pass-at-1.svg': ['addition/1', 'addition/2', 'countdown/3', 'all tasks'],
  'pass-at-k.svg': ['addition/1', 'addition/2', 'countdown/3', 'all tasks'],
  'kl.svg': ['losses/approx_kl'],
  'entropy.svg': ['entropy'],
  'response-length.svg': ['response/length_mean'],
  'curriculum-probs.svg': ['addition:1', 'addition:2'],
  'curriculum-state.svg': ['target_difficulty', 'entropy'],
};

describe('writeReport on a synthetic RL run', () => {
  let runDir: string;
  let written: WrittenReport;
  let markdown: string;

  beforeAll(async () => {
    runDir = createSyntheticRun();
    written = await writeReport(runDir);
    markdown = readFileSync(written.reportPath, 'utf8');
  });

  it('writes report.md and exactly the expected plots under <run>/report/', () => {
    expect(written.reportPath).toBe(join(runDir, 'report', 'report.md'));
    expect(markdown).toBe(written.markdown);
    expect(readdirSync(join(runDir, 'report')).sort()).toEqual(
      ['report.md', ...Object.keys(EXPECTED_PLOTS)].sort(),
    );
    expect(written.plots.map((path) => path.slice(path.lastIndexOf('/') + 1)).sort()).toEqual(
      Object.keys(EXPECTED_PLOTS).sort(),
    );
    // No staging or old directories left beside it.
    expect(readdirSync(runDir).filter((name) => name.startsWith('.report-'))).toEqual([]);
  });

  it('has the before/after table with hand-computed changes (step 0 vs step 4, pass@1 and pass@4)', () => {
    expect(markdown).toContain(
      [
        '| task | difficulty | pass@1 step 0 | pass@1 step 4 | change | pass@4 step 0 | pass@4 step 4 | change |',
        '| :-- | :-- | --: | --: | --: | --: | --: | --: |',
        '| addition | 1 | 0.250 | 0.750 | +0.500 | 0.500 | 1.000 | +0.500 |',
        '| addition | 2 | 0.100 | 0.300 | +0.200 | 0.300 | 0.600 | +0.300 |',
        '| countdown | 3 | 0.500 | 0.375 | -0.125 | 0.900 | 0.900 | 0.000 |',
        '| **all tasks** |  | 0.280 | 0.475 | +0.195 | 0.600 | 0.800 | +0.200 |',
      ].join('\n'),
    );
  });

  it('has the title, collapsed config, summary, images and fenced samples', () => {
    expect(markdown.startsWith('# Run report: synthetic\n')).toBe(true);
    expect(markdown).toMatch(
      /<details>\n<summary>Resolved config \(config\.json\)<\/summary>\n\n```yaml\nname: synthetic\nseed: 7\n/,
    );
    expect(markdown).toContain('- **Steps:** 4 of 4 — finished');
    expect(markdown).toContain('- **Time in training steps:** 6.0s');
    expect(markdown).toContain('- **Held-out evaluations at steps:** 0, 4');
    expect(markdown).toContain('| reward/mean | 0.4000 | 4 |');
    expect(markdown).toContain('| eval/pass@4 | 0.8000 | 4 |');
    expect(markdown).toContain('| response/length_mean | 24.0000 | 4 |');
    for (const file of Object.keys(EXPECTED_PLOTS)) {
      expect(markdown).toContain(`![${file.replace('.svg', '')}](${file})`);
    }
    expect(markdown).toContain('### 1. `addition-1-7` — reward 1.000 — correct');
    expect(markdown).toContain('### 2. `addition-2-3` — reward 0.000 — wrong answer');
    // A completion containing ``` gets a longer fence, so it cannot close the block early.
    expect(markdown).toContain('````text\n<think>2+3=5</think> ```5```\n````');
  });

  it('draws each plot as a self-contained SVG naming its series', () => {
    for (const [file, names] of Object.entries(EXPECTED_PLOTS)) {
      const svg = readFileSync(join(runDir, 'report', file), 'utf8');
      expect(svg.startsWith('<svg'), file).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>'), file).toBe(true);
      for (const name of names) expect(svg, `${file}: ${name}`).toContain(`>${name}</text>`);
      // No fetches: the only URLs are the two xmlns namespace names.
      const urls = [...svg.matchAll(/https?:\/\/[^"'\s)]*/g)].map((match) => match[0]);
      expect(new Set(urls), file).toEqual(
        new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']),
      );
    }
    // Reward statistics are not reward components.
    expect(readFileSync(join(runDir, 'report', 'reward.svg'), 'utf8')).not.toContain('reward/std');
  });

  it('summarises the run for --json', () => {
    const { summary } = written;
    expect(summary.kind).toBe('rl');
    expect(summary.lastStep).toBe(4);
    expect(summary.finished).toBe(true);
    expect(summary.evalSteps).toEqual([0, 4]);
    expect(summary.stepSeconds).toBeCloseTo(6, 12);
    expect(summary.comparison?.k).toBe(4);
    expect(summary.comparison?.rows.find((row) => row.task === 'countdown')).toEqual({
      task: 'countdown',
      difficulty: '3',
      pass1Before: 0.5,
      pass1After: 0.375,
      passKBefore: 0.9,
      passKAfter: 0.9,
    });
  });

  it('buildReport writes nothing; --samples 0 leaves the samples out', async () => {
    const dir = createSyntheticRun();
    const report = await buildReport(dir, { samples: 0 });
    expect(existsSync(join(dir, 'report'))).toBe(false);
    expect(report.plots.map((plot) => plot.file).sort()).toEqual(Object.keys(EXPECTED_PLOTS).sort());
    // --samples 0 leaves the section out.
    expect(report.markdown).not.toContain('## Sample completions');
    expect(report.markdown.endsWith('![curriculum-state](curriculum-state.svg)\n')).toBe(true);
  });
});
