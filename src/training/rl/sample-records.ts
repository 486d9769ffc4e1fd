// What the run store keeps of a step's completions (RunStore.logSamples; columns in
// src/runs/sample-columns.ts): a bounded, deterministic selection (the first `limit` completions in group
// order), each with
// - the advantage the loss used: recordAdvantages copies it onto the group right after the advantage
//   phase (the scalar estimate, or the token-mean of the per-token advantages distillation replaced it
//   with, as update.ts uses them); null for a completion the loss did not see (a group dropped by a batch
//   filter, or a sample the estimator left out);
// - the sampler's per-token log-probs (SampledSequence.logprobs: the old log-probs of the loss) and each
//   token decoded alone, so the dashboard can colour the completion token by token;
// - the guidance: the scaffold's name, the problem's plain prompt when the policy saw more, every text the
//   scaffold added (the hint in the prompt, a forced prefix, a member's own prompt, a retry's feedback
//   prompt, scorer-only privileged context), and whether the completion was guided, an expert trace
//   (off-policy tokens) or a retry;
// - for a member sampled as a multi-turn episode (GroupRollout.episode, rollout.environment), its turns:
//   each turn's span of policy tokens and of tool-output tokens (indices into the completion's tokens),
//   reward, stop reason and error (messages cut to MAX_ERROR_CHARS), the end reason and the error counts.
//   The tool-output tokens are in `tokens` too, with log-prob 0 (not sampled).
import type { AdvantageEstimate } from '../../algorithms/advantages/estimator.ts';
import type { RolloutEpisode } from '../../core/groups.ts';
import type { Tokenizer } from '../../core/policy.ts';
import {
  type GuidanceText,
  MAX_ERROR_CHARS,
  MAX_TOKENS,
  type SampleEpisode,
  type SampleGuidance,
  type SampleRecord,
} from '../../runs/sample-columns.ts';
import type { GroupRollout, SampledGroup } from './rollout.ts';

/** Copies the advantage each trained completion's loss uses onto its group (see the header). */
export function recordAdvantages(
  groups: readonly SampledGroup[],
  estimate: AdvantageEstimate,
  tokenAdvantages?: readonly (readonly number[] | undefined)[][],
): void {
  groups.forEach((group, g) => {
    const perToken = tokenAdvantages?.[g];
    group.advantageKind = perToken?.some((values) => values !== undefined) ? 'token-mean' : 'sequence';
    group.advantages = group.rollouts.map((rollout, i) => {
      if (!estimate.included[g][i] || rollout.tokens.length === 0) return null;
      const values = perToken?.[i];
      if (values === undefined) return estimate.advantages[g][i];
      // Over the tokens the loss trains: a multi-turn member's tool outputs (lossMask 0) are left out.
      const trained = rollout.lossMask ? values.filter((_, t) => rollout.lossMask![t] !== 0) : values;
      return trained.length === 0 ? 0 : trained.reduce((sum, value) => sum + value, 0) / trained.length;
    });
  });
}

export interface SampleRecordOptions {
  /** Decodes each completion token on its own (the policy's tokenizer). */
  tokenizer: Tokenizer;
  /** The run's guidance name. */
  scaffold: string;
  /** false: leave log-probs and token pieces out (smaller stores). Default true. */
  tokens?: boolean;
}

/** A bounded, deterministic sample of this step's completions for the run store. */
export function sampleRecords(
  groups: readonly SampledGroup[],
  limit: number,
  options: SampleRecordOptions,
): SampleRecord[] {
  const records: SampleRecord[] = [];
  for (const group of groups) {
    for (let i = 0; i < group.completions.length && records.length < limit; i++) {
      const rollout = group.rollouts[i];
      const expert = (rollout?.expertTokens ?? 0) > 0;
      const retry = rollout?.retried === true;
      const record: SampleRecord = {
        problemId: group.attempt.problem.id,
        prompt: group.attempt.prompt,
        completion: group.completions[i],
        reward: group.rewards[i],
        reason: group.results[i]?.reason,
        advantage: group.advantages?.[i] ?? null,
        advantageKind: group.advantageKind ?? 'sequence',
        scaffold: options.scaffold,
        guidance: guidanceOf(group, rollout),
        guided: group.attempt.guided || expert || retry,
        expert,
        retry,
      };
      if (rollout?.episode) record.episode = sampleEpisode(rollout.episode);
      if (rollout && options.tokens !== false) {
        const tokens = rollout.tokens.slice(0, MAX_TOKENS);
        record.logprobs = rollout.logprobs.slice(0, tokens.length);
        record.tokens = tokens.map((id) => options.tokenizer.decode([id]));
      }
      records.push(record);
    }
  }
  return records;
}

function guidanceOf(group: SampledGroup, rollout: GroupRollout | undefined): SampleGuidance {
  const { attempt } = group;
  const plain = attempt.problem.prompt;
  const guidance: SampleGuidance = { added: [] };
  const add = (kind: string, text: string) => {
    if (text !== '') guidance.added.push({ kind, text } satisfies GuidanceText);
  };
  if (attempt.prompt !== plain) {
    guidance.plainPrompt = plain;
    add('prompt', addedText(attempt.prompt, plain));
  }
  if (rollout?.sampledPrompt !== undefined && rollout.sampledPrompt !== attempt.prompt) {
    add(rollout.retried ? 'retry-prompt' : 'member-prompt', addedText(rollout.sampledPrompt, plain));
  }
  add('prefix', attempt.prefix);
  add('privileged', attempt.privilegedContext ?? '');
  if (rollout?.expertTokens) guidance.expertTokens = rollout.expertTokens;
  return guidance;
}

/** The part of `full` that is not the plain prompt (the whole of `full` when it does not contain it). */
function addedText(full: string, plain: string): string {
  if (plain === '') return full;
  if (full.startsWith(plain)) return full.slice(plain.length);
  if (full.endsWith(plain)) return full.slice(0, full.length - plain.length);
  return full;
}

/** An episode member's turns as the samples table stores them (sample-columns.ts, column `episode`). */
export function sampleEpisode(episode: RolloutEpisode): SampleEpisode {
  const cut = (text: string) =>
    text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
  return {
    turns: episode.turns.map((turn) => {
      const end = turn.start + turn.actionTokens;
      return {
        action: [turn.start, end],
        output: [end, end + turn.observationTokens],
        outputTokensBefore: turn.observationTokensBefore,
        reward: turn.reward,
        stopReason: turn.stopReason,
        ...(turn.error && { error: { kind: turn.error.kind, message: cut(turn.error.message) } }),
      };
    }),
    end: episode.end,
    ...(episode.environmentError !== undefined && { environmentError: cut(episode.environmentError) }),
    errors: { ...episode.errors },
  };
}
