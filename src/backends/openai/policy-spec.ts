// `--policy <scheme>:<address>` for commands that only sample (curricula eval): a registry of schemes,
// today `openai:<baseUrl>[#model]`, e.g. `openai:http://127.0.0.1:8000#demo-cold` (and, for
// `--prompt-format messages`, the same spec as a chat API: connectChatApi). Without `#model` the
// server must serve exactly one model. The API key comes from $CURRICULA_OPENAI_API_KEY, else
// $OPENAI_API_KEY (never from the command line, so it stays out of shell history and process lists).
// The tokenizer is read by src/tokenizers/read-tokenizer.ts (re-exported here for eval).
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend, Tokenizer } from '../../core/policy.ts';
import { resolvePolicyAddress } from '../../core/policy-address.ts';
import { Registry } from '../../core/registry.ts';

export { readTokenizer } from '../../tokenizers/read-tokenizer.ts';

import { ChatCompletionsClient } from './chat-completions.ts';
import { OpenAiSamplingBackend } from './sampling-backend.ts';

/** How to connect to a remote sampling policy: its tokenizer and what the caller needs of it. */
export interface RemotePolicyOptions {
  /** The tokenizer of the served model (the client owns tokenization). */
  tokenizer: Tokenizer;
  /** Needed by the caller's loss, checked at connect (capabilities.ts). */
  needs?: Parameters<typeof OpenAiSamplingBackend.connect>[0]['needs'];
  env?: NodeJS.ProcessEnv;
}

type Connect = (address: string, options: RemotePolicyOptions) => Promise<PolicyBackend>;

export const remotePolicySchemes = new Registry<Connect>('policy scheme', (registry) =>
  registry.register('openai', async (address, options) => {
    const { baseUrl, model, apiKey } = openAiAddress(address, options.env);
    return OpenAiSamplingBackend.connect({
      baseUrl,
      model,
      apiKey,
      tokenizer: options.tokenizer,
      needs: options.needs,
      neededBy: `--policy openai:${address}`,
    });
  }),
);

/** `<baseUrl>[#model]` of an openai: spec, checked, with the key from the environment. */
function openAiAddress(
  address: string,
  env: NodeJS.ProcessEnv = process.env,
): { baseUrl: string; model?: string; apiKey?: string } {
  const [baseUrl, model] = address.split('#', 2);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UserError(
      `--policy openai:${address}: '${baseUrl}' is not a URL (e.g. openai:http://127.0.0.1:8000#model)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`--policy openai:${address}: the URL must start with http:// or https://`);
  }
  return {
    baseUrl,
    model: model || undefined,
    apiKey: env.CURRICULA_OPENAI_API_KEY || env.OPENAI_API_KEY || undefined,
  };
}

/**
 * A chat model's API for `--policy openai:<baseUrl>[#model]` with `--prompt-format messages`: samples
 * run at the level of messages (chat-completions.ts); `returnTokenIds: false` for servers that refuse
 * vLLM's return_token_ids (OpenAI's own API).
 */
export function connectChatApi(
  spec: string,
  options: { returnTokenIds?: boolean; env?: NodeJS.ProcessEnv } = {},
): ChatCompletionsClient {
  const { backend, address } = resolvePolicyAddress(spec);
  if (backend !== 'openai' || address === undefined)
    throw new UserError(`--policy '${spec}': --prompt-format messages needs openai:<baseUrl>[#model]`);
  return new ChatCompletionsClient({
    ...openAiAddress(address, options.env),
    returnTokenIds: options.returnTokenIds,
  });
}

/** Connects to the policy a `--policy scheme:address` spec names. */
export function connectRemotePolicy(spec: string, options: RemotePolicyOptions): Promise<PolicyBackend> {
  const { backend, address } = resolvePolicyAddress(spec);
  if (address === undefined) {
    throw new UserError(
      `--policy '${spec}': expected <scheme>:<address>, schemes: ${remotePolicySchemes.names().join(', ')}`,
    );
  }
  return remotePolicySchemes.get(backend)(address, options);
}
