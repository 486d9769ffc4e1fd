// Sessions, training models and sampling sessions of `curricula serve --tinker`.
// - A session (create_session) owns two counters the SDK numbers from 0: model_seq_id and
//   sampling_session_seq_id. Ids follow hosted Tinker's form, `<session>:train:<n>` / `<session>:sample:<n>`
//   (the SDK itself assumes the first form when create_model_via_load_weights is on).
// - Each training model is its own policy from context.loadPolicy() (its own weights and Adam state), with
//   a Sequencer that runs its requests in seq_id order, and a count of the optimizer steps it executed
//   (reported by get_info as `optimizer_steps`, so tests can check that retries never step twice).
// - LoRA: create_model's lora_config is accepted and recorded (get_info reports it), but the embedded
//   model trains ALL its weights — documented deviation (docs/tinker-serving.md).
// - Sampling sessions hold a frozen copy of the weights they were made from; at most `maxSamplers` are
//   kept (least recently used dropped first), since an RL loop makes one per step.
import type { PolicyBackend } from '../../core/policy.ts';
import type { CompletedStep } from './durable-store.ts';
import { notFound } from './http-errors.ts';
import type { Sequencer } from './sequencer.ts';

export interface Session {
  id: string;
  nextModelSeq: number;
  /** Shared by unnamed save_weights_for_sampler and create_sampling_session (the SDK's counter). */
  nextSamplerSeq: number;
  lastHeartbeat: number;
}

export interface TrainingModel {
  id: string;
  sessionId: string;
  baseModel: string;
  loraConfig: Record<string, unknown> | null;
  /** Resolves to the model's policy (replaced by load_weights). */
  policy: Promise<PolicyBackend>;
  sequencer: Sequencer;
  optimizerSteps: number;
  /** The `n` of `<session>:train:<n>`. */
  modelSeq: number;
  /** seq_id of the last optim_step / load_weights whose effect is in the weights (durable-store.ts). */
  lastSeqId: number | null;
  /** Set by a restored model's sequencer when requests were lost in a restart (gradient-lost.ts). */
  gradientLost?: { from: number; to: number };
  /** Results of the last few completed optim_steps, kept in the durable state for retries. */
  completed: CompletedStep[];
}

export interface Sampler {
  id: string;
  baseModel: string;
  policy: Promise<PolicyBackend>;
  /** Serialises sampling on this policy. */
  chain: Promise<void>;
  lastUsed: number;
}

/** Releases a policy's off-heap resources (worker threads, tfjs tensors) when it has any. */
export async function releasePolicy(policy: PolicyBackend): Promise<void> {
  await policy.close?.();
  const disposable = policy as PolicyBackend & { dispose?: () => void };
  if (typeof disposable.dispose === 'function') disposable.dispose();
}

export class TinkerState {
  readonly sessions = new Map<string, Session>();
  readonly models = new Map<string, TrainingModel>();
  readonly samplers = new Map<string, Sampler>();
  private useCounter = 0;

  constructor(private readonly maxSamplers: number) {}

  session(id: unknown): Session {
    const session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (session === undefined)
      throw notFound(`unknown session_id '${String(id)}'; call create_session first`);
    return session;
  }

  model(id: unknown): TrainingModel {
    const model = typeof id === 'string' ? this.models.get(id) : undefined;
    if (model === undefined) throw notFound(`unknown model_id '${String(id)}'`);
    return model;
  }

  sampler(id: unknown): Sampler {
    const sampler = typeof id === 'string' ? this.samplers.get(id) : undefined;
    if (sampler === undefined) {
      throw notFound(
        `unknown sampling_session_id '${String(id)}' (never created, or dropped: the server keeps ${this.maxSamplers})`,
      );
    }
    sampler.lastUsed = ++this.useCounter;
    return sampler;
  }

  addSampler(id: string, policy: Promise<PolicyBackend>, baseModel: string): Sampler {
    policy.catch(() => undefined); // a failed load is reported to whoever samples, never unhandled
    const previous = this.samplers.get(id);
    if (previous) void previous.policy.then(releasePolicy, () => undefined);
    const sampler: Sampler = { id, baseModel, policy, chain: Promise.resolve(), lastUsed: ++this.useCounter };
    this.samplers.set(id, sampler);
    while (this.samplers.size > this.maxSamplers) {
      let oldest: Sampler | undefined;
      for (const candidate of this.samplers.values())
        if (!oldest || candidate.lastUsed < oldest.lastUsed) oldest = candidate;
      this.samplers.delete(oldest!.id);
      const dropped = oldest!;
      void dropped.chain.then(() => dropped.policy).then(releasePolicy, () => undefined);
    }
    return sampler;
  }

  async close(): Promise<void> {
    for (const model of this.models.values()) model.sequencer.close();
    const policies = [...this.models.values(), ...this.samplers.values()].map((entry) => entry.policy);
    await Promise.all(policies.map((policy) => policy.then(releasePolicy, () => undefined)));
  }
}
