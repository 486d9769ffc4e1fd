// `--policy <scheme>:<address>` for commands that only sample (curricula eval): a registry of schemes,
// today `openai:<baseUrl>[#model]`, e.g. `openai:http://127.0.0.1:8000#demo-cold`. Without `#model` the
// server must serve exactly one model. The API key comes from $CURRICULA_OPENAI_API_KEY, else
// $OPENAI_API_KEY (never from the command line, so it stays out of shell history and process lists).
// The tokenizer is read by src/tokenizers/read-tokenizer.ts (re-exported here for eval).
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend, Tokenizer } from '../../core/policy.ts';
import { resolvePolicyAddress } from '../../core/policy-address.ts';
import { Registry } from '../../core/registry.ts';

export { readTokenizer } from '../../tokenizers/read-tokenizer.ts';

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
    const env = options.env ?? process.env;
    return OpenAiSamplingBackend.connect({
      baseUrl,
      model: model || undefined,
      apiKey: env.CURRICULA_OPENAI_API_KEY || env.OPENAI_API_KEY || undefined,
      tokenizer: options.tokenizer,
      needs: options.needs,
      neededBy: `--policy openai:${address}`,
    });
  }),
);

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
