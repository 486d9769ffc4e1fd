// The registry of policy backends a train config can name (`policy.backend`): each factory builds the
// policy (and, with a KL term, the frozen reference) for a run. 'embedded' (the default when the block or
// the field is absent) is exactly the in-process/worker-thread path that existed before this registry;
// 'tinker' drives a Tinker-compatible training service over HTTP (src/backends/tinker/client,
// docs/tinker-client.md). Each is a plug-in of kind 'policy-backend' (src/core/plugin.ts).
//
// Addresses: one resolver, `resolvePolicyAddress`, maps every way of naming a policy to its backend:
// a bare id (`embedded`, `tinker`: the config's `policy.backend`), or `scheme:address` — `tinker://HOST:PORT`
// and `http(s)://…` (the Tinker service a `--policy` of `curricula train` names), `openai:URL[#model]`
// (a sampling-only server, `curricula eval --policy`; src/backends/openai/policy-spec.ts connects it).
import { isTinkerCheckpoint, readTinkerRecord } from '../backends/tinker/client/checkpoint-record.ts';
import { TinkerPolicyBackend } from '../backends/tinker/client/index.ts';
import { ConfigError } from '../core/errors.ts';
import { type PaperRef, type PluginInfo, pluginInfo } from '../core/plugin.ts';
import type { PolicyBackend, Tokenizer } from '../core/policy.ts';
import { resolvePolicyAddress } from '../core/policy-address.ts';
import { Registry } from '../core/registry.ts';
import { readCheckpoint } from '../policy/checkpoint.ts';
import { loadEmbeddedPolicy } from '../policy/parallel-factory.ts';
import { defaultWorkers, engineChoice } from '../policy/parallel-options.ts';
import { CharTokenizer, suiteTokenizer } from '../policy/tokenizer.ts';
import { readTokenizer } from '../tokenizers/read-tokenizer.ts';
import type { RlPolicyBlock as PolicyBlock } from './policy-block.ts';

export { type PolicyAddress, resolvePolicyAddress } from '../core/policy-address.ts';

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
   * are frozen; 'verifier' (Tango) is trained by its run component.
   */
  role: 'policy' | 'reference' | 'teacher' | 'student' | 'verifier';
}

export interface PolicyBackendFactory {
  /** Throws a ConfigError for settings this backend cannot run (checked before a run is created). */
  validate(request: Pick<PolicyBackendRequest, 'policy'>): void;
  build(request: PolicyBackendRequest): Promise<PolicyBackend>;
}

/** A policy backend in the plug-in shape: its plug-in fields, `validate` and `build`. */
export type PolicyBackendPlugin = PolicyBackendFactory & PluginInfo & { readonly kind: 'policy-backend' };

/** Defines a policy backend (`create` is the backend factory: its validate and build). */
export function definePolicyBackend(spec: {
  id: string;
  description: string;
  paper?: PaperRef;
  optionsSchema?: PluginInfo['optionsSchema'];
  create: PolicyBackendFactory;
}): PolicyBackendPlugin {
  const info = pluginInfo('policy-backend', spec);
  return Object.freeze({ ...info, kind: 'policy-backend' as const, ...spec.create });
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
    checkpoint
      ? loadEmbeddedPolicy(checkpoint, policy?.workers ?? defaultWorkers, engineChoice(policy))
      : create(),
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

export const embeddedBackend = definePolicyBackend({
  id: 'embedded',
  description: 'the in-process tfjs transformer (worker-thread replicas with policy.workers); the default',
  create: embedded,
});

export const tinkerBackend = definePolicyBackend({
  id: 'tinker',
  description: 'a Tinker-compatible training service over HTTP (policy.tinker: url, baseModel, …)',
  create: tinker,
});

/** The built-in policy backends. */
export const builtinPolicyBackends: readonly PolicyBackendPlugin[] = [embeddedBackend, tinkerBackend];

/** A fresh policy-backend registry holding the built-ins. */
export function createPolicyBackendRegistry(): Registry<PolicyBackendFactory> {
  return new Registry<PolicyBackendFactory>('policy backend', (registry) => {
    for (const backend of builtinPolicyBackends) registry.register(backend.id, backend, 'built-in', backend);
  });
}

/** The default registry, filled on first use. */
export const policyBackends: Registry<PolicyBackendFactory> = createPolicyBackendRegistry();

/** The factory named by a policy block (absent = embedded). */
export function policyBackendOf(
  policy: PolicyBlock | undefined,
  registry: Registry<PolicyBackendFactory> = policyBackends,
): PolicyBackendFactory {
  return registry.get(resolvePolicyAddress(policy?.backend ?? 'embedded').backend);
}
