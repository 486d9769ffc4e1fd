// The registry of policy backends a train config can name (`policy.backend`): each factory builds the
// policy (and, with a KL term, the frozen reference) for a run. 'embedded' (the default when the block or
// the field is absent) is exactly the in-process/worker-thread path that existed before this registry;
// 'tinker' drives a Tinker-compatible training service over HTTP (src/backends/tinker/client,
// docs/tinker-client.md).
import { isTinkerCheckpoint, readTinkerRecord } from '../backends/tinker/client/checkpoint-record.ts';
import { TinkerPolicyBackend } from '../backends/tinker/client/index.ts';
import { ConfigError } from '../core/errors.ts';
import type { PolicyBackend, Tokenizer } from '../core/policy.ts';
import { Registry } from '../core/registry.ts';
import { readCheckpoint } from '../policy/checkpoint.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers } from '../policy/parallel-options.ts';
import { CharTokenizer, suiteTokenizer } from '../policy/tokenizer.ts';
import { readTokenizer } from '../tokenizers/read-tokenizer.ts';
import type { RlPolicyBlock as PolicyBlock } from './policy-block.ts';

export interface PolicyBackendRequest {
  policy: PolicyBlock | undefined;
  /** The checkpoint to start from (init or resume), or null for a fresh model (`create`). */
  checkpoint: string | null;
  /** The run's init checkpoint (a remote backend takes its tokenizer from there), or null. */
  init: string | null;
  /** Builds a fresh embedded model (the config's `model` block). */
  create: () => Promise<PolicyBackend>;
  /**
   * 'policy' is trained; 'reference' (KL anchor), 'teacher' (teacher pool) and 'student' (the RLT student)
   * are frozen.
   */
  role: 'policy' | 'reference' | 'teacher' | 'student';
}

export interface PolicyBackendFactory {
  /** Throws a ConfigError for settings this backend cannot run (checked before a run is created). */
  validate(request: Pick<PolicyBackendRequest, 'policy'>): void;
  build(request: PolicyBackendRequest): Promise<PolicyBackend>;
}

const embedded: PolicyBackendFactory = {
  validate: ({ policy }) => {
    if (policy?.tinker) throw new ConfigError('policy.tinker is set but policy.backend is not tinker');
    for (const key of ['tokenizer', 'promptFormat', 'chatTemplateVariables'] as const) {
      if (policy?.[key] !== undefined) {
        throw new ConfigError(
          `policy.${key} is for remote backends; the embedded policy uses its checkpoint's tokenizer`,
        );
      }
    }
  },
  build: ({ policy, checkpoint, create }) =>
    checkpoint ? loadEmbeddedPolicy(checkpoint, policy?.workers ?? defaultWorkers) : create(),
};

/**
 * The tokenizer a remote run encodes with: policy.tokenizer's directory (char or Hugging Face, raw or chat
 * prompts), else the init checkpoint's, else the suite's char tokenizer.
 */
function localTokenizer(policy: PolicyBlock | undefined, checkpoint: string | null): Tokenizer {
  if (policy?.tokenizer !== undefined || policy?.promptFormat === 'chat') {
    return readTokenizer(policy.tokenizer, {
      promptFormat: policy.promptFormat,
      chat: { variables: policy.chatTemplateVariables },
      what: 'policy.tokenizer',
    });
  }
  // Only the tokenizer is read; readCheckpoint also reads the (small, local) weights file.
  if (!checkpoint) return suiteTokenizer();
  return CharTokenizer.fromJSON(readCheckpoint(checkpoint).tokenizer);
}

const tinker: PolicyBackendFactory = {
  validate: ({ policy }) => {
    if (!policy?.tinker) {
      throw new ConfigError('policy.backend tinker needs a policy.tinker block with url and baseModel');
    }
  },
  build: async ({ policy, checkpoint, init, role }) => {
    const options = policy!.tinker!;
    const backend = await TinkerPolicyBackend.connect(options, { tokenizer: localTokenizer(policy, init) });
    // Resume: the run's checkpoint is a record of weights saved on the server; load them (with the
    // optimizer state) into the fresh model.
    if (role === 'policy' && checkpoint && isTinkerCheckpoint(checkpoint)) {
      try {
        await backend.loadState(readTinkerRecord(checkpoint, backend.options.url, options.baseModel).path);
      } catch (error) {
        await backend.close();
        throw error;
      }
    }
    return backend;
  },
};

export const policyBackends = new Registry<PolicyBackendFactory>('policy backend')
  .register('embedded', embedded)
  .register('tinker', tinker);

/** The factory named by a policy block (absent = embedded). */
export function policyBackendOf(policy: PolicyBlock | undefined): PolicyBackendFactory {
  return policyBackends.get(policy?.backend ?? 'embedded');
}
