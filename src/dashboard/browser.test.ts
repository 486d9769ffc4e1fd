// The dashboard in a real browser: Debian's Chromium, headless, driven by playwright-core (never a
// downloaded browser). On a small RunStore-written runs directory it opens a run and checks the reward
// chart holds one point per logged step (read from uPlot's own data), appends a step as a training process
// would (RunStore, while the page polls) and sees the chart grow, opens a sample group (and a group of
// multi-turn episodes: turns, tool calls, shaded tool outputs, per-turn rewards), and compares the two
// seed groups. Screenshots go to a temporary directory whose path is printed.
// Skipped when /usr/bin/chromium is missing, the reason in its name (test/requirements.ts).
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, chromium as needsChromium } from '../../test/requirements.ts';
import type { RunStore } from '../runs/run-store.ts';
import { createTestRuns, writeRun } from '../testing/dashboard/test-runs.ts';
import { buildDashboard } from './server.ts';

const browserNeeds = needsChromium();

describe.skipIf(browserNeeds.skip)(`dashboard in Chromium${browserNeeds.label}`, () => {
  let app: FastifyInstance;
  let url: string;
  let browser: Browser;
  let page: Page;
  let live: RunStore;
  const shots = mkdtempSync(join(tmpdir(), 'dashboard-screens-'));

  beforeAll(async () => {
    const { runsDir } = createTestRuns();
    live = writeRun(join(runsDir, 'live'), 'uniform', 4, 0.5);
    app = await buildDashboard({ runsDir });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    (page as unknown as { errors: string[] }).errors = errors;
    console.log(`dashboard screenshots: ${shots}`);
  });
  afterAll(async () => {
    await browser?.close();
    live?.close();
    await app?.close();
  });

  const pageIs = (name: string) =>
    page.waitForFunction((expected) => (globalThis as any).dashboard?.page === expected, name, {
      timeout: 10_000,
    });
  const points = (panel: string) =>
    page.evaluate((id) => {
      const entry = (globalThis as any).dashboard.charts[id];
      return entry ? (entry.chart.data[0] as number[]).length : -1;
    }, panel);

  it('lists the runs, with the unreadable ones and their reason', async () => {
    await page.goto(`${url}/#/`);
    await pageIs('runs');
    expect(await page.locator('#runs tr[data-run]').count()).toBe(9);
    expect(await page.locator('tr[data-run="broken"]').textContent()).toMatch(
      /unreadable: .*cannot be opened/,
    );
    expect(await page.locator('tr[data-run="live"]').textContent()).toMatch(/running/);
    await page.screenshot({ path: join(shots, 'runs.png'), fullPage: true });
  });

  it('draws a panel per metric group with one point per logged step, and updates live', async () => {
    await page.goto(`${url}/#/run/live?poll=200`);
    await pageIs('run');
    expect(await points('reward')).toBe(4); // steps 1–4
    expect(await points('held-out (all tasks)')).toBe(2); // steps 0 and 4
    expect(await points('held-out pass@1: addition')).toBe(2);
    expect(await points('clip fractions')).toBe(4);
    const y = await page.evaluate(() => (globalThis as any).dashboard.charts.reward.chart.data[1]);
    expect(y[3]).toBeCloseTo(0.44);
    await page.screenshot({ path: join(shots, 'run-before.png'), fullPage: true });
    live.logMetrics(5, { 'reward/mean': 0.95, entropy: 1.5 });
    await page.waitForFunction(
      () => (globalThis as any).dashboard.charts.reward?.chart.data[0].length === 5,
      null,
      {
        timeout: 10_000,
      },
    );
    expect(
      await page.evaluate(() => (globalThis as any).dashboard.charts.reward.chart.data[1][4]),
    ).toBeCloseTo(0.95);
    expect(await points('held-out (all tasks)')).toBe(2);
    await page.screenshot({ path: join(shots, 'run-after-step-5.png'), fullPage: true });
  });

  it('smooths with the EMA control and switches to a log axis', async () => {
    await page.locator('#smoothing').fill('0.5');
    const smoothed = await page.evaluate(() => (globalThis as any).dashboard.charts.reward.chart.data[1]);
    // EMA 0.5 of 0.14, 0.24 → 0.19
    expect(smoothed[1]).toBeCloseTo(0.19);
    await page.locator('#log-y').check();
    expect(await page.evaluate(() => (globalThis as any).dashboard.charts.reward.chart.scales.y.distr)).toBe(
      3,
    );
  });

  it('opens a sample group side by side and filters by level and by a histogram bar', async () => {
    await page.goto(`${url}/#/run/uniform-s1/samples`);
    await pageIs('samples');
    expect(await page.locator('details.group').count()).toBe(2);
    const group = page.locator('details[data-problem="addition-1-aaaa"]');
    await group.locator('summary').click();
    expect(await group.locator('.completion').count()).toBe(4);
    expect(await group.locator('.completion').nth(1).textContent()).toMatch(/reward 0 .*wrong answer/s);
    await page.screenshot({ path: join(shots, 'samples.png'), fullPage: true });
    await page.locator('#level').selectOption('2');
    expect(await page.locator('details.group').count()).toBe(1);
    await page.locator('#level').selectOption('');
    // Click the last histogram bar (reward 0.9–1): only the three completions with reward 1 stay.
    const box = (await page.locator('#histogram .u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width - 3, box.y + box.height - 3);
    await page.mouse.click(box.x + box.width - 3, box.y + box.height - 3);
    expect(await page.locator('.completion').count()).toBe(3);
    expect(await page.locator('#reward-range').textContent()).toMatch(/0\.9, 1/);
  });

  it('shows stored advantages, tokens coloured by log-prob and the guidance apart from the prompt', async () => {
    await page.goto(`${url}/#/run/sec-s1/samples`);
    await pageIs('samples');
    expect(await page.locator('#logprob-legend .tok').count()).toBe(5);
    const group = page.locator('details[data-problem="addition-1-aaaa"]');
    await group.locator('summary').click();
    // The plain prompt, then the hint in a guidance block naming the scaffold.
    expect(await group.locator(':scope > .prompt').textContent()).toBe('2+3');
    const guidance = group.locator(':scope > .guidance');
    expect(await guidance.textContent()).toMatch(/guidance · hints.*added to the prompt.*## Hint\.\s*5/s);
    const cards = group.locator('.completion');
    expect(await cards.nth(0).locator('.advantage').textContent()).toBe('reward 1 · advantage 0.5');
    expect(await cards.nth(1).locator('.advantage').textContent()).toBe('reward 0 · advantage -1.5');
    expect(await cards.nth(1).locator('.badge').allTextContents()).toEqual(['guided', 'expert']);
    expect(await cards.nth(3).locator('.badge').allTextContents()).toEqual(['guided', 'retry']);
    expect(await cards.nth(3).locator('.guidance').textContent()).toMatch(/retry prompt: .*try again/);
    // One span per token ("answer 1"), its colour from exp(log p), its title the log-prob.
    const tokens = cards.nth(1).locator('.tok');
    expect(await tokens.count()).toBe(8);
    expect(await cards.nth(1).locator('.expert-tok').count()).toBe(3);
    expect(await tokens.nth(1).getAttribute('title')).toBe('"n" log p = -0.5');
    const colour = (index: number) =>
      tokens
        .nth(index)
        .evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor as string);
    // p = e^-0.25 ≈ 0.78 → hue 93 (green-ish); p = e^-2 ≈ 0.14 → hue 16 (red-ish): different colours.
    expect(await colour(0)).not.toBe(await colour(7));
    await page.screenshot({ path: join(shots, 'samples-details.png'), fullPage: true });
    // The second group was not trained: it says so.
    const other = page.locator('details[data-problem="addition-2-bbbb"]');
    await other.locator('summary').click();
    expect(await other.locator('.advantage').first().textContent()).toBe(
      'reward 0 · advantage – (not trained)',
    );
    // An old run shows the computed centred reward, labelled as such.
    await page.goto(`${url}/#/run/uniform-s2/samples`);
    await pageIs('samples');
    await page.locator('details[data-problem="addition-1-aaaa"] summary').click();
    expect(await page.locator('.advantage').nth(1).textContent()).toBe(
      'reward 0 · reward − group mean -0.75 (computed)',
    );
    expect(await page.locator('#logprob-legend').count()).toBe(0);
  });

  it('shows an episode turn by turn: tool calls, shaded tool outputs, per-turn rewards and errors', async () => {
    await page.goto(`${url}/#/run/sec-s1/samples?step=3`);
    await pageIs('samples');
    expect(await page.locator('#episode-legend').textContent()).toMatch(/masked from the loss/);
    const group = page.locator('details[data-problem="addition-1-eeee"]');
    await group.locator('summary').click();
    const first = group.locator('.completion').nth(0);
    const turns = first.locator('.turn');
    expect(await turns.locator('.turn-head').allTextContents()).toEqual([
      'turn 1 · reward 0 · tool call',
      'turn 2 · reward 0.25 · tool call',
      'turn 3 · reward 0.75 · stopped at eos',
    ]);
    expect(await turns.nth(0).locator('.turn-error').textContent()).toBe(
      'tool error: bad expression <b>2+</b>',
    );
    // The tool outputs, apart from the policy's tokens: shaded grey, titled as masked from the loss.
    const outputs = first.locator('.tool-output');
    expect(await outputs.allTextContents()).toEqual([
      '<out>error: <b>bad</b> expression</out>',
      '<out>5</out>',
    ]);
    expect(await outputs.nth(0).getAttribute('title')).toMatch(/not sampled, masked from the loss/);
    expect(await first.locator('.masked-tok').count()).toBe(39 + 12);
    const background = (locator: ReturnType<Page['locator']>) =>
      locator.evaluate((node) => (globalThis as any).getComputedStyle(node).backgroundColor as string);
    expect(await background(outputs.nth(1).locator('.tok').first())).toBe('rgb(217, 217, 217)');
    // The policy's tokens keep their log-prob colour (p = e^-0.25), and the call that ended a turn is outlined.
    expect(await background(turns.nth(2).locator('.tok').first())).not.toBe('rgb(217, 217, 217)');
    expect((await turns.nth(1).locator('.tool-call').allTextContents()).join('')).toBe('<calc>2+3</calc>');
    expect(await turns.nth(2).locator('.tool-call').count()).toBe(0);
    expect(await first.locator('.episode-end').textContent()).toBe(
      'episode end: done (the environment ended it) · 3 turns · errors: tool 1',
    );
    const second = group.locator('.completion').nth(1);
    expect(await second.locator('.turn-head').textContent()).toBe(
      'turn 1 · reward 0 · tool call · output cut from 40 to 16 tokens',
    );
    expect(await second.locator('.episode-end').textContent()).toMatch(/^episode end: max turns reached/);
    expect(await page.locator('#groups b').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'samples-episode.png'), fullPage: true });
  });

  it('draws the selector-state panel from curriculum/state/* metrics', async () => {
    await page.goto(`${url}/#/run/sec-s1`);
    await pageIs('run');
    expect(await points('selector state: sec q')).toBe(4);
    const series = await page.evaluate(
      () => (globalThis as any).dashboard.charts['selector state: sec q'].chart.series.length,
    );
    expect(series).toBe(3); // x + arms 1 and 2
    await page
      .locator('[data-panel="selector state: sec q"]')
      .screenshot({ path: join(shots, 'selector-state.png') });
  });

  it('compares the two seed groups: mean ± sd curves and paired deltas', async () => {
    await page.goto(`${url}/#/`);
    await pageIs('runs');
    for (const name of ['uniform-s1', 'uniform-s2', 'sec-s1', 'sec-s2']) {
      await page.locator(`tr[data-run="${name}"] input.pick`).check();
    }
    await page.locator('#compare-selected').click();
    await pageIs('compare');
    await page.locator('#baseline').selectOption('uniform');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('#final')?.textContent?.includes('(n=2)'),
      null,
      {
        timeout: 10_000,
      },
    );
    await pageIs('compare');
    expect(await page.locator('#final tr[data-group]').count()).toBe(2);
    expect(await page.locator('#final tr[data-group="sec"]').textContent()).toMatch(/0\.15 ± .*\(n=2\)/);
    expect(await points('eval/pass@1')).toBe(2);
    expect(await points('reward/mean')).toBe(4);
    await page.screenshot({ path: join(shots, 'compare.png'), fullPage: true });
    await page.locator('#compare-keys').fill('entropy');
    await page.getByRole('button', { name: 'show' }).click();
    await page.waitForFunction(() => (globalThis as any).dashboard.charts.entropy !== undefined, null, {
      timeout: 10_000,
    });
    expect(await points('entropy')).toBe(4);
    expect((page as unknown as { errors: string[] }).errors).toEqual([]);
  });

  it('shows markup in a completion as text, never as HTML', async () => {
    live.logSamples(2, [
      {
        problemId: 'addition-1-cccc',
        prompt: '<b>1+1</b>',
        completion: '<img src=x onerror="window.__xss=1">',
        reward: 0,
      },
      {
        problemId: 'addition-1-dddd',
        prompt: '<b>2+2</b><i>hint</i>',
        completion: '<img src=x onerror="window.__xss=2">',
        reward: 0,
        advantageKind: 'sequence',
        advantage: 0,
        tokens: ['<img src=x ', 'onerror="window.__xss=2">'],
        logprobs: [-1, -2],
        scaffold: '<b>scaffold</b>',
        guidance: {
          plainPrompt: '<b>2+2</b>',
          added: [
            { kind: '<i>prompt</i>', text: '<i>hint</i>' },
            { kind: 'prefix', text: '<img src=y onerror="window.__xss=3">' },
          ],
        },
      },
    ]);
    await page.goto(`${url}/#/run/live/samples?step=2`);
    await pageIs('samples');
    const group = page.locator('details[data-problem="addition-1-cccc"]');
    await group.locator('summary').click();
    expect(await group.locator('pre').textContent()).toBe('<img src=x onerror="window.__xss=1">');
    const detailed = page.locator('details[data-problem="addition-1-dddd"]');
    await detailed.locator('summary').click();
    expect(await detailed.locator('pre.tokens').textContent()).toBe(
      '<img src=y onerror="window.__xss=3"><img src=x onerror="window.__xss=2">',
    );
    expect(await detailed.locator('.guidance').first().textContent()).toContain('<b>scaffold</b>');
    expect(await page.locator('#groups img, #groups b, #groups i').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
  });
});
