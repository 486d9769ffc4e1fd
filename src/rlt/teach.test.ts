// `curricula teach` for real, small: ladder-cold as both teacher and student, workers 1, 2 problems × 2
// explanations per step. The first step's rewards (teacher still at init) are recomputed here from
// strings, independently of template.ts and student-reward.ts: each stored reward must be the RLT reward of
// the student's log-probs of the SOLUTION after the explanation (and the KL on the explanation).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { resolveCheckpoint } from '../runs/resolve-checkpoint.ts';
import { RunStore } from '../runs/run-store.ts';
import { drawPool } from '../training/rl/setup.ts';
import { teach } from './teach.ts';
import { type TeachConfig, teachConfigSchema } from './teach-config.ts';

const cold = 'examples/checkpoints/ladder-cold';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rlt-teach-'));
  dirs.push(dir);
  return dir;
}

function config(runsDir: string, name: string, overrides: Record<string, unknown> = {}): TeachConfig {
  return teachConfigSchema.parse({
    name,
    runsDir,
    seed: 3,
    init: { checkpoint: cold },
    student: { checkpoint: cold },
    tasks: [{ task: 'addition', difficulties: [1, 2] }],
    poolSize: 20,
    rollout: { groupSize: 2, maxTokens: 40 },
    algorithm: { advantage: { name: 'grpo', options: { epsilon: 1e-4 } } },
    train: { steps: 2, batchSize: 2, learningRate: 1e-4 },
    eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
    log: { samplesPerStep: 4 },
    checkpoint: { latestEvery: 1 },
    policy: { workers: 1 },
    ...overrides,
  });
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('curricula teach', () => {
  it("rewards each explanation with the frozen student's log-likelihood of the solution", async () => {
    const runsDir = tempDir();
    // evaluated at steps 0 and 2 (the teacher as a solver), so a BEST could be picked
    const teachConfig = config(runsDir, 'teach-run', {
      eval: { every: 2, problemsPerDifficulty: 2, samples: 1 },
    });
    const result = await teach(teachConfig);
    expect(result.steps).toBe(2);
    // the run directory names the trained teacher (LATEST): its solver evaluation picks no BEST
    expect(existsSync(join(result.runDir, 'checkpoints', 'BEST'))).toBe(false);
    expect(resolveCheckpoint(result.runDir).modelPath).toBe(
      join(result.runDir, 'checkpoints', 'step-000002', 'model'),
    );
    const store = RunStore.read(result.runDir);
    const samples = store.samples(1);
    const rss = store.series('rlt/r_ss');
    const formatMiss = store.series('rlt/format_miss');
    const distinct = store.series('rlt/distinct');
    store.close();
    // rlt/distinct: per problem's group, distinct explanations / group size, averaged over the groups.
    const groups = new Map<string, string[]>();
    for (const sample of samples)
      groups.set(sample.problemId, [...(groups.get(sample.problemId) ?? []), sample.completion]);
    const shares = [...groups.values()].map((texts) => new Set(texts).size / texts.length);
    expect(distinct[0].value).toBeCloseTo(mean(shares), 12);
    expect(samples).toHaveLength(4);
    expect(rss.map((row) => row.step)).toEqual([1, 2]);
    expect(formatMiss).toHaveLength(2);

    const byId = new Map<string, Problem>(drawPool(teachConfig).map((problem) => [problem.id, problem]));
    const student: PolicyBackend = await loadEmbeddedPolicy(cold, 1);
    const teacher: PolicyBackend = await loadEmbeddedPolicy(cold, 1);
    const { tokenizer } = student;
    const encode = (text: string) => [tokenizer.bos, ...tokenizer.encode(text)];
    const expectedRss: number[] = [];
    for (const sample of samples) {
      const problem = byId.get(sample.problemId)!;
      const explanation = sample.completion;
      // Student: question + explanation + '\n' + solution; the solution is the last tokens of the sequence.
      const studentLogprobs = (
        await student.forward([encode(`${problem.prompt}${explanation}\n${problem.solution}`)])
      )[0];
      const n = problem.solution.length;
      const ell = studentLogprobs.slice(-n);
      const s = studentLogprobs.slice(-(n + 1 + explanation.length), -(n + 1));
      // Teacher: question + solution + '\nE:' then the explanation, the last tokens of its sequence.
      const teacherText = `${problem.prompt}${problem.solution}\nE:`;
      const teacherLogprobs = (await teacher.forward([encode(teacherText + explanation)]))[0];
      const tau = explanation.length > 0 ? teacherLogprobs.slice(-explanation.length) : [];
      const k = tau.map((value, t) => value - s[t]);
      const rss = mean(ell) + 0.01 * Math.min(...ell);
      const rkl = k.length > 0 ? 3 * mean(k) + 0.03 * Math.max(...k) : 3.03;
      const limit = Math.min(40, 128 - encode(teacherText).length);
      const match = explanation.length < limit ? 0 : -1;
      expect(sample.reward).toBeCloseTo(rss - rkl + match, 4);
      expectedRss.push(rss);
    }
    expect(rss[0].value).toBeCloseTo(mean(expectedRss), 4);
    await student.close?.();
    await teacher.close?.();
  }, 60_000);

  it('resumes from a checkpoint to the same metrics as an uninterrupted run', async () => {
    const runsDir = tempDir();
    const whole = await teach(config(runsDir, 'whole'));
    const first = await teach(config(runsDir, 'split'), { stopAfter: 1 });
    expect(first.steps).toBe(1);
    const resumed = await teach(null, { resume: first.runDir });
    expect(resumed.steps).toBe(2);
    const read = (dir: string) => {
      const store = RunStore.read(dir);
      const rows = ['reward/mean', 'rlt/r_ss', 'rlt/r_kl'].map((key) =>
        store.series(key).map((row) => row.value),
      );
      store.close();
      return rows;
    };
    expect(read(resumed.runDir)).toEqual(read(whole.runDir));
  }, 60_000);
});
