// The sample details of the run store (sample-columns.ts): a round trip of every added column, and a
// store made with the schema before them (built here with the old CREATE TABLE, as an old Curricula left
// it) that a reader opens without migrating and a resumed writer migrates; and a store from just before the
// `episode` column (multi-turn episodes), which a resumed writer gains.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withRlDefaults } from '../training/rl/config-defaults.ts';
import { readRuns } from './compare/read-runs.ts';
import { readRunData } from './report/run-data.ts';
import { RunStore, type SampleRecord } from './run-store.ts';
import { decodeLogprobs, encodeLogprobs, MAX_TOKENS } from './sample-columns.ts';

const detailed: SampleRecord = {
  problemId: 'addition-2-abcd',
  prompt: '12+30=\n\n## Hint.\n4',
  completion: 'Answer: 42',
  reward: 1,
  reason: 'correct',
  advantage: 0.75,
  advantageKind: 'sequence',
  logprobs: [-0.5, -0.125, -3],
  tokens: ['4', '2', ''],
  scaffold: 'hints',
  guidance: {
    plainPrompt: '12+30=',
    added: [
      { kind: 'prompt', text: '\n\n## Hint.\n4' },
      { kind: 'prefix', text: 'Answer: ' },
    ],
    expertTokens: 1,
  },
  guided: true,
  expert: true,
  retry: false,
  episode: {
    turns: [
      { action: [0, 2], output: [2, 3], outputTokensBefore: 5, reward: 0.25, stopReason: 'stop' },
      {
        action: [3, 3],
        output: [3, 3],
        outputTokensBefore: 0,
        reward: 0,
        stopReason: 'length',
        error: { kind: 'parse', message: 'no closing tag' },
      },
    ],
    end: 'max_turns',
    errors: { parse: 1, tool: 0, environment: 0 },
  },
};

function oldStore(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'old-store-')), 'old');
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), '{"seed": 1}\n');
  writeFileSync(join(dir, 'metrics.jsonl'), '');
  const db = new Database(join(dir, 'run.sqlite'));
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE metrics (step INTEGER NOT NULL, key TEXT NOT NULL, value REAL, PRIMARY KEY (step, key));
    CREATE TABLE samples (step INTEGER NOT NULL, problem_id TEXT, prompt TEXT, completion TEXT, reward REAL, reason TEXT);
    CREATE INDEX samples_step ON samples (step);
    CREATE TABLE events (time TEXT, kind TEXT, detail TEXT);
  `);
  db.prepare('INSERT INTO metrics VALUES (1, ?, ?)').run('reward/mean', 0.5);
  db.prepare('INSERT INTO samples VALUES (1, ?, ?, ?, ?, ?)').run('p-1-x', '1+1=', '2', 1, null);
  db.prepare('INSERT INTO samples VALUES (1, ?, ?, ?, ?, ?)').run('p-1-x', '1+1=', '3', 0, 'wrong');
  db.close();
  return dir;
}

function columns(dir: string): string[] {
  const db = new Database(join(dir, 'run.sqlite'), { readonly: true });
  try {
    return (db.pragma('table_info(samples)') as { name: string }[]).map((column) => column.name);
  } finally {
    db.close();
  }
}

describe('sample columns', () => {
  it('round-trips every detail of a sample, and a sample without details', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'samples-')), 'run');
    const store = RunStore.create(dir, {});
    const untrained: SampleRecord = {
      ...detailed,
      advantage: null,
      guided: false,
      expert: true,
      retry: true,
    };
    store.logSamples(2, [detailed, { problemId: 'p', prompt: 'q', completion: 'c', reward: 0 }, untrained]);
    store.close();
    const reader = RunStore.read(dir);
    const [first, second, third] = reader.samples(2);
    reader.close();
    expect(first).toEqual({ step: 2, ...detailed });
    // A stored NULL advantage with its kind: not trained (null), not unknown (undefined).
    expect(third).toEqual({ step: 2, ...untrained });
    expect(second).toEqual({
      step: 2,
      problemId: 'p',
      prompt: 'q',
      completion: 'c',
      reward: 0,
      reason: null,
    });
  });

  it('stores log-probs as Float32 (4 bytes a token), at most MAX_TOKENS of them', () => {
    expect(encodeLogprobs([-0.1, -2]).length).toBe(8);
    expect(decodeLogprobs(encodeLogprobs([-0.1, -2]))[0]).toBeCloseTo(-0.1, 6);
    expect(decodeLogprobs(encodeLogprobs(new Array(MAX_TOKENS + 5).fill(-1)))).toHaveLength(MAX_TOKENS);
  });

  it('reads an old store without migrating it, and a resumed writer adds the columns', () => {
    const dir = oldStore();
    const before = columns(dir);
    expect(before).not.toContain('advantage');
    const reader = RunStore.read(dir);
    expect(reader.sampleSteps()).toEqual([1]);
    expect(reader.samples(1)).toEqual([
      { step: 1, problemId: 'p-1-x', prompt: '1+1=', completion: '2', reward: 1, reason: null },
      { step: 1, problemId: 'p-1-x', prompt: '1+1=', completion: '3', reward: 0, reason: 'wrong' },
    ]);
    reader.close();
    // The report's and compare's readers too.
    expect(readRunData(dir).samples.map((sample) => sample.completion)).toEqual(['2', '3']);
    expect(readRuns([dir], withRlDefaults).runs).toHaveLength(1);
    expect(columns(dir)).toEqual(before);

    const writer = RunStore.resume(dir);
    writer.logSamples(2, [detailed]);
    expect(writer.samples(1)[0].advantage).toBeUndefined();
    expect(writer.samples(2)[0].advantage).toBe(0.75);
    expect(writer.truncateAfter(1)).toEqual([]);
    expect(writer.sampleSteps()).toEqual([1]);
    writer.close();
    expect(columns(dir)).toEqual(
      expect.arrayContaining([...before, 'advantage', 'logprobs', 'guidance', 'episode']),
    );
  });

  it('a store from before the episode column: read as it is, gains the column when resumed', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'pre-episode-')), 'run');
    const { episode: _episode, ...single } = detailed;
    const first = RunStore.create(dir, {});
    first.logSamples(1, [single]);
    first.close();
    const db = new Database(join(dir, 'run.sqlite'));
    db.exec('ALTER TABLE samples DROP COLUMN episode');
    db.close();
    const reader = RunStore.read(dir);
    expect(reader.samples(1)).toEqual([{ step: 1, ...single }]);
    reader.close();
    expect(columns(dir)).not.toContain('episode');
    const writer = RunStore.resume(dir);
    writer.logSamples(2, [detailed]);
    expect(writer.samples(1)[0].episode).toBeUndefined();
    expect(writer.samples(2)[0].episode).toEqual(detailed.episode);
    writer.close();
    expect(columns(dir)).toContain('episode');
  });
});
