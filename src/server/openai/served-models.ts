// The model ids `curricula serve --openai` answers to, each a policy behind its own SampleQueue:
// - the served checkpoint, under ProtocolContext.modelName, loaded lazily on first request;
// - checkpoints added at run time with vLLM's LoRA hot-load route, `POST /v1/load_lora_adapter
//   {lora_name, lora_path}` (vllm serve/lora/api_router.py). The embedded model has no LoRA, so the
//   "adapter" is a full checkpoint directory (anything `curricula serve --checkpoint` accepts: a model,
//   checkpoint or run directory), loaded at once so that a bad path is a 400 on the load call, not later;
// - `load_inplace: true` (vLLM) or SGLang's `POST /update_weights_from_disk {model_path}` replace the
//   weights behind an existing id; requests already queued finish on the old weights.
// Adapter paths are the operator's own files (as in vLLM, the route is for the trainer that drives the
// server, behind the API key); they are resolved to absolute paths and only read, never written.
import { resolve } from 'node:path';
import { CheckpointError, UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import { SampleQueue } from './sample-queue.ts';

export interface ServedModel {
  id: string;
  /** Checkpoint directory behind the id. */
  path: string;
  /** Unix seconds when the id was (re)loaded. */
  created: number;
  queue: SampleQueue;
  /** The id this model derives from (null for the served checkpoint). */
  parent: string | null;
}

/** A model id the server does not serve (→ 404). */
export class UnknownModelError extends Error {
  override name = 'UnknownModelError';
  readonly statusCode = 404;
  readonly code = 'model_not_found';
}

export class ServedModels {
  private readonly models = new Map<string, ServedModel>();
  private readonly seeds: Rng;

  constructor(
    private readonly baseId: string,
    basePath: string,
    loadBase: () => Promise<PolicyBackend>,
    private readonly loadAt: (dir: string) => Promise<PolicyBackend>,
    seed = 0,
  ) {
    this.seeds = new Rng(seed);
    this.models.set(baseId, this.entry(baseId, basePath, loadBase, null));
  }

  list(): ServedModel[] {
    return [...this.models.values()];
  }

  /** The model for a request's `model` field (omitted ⇒ the served checkpoint); unknown ⇒ 404. */
  get(id: string | undefined): ServedModel {
    const model = this.models.get(id ?? this.baseId);
    if (!model) {
      throw new UnknownModelError(
        `The model \`${id}\` does not exist; served: ${[...this.models.keys()].join(', ')}`,
      );
    }
    return model;
  }

  /** Loads a checkpoint directory under `name` (replacing an existing id only with `inplace`). */
  async load(name: string, path: string, inplace: boolean): Promise<ServedModel> {
    const existing = this.models.get(name);
    if (existing && !inplace) {
      throw new UserError(`model '${name}' is already loaded; unload it first or pass load_inplace: true`);
    }
    const directory = checkpointDirectory(path);
    let policy: PolicyBackend;
    try {
      policy = await this.loadAt(directory);
    } catch (error) {
      if (error instanceof UserError) throw new UserError(`cannot load '${path}': ${error.message}`);
      throw error;
    }
    const model = this.entry(name, directory, async () => policy, existing ? existing.parent : this.baseId);
    this.models.set(name, model);
    if (existing) await existing.queue.close();
    return model;
  }

  async unload(name: string): Promise<void> {
    if (name === this.baseId) throw new UserError(`cannot unload the served checkpoint '${name}'`);
    const model = this.models.get(name);
    if (!model) throw new UnknownModelError(`The model \`${name}\` is not loaded`);
    this.models.delete(name);
    await model.queue.close();
  }

  /** Replaces the served checkpoint's weights (SGLang's update_weights_from_disk). */
  reloadBase(path: string): Promise<ServedModel> {
    return this.load(this.baseId, path, true);
  }

  async close(): Promise<void> {
    const models = this.list();
    this.models.clear();
    await Promise.all(models.map((model) => model.queue.close()));
  }

  private entry(
    id: string,
    path: string,
    load: () => Promise<PolicyBackend>,
    parent: string | null,
  ): ServedModel {
    return {
      id,
      path,
      created: Math.floor(Date.now() / 1000),
      queue: new SampleQueue(load, this.seeds.fork()),
      parent,
    };
  }
}

/** The model directory for a user-given path, or a UserError saying what a valid path is. */
function checkpointDirectory(path: string): string {
  try {
    return resolveCheckpoint(resolve(path)).modelPath;
  } catch (error) {
    if (error instanceof CheckpointError) {
      throw new UserError(
        `lora_path '${path}' is not a checkpoint directory (need model.safetensors, config.json, tokenizer.json): ${error.message}`,
      );
    }
    throw error;
  }
}
