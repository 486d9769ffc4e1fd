// The sampling half of the PolicyBackend contract (src/core/policy.ts) over an OpenAI-compatible server
// (vLLM, SGLang, `curricula serve --openai`). The client owns tokenization: prompts go out as token ids
// and completions come back as the server's exact token ids (vLLM `return_token_ids`, or the
// tokens-in/tokens-out /inference/v1/generate route), so the trainer scores the very tokens sampled.
//
// - sample: one request per prompt (n samples each), in parallel up to the client's concurrency bound;
//   each prompt gets its own seed drawn from Rng(options.seed) in prompt order, so a call is reproducible
//   on a server that honours seeds. `include_stop_str_in_output` keeps the stop string, as the contract
//   says. stopReason: 'length' from finish_reason, else 'eos' when the last token is EOS, else 'stop'.
// - log-probs: the server's per-token log-probs (vLLM's default is the raw model at temperature 1, which
//   is what `logprobs` means in the contract). The contract's `samplingLogprobs` (temperature and top-p
//   applied) are not returned by these servers; they are set equal to `logprobs` (exact at temperature 1,
//   top-p 1). A server without log-probs gives NaN (connect with needs: ['logprobs'] to refuse it early).
// - forward: vLLM `prompt_logprobs` on a 1-token completion of the sequence (so a sequence must leave
//   one token of context free).
// - forwardBackward / optimStep / save: sampling only; a UserError says to train through Tinker.
// - updateWeights: the server's own reload (weight-update.ts), chosen by `weightUpdate`.
import { UserError } from '../../core/errors.ts';
import { type HttpClientOptions, OpenAiHttpClient } from '../../core/http-client.ts';
import type {
  Datum,
  ForwardBackwardResult,
  LossKind,
  OptimOptions,
  OptimStepResult,
  PolicyBackend,
  SampledSequence,
  SampleOptions,
  StopReason,
  Tokenizer,
} from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import {
  type Capability,
  probeCapabilities,
  requireCapabilities,
  type ServerCapabilities,
} from './capabilities.ts';
import { weightUpdaters } from './weight-update.ts';

export interface OpenAiBackendOptions extends Omit<HttpClientOptions, 'rng'> {
  /** Model id to sample from (default: the server's only model). */
  model?: string;
  /** The served model's tokenizer (prompts are sent as its ids). */
  tokenizer: Tokenizer;
  /** Context length; default the server's max_model_len. */
  contextLength?: number;
  /** Seed of the retry jitter. */
  seed?: number;
  /** 'generate' = /inference/v1/generate; 'completions' = /v1/completions; 'auto' (default): generate when offered. */
  route?: 'auto' | 'generate' | 'completions';
  /** How the server loads new weights (weight-update.ts): 'none' (default), 'vllm-lora', 'sglang-disk'. */
  weightUpdate?: string;
  /** What the caller's loss needs from the server; checked at connect. */
  needs?: Capability[];
  /** Who needs it, for the error message (e.g. "loss 'ppo'"). */
  neededBy?: string;
}

interface WireChoice {
  text?: string;
  token_ids?: number[];
  finish_reason?: string | null;
  logprobs?: { token_logprobs?: Array<number | null>; content?: Array<{ logprob: number }> } | null;
  prompt_logprobs?: Array<Record<string, { logprob: number }> | null>;
}

export class OpenAiSamplingBackend implements PolicyBackend {
  readonly tokenizer: Tokenizer;
  readonly contextLength: number;
  readonly http: OpenAiHttpClient;
  /** The model id requests name (changes after a vLLM adapter load). */
  model: string;
  private readonly useGenerate: boolean;

  private constructor(
    private readonly options: OpenAiBackendOptions,
    http: OpenAiHttpClient,
    readonly capabilities: ServerCapabilities,
  ) {
    this.http = http;
    this.tokenizer = options.tokenizer;
    this.model = capabilities.model;
    const contextLength = options.contextLength ?? capabilities.contextLength;
    if (contextLength === null) {
      throw new UserError(
        `${options.baseUrl} does not report max_model_len for '${this.model}'; set contextLength`,
      );
    }
    this.contextLength = contextLength;
    const route = options.route ?? 'auto';
    this.useGenerate = route === 'generate' || (route === 'auto' && capabilities.generate);
    const needs: Capability[] = [...(options.needs ?? []), this.useGenerate ? 'generate' : 'tokenIdPrompts'];
    requireCapabilities(capabilities, needs, options.baseUrl, options.neededBy ?? 'this run');
    weightUpdaters.get(options.weightUpdate ?? 'none');
  }

