// The dashboard's JSON API on real loopback HTTP over a runs directory written by RunStore: the runs table
// (statuses from owner file + events, unreadable directories with their reason), config diff, metric keys
// and series (and polling after a step while a writer appends), samples grouped by problem (a multi-turn
// episode with its turns), the reward
// histogram, the seed-grouped comparison, and that reading changes nothing in the runs directory.
import { readdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuns, HINT, writeRun } from '../testing/dashboard/test-runs.ts';
import { buildDashboard } from './server.ts';

let app: FastifyInstance;
let url: string;
let runsDir: string;

beforeAll(async () => {
  runsDir = createTestRuns().runsDir;
  app = await buildDashboard({ runsDir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
});

async function get(path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, body: await response.json() };
}

/** Every file under dir with its size and mtime (the WAL index only by name). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const stat = statSync(full);
        // SQLite's WAL readers map and update the shared-memory index run.sqlite-shm (the WAL protocol,
        // https://sqlite.org/wal.html#concurrency); no other file may change.
        out[full] = entry.name.endsWith('-shm') ? 'wal-index' : `${stat.size}:${stat.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

describe('dashboard API', () => {
  it('lists runs with status, steps, tokens and config summary; bad directories as unreadable', async () => {
    const { status, body } = await get('/api/runs');
    expect(status).toBe(200);
    const byName = Object.fromEntries(body.runs.map((run: any) => [run.name, run]));
    expect(Object.keys(byName).sort()).toEqual(
      ['broken', 'escape', 'killed', 'notes', 'sec-s1', 'sec-s2', 'uniform-s1', 'uniform-s2'].sort(),
    );
    expect(byName['uniform-s1']).toMatchObject({
      status: 'finished',
      lastStep: 4,
      steps: 5,
      tokens: 400,
      config: { selector: 'uniform', seed: 1, steps: 4 },
    });
    expect(byName['uniform-s1'].wallSeconds).toBeGreaterThanOrEqual(0);
    expect(byName.killed.status).toBe('crashed');
    expect(byName.broken.status).toBe('unreadable');
    expect(byName.broken.reason).toMatch(/cannot be opened/);
    expect(byName.notes).toMatchObject({ status: 'unreadable', reason: expect.stringMatching(/not a run/) });
    expect(byName.escape).toMatchObject({
      status: 'unreadable',
      reason: expect.stringMatching(/outside the runs directory/),
    });
  });

  it('shows a run held by a live writer as running, reads it while it writes, and polls only new steps', async () => {
    const writer = writeRun(join(runsDir, 'live'), 'uniform', 5, 0.5);
    try {
      const list = await get('/api/runs');
      expect(list.body.runs.find((run: any) => run.name === 'live').status).toBe('running');
      const first = await get('/api/runs/live/series?keys=reward/mean,entropy');
      expect(first.body.series['reward/mean'][0]).toEqual([1, 2, 3, 4]);
      // The writer is not blocked by the reader: it appends step 5 and 6 while the dashboard polls.
      writer.logMetrics(5, { 'reward/mean': 0.9, entropy: 1.4 });
      writer.logMetrics(6, { 'reward/mean': 1 });
      const next = await get('/api/runs/live/series?keys=reward/mean,entropy&after=4');
      expect(next.body.lastStep).toBe(6);
      expect(next.body.series['reward/mean']).toEqual([
        [5, 6],
        [0.9, 1],
      ]);
      expect(next.body.series.entropy).toEqual([[5], [1.4]]);
    } finally {
      writer.event('finished', { step: 6 });
      writer.close();
    }
    const after = await get('/api/runs');
    expect(after.body.runs.find((run: any) => run.name === 'live').status).toBe('finished');
  });

  it('serves metric keys, sample steps and a config diff against another run', async () => {
    const keys = await get('/api/runs/uniform-s1/keys');
    expect(keys.body).toEqual({
      keys: [
        'entropy',
        'eval/pass@1',
        'eval/pass@1/addition/1',
        'losses/clipfrac',
        'losses/tokens',
        'reward/mean',
      ],
      lastStep: 4,
      sampleSteps: [4],
    });
    const diff = await get('/api/runs/uniform-s1/config?diff=sec-s2');
    expect(diff.body.config.selector).toEqual({ name: 'uniform' });
    expect(diff.body.diff.map((d: any) => d.key)).toEqual(['name', 'seed', 'selector.name']);
    expect(diff.body.diff.find((d: any) => d.key === 'selector.name')).toEqual({
      key: 'selector.name',
      value: '"uniform"',
      other: '"sec"',
    });
  });

  it('groups the samples of a step by problem, with task, level and reward minus the group mean', async () => {
    const { body } = await get('/api/runs/uniform-s1/samples?step=4');
    expect(body.groups).toHaveLength(2);
    const [first, second] = body.groups;
    expect(first).toMatchObject({
      problemId: 'addition-1-aaaa',
      task: 'addition',
      level: '1',
      prompt: '2+3',
    });
    expect(first.meanReward).toBeCloseTo(0.75);
    expect(first.completions.map((c: any) => c.reward)).toEqual([1, 0, 1, 1]);
    expect(first.completions[1]).toMatchObject({ reason: 'wrong answer', centeredReward: -0.75 });
    expect(second.level).toBe('2');
    expect((await get('/api/runs/uniform-s1/samples?step=3')).body.groups).toEqual([]);
  });

  it('sends each completion with what the store kept: advantage, tokens with log-probs, guidance', async () => {
    const { body } = await get('/api/runs/sec-s1/samples?step=4');
    const [hinted, untrained] = body.groups;
    expect(hinted.prompt).toBe(`2+3${HINT}`);
    expect(hinted.completions.map((c: any) => c.advantage)).toEqual([0.5, -1.5, 0.5, 0.5]);
    expect(hinted.completions[1]).toMatchObject({
      tokens: [...'answer 1'],
      scaffold: 'hints',
      guidance: { plainPrompt: '2+3', added: [{ kind: 'prompt', text: HINT }], expertTokens: 3 },
      guided: true,
      expert: true,
      retry: false,
      centeredReward: -0.75,
    });
    expect(hinted.completions[1].logprobs).toEqual([...'answer 1'].map((_, t) => -(t + 1) / 4));
    expect(untrained.completions[0].advantage).toBeNull();
    // An old run (schema before the detail columns): no details, the computed centred reward only.
    const old = (await get('/api/runs/uniform-s2/samples?step=4')).body.groups[0].completions[1];
    expect(old).toEqual({ completion: 'answer 1', reward: 0, reason: 'wrong answer', centeredReward: -0.75 });
  });

  it("sends an episode's turns: token spans, per-turn rewards and errors, the end reason", async () => {
    const { body } = await get('/api/runs/sec-s1/samples?step=3');
    expect(body.groups).toHaveLength(1);
    const [first, second] = body.groups[0].completions;
    const output = '<out>error: <b>bad</b> expression</out>';
    expect(first.completion).toBe(`<calc>2+</calc>${output}<calc>2+3</calc><out>5</out>\nA: 5`);
    // 15 policy tokens, 39 written, 16 policy, 12 written, 5 policy (char tokens).
    expect(first.episode).toEqual({
      turns: [
        {
          action: [0, 15],
          output: [15, 54],
          outputTokensBefore: 39,
          reward: 0,
          stopReason: 'stop',
          error: { kind: 'tool', message: 'bad expression <b>2+</b>' },
        },
        { action: [54, 70], output: [70, 82], outputTokensBefore: 12, reward: 0.25, stopReason: 'stop' },
        { action: [82, 87], output: [87, 87], outputTokensBefore: 0, reward: 0.75, stopReason: 'eos' },
      ],
      end: 'done',
      errors: { parse: 0, tool: 1, environment: 0 },
    });
    expect(first.tokens.slice(15, 54).join('')).toBe(output);
    expect(first.logprobs.slice(15, 54)).toEqual(Array(39).fill(0));
    expect(second.episode).toMatchObject({ end: 'max_turns', turns: [{ outputTokensBefore: 40 }] });
    // A single-turn completion has none.
    const single = (await get('/api/runs/sec-s1/samples?step=4')).body.groups[0].completions[0];
    expect(single.episode).toBeUndefined();
  });

  it('bins the rewards of a step (the top edge falls in the last bin)', async () => {
    const { body } = await get('/api/runs/uniform-s1/histogram?step=4&bins=4');
    expect(body.edges).toEqual([0, 0.25, 0.5, 0.75, 1]);
    // rewards 1,0,1,1,0,0,0.5,0
    expect(body.counts).toEqual([4, 0, 1, 3]);
    expect(body.total).toBe(8);
  });

  it('compares seed groups: mean ± sd curves and the paired delta to the baseline', async () => {
    const { status, body } = await get(
      '/api/compare?runs=uniform-s1,uniform-s2,sec-s1,sec-s2&keys=eval/pass@1,reward/mean&baseline=uniform',
    );
    expect(status).toBe(200);
    expect(body.groupedBy).toEqual(['selector.name']);
    const sec = body.groups.find((g: any) => g.group === 'sec');
    expect(sec.runs).toEqual(['sec-s1', 'sec-s2']);
    const [steps, mean, lo, hi] = sec.curves['eval/pass@1'];
    expect(steps).toEqual([0, 4]);
    expect(mean[1]).toBeCloseTo(0.6);
    expect(lo[1]).toBeCloseTo(0.6);
    expect(hi[1]).toBeCloseTo(0.6);
    const uniform = body.groups.find((g: any) => g.group === 'uniform');
    expect(uniform.curves['eval/pass@1'][1][1]).toBeCloseTo(0.45);
    expect(uniform.curves['eval/pass@1'][3][1] - uniform.curves['eval/pass@1'][1][1]).toBeCloseTo(
      Math.SQRT1_2 * 0.1,
    );
    const secTable = body.comparison.groups.find((g: any) => g.group === 'sec');
    expect(secTable.pairedDelta.mean).toBeCloseTo(0.15);
    expect(secTable.pairedDelta.n).toBe(2);
  });

  it('writes nothing in the runs directory while serving every route', async () => {
    const before = snapshot(runsDir);
    for (const path of [
      '/api/runs',
      '/api/runs/sec-s1/keys',
      '/api/runs/sec-s1/series?keys=reward/mean',
      '/api/runs/sec-s1/samples?step=4',
      '/api/runs/sec-s1/samples?step=3',
      '/api/runs/uniform-s2/samples?step=4',
      '/api/runs/sec-s1/histogram?step=4',
      '/api/runs/sec-s1/config?diff=sec-s2',
      '/api/compare?runs=sec-s1,sec-s2',
      '/',
    ])
      await fetch(`${url}${path}`);
    expect(snapshot(runsDir)).toEqual(before);
  });
});
