// The `math-answer` reward: 1 when the completion's final answer is mathematically equivalent to
// `problem.answer`, else 0 with a reason. A Math-Verify-class verifier (huggingface/Math-Verify v0.8.0,
// with rules borrowed from Qwen2.5-Math's math_equal) written in TypeScript on @cortex-js/compute-engine;
// docs/rewards/math-answer.md lists the rules and where they deviate from those graders.
//
// Every verification runs in a worker pool (src/core/worker-pool.ts) with a per-item timeout, so a
// pathological answer (10^{10^{10}}, huge factorials, deep nesting) costs at most `timeoutMs` and returns
// reward 0 with reason 'timeout'; the stuck worker is terminated and replaced.
// Gold answers that do not parse are a dataset problem: they score 0 with reason 'gold unparseable' and are
// reported once per problem id through the injectable `logger`.
import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Verdict } from '../../core/problem.ts';
import type { Reward, RewardInput, RewardResult } from '../../core/reward.ts';
import { siblingModule } from '../../core/sibling-module.ts';
import { WorkerPool, WorkerTimeoutError } from '../../core/worker-pool.ts';
import { defineReward } from '../registry.ts';
import { extractAnswer } from './extract.ts';
import { normalizeAnswer } from './normalize.ts';
import type { CompareOptions } from './scalar.ts';
import type { VerifyTask, WorkerVerdict } from './verify.ts';

export const mathAnswerOptionsSchema = z
  .object({
    /** Relative tolerance for comparisons that involve a decimal literal (exact values compare exactly). */
    relTol: z.number().positive().max(0.1).default(1e-6),
    /** The fewest significant digits a decimal answer needs to count as the exact value correctly rounded
     * (0.333333 for 1/3 at 6; Math-Verify's float_rounding plays this part). */
    roundedDigits: z.number().int().min(1).max(15).default(6),
    /** A set-form gold (interval, union) also accepts a one-variable relation answer (`-2 ≤ x ≤ 7` for
     * [-2, 7]; Math-Verify's allow_set_relation_comp). A relation gold always accepts a set answer. */
    setRelations: z.boolean().default(false),
    /** Per-item time limit in ms; a verification that runs longer scores 0 with reason 'timeout'. */
    timeoutMs: z.number().int().positive().default(2000),
    /** Number of worker threads. */
    poolSize: z.number().int().positive().max(64).default(2),
    /** Accept only \boxed{} answers (no 'final answer is', 'answer:', LaTeX or last-number fallbacks). */
    boxedOnly: z.boolean().default(false),
    /** Extraction families (Math-Verify's match_types): `latex` (\boxed{}, math delimiters), `expr` (a bare
     * answer, the last number); final-answer statements under either. */
    matchTypes: z
      .array(z.enum(['latex', 'expr']))
      .min(1)
      .default(['latex', 'expr']),
  })
  .strict();

export type MathAnswerOptions = z.infer<typeof mathAnswerOptionsSchema>;
export type MathAnswerOptionsInput = z.input<typeof mathAnswerOptionsSchema>;

export function parseMathAnswerOptions(options: unknown): MathAnswerOptions {
  const result = mathAnswerOptionsSchema.safeParse(options ?? {});
  if (!result.success) {
    const details = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    const keys = Object.keys(mathAnswerOptionsSchema.shape).join(', ');
    throw new ConfigError(
      `invalid options for reward 'math-answer': ${details.join('; ')} (allowed keys: ${keys})`,
    );
  }
  return result.data;
}

const workerUrl = siblingModule('./worker.ts', import.meta.url);

/** Owns a worker pool; verifies (gold, completion) pairs and compares answers with a per-item timeout. */
export class MathVerifier {
  readonly options: MathAnswerOptions;
  private pool: WorkerPool<VerifyTask, WorkerVerdict> | null = null;

  constructor(options: MathAnswerOptionsInput = {}) {
    this.options = parseMathAnswerOptions(options);
  }

  private getPool(): WorkerPool<VerifyTask, WorkerVerdict> {
    this.pool ??= new WorkerPool<VerifyTask, WorkerVerdict>(workerUrl, {
      size: this.options.poolSize,
      timeoutMs: this.options.timeoutMs,
      // Verifications take ~0.1–0.3 ms: sending a few ahead keeps workers busy (timeouts stay per item).
      pipeline: 4,
    });
    return this.pool;
  }

  /** Verifies many tasks concurrently; never rejects (timeouts and crashes become verdicts). */
  async run(tasks: readonly VerifyTask[]): Promise<WorkerVerdict[]> {
    const pool = this.getPool();
    const settled = await pool.runAll(tasks);
    return settled.map((outcome) => {
      if (outcome.status === 'fulfilled') return outcome.value;
      const error = outcome.reason as Error;
      const reason = error instanceof WorkerTimeoutError ? 'timeout' : `error: ${error.message}`;
      return { correct: false, extracted: null, reason };
    });
  }

  /** Is the completion's final answer equivalent to the gold? `question` enables the echo check. */
  async verify(gold: string, completion: string, question?: string): Promise<WorkerVerdict> {
    const [verdict] = await this.run([this.verifyTask(gold, completion, question)]);
    return verdict;
  }

