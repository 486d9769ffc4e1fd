// A small runs directory for the dashboard tests, written with RunStore as a training process writes it:
// two settings (selector uniform / sec) × two seeds, finished, with held-out pass@1 at steps 0 and 4,
// training metrics at steps 1–4 and two sampled groups of four completions at step 4. The sec runs also log
// selector state (curriculum/state/sec/q/<arm>) and their samples carry every detail the store keeps
// (advantage, per-token log-probs and pieces, a hint, expert / retry members); uniform-s2 is rewritten to
// the samples schema before those columns (an old run); the sec runs also log, at step 3, a group sampled
// as multi-turn calculator episodes (episodeSamples: turns, tool outputs, a tool error). Plus the bad cases:
// a run whose run.sqlite is garbage, a directory that is not a run, a run left by a killed writer, and a
// symlink to a run outside the runs directory.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RunStore, type SampleRecord } from '../../runs/run-store.ts';
import { ADDED_COLUMNS } from '../../runs/sample-columns.ts';

export const STEPS = [1, 2, 3, 4];

/** Final eval/pass@1 of each run: sec beats uniform by 0.2 at seed 1 and 0.1 at seed 2. */
export const FINAL_PASS: Record<string, number> = {
  'uniform-s1': 0.4,
  'uniform-s2': 0.5,
  'sec-s1': 0.6,
  'sec-s2': 0.6,
};

export function writeRun(dir: string, selector: string, seed: number, finalPass: number): RunStore {
  const store = RunStore.create(dir, { name: dir, seed, selector: { name: selector }, train: { steps: 4 } });
  store.logMetrics(0, { 'eval/pass@1': 0.1, 'eval/pass@1/addition/1': 0.2 });
  for (const step of STEPS) {
    store.logMetrics(step, {
      'reward/mean': step / 10 + seed / 100,
      entropy: 2 - step / 10,
      'losses/tokens': 100,
      'losses/clipfrac': 0.01 * step,
      ...(step === 4 ? { 'eval/pass@1': finalPass, 'eval/pass@1/addition/1': finalPass } : {}),
      ...(selector === 'sec'
        ? { 'curriculum/state/sec/q/1': step / 20, 'curriculum/state/sec/q/2': 0.1 }
        : {}),
    });
  }
  const group = (id: string, prompt: string, rewards: number[]) =>
    rewards.map((reward, i) => ({
      problemId: id,
      prompt,
      completion: `answer ${i}`,
      reward,
      reason: reward > 0 ? undefined : 'wrong answer',
    }));
  const samples = [
    ...group('addition-1-aaaa', '2+3', [1, 0, 1, 1]),
    ...group('addition-2-bbbb', '12+39', [0, 0, 0.5, 0]),
  ];
  store.logSamples(4, selector === 'sec' ? samples.map(withDetails) : samples);
  if (selector === 'sec') store.logSamples(3, episodeSamples());
  return store;
}

/** One turn of an episode sample: the policy's text, the tool output after it (may be ''), its reward. */
interface TurnText {
  action: string;
  output: string;
  reward: number;
  stopReason: string;
  error?: { kind: string; message: string };
  outputTokensBefore?: number;
}

/** A completion sampled as an episode, as sample-records.ts stores it (char tokens; outputs log p 0). */
function episodeSample(id: string, turns: TurnText[], end: string, reward: number): SampleRecord {
  const tokens: string[] = [];
  const logprobs: number[] = [];
  const stored = turns.map((turn) => {
    const start = tokens.length;
    tokens.push(...turn.action);
    logprobs.push(...[...turn.action].map(() => -0.25));
    const mid = tokens.length;
    tokens.push(...turn.output);
    logprobs.push(...[...turn.output].map(() => 0));
    return {
      action: [start, mid] as [number, number],
      output: [mid, tokens.length] as [number, number],
      outputTokensBefore: turn.outputTokensBefore ?? turn.output.length,
      reward: turn.reward,
      stopReason: turn.stopReason,
      ...(turn.error && { error: turn.error }),
    };
  });
  const errors = { parse: 0, tool: 0, environment: 0 };
  for (const turn of turns) if (turn.error) errors[turn.error.kind as keyof typeof errors]++;
  return {
    problemId: id,
    prompt: '2+3',
    completion: tokens.join(''),
    reward,
    advantage: reward - 0.5,
    advantageKind: 'sequence',
    tokens,
    logprobs,
    scaffold: 'identity',
    guidance: { added: [] },
    guided: false,
    expert: false,
    retry: false,
    episode: { turns: stored, end, errors },
  };
}

