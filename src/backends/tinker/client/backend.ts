// TinkerPolicyBackend: the PolicyBackend contract (src/core/policy.ts) over a Tinker-compatible HTTP
// service, speaking the wire of the stock SDK 0.25 (../shared/reference/tinker-wire-sdk-0.25.md).
// What maps to what:
//   forward(seqs)            → forward_backward, forward_only, loss cross_entropy with zero weights
//   forwardBackward(cross_entropy) → forward_backward cross_entropy with the weights
//   forwardBackward(linear)  → the custom-loss mapping of linear-loss.ts (default cross_entropy, −w)
//   optimStep                → optim_step with adam_params (our Adam defaults sent explicitly)
//   sample                   → save_weights_for_sampler (after a weight change) + one asample per prompt
//   save(dir)                → save_weights, plus dir/tinker-checkpoint.json recording the tinker:// path
// A sequence of L tokens is a Tinker datum with model_input = tokens[:-1] and target_tokens = tokens[1:];
// the returned per-datum `logprobs` are then our L−1 log-probs. Training requests of the model carry
// seq_id 1, 2, … and are POSTed strictly in that order (a promise chain), but results are not awaited
// between them: a caller that starts optimStep without awaiting forwardBackward pipelines the two.
// Deviations: `samplingLogprobs` are the server's log-probs (Tinker returns log π at temperature 1 only,
// so they are exact only for temperature 1 and top_p 1); several prompts go out as one asample each,
// prompt p with seed = the p-th nextUint32 of Rng(options.seed), exactly as the worker-parallel backend
// seeds prompt p's own Rng (src/policy/parallel-backend.ts). A server that samples one prompt from
// Rng(seed) (curricula serve --tinker with workers 1, the default) therefore draws what an in-process
// run with policy.workers ≥ 2 draws, not what workers 1 draws (one Rng shared by all prompts), and a
// one-prompt call is no longer seeded with options.seed itself; `gradNorm` is NaN when the server sends
// no `grad_norm:*` metric.
// Server restarts (replay-log.ts): an optim_step refused with `gradient_lost` is retried once after
// re-sending the step's forward_backward calls; a request whose future the server lost (retrieve 404) is
// submitted once more with a fresh seq_id; a sampling session the server no longer knows (404) is made
// again with save_weights_for_sampler.

import { UserError } from '../../../core/errors.ts';
import type {
  Datum,
  ForwardBackwardResult,
  LossKind,
  OptimOptions,
  OptimStepResult,
  PolicyBackend,
  SampledSequence,
  SampleOptions,
  Tokenizer,
} from '../../../core/policy.ts';
import { adamDefaults } from '../../../policy/optimizer.ts';
import {
  decodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeJsonForwardBackwardRequest,
  type ForwardBackwardOutput,
  type ForwardBackwardRequest,
  forwardBackwardOutputFromJson,
  type WireDatum,
} from '../wire/index.ts';
import { writeTinkerRecord } from './checkpoint-record.ts';
import { logprobsOf, sequenceDatum } from './datums.ts';
import { TinkerCallError, TinkerHttp } from './http.ts';
import { linearLossMappings } from './linear-loss.ts';
import { normaliseTinkerUrl, parseTinkerClientOptions, type TinkerClientOptions } from './options.ts';
import { isGradientLost, isUnknownFuture, ReplayLog } from './replay-log.ts';
import { TinkerSampler } from './sampler.ts';
import {
  createModel,
  createSession,
  probeCapabilities,
  servedModel,
  type TinkerCapabilities,
  type TinkerSession,
} from './session.ts';

export interface TinkerBackendDeps {
  /** The tokenizer of the served model (Tinker serves none over the wire). */
  tokenizer: Tokenizer;
  /** Used when the server does not report max_context_length. */
  contextLength?: number;
}

/** A PolicyBackend that trains and samples through a Tinker-compatible service. */
export class TinkerPolicyBackend implements PolicyBackend {
  /** seq_id of the next training request (the SDK counts from 1). */
  private nextSeq = 1;
  private submitChain: Promise<unknown> = Promise.resolve();
  private optimizerSteps = 0;
  private closed = false;
  /** Gradient-carrying forward_backward calls since the last optim_step (replayed after a restart). */
  private readonly replay = new ReplayLog();
  /** The sampling session of the current weights and the asample calls (sampler.ts). */
  private readonly sampling: TinkerSampler;

  private constructor(
    readonly options: TinkerClientOptions,
    readonly http: TinkerHttp,
    readonly capabilities: TinkerCapabilities,
    private readonly session: TinkerSession,
    readonly modelId: string,
    readonly tokenizer: Tokenizer,
    readonly contextLength: number,
  ) {
    this.sampling = new TinkerSampler({
      http,
      tokenizer,
      modelId,
      protobuf: options.codec === 'protobuf',
      call: (name, send, protobuf) => this.call(name, send, protobuf),
    });
  }

