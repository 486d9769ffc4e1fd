// The sampling side of TinkerPolicyBackend (backend.ts): the sampling session of the current weights
// (save_weights_for_sampler after each weight change, shared by concurrent sample calls, made again when a
// restarted server no longer knows it) and the asample requests on it (asample.ts). The training side
// tells it of a weight change with `invalidate`.
import type { SampledSequence, SampleOptions, Tokenizer } from '../../../core/policy.ts';
import { asampleAll } from './asample.ts';
import { TinkerCallError, type TinkerHttp } from './http.ts';
import { isUnknownSampler } from './replay-log.ts';

/** What the sampler uses of its backend. */
export interface TinkerSamplerDeps {
  http: TinkerHttp;
  tokenizer: Tokenizer;
  modelId: string;
  /** asample replies as protobuf (the protobuf codec) or JSON. */
  protobuf: boolean;
  /** The backend's submit + retrieve of a request on the model's seq_id chain. */
  call: (name: string, send: (seqId: number) => Promise<any>, protobuf: boolean) => Promise<any>;
}

export class TinkerSampler {
  /** The sampling session of the current weights; undefined after a weight change. */
  private samplingSession: Promise<string> | undefined;
  private nextSamplerSeq = 0;
  private nextSampleSeq = 0;

  constructor(private readonly deps: TinkerSamplerDeps) {}

  /** The weights changed: the next sample saves them for sampling first. */
  invalidate(): void {
    this.samplingSession = undefined;
  }

  async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    const session = this.sampler();
    try {
      return await this.sampleWith(await session, prompts, options);
    } catch (error) {
      if (!isUnknownSampler(error)) throw error;
      // Sampling sessions are ephemeral (a restarted server has none): save the weights for sampling again.
      if (this.samplingSession === session) this.samplingSession = undefined;
      return this.sampleWith(await this.sampler(), prompts, options);
    }
  }

  /**
   * The sampling session of the current weights (save_weights_for_sampler after each weight change;
   * concurrent sample calls share one). Its asample seq_ids count from 0, as the SDK's per-sampler ones.
   */
  private sampler(): Promise<string> {
    if (this.samplingSession) return this.samplingSession;
    const samplerSeq = this.nextSamplerSeq++;
    const { http, modelId } = this.deps;
    const session = (async () => {
      const result = await this.deps.call(
        'save_weights_for_sampler',
        (seqId) =>
          http.postJson('save_weights_for_sampler', {
            model_id: modelId,
            sampling_session_seq_id: samplerSeq,
            seq_id: seqId,
            type: 'save_weights_for_sampler',
          }),
        false,
      );
      if (typeof result?.sampling_session_id !== 'string')
        throw new TinkerCallError('Tinker save_weights_for_sampler: no sampling_session_id in the result');
      this.nextSampleSeq = 0;
      return result.sampling_session_id as string;
    })();
    this.samplingSession = session;
    // A failed save is not cached: the next sample tries again.
    session.catch(() => {
      if (this.samplingSession === session) this.samplingSession = undefined;
    });
    return session;
  }

  /** One asample per prompt on a sampling session (asample.ts), its seq_ids from this session's counter. */
  private sampleWith(samplingSessionId: string, prompts: number[][], options: SampleOptions) {
    return asampleAll(
      this.deps.http,
      this.deps.tokenizer,
      this.deps.protobuf,
      samplingSessionId,
      prompts,
      options,
      () => this.nextSampleSeq++,
    );
  }
}