/** The sec runs' step-3 group: two calculator episodes of addition-1-eeee. */
export function episodeSamples(): SampleRecord[] {
  return [
    episodeSample(
      'addition-1-eeee',
      [
        {
          action: '<calc>2+</calc>',
          output: '<out>error: <b>bad</b> expression</out>',
          reward: 0,
          stopReason: 'stop',
          error: { kind: 'tool', message: 'bad expression <b>2+</b>' },
        },
        { action: '<calc>2+3</calc>', output: '<out>5</out>', reward: 0.25, stopReason: 'stop' },
        { action: '\nA: 5', output: '', reward: 0.75, stopReason: 'eos' },
      ],
      'done',
      1,
    ),
    episodeSample(
      'addition-1-eeee',
      [
        {
          action: '<calc>99*99</calc>',
          output: '<out>98…01</out>',
          reward: 0,
          stopReason: 'stop',
          outputTokensBefore: 40,
        },
      ],
      'max_turns',
      0,
    ),
  ];
}

export const HINT = '\n\n## Hint.\n5';

/** The sec runs' samples: group 1 hinted, its member 1 an expert trace, member 3 a retry; 2nd group untrained. */
function withDetails(sample: SampleRecord, index: number): SampleRecord {
  const hinted = index < 4;
  const text = sample.completion;
  return {
    ...sample,
    prompt: hinted ? `${sample.prompt}${HINT}` : sample.prompt,
    advantage: hinted ? [0.5, -1.5, 0.5, 0.5][index] : null,
    advantageKind: 'sequence',
    tokens: [...text],
    logprobs: [...text].map((_, t) => -(t + 1) / 4),
    scaffold: 'hints',
    guidance: {
      ...(hinted && { plainPrompt: sample.prompt }),
      added: [
        ...(hinted ? [{ kind: 'prompt', text: HINT }] : []),
        ...(index === 3 ? [{ kind: 'retry-prompt', text: 'Your answer was wrong; try again.' }] : []),
      ],
      ...(index === 1 && { expertTokens: 3 }),
    },
    guided: hinted,
    expert: index === 1,
    retry: index === 3,
  };
}

/** Rewrites a closed run's samples table to the schema before the detail columns (an old run). */
export function dropSampleDetails(dir: string): void {
  const db = new Database(join(dir, 'run.sqlite'));
  try {
    for (const [name] of ADDED_COLUMNS) db.exec(`ALTER TABLE samples DROP COLUMN ${name}`);
  } finally {
    db.close();
  }
}

export interface TestRuns {
  runsDir: string;
  /** A run outside runsDir that runsDir/escape links to. */
  outside: string;
}

export function createTestRuns(): TestRuns {
  const root = mkdtempSync(join(tmpdir(), 'dashboard-'));
  const runsDir = join(root, 'runs');
  mkdirSync(runsDir);
  for (const [name, pass] of Object.entries(FINAL_PASS)) {
    const [selector, seed] = name.split('-s');
    const store = writeRun(join(runsDir, name), selector, Number(seed), pass);
    store.event('finished', { step: 4 });
    store.close();
    if (name === 'uniform-s2') dropSampleDetails(join(runsDir, name));
  }
  // Killed mid-run: no finished event, and the owner file of a process that no longer exists.
  const killed = writeRun(join(runsDir, 'killed'), 'uniform', 3, 0.3);
  killed.close();
  writeFileSync(
    join(runsDir, 'killed', 'lock-owner.json'),
    JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: '' }),
  );
  // A corrupt store.
  mkdirSync(join(runsDir, 'broken'));
  writeFileSync(join(runsDir, 'broken', 'config.json'), '{}');
  writeFileSync(
    join(runsDir, 'broken', 'run.sqlite'),
    'this is not a database, just text long enough to be read',
  );
  // Not a run at all.
  mkdirSync(join(runsDir, 'notes'));
  writeFileSync(join(runsDir, 'notes.txt'), 'a file, skipped');
  // A link to a (real, readable) run outside the runs directory: must be refused.
  const outside = join(root, 'outside');
  mkdirSync(outside);
  const secret = writeRun(join(outside, 'secret'), 'uniform', 9, 0.9);
  secret.event('finished', { step: 4 });
  secret.close();
  symlinkSync(join(outside, 'secret'), join(runsDir, 'escape'));
  return { runsDir, outside };
}
