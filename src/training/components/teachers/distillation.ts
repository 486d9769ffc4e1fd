// The distillation phase of an RL step (issue 13: on-policy distillation, and `privileged-hint`): a
// teacher scores the policy's own sampled tokens in one batched forward, and src/algorithms/opd.ts turns
// lp_teacher − lp_sampler into per-token advantages, which update.ts uses in place of the scalar ones.
//
// Scorer context: for OPD the group's own context ([BOS] + prompt + forced prefix, the same ids: setup
// checks the teacher tokenizes like the student); for privileged-hint the attempt's prompt plus its
// `privilegedContext` (then the forced prefix), a hint the policy never saw. A hint that would not fit the
// scorer's context with the group's longest completion is cut from its end (`teacher/hint_cut`);
// a group whose sequences cannot fit at all gets no teacher signal (`teacher/too_long`).
//
// Alignment: forward returns L−1 log-probs per sequence, logprobs[j] = log p(tokens[j+1] | tokens[..j]);
// completion token t sits at position c + t (c = context length), so its log-prob is entry c − 1 + t.
// Tokens of an expert trace (GroupRollout.expertTokens) were not sampled by the student: mask 0.
//
// Failures: one batched call for the whole step; if it throws or times out, each group is scored alone,
// and a group whose call fails too loses its teacher signal for this step (`teacher/failed_groups`; the
// pool counts every failed call in `teacher/failures`). It keeps its task advantage when taskAdvantage
// is on, and trains on nothing (advantage 0) when it is off. The run goes on.
import type { AdvantageEstimate } from '../../../algorithms/advantages/estimator.ts';
import { type OpdOptions, opdAdvantages } from '../../../algorithms/opd.ts';
import type { PolicyBackend } from '../../../core/policy.ts';
import { promptTokens } from '../../../tasks/format.ts';
import { TeacherCallError, type Teachers } from '../../../teachers/teacher-pool.ts';
import type { SampledGroup } from '../../rl/rollout.ts';

export interface Distillation {
  teachers: Teachers;
  /** The pool member that scores. */
  teacher: string;
  options: OpdOptions;
  /** true (privileged-hint): score under the attempt's privilegedContext; groups without one get none. */
  privileged: boolean;
}

export interface DistillationResult {
  /** [group][sample] per-token advantages; undefined = no teacher signal, the scalar estimate stays. */
  tokenAdvantages: (number[] | undefined)[][];
  metrics: Record<string, number>;
}

interface Job {
  group: number;
  sample: number;
  context: number[];
  tokens: readonly number[];
}

export async function distillationPhase(
  distillation: Distillation,
  groups: readonly SampledGroup[],
  estimate: AdvantageEstimate,
): Promise<DistillationResult> {
  const scorer = distillation.teachers.backend(distillation.teacher);
  const counts = { hintCut: 0, tooLong: 0, failedGroups: 0, signal: 0, trainable: 0 };
  const jobsByGroup = groups.map((group, g) => {
    const samples = group.rollouts
      .map((rollout, i) => ({ rollout, i }))
      .filter(({ rollout, i }) => estimate.included[g][i] && rollout.tokens.length > 0);
    if (samples.length === 0) return [];
    counts.trainable++;
    const longest = Math.max(...samples.map(({ rollout }) => rollout.tokens.length));
    const context = scorerContext(group, scorer, longest, distillation.privileged, counts);
    if (context === null) return [];
    return samples.map(({ rollout, i }): Job => ({ group: g, sample: i, context, tokens: rollout.tokens }));
  });
  const scored = await scoreGroups(distillation, jobsByGroup, counts);

  let klSum = 0;
  let tokens = 0;
  const tokenAdvantages = groups.map((group, g) => {
    const result: (number[] | undefined)[] = group.rollouts.map(() => undefined);
    const logprobs = scored[g];
    if (logprobs === null) {
      if (!distillation.options.taskAdvantage && jobsByGroup[g].length > 0) {
        for (const job of jobsByGroup[g]) result[job.sample] = job.tokens.map(() => 0);
      }
      return result;
    }
    if (jobsByGroup[g].length === 0) return result;
    counts.signal++;
    const jobs = jobsByGroup[g];
    const opd = opdAdvantages(
      jobs.map((job, j) => {
        const rollout = group.rollouts[job.sample];
        const expert = rollout.expertTokens ?? 0;
        return {
          taskAdvantage: estimate.advantages[g][job.sample],
          samplerLogprobs: rollout.logprobs,
          teacherLogprobs: logprobs[j].slice(job.context.length - 1),
          mask: rollout.tokens.map((_, t) => (t < expert ? 0 : 1)),
        };
      }),
      distillation.options,
    );
    klSum += opd.klSum;
    tokens += opd.tokens;
    jobs.forEach((job, j) => {
      result[job.sample] = opd.advantages[j];
    });
    return result;
  });
  const metrics: Record<string, number> = {
    // Share of the groups with trained samples that got a teacher term (not: no hint, too long, failed).
    'teacher/signal_frac': counts.trainable > 0 ? counts.signal / counts.trainable : 0,
    'teacher/failed_groups': counts.failedGroups,
    'teacher/too_long': counts.tooLong,
    ...(distillation.privileged && { 'teacher/hint_cut': counts.hintCut }),
    ...(tokens > 0 && { 'teacher/kl': klSum / tokens }),
  };
  return { tokenAdvantages, metrics };
}

