// `curricula bench rewards --only judge-score`: a judge reward against an embedded checkpoint served in this
// process by the OpenAI server (loopback, port 0, one policy worker) — issue 31's judge targets:
//   1. throughput and latency: `items` distinct completions, each scored alone and all at once (the
//      judge's `concurrency` calls in flight), verdicts/s and per-verdict latency (p50, p99);
//   2. the cache: the same items again, answered from the verdict cache (hit rate, verdicts/s);
//   3. overhead in an RL step: a short `train` run whose reward is this judge (cache off, so every step
//      pays) against the same run graded by the task verifier; perf/share/reward is the reward phase's
//      share of the step's wall time, averaged over the trained steps.
// The judge is the embedded constraints judge by default (examples/checkpoints/constraints-judge, trained
// here on the constraints-judge task), grading candidate answers of the constraints task drawn by that
// task's generator: so the bench also reports the judge's agreement with the code-checked truth
// (accuracy, false-positive rate: a FAIL judged PASS). Any checkpoint can be served instead
// (--judge-checkpoint); a model that is no grader gives malformed verdicts, which are counted.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { RewardInput, RewardResult } from '../core/reward.ts';
import { Rng } from '../core/rng.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { rewards } from '../rewards/index.ts';
import { readJsonlLines } from '../runs/run-store.ts';
import { buildServer } from '../server/app.ts';
import { tasks } from '../tasks/index.ts';
import { rlConfigSchema } from '../training/rl/config.ts';
import { train } from '../training/rl/train.ts';
import { median } from './median.ts';
import { quantile } from './serve-bench.ts';

export interface JudgeBenchOptions {
  checkpoint?: string;
  items?: number;
  concurrency?: number;
  steps?: number;
}

export interface JudgeBenchResult {
  judge: string;
  items: number;
  concurrency: number;
  verdictsPerSecond: number;
  latencyMs: { p50: number; p99: number };
  failures: number;
  /** Against the truth (the constraints verifier), over the verdicts that parsed. */
  agreement: { graded: number; accuracy: number; falsePositiveRate: number; truePassShare: number };
  cache: { hitRate: number; verdictsPerSecond: number };
  rlStep: {
    steps: number;
    judgeRewardShare: number;
    verifierRewardShare: number;
    judgeStepSeconds: number;
    verifierStepSeconds: number;
  };
}

/** The prompt the constraints judge was trained on: the constraints, `>`, the answer (constraints-judge.ts). */
const TEMPLATE = '{{prompt}}>{{extracted}}\n';

