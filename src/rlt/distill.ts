// `curricula distill`: supervised training of a student on what a teacher writes (RLT's second stage:
// Cetin, Zhao & Tang 2025, §4 — the RL-trained teacher's explanations become the student's distillation
// data; authors' code SakanaAI/RLT, cfgs/run_cfg/teacher_sft.yaml and custom_data/sft_data.py), or on the
// raw worked solutions (the baseline (a) of issue 13 §3.2).
//
//   source teacher:   the teacher (a checkpoint, e.g. a `curricula teach` run) samples one explanation
//                     per problem from its prompt (question + solution, template.ts); the student is
//                     trained on its own context question → explanation + delimiter + solution (the
//                     student template, EOS appended) — the sequence the RLT reward scored.
//   source solutions: the student is trained on question → worked solution (as `curricula pretrain`).
// Loss: cross-entropy on the completion tokens only (prompt weights 0), the mean over the batch's
// completion tokens (as pretrain.ts). The data is drawn with replacement from the set each step.
// Written to the run directory: config.json, explanations.jsonl (exactly the texts trained on, one line
// per problem: id, prompt, explanation, completion, and whether the explanation was kept), metrics and
// a checkpoint (run dir usable as `init.checkpoint` of `curricula train`). The step loop is the run
// driver's (training/run-driver.ts), as for pretrain and train: one metrics row per step, the held-out
// evaluation merged into the last one.
//
// Deviations: explanations the teacher did not close (no EOS within sampling.maxTokens) are dropped and
// counted (the authors' teacher is SFT-ed to close its think tags); the authors distill 7B/32B students on
// 17k explanations for several epochs, here a few steps on a small char-level model; no resume (a distill
// run is short: rerun it with --overwrite).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.ts';
import type { Datum, PolicyBackend } from '../core/policy.ts';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { type EvalSummary, summarizeOutcomes } from '../eval/aggregate.ts';
import { sampleAndVerify } from '../eval/evaluate.ts';
import { defaultEngine } from '../policy/default-engine.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, engineChoice, pinWorkerCount } from '../policy/parallel-options.ts';
import { saveCheckpoint } from '../runs/checkpoints.ts';
import { runDirectory } from '../runs/run-name.ts';
import { RunStore } from '../runs/run-store.ts';
import { promptTokens, solutionDatum } from '../tasks/format.ts';
import { heldOutProblems } from '../tasks/problem-mix.ts';
import { sampleRows } from '../training/rl/sample-rows.ts';
import { runSteps } from '../training/run-driver.ts';
import { supervisedStep } from '../training/supervised-step.ts';
import { type DistillConfig, validateDistillConfig } from './distill-config.ts';
import { explanationOf, studentSequence, targetText, teacherPromptText } from './template.ts';

export interface DistillExample {
  problemId: string;
  /** The question (the prompt the student is trained to answer). */
  prompt: string;
  /** The teacher's explanation ('' for source solutions). */
  explanation: string;
  /** What the student is trained to write after the prompt (EOS not shown). */
  completion: string;
  /** false: the teacher did not close the explanation; not trained on. */
  kept: boolean;
}

export interface DistillResult {
  runDir: string;
  /** Model directory of the trained student (also the run's BEST/LATEST checkpoint). */
  checkpoint: string;
  source: DistillConfig['source'];
  problems: number;
  /** Examples trained on (problems minus dropped explanations). */
  examples: number;
  dropped: number;
  steps: number;
  initialEval: EvalSummary;
  finalEval: EvalSummary;
  wallSeconds: number;
}

export interface DistillOptions {
  overwrite?: boolean;
  onOverwrite?: (message: string) => void;
  /** 'explain' while the teacher writes, then 'train'. */
  onPhase?: (phase: 'explain' | 'train', total: number) => void;
  onStep?: (step: number, metrics: Record<string, number>) => void;
}

export async function distill(given: DistillConfig, options: DistillOptions = {}): Promise<DistillResult> {
  const started = Date.now();
  const config = pinWorkerCount(given, defaultEngine().engine);
  const plan = validateDistillConfig(config);
  const workers = config.policy?.workers ?? defaultWorkers;
  const store = RunStore.create(runDirectory(config.runsDir, config.name), config, {
    overwrite: options.overwrite,
    onOverwrite: options.onOverwrite,
  });
  const opened: PolicyBackend[] = [];
  try {
    const examples = await distillExamples(plan, config, workers, opened, options);
    writeFileSync(
      join(store.dir, 'explanations.jsonl'),
      examples.map((example) => JSON.stringify(example)).join('\n') + (examples.length > 0 ? '\n' : ''),
    );
    const student: PolicyBackend = await loadEmbeddedPolicy(
      plan.studentPath,
      workers,
      engineChoice(config.policy),
    );
    opened.push(student);
    const data = trainingData(student, config, plan.pool, examples);
    const dropped = examples.length - data.length;
    store.event('distill-data', { source: config.source, problems: examples.length, dropped });
    if (data.length === 0) {
      throw new UserError(
        `the teacher closed none of its ${examples.length} explanations within sampling.maxTokens ${config.sampling.maxTokens}; nothing to train on (see ${join(store.dir, 'explanations.jsonl')})`,
      );
    }
    const heldOut = heldOutProblems(config.tasks, config.eval.problemsPerDifficulty, config.seed);
    const evaluate = async (step: number) =>
      summarizeOutcomes(
        await sampleAndVerify(student, heldOut, {
          samples: config.eval.samples,
          temperature: config.eval.temperature,
          seed: config.seed + step,
        }),
      );
    const initialEval = await evaluate(0);
    store.logMetrics(0, initialEval.metrics);

    options.onPhase?.('train', config.train.steps);
    const rng = new Rng(config.seed);
    const { train } = config;
    let checkpoint = '';
    // One run driver (training/run-driver.ts): evaluation and the one checkpoint after the last step.
    const { finalEval } = await runSteps({
      store,
      startStep: 0,
      savedStep: -1,
      steps: train.steps,
      evalEvery: 0,
      checkpoint: { every: 0, latestEvery: Number.POSITIVE_INFINITY },
      step: async (step) => {
        const stepStart = performance.now();
        const batch = Array.from({ length: train.batchSize }, () => data[rng.int(0, data.length - 1)]);
        const result = await supervisedStep(student, batch, train, step, train.steps);
        const metrics = {
          'train/loss': result.loss,
          'train/lr': result.learningRate,
          'train/grad_norm': result.gradNorm,
          'perf/step_seconds': (performance.now() - stepStart) / 1000,
        };
        options.onStep?.(step, { ...metrics });
        return metrics;
      },
      evaluate,
      record: (step, metrics) => store.logMetrics(step, metrics),
      save: async (step) => {
        const saved = await saveCheckpoint(
          store.checkpointsDir,
          { step, rng: rng.state(), extra: { source: config.source } },
          (dir) => student.save(dir),
          { best: true },
        );
        checkpoint = saved.modelPath;
      },
    });
    return {
      runDir: store.dir,
      checkpoint,
      source: config.source,
      problems: examples.length,
      examples: data.length,
      dropped,
      steps: train.steps,
      initialEval,
      finalEval,
      wallSeconds: (Date.now() - started) / 1000,
    };
  } finally {
    store.close();
    for (const backend of opened) await backend.close?.();
  }
}

