// Sampling over Tinker for TinkerPolicyBackend (backend.ts): one asample request per prompt on a sampling
// session (tinker-wire-sdk-0.25.md §2), polled to its result (protobuf when the codec is protobuf), turned
// into SampledSequences. Prompt p is seeded with the p-th nextUint32 of Rng(options.seed), as the
// worker-parallel backend seeds prompt p (src/policy/prompt-seeds.ts). `samplingLogprobs` are the server's
// log-probs (log π at temperature 1: exact only for temperature 1 and top_p 1 — see backend.ts).
import type { SampledSequence, SampleOptions, Tokenizer } from '../../../core/policy.ts';
import { promptSeedsOf } from '../../../policy/prompt-seeds.ts';
import { decodeSampleResponse, type SampleResponse, sampleResponseFromJson } from '../wire/index.ts';
import { TinkerCallError, type TinkerHttp } from './http.ts';

export async function asampleAll(
  http: TinkerHttp,
  tokenizer: Tokenizer,
  protobuf: boolean,
  samplingSessionId: string,
  prompts: number[][],
  options: SampleOptions,
  nextSeqId: () => number,
): Promise<SampledSequence[][]> {
  const promptSeeds = promptSeedsOf(prompts.length, options.seed);
  return Promise.all(
    prompts.map(async (prompt, index) => {
      const envelope = await http.postJson('asample', {
        num_samples: options.n,
        prompt: { chunks: [{ tokens: prompt, type: 'encoded_text' }] },
        sampling_params: {
          max_tokens: options.maxTokens,
          seed: promptSeeds[index],
          temperature: options.temperature,
          top_k: -1,
          top_p: options.topP,
          ...(options.stop?.length ? { stop: options.stop } : {}),
        },
        sampling_session_id: samplingSessionId,
        seq_id: nextSeqId(),
        prompt_logprobs: false,
        topk_prompt_logprobs: 0,
        type: 'sample',
      });
      const result = await http.retrieve(envelope.request_id, 'asample', protobuf);
      const response: SampleResponse =
        result instanceof Uint8Array ? decodeSampleResponse(result) : sampleResponseFromJson(result);
      return response.sequences.map((sequence): SampledSequence => {
        if (!sequence.logprobs) throw new TinkerCallError('Tinker asample: the server sent no logprobs');
        const endsWithEos = sequence.tokens.at(-1) === tokenizer.eos;
        return {
          tokens: sequence.tokens,
          text: tokenizer.decode(sequence.tokens),
          logprobs: sequence.logprobs,
          samplingLogprobs: sequence.logprobs,
          stopReason: sequence.stopReason === 'length' ? 'length' : endsWithEos ? 'eos' : 'stop',
        };
      });
    }),
  );
}
