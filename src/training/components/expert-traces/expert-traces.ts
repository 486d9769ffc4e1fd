// Injecting expert traces into sampled groups (issue 13, LUFFY / Prefix-RFT; contract in
// src/guidance/guidance.ts, `Attempt.offPolicy`). After sampleGroups drew G − k completions for an attempt
// with k traces, each trace becomes the group's next member:
// - its text is tokenized alone (after the context: [BOS] + prompt + forced prefix); a `complete` trace
//   gets EOS appended, otherwise the policy continues it (one sampled completion from context + expert
//   tokens, same temperature and top-p as the group, seed from the run's stream);
// - its expert tokens' log-probs are the policy's own, from one `forward` over context + expert tokens at
//   the sampling weights (π_old for the loss's ratio metrics; the expert term itself needs only π_θ, and
//   rollout correction leaves expert tokens alone). The sampled continuation keeps the sampler's.
// - `expertTokens` on the member marks how many leading tokens are the expert's (update.ts gives them the
//   expert term, src/algorithms/losses/expert-tokens.ts).
// Length: expert + continuation ≤ rollout.maxTokens and context + expert + continuation ≤ the model's
// context; a trace too long for that is cut to leave one sampled token (a complete one loses its EOS and
// counts as cut by length). Deviation: the text is tokenized on its own, not jointly with the context
// (identical for char tokenizers; a BPE may split the boundary differently).
import type { SampledGroup as CoreSampledGroup, GroupRollout } from '../../../core/groups.ts';
import type { SampledSequence } from '../../../core/policy.ts';
import type { Attempt, ExpertTrace } from '../../../guidance/guidance.ts';
import type { RlContext } from '../../rl/context.ts';
import { sampleRows } from '../../rl/sample-rows.ts';

/** rollout.ts's SampledGroup, named from core. */
type SampledGroup = CoreSampledGroup<Attempt>;

export { hasExpertTraces } from '../../../guidance/attempt.ts';

interface Job {
  group: SampledGroup;
  trace: ExpertTrace;
  expert: number[];
  /** Tokens the continuation may have (0 for a complete trace). */
  budget: number;
  /** The expert text as trained (the decoded cut when the trace was cut). */
  text: string;
  eos: boolean;
}

/** Appends each attempt's expert traces to its group (rollouts and completions). */
export async function injectExpertTraces(
  ctx: RlContext,
  groups: readonly SampledGroup[],
  seed: number,
): Promise<void> {
  const { policy, config } = ctx;
  const jobs = groups.flatMap((group) =>
    (group.attempt.offPolicy ?? []).map((trace) => planJob(ctx, group, trace)),
  );
  if (jobs.length === 0) return;
  const forward = await policy.forward(jobs.map((job) => [...job.group.context, ...job.expert]));
  const expertLogprobs = forward.map((logprobs, index) =>
    logprobs.slice(jobs[index].group.context.length - 1),
  );
  // Continuations: one completion each within its own budget (sample-rows.ts: one call per budget).
  const open = jobs.filter((job) => job.budget > 0);
  const sampled = await sampleRows(
    policy,
    open.map((job) => [...job.group.context, ...job.expert]),
    open.map(() => 1),
    open.map((job) => job.budget),
    { temperature: config.rollout.temperature, topP: config.rollout.topP, seed },
  );
  const continuations = new Map<Job, SampledSequence>(open.map((job, j) => [job, sampled[j][0]]));
  jobs.forEach((job, index) => {
    const own = continuations.get(job);
    const logprobs = expertLogprobs[index];
    const member: GroupRollout = {
      tokens: [...job.expert, ...(own?.tokens ?? [])],
      text: job.text + (own?.text ?? ''),
      logprobs: [...logprobs, ...(own?.logprobs ?? [])],
      samplingLogprobs: [...logprobs, ...(own?.samplingLogprobs ?? [])],
      stopReason: own?.stopReason ?? (job.eos ? 'eos' : 'length'),
      expertTokens: job.expert.length,
    };
    job.group.rollouts.push(member);
    job.group.completions.push(job.group.attempt.prefix + member.text);
  });
}

function planJob(ctx: RlContext, group: SampledGroup, trace: ExpertTrace): Job {
  const { tokenizer, contextLength } = ctx.policy;
  const room = Math.min(ctx.config.rollout.maxTokens, contextLength - group.context.length);
  const encoded = tokenizer.encode(trace.text, `expert trace of ${group.attempt.problem.id}`);
  if (trace.complete && encoded.length + 1 <= room) {
    return { group, trace, expert: [...encoded, tokenizer.eos], budget: 0, text: trace.text, eos: true };
  }
  // Continued (or cut): leave at least one token for the policy when there is room for any.
  const keep = Math.max(0, Math.min(encoded.length, room - 1));
  const expert = encoded.slice(0, keep);
  const text = keep === encoded.length ? trace.text : tokenizer.decode(expert);
  return { group, trace, expert, budget: Math.max(0, room - keep), text, eos: false };
}
