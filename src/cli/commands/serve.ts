// `curricula serve --checkpoint <dir> [--openai] [--tinker]`: the embedded model over HTTP (src/server).
// Loopback by default; a non-loopback --host needs an API key (refused otherwise: an unauthenticated
// trainer on the network lets anyone change the weights). The first stdout line is
// `listening on http://HOST:PORT` (with --port 0 the OS picks the port; scripts read it there).
import { mkdtempSync, rmSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { parseWorkersOption } from '../../policy/parallel-options.ts';
import { nonNegativeInteger, positiveInteger } from '../parse-options.ts';

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

export function register(program: Command): void {
  program
    .command('serve')
    .summary('serve a checkpoint: OpenAI and Tinker APIs')
    .description(
      'serve an embedded checkpoint over HTTP: OpenAI-compatible sampling (--openai) and Tinker-compatible training (--tinker); or, with --policy, front a remote tokens-in/tokens-out server with the OpenAI chat API (its chat template, tools and tool_calls, sampled tokens kept verbatim across turns)',
    )
    .option('--checkpoint <dir>', 'run directory (uses its best checkpoint), checkpoint or model directory')
    .option(
      '--policy <spec>',
      "instead of --checkpoint, with --openai: a remote policy, openai:<baseUrl>[#model] (vLLM, SGLang, another curricula serve; key from $CURRICULA_OPENAI_API_KEY or $OPENAI_API_KEY), sampled by token ids; chat requests are rendered with --tokenizer's chat template (docs/openai-serving.md)",
    )
    .option(
      '--tokenizer <dir>',
      "with --policy: the remote model's tokenizer directory (tokenizer.json, tokenizer_config.json with its chat_template)",
    )
    .option('--openai', 'expose the OpenAI-compatible API under /v1')
    .option('--tinker', 'expose the Tinker-compatible training API under /api/v1')
    .option('--host <host>', 'interface to listen on (non-loopback needs --api-key)', '127.0.0.1')
    .option('--port <n>', 'TCP port (0 = any free port)', nonNegativeInteger('--port'), 8000)
    .option(
      '--api-key <key>',
      'require this key (Authorization: Bearer or X-API-Key) on every request; default $CURRICULA_API_KEY',
    )
    .option(
      '--body-limit <bytes>',
      'largest request body in bytes',
      positiveInteger('--body-limit'),
      64 * 1024 * 1024,
    )
    .option('--model-name <name>', "the served model's id (default: the checkpoint directory's name)")
    .option(
      '--state-dir <dir>',
      'where saved weights go (default: a new directory under the system temp dir, removed when the server stops)',
    )
    .option(
      '--durable',
      'tinker: save each model (weights, Adam state, seq_ids, recent optim_step results) at every optim_step and restore it at start, so that a restarted server continues the run (default: on with --state-dir, off without; costs ~0.2-0.3 s per optim_step here, docs/tinker-serving.md)',
    )
    .option('--no-durable', 'tinker: do not save model state at every optim_step')
    .option(
      '--workers <n|auto>',
      'replicas of each served policy in worker threads (default 1 = in process)',
      parseWorkersOption,
      1,
    )
    .action(async (options) => {
      const chosen = (['openai', 'tinker'] as const).filter((name) => options[name]);
      if (chosen.length === 0) throw new UserError('serve: choose --openai, --tinker or both');
      const apiKey: string | undefined = options.apiKey ?? process.env.CURRICULA_API_KEY ?? undefined;
      const host: string = options.host;
      if (!loopbackHosts.has(host) && !apiKey) {
        throw new UserError(
          `serve: --host ${host} is not loopback; set --api-key (or CURRICULA_API_KEY) so that strangers cannot drive the model`,
        );
      }
      if (host !== 'localhost' && isIP(host) === 0)
        throw new UserError(`serve: --host must be an IP address or localhost, got '${host}'`);
      const served = await servedPolicy(options, chosen);
      const { buildServer } = await import('../../server/app.ts');
      const modelPath = served.path;
      // Without --state-dir the state lives in a temporary directory of this process, removed when it stops
      // (a Tinker session's model copies are hundreds of MB each; nothing can resume from it anyway).
      const ownStateDir = options.stateDir === undefined;
      const stateDir = ownStateDir
        ? mkdtempSync(join(tmpdir(), 'curricula-serve-'))
        : resolve(options.stateDir);
      const durable: boolean = options.durable ?? options.stateDir !== undefined;
      const app = await buildServer({
        protocols: [...chosen],
        apiKey,
        bodyLimit: options.bodyLimit,
        context: {
          checkpoint: modelPath,
          modelName: options.modelName ?? served.name,
          loadPolicy: served.load,
          loadPolicyFrom: served.loadFrom,
          stateDir,
          // A restart can only find state in a directory the user named: a fresh temp dir would be written
          // at every step for nothing.
          tinker: { durable },
        },
      });
      const address = await app.listen({ host, port: options.port });
      console.log(`listening on ${address}`);
      const durability = !chosen.includes('tinker')
        ? ''
        : durable
          ? '; model state saved at every optim_step (--no-durable to skip)'
          : '; model state not saved per step (--durable, or --state-dir, to survive a restart)';
      console.error(`serving ${modelPath} (${chosen.join(', ')}); state in ${stateDir}${durability}`);
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          const removeOwn = () => {
            if (ownStateDir) rmSync(stateDir, { recursive: true, force: true });
            done();
          };
          void app.close().then(removeOwn, removeOwn);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

interface ServedPolicy {
  /** The checkpoint directory, or the remote spec. */
  path: string;
  /** The default model id. */
  name: string;
  load(): Promise<PolicyBackend>;
  loadFrom(dir: string): Promise<PolicyBackend>;
}

/** The policy behind the server: an embedded checkpoint, or a remote one (--policy, OpenAI only). */
async function servedPolicy(
  options: { checkpoint?: string; policy?: string; tokenizer?: string; workers: number | 'auto' },
  chosen: readonly string[],
): Promise<ServedPolicy> {
  if ((options.checkpoint === undefined) === (options.policy === undefined))
    throw new UserError('serve: give either --checkpoint <dir> or --policy <spec>');
  const spec = options.policy;
  if (spec === undefined) {
    if (options.tokenizer !== undefined)
      throw new UserError(
        'serve: --tokenizer goes with --policy (a checkpoint serves with its own tokenizer)',
      );
    const { resolveCheckpoint } = await import('../../runs/resolve-checkpoint.ts');
    const { loadEmbeddedPolicy } = await import('../../policy/parallel-factory.ts');
    const checkpoint = options.checkpoint as string;
    const { modelPath } = resolveCheckpoint(checkpoint);
    return {
      path: modelPath,
      name: basename(resolve(checkpoint)),
      load: () => loadEmbeddedPolicy(modelPath, options.workers),
      loadFrom: (dir) => loadEmbeddedPolicy(dir, options.workers),
    };
  }
  if (chosen.includes('tinker'))
    throw new UserError(
      'serve: --policy serves sampling only (--openai); training over --tinker needs an embedded --checkpoint',
    );
  if (options.tokenizer === undefined)
    throw new UserError(
      "serve: --policy needs --tokenizer <dir>, the remote model's tokenizer (and chat template)",
    );
  const { connectRemotePolicy, readTokenizer } = await import('../../backends/openai/policy-spec.ts');
  const tokenizer = readTokenizer(options.tokenizer);
  return {
    path: spec,
    name: spec.split('#')[1] || 'remote',
    load: () => connectRemotePolicy(spec, { tokenizer }),
    loadFrom: async () => {
      throw new UserError(`this server fronts ${spec}: load weights on that server, not here`);
    },
  };
}
