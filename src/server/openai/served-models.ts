// The model ids `curricula serve --openai` answers to, each a policy behind its own SampleQueue:
// - the served checkpoint, under ProtocolContext.modelName, loaded lazily on first request;
// - checkpoints added at run time with vLLM's LoRA hot-load route, `POST /v1/load_lora_adapter
//   {lora_name, lora_path}` (vllm serve/lora/api_router.py). The embedded model has no LoRA, so the
//   "adapter" is a full checkpoint directory (anything `curricula serve --checkpoint` accepts: a model,
//   checkpoint or run directory), loaded at once so that a bad path is a 400 on the load call, not later;
// - `load_inplace: true` (vLLM) or SGLang's `POST /update_weights_from_disk {model_path}` replace the
//   weights behind an existing id, atomically: the new weights are loaded first, then the id points at
//   them. A request holds a lease on the model it started with (acquire → release), for everything it
//   samples and scores, so it finishes on those weights; the old model is closed when its last lease ends.
// - A model whose policy failed inside (sample-queue.ts) is reloaded from its checkpoint directory.
// Adapter paths are the operator's own files (as in vLLM, the route is for the trainer that drives the
// server, behind the API key); they are resolved to absolute paths and only read, never written.
import { resolve } from 'node:path';
import { CheckpointError, UserError } from '../../core/errors.ts';
import type { PolicyBackend } from '../../core/policy.ts';
import { Rng } from '../../core/rng.ts';
import { resolveCheckpoint } from '../../runs/resolve-checkpoint.ts';
import { defaultRequestLimits, type RequestLimits } from '../limits.ts';
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

/** A request's hold on one model version; release() exactly once when the request is done. */
export interface ModelLease {
  model: ServedModel;
  release(): void;
}

interface Entry {
  model: ServedModel;
  /** Leases not yet released. */
  leases: number;
  /** Replaced or unloaded: closed when the last lease ends. */
  retired: boolean;
  closing: Promise<void> | null;
}

/** A model id the server does not serve (→ 404). */
export class UnknownModelError extends Error {
  override name = 'UnknownModelError';
  readonly statusCode = 404;
  readonly code = 'model_not_found';
}

export class ServedModels {
  private readonly models = new Map<string, Entry>();
  /** Replaced or unloaded models that still have leases. */
  private readonly retired = new Set<Entry>();
  private readonly seeds: Rng;
  readonly limits: RequestLimits;

  constructor(
    private readonly baseId: string,
    basePath: string,
    loadBase: () => Promise<PolicyBackend>,
    private readonly loadAt: (dir: string) => Promise<PolicyBackend>,
    seed = 0,
    limits: Partial<RequestLimits> = {},
  ) {
    this.seeds = new Rng(seed);
    this.limits = { ...defaultRequestLimits, ...limits };
    this.models.set(baseId, this.entry(baseId, basePath, loadBase, null));
  }

  list(): ServedModel[] {
    return [...this.models.values()].map((entry) => entry.model);
  }

  /** The model for a request's `model` field (omitted ⇒ the served checkpoint); unknown ⇒ 404. */
  get(id: string | undefined): ServedModel {
    return this.find(id).model;
  }

  /**
   * The model for a request's `model` field, held until release(): a reload or unload meanwhile leaves
   * it open (the request finishes on these weights); unknown ⇒ 404.
   */
  acquire(id: string | undefined): ModelLease {
    const entry = this.find(id);
    entry.leases++;
    let released = false;
    return {
      model: entry.model,
      release: () => {
        if (released) return;
        released = true;
        entry.leases--;
        if (entry.retired && entry.leases === 0) void this.closeEntry(entry);
      },
    };
  }

  /** Runs `use` with a lease on the model, released when it settles. */
  async with<T>(id: string | undefined, use: (model: ServedModel) => Promise<T>): Promise<T> {
    const lease = this.acquire(id);
    try {
      return await use(lease.model);
    } finally {
      lease.release();
    }
  }

