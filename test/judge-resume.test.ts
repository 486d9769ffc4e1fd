// A judge-graded training run killed with SIGKILL while its judge is answering, then resumed: the verdicts
// stored before the kill are not asked again (issue 31's cache target: a resumed run re-judges 0 already-
// judged samples), the replayed step takes them from the cache, and the run ends with the metrics of an
// uninterrupted one. The judge is a real HTTP server in this process (OpenAI chat completions), the
// trainer a real `curricula train` process; the judge's verdict depends only on the completion, and one
// completion in five gets a malformed verdict, so the failure policy (exclude) and its counts are on the
// path too.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheKey } from '../src/rewards/judges/cache.ts';
import { readCheckpoint } from '../src/runs/checkpoints.ts';
import { RunStore, readJsonlLines } from '../src/runs/run-store.ts';
import { cliPath, repoRoot, startCli, tempDir, withoutNativeFallbackLine, writeYaml } from './helpers.ts';

/** `curricula <args>` without blocking this process (its judge server must keep answering). */
function runAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (status) => resolve({ status, stderr: withoutNativeFallbackLine(stderr) }));
  });
}

interface Seen {
  body: Record<string, unknown>;
}

/** The verdict for a prompt: a score from its completion's characters, malformed for one in five. */
function verdictFor(prompt: string): string {
  const completion = prompt.split('The response:\n')[1] ?? '';
  let sum = 0;
  for (const char of completion) sum += char.charCodeAt(0);
  return sum % 5 === 0 ? 'I cannot decide.' : `Looks fine.\nScore: ${(sum % 10) + 1}`;
}

describe('a judge-graded run killed mid-judging', () => {
  const dir = tempDir('judge-resume');
  const seen: Seen[] = [];
  let onRequest: () => void = () => {};
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk) => {
        text += chunk;
      });
      request.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        seen.push({ body });
        onRequest();
        const prompt = (body.messages as { content: string }[])[0].content;
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: verdictFor(prompt) }, finish_reason: 'stop' }],
            usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: 5 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const config = (name: string) =>
    writeYaml(dir, `${name}.yaml`, {
      name,
      runsDir: dir,
      seed: 7,
      model: { preset: 'tiny' },
      policy: { workers: 1 },
      tasks: [{ task: 'addition', difficulties: [1] }],
      poolSize: 16,
      reward: { name: 'judge-score', options: { endpoint: url, onFailure: 'exclude', concurrency: 4 } },
      rollout: { groupSize: 4, maxTokens: 16 },
      train: { steps: 4, batchSize: 4, learningRate: 0.003 },
      eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
      log: { samplesPerStep: 16 },
      checkpoint: { latestEvery: 2 },
    });
  const metrics = (runDir: string) =>
    (readJsonlLines(join(runDir, 'metrics.jsonl')) as Record<string, unknown>[]).map((entry) =>
      Object.fromEntries(
        Object.entries(entry).filter(
          ([key]) =>
            key !== 'time' &&
            !key.startsWith('perf/') &&
            !key.startsWith('reward/judge_cached') &&
            !key.startsWith('reward/judge_prompt') &&
            !key.startsWith('reward/judge_completion'),
        ),
      ),
    );

  it('asks no stored verdict again and ends with the uninterrupted metrics', async () => {
    expect(await runAsync(['train', '--config', config('straight'), '--quiet'])).toEqual({
      status: 0,
      stderr: '',
    });
    const reference = metrics(join(dir, 'straight'));
    expect(reference.map((entry) => entry.step)).toEqual([0, 1, 2, 3, 4]);
    // the judge's failures were counted and left out
    const failures = reference.reduce((sum, entry) => sum + Number(entry['reward/judge_failures'] ?? 0), 0);
    expect(failures).toBeGreaterThan(0);
    expect(
      reference.every(
        (entry) => entry.step === 0 || entry['reward/judge_excluded'] === entry['reward/judge_failures'],
      ),
    ).toBe(true);
    const straightStore = RunStore.read(join(dir, 'straight'));
    expect(straightStore.rewardErrors().some((row) => row.reason.startsWith('judge verdict malformed'))).toBe(
      true,
    );
    straightStore.close();
    // a failed verdict was not trained on (NULL advantage, left out of the batch); the others were
    const samples = new Database(join(dir, 'straight', 'run.sqlite'), { readonly: true });
    const rows = samples.prepare('SELECT reason, advantage FROM samples WHERE step > 0').all() as {
      reason: string | null;
      advantage: number | null;
    }[];
    samples.close();
    const failed = rows.filter((row) => row.reason?.startsWith('judge verdict malformed'));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((row) => row.advantage === null)).toBe(true);
    expect(
      rows.filter((row) => !row.reason?.startsWith('judge')).every((row) => row.advantage !== null),
    ).toBe(true);

    // Kill the second run while its judge is answering step 3 (LATEST is at step 2).
    const crashed = join(dir, 'crashed');
    const child = startCli(['train', '--config', config('crashed'), '--quiet']);
    let afterStep2 = 0;
    onRequest = () => {
      const path = join(crashed, 'metrics.jsonl');
      if (existsSync(path) && readFileSync(path, 'utf8').includes('"step":2,') && ++afterStep2 === 9)
        child.kill('SIGKILL');
    };
    await new Promise((resolve) => child.once('exit', resolve));
    onRequest = () => {};
    expect(readCheckpoint(join(crashed, 'checkpoints'))?.state.step).toBe(2);
    const cache = new Database(join(crashed, 'judge-cache.sqlite'), { readonly: true });
    const stored = new Set(
      (cache.prepare('SELECT key FROM verdicts').all() as { key: string }[]).map((row) => row.key),
    );
    cache.close();

    const before = seen.length;
    const resumed = await runAsync(['train', '--resume', crashed, '--quiet']);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    const asked = seen
      .slice(before)
      .map(({ body }) => cacheKey({ endpoint: url, path: '/v1/chat/completions', body }));
    expect(asked.filter((key) => stored.has(key))).toEqual([]); // re-judged: 0
    const after = metrics(crashed);
    expect(after).toEqual(reference);
    // the replayed step 3 took some verdicts from the cache (the test is not vacuous)
    const raw = readJsonlLines(join(crashed, 'metrics.jsonl')) as Record<string, number>[];
    expect(raw.find((entry) => entry.step === 3)!['reward/judge_cached']).toBeGreaterThan(0);
  }, 240_000);
});