/**
 * The scorer's context for a group, or null when the group gets no teacher signal: no privileged
 * context (privileged mode), or no room for its longest completion in the scorer's context.
 */
function scorerContext(
  group: SampledGroup,
  scorer: PolicyBackend,
  longest: number,
  privileged: boolean,
  counts: { hintCut: number; tooLong: number },
): number[] | null {
  if (!privileged) {
    if (group.context.length + longest <= scorer.contextLength) return group.context;
    counts.tooLong++;
    return null;
  }
  const { attempt } = group;
  const full = attempt.privilegedContext;
  if (!full) return null;
  const prefix = scorer.tokenizer.encode(attempt.prefix, `forced prefix of ${attempt.problem.id}`);
  let text = full;
  for (;;) {
    const prompt = promptTokens(scorer.tokenizer, { ...attempt.problem, prompt: attempt.prompt + text });
    const over = prompt.length + prefix.length + longest - scorer.contextLength;
    if (over <= 0) {
      if (text !== full) counts.hintCut++;
      return [...prompt, ...prefix];
    }
    if (text.length === 0) break;
    text = text.slice(0, Math.max(0, text.length - over));
    // Cut to nothing: the scorer would see the bare prompt, which is no privileged context at all.
    if (text.length === 0) break;
  }
  counts.tooLong++;
  return null;
}

/** Per group: the teacher's log-probs of each job's sequence, or null when its scoring failed. */
async function scoreGroups(
  distillation: Distillation,
  jobsByGroup: readonly Job[][],
  counts: { failedGroups: number },
): Promise<(number[][] | null)[]> {
  const call = (jobs: readonly Job[]) =>
    distillation.teachers.score(
      jobs.map((job) => [...job.context, ...job.tokens]),
      { teacher: distillation.teacher },
    );
  const all = jobsByGroup.flat();
  if (all.length === 0) return jobsByGroup.map(() => []);
  try {
    const logprobs = await call(all);
    let offset = 0;
    return jobsByGroup.map((jobs) => {
      const slice = logprobs.slice(offset, offset + jobs.length);
      offset += jobs.length;
      return slice;
    });
  } catch (error) {
    if (!(error instanceof TeacherCallError)) throw error;
  }
  const results: (number[][] | null)[] = [];
  for (const jobs of jobsByGroup) {
    if (jobs.length === 0) {
      results.push([]);
      continue;
    }
    try {
      results.push(await call(jobs));
    } catch (error) {
      if (!(error instanceof TeacherCallError)) throw error;
      counts.failedGroups++;
      results.push(null);
    }
  }
  return results;
}