  /** Connects, creates a session and a model. A server that is down → one UserError naming the URL. */
  static async connect(input: unknown, deps: TinkerBackendDeps): Promise<TinkerPolicyBackend> {
    const parsed = parseTinkerClientOptions(input);
    const options = {
      ...parsed,
      url: normaliseTinkerUrl(parsed.url),
      apiKey: parsed.apiKey ?? process.env.TINKER_API_KEY,
    };
    const http = new TinkerHttp({
      baseUrl: options.url,
      apiKey: options.apiKey,
      sdkVersion: options.sdkVersion,
      maxRetries: options.maxRetries,
      backoffMs: options.backoffMs,
      maxBackoffMs: options.maxBackoffMs,
      timeoutMs: options.timeoutMs,
      longPollTimeoutMs: options.longPollTimeoutMs,
      seed: options.seed,
    });
    const capabilities = await probeCapabilities(http, options.sdkVersion);
    const model = servedModel(capabilities, options.baseModel);
    const session = await createSession(http, options.sdkVersion, options.heartbeatMs);
    try {
      const modelId = await createModel(http, session.sessionId, options.baseModel, options.loraRank);
      const contextLength = model.maxContextLength ?? deps.contextLength ?? 2048;
      return new TinkerPolicyBackend(
        options,
        http,
        capabilities,
        session,
        modelId,
        deps.tokenizer,
        contextLength,
      );
    } catch (error) {
      session.stop();
      throw error;
    }
  }

  /** POSTs a training request with the next seq_id, strictly after the previous one was accepted. */
  private submit(call: string, send: (seqId: number) => Promise<any>): Promise<string> {
    const posted = this.submitChain.then(async () => {
      if (this.closed) throw new TinkerCallError(`Tinker ${call}: the backend is closed`);
      // The seq_id is used up once sent, as in the SDK: a server answers a refused request (4xx) having
      // consumed its seq_id, so the next request must not reuse it.
      const envelope = await send(this.nextSeq++);
      if (typeof envelope?.request_id !== 'string')
        throw new TinkerCallError(`Tinker ${call}: the reply has no request_id`);
      return envelope.request_id as string;
    });
    this.submitChain = posted.catch(() => {});
    return posted;
  }

  /**
   * submit + retrieve. A future the server does not know (404: it restarted and lost the request) is
   * submitted once more with a fresh seq_id — only when nothing was submitted after it, so the order the
   * caller chose holds (the RL step awaits each call; replay-log.ts).
   */
  private async call(name: string, send: (seqId: number) => Promise<any>, protobuf: boolean): Promise<any> {
    let used = -1;
    const sendOnce = (seqId: number) => {
      used = seqId;
      return send(seqId);
    };
    const requestId = await this.submit(name, sendOnce);
    try {
      return await this.http.retrieve(requestId, name, protobuf);
    } catch (error) {
      if (!isUnknownFuture(error) || this.nextSeq !== used + 1) throw error;
      return this.http.retrieve(await this.submit(name, sendOnce), name, protobuf);
    }
  }

  /**
   * One raw forward_backward request (protobuf or JSON per `codec`) → its decoded output. Public for the
   * conformance check, which sends Tinker's built-in losses directly.
   */
  async forwardBackwardCall(
    call: string,
    data: WireDatum[],
    lossFn: string,
    forwardOnly: boolean,
    lossFnConfig: Record<string, number> = {},
  ): Promise<ForwardBackwardOutput> {
    const protobuf = this.options.codec === 'protobuf';
    const result = await this.call(
      call,
      (seqId) => {
        const request: ForwardBackwardRequest = {
          modelId: this.modelId,
          seqId,
          data,
          lossFn,
          lossFnConfig,
          forwardOnly,
        };
        return protobuf
          ? this.http.postProtobuf('forward_backward', encodeForwardBackwardRequest(request))
          : this.http.postJson('forward_backward', encodeJsonForwardBackwardRequest(request));
      },
      protobuf,
    );
    return result instanceof Uint8Array
      ? decodeForwardBackwardOutput(result)
      : forwardBackwardOutputFromJson(result);
  }

  /** A Tinker datum of a whole sequence (datums.ts); kept here for the conformance check's callers. */
  static datum(tokens: readonly number[], inputs: Record<string, readonly number[]>): WireDatum {
    return sequenceDatum(tokens, inputs);
  }

  async forward(sequences: number[][]): Promise<number[][]> {
    if (sequences.length === 0) return [];
    const data = sequences.map((tokens) =>
      TinkerPolicyBackend.datum(tokens, { weights: new Array(tokens.length - 1).fill(0) }),
    );
    const output = await this.forwardBackwardCall('forward', data, 'cross_entropy', true);
    return logprobsOf(
      output,
      sequences.map((tokens) => tokens.length),
      'forward',
    );
  }