export async function benchJudge(options: JudgeBenchOptions = {}): Promise<JudgeBenchResult> {
  const checkpoint = options.checkpoint ?? 'examples/checkpoints/constraints-judge';
  const items = options.items ?? 64;
  const concurrency = options.concurrency ?? 8;
  const stateDir = mkdtempSync(join(tmpdir(), 'curricula-bench-judge-'));
  const app = await buildServer({
    protocols: ['openai'],
    context: {
      checkpoint,
      modelName: basename(checkpoint),
      loadPolicy: () => loadEmbeddedPolicy(checkpoint, 1),
      stateDir,
    },
  });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const judgeOptions = {
      endpoint,
      api: 'completions',
      verdict: { type: 'pass-fail' },
      maxTokens: 96,
      template: TEMPLATE,
      concurrency,
    };
    const reward = rewards.get('judge-score')(judgeOptions);
    const { inputs, truth } = judgeInputs(items);
    await reward.score([{ ...inputs[0], completion: 'warm-up' }]); // loads the model outside the timing
    const latencies: number[] = [];
    const started = performance.now();
    const results = await Promise.all(
      inputs.map(async (input) => {
        const sent = performance.now();
        const [result] = await reward.score([input]);
        latencies.push(performance.now() - sent);
        return result;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cachedStart = performance.now();
    const again = await reward.score(inputs);
    const cachedSeconds = (performance.now() - cachedStart) / 1000;
    await reward.close?.();
    return {
      judge: `judge-score (pass-fail) over ${basename(checkpoint)} served in process`,
      items,
      concurrency,
      verdictsPerSecond: items / seconds,
      latencyMs: { p50: median(latencies), p99: quantile(latencies, 0.99) },
      failures: results.filter((result) => result.failure).length,
      agreement: agreementOf(results, truth),
      cache: {
        // a verdict that failed is not cached (it is asked again): the rate is over the ones that parsed
        hitRate: mean(
          again.filter((_, i) => !results[i].failure).map((result) => result.components.judge_cached),
        ),
        verdictsPerSecond: items / cachedSeconds,
      },
      rlStep: await rlStepShare(
        checkpoint,
        { ...judgeOptions, cache: false, onFailure: 'exclude' },
        options.steps ?? 3,
      ),
    };
  } finally {
    await app.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Candidate answers of the constraints task (the constraints-judge generator's, seeded) and their truth. */
function judgeInputs(items: number): { inputs: RewardInput[]; truth: boolean[] } {
  const generator = tasks.get('constraints-judge');
  const solver = tasks.get('constraints');
  const rng = new Rng(2026);
  const inputs: RewardInput[] = [];
  const truth: boolean[] = [];
  for (let i = 0; i < items; i++) {
    const judged = generator.generate(rng, 1 + (i % generator.difficulty.max));
    const { constraintsPrompt, candidate } = judged.metadata as {
      constraintsPrompt: string;
      candidate: string;
    };
    // the constraints verifier reads the constraints from the prompt alone
    const problem = {
      ...judged,
      task: 'constraints',
      category: 'constraints',
      prompt: constraintsPrompt,
      metadata: {},
    };
    const completion = `A:${candidate}`;
    inputs.push({ problem, completion });
    truth.push(solver.verify(problem, completion).correct);
  }
  return { inputs, truth };
}

function agreementOf(
  results: readonly RewardResult[],
  truth: readonly boolean[],
): JudgeBenchResult['agreement'] {
  const graded = results.flatMap((result, i) =>
    result.failure ? [] : [{ pass: result.reward >= 0.5, truth: truth[i] }],
  );
  const fails = graded.filter((entry) => !entry.truth);
  return {
    graded: graded.length,
    accuracy: mean(graded.map((entry) => (entry.pass === entry.truth ? 1 : 0))),
    falsePositiveRate: mean(fails.map((entry) => (entry.pass ? 1 : 0))),
    truePassShare: mean(graded.map((entry) => (entry.truth ? 1 : 0))),
  };
}

const mean = (values: readonly number[]) =>
  values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;

/** perf/share/reward and perf/step_seconds of the trained steps of a short run, judged and verified. */
async function rlStepShare(
  checkpoint: string,
  judgeOptions: object,
  steps: number,
): Promise<JudgeBenchResult['rlStep']> {
  const runsDir = mkdtempSync(join(tmpdir(), 'curricula-bench-judge-runs-'));
  try {
    const run = async (name: string, reward: object) => {
      const result = await train(
        rlConfigSchema.parse({
          name,
          runsDir,
          init: { checkpoint },
          policy: { workers: 1 },
          tasks: [{ task: 'constraints', difficulties: [1, 2, 3] }],
          poolSize: 32,
          reward,
          rollout: { groupSize: 4, maxTokens: 48 },
          train: { steps, batchSize: 8, learningRate: 0.001 },
          eval: { every: 0, problemsPerDifficulty: 2, samples: 1 },
        }),
      );
      const rows = (readJsonlLines(join(result.runDir, 'metrics.jsonl')) as Record<string, number>[]).filter(
        (row) => row.step > 0,
      );
      return {
        share: mean(rows.map((row) => row['perf/share/reward'])),
        seconds: mean(rows.map((row) => row['perf/step_seconds'])),
      };
    };
    const judged = await run('judged', { name: 'judge-score', options: judgeOptions });
    const verified = await run('verified', { name: 'verifier' });
    return {
      steps,
      judgeRewardShare: judged.share,
      verifierRewardShare: verified.share,
      judgeStepSeconds: judged.seconds,
      verifierStepSeconds: verified.seconds,
    };
  } finally {
    rmSync(runsDir, { recursive: true, force: true });
  }
}