/** What the student learns from: the teacher's explanations (source teacher) or the worked solutions. */
async function distillExamples(
  plan: ReturnType<typeof validateDistillConfig>,
  config: DistillConfig,
  workers: Parameters<typeof loadEmbeddedPolicy>[1],
  opened: PolicyBackend[],
  options: DistillOptions,
): Promise<DistillExample[]> {
  if (!plan.teacherPath) {
    return plan.pool.map((problem) => ({
      problemId: problem.id,
      prompt: problem.prompt,
      explanation: '',
      completion: config.source === 'answers' ? answerOnly(problem).solution : problem.solution,
      kept: true,
    }));
  }
  options.onPhase?.('explain', plan.pool.length);
  const teacher: PolicyBackend = await loadEmbeddedPolicy(plan.teacherPath, workers);
  opened.push(teacher);
  const examples = await explain(teacher, plan.pool, config);
  await teacher.close?.();
  opened.pop();
  return examples;
}

/** The student's training data: one datum per kept example. */
function trainingData(
  student: PolicyBackend,
  config: DistillConfig,
  pool: readonly Problem[],
  examples: readonly DistillExample[],
): Datum[] {
  const byId = new Map(pool.map((problem) => [problem.id, problem]));
  return examples
    .filter((example) => example.kept)
    .map((example) => distillDatum(student, config, byId.get(example.problemId)!, example));
}

/** One explanation per problem from the teacher (closed by EOS, or dropped). */
async function explain(
  teacher: PolicyBackend,
  pool: readonly Problem[],
  config: DistillConfig,
): Promise<DistillExample[]> {
  const { template, sampling } = config;
  const contexts = pool.map((problem) =>
    promptTokens(teacher.tokenizer, { ...problem, prompt: teacherPromptText(template, problem) }),
  );
  const limits = contexts.map((tokens) =>
    Math.max(1, Math.min(sampling.maxTokens, teacher.contextLength - tokens.length)),
  );
  const sampled = await sampleRows(
    teacher,
    contexts,
    pool.map(() => 1),
    limits,
    {
      temperature: sampling.temperature,
      topP: sampling.topP,
      seed: new Rng(config.seed + 104729).nextUint32(),
    },
  );
  return pool.map((problem, index) => {
    const [sequence] = sampled[index];
    // rlt.template.explanationEnd: closed by EOS, or by the teacher's answer line (cut off here)
    const cut = explanationOf(template, sequence.text);
    const explanation = cut.text;
    const { tokenizer } = teacher;
    const student = studentSequence(tokenizer, template, problem, tokenizer.encode(explanation));
    return {
      problemId: problem.id,
      prompt: problem.prompt,
      explanation,
      completion: tokenizer.decode(student.tokens.slice(student.explanation.start)),
      kept: cut.closed ?? sequence.stopReason === 'eos',
    };
  });
}

/** The problem with its answer line (targetText's 'answer' form) as its whole solution (source answers). */
function answerOnly(problem: Problem): Problem {
  return { ...problem, solution: targetText({ target: 'answer' }, problem) };
}

/** The student's training sequence: weight 1 on the completion tokens and EOS, 0 on the prompt. */
export function distillDatum(
  student: PolicyBackend,
  config: DistillConfig,
  problem: Problem,
  example: DistillExample,
): Datum {
  const { tokenizer } = student;
  if (config.source === 'solutions') return solutionDatum(tokenizer, problem);
  if (config.source === 'answers') return solutionDatum(tokenizer, answerOnly(problem));
  const explanation = tokenizer.encode(example.explanation, `problem ${problem.id} explanation`);
  const sequence = studentSequence(tokenizer, config.template, problem, explanation);
  const tokens = [...sequence.tokens, tokenizer.eos];
  // weights[t] weighs the prediction of tokens[t + 1]: the explanation's first token onwards.
  const weights = tokens.slice(1).map((_, t) => (t + 1 >= sequence.explanation.start ? 1 : 0));
  return { tokens, weights };
}