  /** Probes the server (capabilities.ts) and fails early when it lacks what `needs` lists. */
  static async connect(options: OpenAiBackendOptions): Promise<OpenAiSamplingBackend> {
    const http = new OpenAiHttpClient({ ...options, rng: new Rng(options.seed ?? 0) });
    const capabilities = await probeCapabilities(http, options.model, options.tokenizer);
    return new OpenAiSamplingBackend(options, http, capabilities);
  }

  async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
    const seeds = new Rng(options.seed);
    const requests = prompts.map((prompt) => this.samplePrompt(prompt, options, seeds.int(0, 2 ** 31 - 1)));
    return Promise.all(requests);
  }

  async forward(sequences: number[][]): Promise<number[][]> {
    requireCapabilities(
      this.capabilities,
      ['promptLogprobs'],
      this.options.baseUrl,
      'forward (teacher-forced log-probs)',
    );
    return Promise.all(
      sequences.map(async (sequence, index) => {
        if (sequence.length < 2) throw new UserError(`forward: sequence ${index} needs at least 2 tokens`);
        const response = await this.http.post('/v1/completions', {
          model: this.model,
          prompt: sequence,
          max_tokens: 1,
          temperature: 0,
          prompt_logprobs: 1,
        });
        const scores = (response.body as { choices?: WireChoice[] })?.choices?.[0]?.prompt_logprobs;
        if (!Array.isArray(scores) || scores.length !== sequence.length) {
          throw new UserError(
            `${this.http.baseUrl}: prompt_logprobs missing or of the wrong length for sequence ${index}`,
          );
        }
        return sequence.slice(1).map((token, t) => {
          const entry = scores[t + 1]?.[String(token)];
          if (!entry || typeof entry.logprob !== 'number') {
            throw new UserError(
              `${this.http.baseUrl}: prompt_logprobs has no entry for token ${token} at position ${t + 1}`,
            );
          }
          return entry.logprob;
        });
      }),
    );
  }

  async forwardBackward(_data: Datum[], _loss: LossKind): Promise<ForwardBackwardResult> {
    throw this.samplingOnly('forwardBackward');
  }

  async optimStep(_options: OptimOptions): Promise<OptimStepResult> {
    throw this.samplingOnly('optimStep');
  }

  async save(_dir: string): Promise<void> {
    throw this.samplingOnly('save');
  }

  /** Has the server load the weights in `dir` (after a training step); later samples use them. */
  async updateWeights(dir: string, name: string): Promise<void> {
    const updater = weightUpdaters.get(this.options.weightUpdate ?? 'none');
    this.model = await updater(this.http, { dir, name, model: this.model });
  }

  private samplingOnly(method: string): UserError {
    return new UserError(
      `${method}: the OpenAI-compatible policy at ${this.options.baseUrl} samples only; train through the embedded or a Tinker backend`,
    );
  }

  private async samplePrompt(
    prompt: number[],
    options: SampleOptions,
    seed: number,
  ): Promise<SampledSequence[]> {
    const params = {
      n: options.n,
      temperature: options.temperature,
      top_p: options.topP,
      max_tokens: options.maxTokens,
      stop: options.stop ?? [],
      seed,
      include_stop_str_in_output: true,
    };
    const response = this.useGenerate
      ? await this.http.post('/inference/v1/generate', {
          model: this.model,
          token_ids: prompt,
          sampling_params: { ...params, logprobs: 0 },
        })
      : await this.http.post('/v1/completions', {
          model: this.model,
          prompt,
          ...params,
          logprobs: this.capabilities.logprobs ? 1 : undefined,
          return_token_ids: this.capabilities.tokenIds ? true : undefined,
        });
    const choices = (response.body as { choices?: WireChoice[] })?.choices;
    if (!Array.isArray(choices) || choices.length !== options.n) {
      throw new UserError(
        `${this.http.baseUrl}: expected ${options.n} choices, got ${JSON.stringify(choices)?.slice(0, 200)}`,
      );
    }
    return choices.map((choice) => this.toSequence(choice));
  }

  private toSequence(choice: WireChoice): SampledSequence {
    const tokens = Array.isArray(choice.token_ids)
      ? choice.token_ids
      : this.tokenizer.encode(choice.text ?? '', 'a completion without token ids');
    const wireLogprobs =
      choice.logprobs?.content?.map((entry) => entry.logprob) ?? choice.logprobs?.token_logprobs;
    const logprobs = tokens.map((_, index) => {
      const value = wireLogprobs?.[index];
      return typeof value === 'number' ? value : Number.NaN;
    });
    const stopReason: StopReason =
      choice.finish_reason === 'length' ? 'length' : tokens.at(-1) === this.tokenizer.eos ? 'eos' : 'stop';
    return {
      tokens,
      text: Array.isArray(choice.token_ids) ? this.tokenizer.decode(tokens) : (choice.text ?? ''),
      logprobs,
      samplingLogprobs: [...logprobs],
      stopReason,
    };
  }
}