  /** Are two already-extracted answers equivalent (first taken as the reference)? Timeouts count as no. */
  async equivalent(reference: string, answer: string): Promise<boolean> {
    const [verdict] = await this.run([
      { kind: 'equivalent', gold: reference, answer, compare: this.compare() },
    ]);
    return verdict.correct;
  }

  verifyTask(gold: string, completion: string, question?: string): VerifyTask {
    return {
      kind: 'verify',
      gold,
      completion,
      question,
      compare: this.compare(),
      extract: { boxedOnly: this.options.boxedOnly, matchTypes: this.options.matchTypes },
    };
  }

  private compare(): CompareOptions {
    const { relTol, roundedDigits, setRelations } = this.options;
    return { relTol, roundedDigits, setRelations };
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }
}

export interface MathAnswerRewardOptions extends MathAnswerOptionsInput {
  /** Receives dataset warnings (unparseable gold answers), once per problem id. Default: console.warn. */
  logger?: (message: string) => void;
}

export class MathAnswerReward implements Reward {
  readonly name = 'math-answer';
  private readonly verifier: MathVerifier;
  private readonly logger: (message: string) => void;
  private readonly reportedGold = new Set<string>();

  constructor(options: MathAnswerRewardOptions = {}) {
    const { logger, ...rest } = options;
    this.verifier = new MathVerifier(rest);
    this.logger = logger ?? ((message) => console.warn(message));
  }

  get options(): MathAnswerOptions {
    return this.verifier.options;
  }

  async score(inputs: readonly RewardInput[]): Promise<RewardResult[]> {
    const verdicts = await this.verifier.run(
      inputs.map((input) =>
        this.verifier.verifyTask(input.problem.answer, input.completion, input.problem.prompt),
      ),
    );
    return verdicts.map((verdict, i) => {
      if (verdict.goldUnparseable) {
        const { id, answer } = inputs[i].problem;
        if (!this.reportedGold.has(id)) {
          this.reportedGold.add(id);
          this.logger(`math-answer: gold answer of problem ${id} does not parse (${JSON.stringify(answer)})`);
        }
      }
      const correct = verdict.correct ? 1 : 0;
      const result: RewardResult = { reward: correct, components: { correct } };
      if (!verdict.correct) result.reason = verdict.reason ?? 'wrong';
      return result;
    });
  }

  close(): Promise<void> {
    return this.verifier.close();
  }
}

/** Registry factory: validates options (ConfigError on bad ones) and builds the reward. */
export function createMathAnswerReward(options: unknown): MathAnswerReward {
  return new MathAnswerReward(parseMathAnswerOptions(options));
}

// ---------- plain helpers (shared default verifier; its idle workers do not keep the process alive) ----------

let shared: MathVerifier | null = null;
let sharedKey = '';

function sharedVerifier(options: MathAnswerOptionsInput): MathVerifier {
  const resolved = parseMathAnswerOptions(options);
  const key = JSON.stringify(resolved);
  if (!shared || key !== sharedKey) {
    void shared?.close();
    shared = new MathVerifier(resolved);
    sharedKey = key;
  }
  return shared;
}

/** Verifies one completion (or bare answer) against a gold answer in the shared worker pool. */
export async function verifyMath(
  gold: string,
  prediction: string,
  options: MathAnswerOptionsInput & { question?: string } = {},
): Promise<Verdict> {
  const { question, ...rest } = options;
  const verdict = await sharedVerifier(rest).verify(gold, prediction, question);
  const result: Verdict = { correct: verdict.correct, extracted: verdict.extracted };
  if (verdict.reason !== undefined) result.reason = verdict.reason;
  return result;
}

/** Are two extracted answers mathematically equivalent? (TTRL majority-vote clustering.) */
export function mathEquivalent(a: string, b: string, options: MathAnswerOptionsInput = {}): Promise<boolean> {
  return sharedVerifier(options).equivalent(a, b);
}

/**
 * A cheap, synchronous clustering key for a completion: its extracted answer, normalised (whitespace,
 * \dfrac, \left, units, thousands separators …). Equal keys are equivalent answers; different keys may
 * still be equivalent (`\frac12` vs `0.5`), so merge key clusters with mathEquivalent. null: no answer.
 */
export function mathAnswerKey(completion: string, options: { boxedOnly?: boolean } = {}): string | null {
  const extracted = extractAnswer(completion, options);
  if (!extracted || extracted.answer.trim() === '') return null;
  const normalized = normalizeAnswer(extracted.answer);
  return (normalized.percent ? `${normalized.latex}%` : normalized.latex).replace(/\s+/g, '');
}

/** Closes the shared pool used by verifyMath / mathEquivalent. */
export async function closeSharedMathVerifier(): Promise<void> {
  await shared?.close();
  shared = null;
}

export const mathAnswerReward = defineReward({
  id: 'math-answer',
  description:
    "1 when the final answer is mathematically equivalent to the problem's answer (a Math-Verify-class verifier)",
  paper: {
    title: "Math-Verify (Hugging Face), with rules from Qwen2.5-Math's math_equal",
    code: 'huggingface/Math-Verify v0.8.0',
  },
  optionsSchema: mathAnswerOptionsSchema,
  create: createMathAnswerReward,
});