  /**
   * Loads a checkpoint directory under `name` (replacing an existing id only with `inplace`); `field`
   * names the request field that gave the path, for errors.
   */
  async load(name: string, path: string, inplace: boolean, field = 'lora_path'): Promise<ServedModel> {
    if (this.models.has(name) && !inplace) {
      throw new UserError(`model '${name}' is already loaded; unload it first or pass load_inplace: true`);
    }
    const directory = checkpointDirectory(path, field);
    let policy: PolicyBackend;
    try {
      policy = await this.loadAt(directory);
    } catch (error) {
      if (error instanceof UserError) throw new UserError(`cannot load ${field} '${path}': ${error.message}`);
      throw error;
    }
    // The first load is the one just made; after a failure inside the model it is loaded again.
    let preloaded: PolicyBackend | null = policy;
    const load = async (): Promise<PolicyBackend> => {
      const first = preloaded;
      preloaded = null;
      return first ?? this.loadAt(directory);
    };
    // Read the current entry only now: a concurrent load of the same id may have replaced it meanwhile.
    const previous = this.models.get(name);
    if (previous && !inplace) {
      await (policy.close?.() ?? (policy as { dispose?: () => void }).dispose?.());
      throw new UserError(`model '${name}' is already loaded; unload it first or pass load_inplace: true`);
    }
    const entry = this.entry(name, directory, load, previous ? previous.model.parent : this.baseId);
    this.models.set(name, entry);
    if (previous) this.retire(previous);
    return entry.model;
  }

  async unload(name: string): Promise<void> {
    if (name === this.baseId) throw new UserError(`cannot unload the served checkpoint '${name}'`);
    const entry = this.models.get(name);
    if (!entry) throw new UnknownModelError(`The model \`${name}\` is not loaded`);
    this.models.delete(name);
    this.retire(entry);
  }

  /** Replaces the served checkpoint's weights (SGLang's update_weights_from_disk; `field` names the path's field). */
  reloadBase(path: string, field = 'model_path'): Promise<ServedModel> {
    return this.load(this.baseId, path, true, field);
  }

  /** Models replaced or unloaded whose last request has not ended yet (for tests). */
  get retiredOpen(): number {
    return this.retired.size;
  }

  /** Closes every model, waiting for queued work (requests still holding leases get "closed"). */
  async close(): Promise<void> {
    const entries = [...this.models.values(), ...this.retired];
    this.models.clear();
    await Promise.all(entries.map((entry) => this.closeEntry(entry)));
  }

  private find(id: string | undefined): Entry {
    const entry = this.models.get(id ?? this.baseId);
    if (!entry) {
      throw new UnknownModelError(
        `The model \`${id}\` does not exist; served: ${[...this.models.keys()].join(', ')}`,
      );
    }
    return entry;
  }

  private retire(entry: Entry): void {
    entry.retired = true;
    this.retired.add(entry);
    if (entry.leases === 0) void this.closeEntry(entry);
  }

  private closeEntry(entry: Entry): Promise<void> {
    entry.closing ??= entry.model.queue.close().finally(() => {
      this.retired.delete(entry);
    });
    return entry.closing;
  }

  private entry(id: string, path: string, load: () => Promise<PolicyBackend>, parent: string | null): Entry {
    return {
      model: {
        id,
        path,
        created: Math.floor(Date.now() / 1000),
        queue: new SampleQueue(load, this.seeds.fork(), { maxBatchBytes: this.limits.samplingBytes }),
        parent,
      },
      leases: 0,
      retired: false,
      closing: null,
    };
  }
}

/** The model directory for a user-given path, or a UserError naming the field and what a valid path is. */
function checkpointDirectory(path: string, field: string): string {
  try {
    return resolveCheckpoint(resolve(path)).modelPath;
  } catch (error) {
    if (error instanceof CheckpointError) {
      throw new UserError(
        `${field} '${path}' is not a checkpoint directory (need model.safetensors, config.json, tokenizer.json): ${error.message}`,
      );
    }
    throw error;
  }
}