  async forwardBackward(data: Datum[], loss: LossKind): Promise<ForwardBackwardResult> {
    if (data.some((datum) => datum.entropyWeights !== undefined)) {
      throw new UserError(
        "forwardBackward: the Tinker protocol has no entropy term (Datum.entropyWeights); use algorithm.entropy.estimator 'sampled'",
      );
    }
    const lengths = data.map((datum) => datum.tokens.length);
    let lossFn = 'cross_entropy';
    let wire: WireDatum[];
    if (loss === 'cross_entropy') {
      wire = data.map((datum) => TinkerPolicyBackend.datum(datum.tokens, { weights: datum.weights }));
    } else {
      const mapping = linearLossMappings.get(this.options.linearLoss);
      const current = mapping.needsLogprobs
        ? await this.forward(data.map((datum) => datum.tokens))
        : undefined;
      lossFn = mapping.lossFn;
      wire = data.map((datum, i) =>
        TinkerPolicyBackend.datum(datum.tokens, mapping.inputs(datum.weights, current?.[i])),
      );
    }
    const call = `forward_backward (${lossFn})`;
    this.replay.record({ call, data: wire, lossFn, lossFnConfig: {} });
    const output = await this.forwardBackwardCall(call, wire, lossFn, false);
    const logprobs = logprobsOf(output, lengths, 'forward_backward');
    // The value of OUR loss from the returned log-probs (the server's loss:sum is the mapped loss's).
    const sign = loss === 'linear' ? 1 : -1;
    let value = 0;
    let tokens = 0;
    data.forEach((datum, i) => {
      datum.weights.forEach((weight, t) => {
        if (weight !== 0) tokens++;
        value += sign * weight * logprobs[i][t];
      });
    });
    return { loss: value, logprobs, tokens };
  }

  /** Applies the accumulated gradients with one AdamW step on the service. */
  async optimStep(options: OptimOptions): Promise<OptimStepResult> {
    const batch = this.replay.take();
    let result: any;
    try {
      result = await this.sendOptimStep(options);
    } catch (error) {
      if (!isGradientLost(error)) throw error;
      // The server restarted and lost this step's gradient: send the batch again, then the step.
      for (const entry of batch)
        await this.forwardBackwardCall(
          `${entry.call} (replay)`,
          entry.data,
          entry.lossFn,
          false,
          entry.lossFnConfig,
        );
      result = await this.sendOptimStep(options);
    }
    this.optimizerSteps++;
    const metrics: Record<string, number> = result?.metrics ?? {};
    const pick = (name: string) => Object.entries(metrics).find(([key]) => key.split(':')[0] === name)?.[1];
    return { gradNorm: pick('grad_norm') ?? Number.NaN, step: pick('optimizer_step') ?? this.optimizerSteps };
  }

  /** One optim_step request → its result (JSON). */
  private async sendOptimStep(options: OptimOptions): Promise<any> {
    const [beta1, beta2] = options.betas ?? adamDefaults.betas;
    // The sampler must see the new weights: the next sample saves them first.
    this.sampling.invalidate();
    return this.call(
      'optim_step',
      (seqId) =>
        this.http.postJson('optim_step', {
          adam_params: {
            learning_rate: options.learningRate,
            beta1,
            beta2,
            eps: options.eps ?? adamDefaults.eps,
            weight_decay: options.weightDecay ?? adamDefaults.weightDecay,
            grad_clip_norm: options.gradClip ?? 0,
          },
          model_id: this.modelId,
          seq_id: seqId,
          type: 'optim_step',
        }),
      false,
    );
  }

  sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    return this.sampling.sample(prompts, options);
  }

  /** save_weights on the server; `dir` gets tinker-checkpoint.json with the returned tinker:// path. */
  async save(dir: string): Promise<void> {
    const result = await this.call(
      'save_weights',
      (seqId) =>
        this.http.postJson('save_weights', {
          model_id: this.modelId,
          path: `curricula-${seqId}`,
          seq_id: seqId,
          overwrite: true,
          type: 'save_weights',
        }),
      false,
    );
    if (typeof result?.path !== 'string')
      throw new TinkerCallError('Tinker save_weights: no path in the result');
    writeTinkerRecord(dir, {
      backend: 'tinker',
      url: this.options.url,
      baseModel: this.options.baseModel,
      modelId: this.modelId,
      path: result.path,
      optimizerSteps: this.optimizerSteps,
    });
  }

  /** load_weights with the optimizer state (a `tinker://` path from save), e.g. to resume a run. */
  async loadState(path: string): Promise<void> {
    const requestId = await this.submit('load_weights', (seqId) =>
      this.http.postJson('load_weights', {
        model_id: this.modelId,
        path,
        seq_id: seqId,
        optimizer: true,
        type: 'load_weights',
      }),
    );
    await this.http.retrieve(requestId, 'load_weights', false);
    this.sampling.invalidate();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.session.stop();
    this.http.close();
  }
}
