// How `curricula serve --tinker` survives a restart (docs/tinker-serving.md, "Surviving a server restart"):
// - persistModel: after create_model, every optim_step and every load_weights, the model's state goes to
//   its durable store (durable-store.ts) before the call's future resolves, so a result the client saw is
//   always on disk. A failed write is logged and the call still succeeds (the step did happen; only a
//   later restart would lose it).
// - restoreModels: at start, every model found under the state directory comes back with the same id,
//   its session (heartbeats and create_model keep working), its optimizer step count, its last completed
//   optim_step results (a retry with the same idempotency key, or a poll of the same request_id, gets the
//   stored result and never steps twice), and a sequencer in resume mode after its last seq_id. A version
//   that fails its checks is skipped with a log line and the previous one is used; a model with no usable
//   version is skipped with a log line. Nothing here throws: a bad state dir never stops the server.
// - reloadPolicy: drops whatever accumulated since the last durable state (after a gradient_lost refusal,
//   partial replays must not add to the replayed gradient).
import { basename, dirname, join } from 'node:path';
import type { PolicyBackend } from '../../core/policy.ts';
import type { TinkerDeps } from './deps.ts';
import {
  checkpointSubdir,
  type DurableMeta,
  durableModelRoots,
  durableVersions,
  readDurableVersion,
  writeDurableState,
} from './durable-store.ts';
import { releasePolicy, type TrainingModel } from './models.ts';
import { durableDir } from './paths.ts';
import { Sequencer } from './sequencer.ts';

/** Completed optim_step results kept per model (the SDK retries within seconds). */
const completedKept = 4;

export async function persistModel(
  deps: TinkerDeps,
  model: TrainingModel,
  withWeights: boolean,
): Promise<void> {
  if (!deps.options.durable) return;
  try {
    model.completed = model.completed.slice(-completedKept);
    await writeDurableState(
      deps.context.stateDir,
      {
        modelId: model.id,
        sessionId: model.sessionId,
        modelSeq: model.modelSeq,
        baseModel: model.baseModel,
        loraConfig: model.loraConfig,
        optimizerSteps: model.optimizerSteps,
        lastSeqId: model.lastSeqId,
        nextSamplerSeq: deps.state.sessions.get(model.sessionId)?.nextSamplerSeq ?? 0,
        completed: model.completed,
      },
      withWeights ? await model.policy : undefined,
    );
  } catch (error) {
    deps.options.log(`tinker: could not save the durable state of ${model.id}: ${(error as Error).message}`);
  }
}

/** The newest version of a model that passes its checks, with its policy loaded; undefined if none. */
async function loadNewest(
  deps: TinkerDeps,
  modelId: string,
): Promise<{ meta: DurableMeta; policy: PolicyBackend } | undefined> {
  for (const version of durableVersions(durableDir(deps.context.stateDir, modelId))) {
    try {
      const meta = readDurableVersion(version);
      if (meta.modelId !== modelId) throw new Error(`durable.json names model ${meta.modelId}`);
      const policy =
        meta.weights === 'base'
          ? await deps.context.loadPolicy()
          : await deps.loadFrom(join(version, checkpointSubdir));
      return { meta, policy };
    } catch (error) {
      deps.options.log(
        `tinker: ignoring durable state ${version} of model ${modelId}: ${(error as Error).message}`,
      );
    }
  }
  return undefined;
}

function resumedSequencer(deps: TinkerDeps, model: TrainingModel, lastSeqId: number | null): Sequencer {
  const sequencer = new Sequencer(deps.options.seqWaitMs);
  sequencer.resumeAfter(lastSeqId ?? 0, deps.options.restoreGraceMs, (from, to) => {
    model.gradientLost = { from, to };
    deps.options.log(`tinker: model ${model.id}: seq_ids ${from}..${to} were lost in a restart`);
  });
  return sequencer;
}

/** Brings back every model of the state directory; logs and skips what cannot be used. */
export async function restoreModels(deps: TinkerDeps): Promise<void> {
  if (!deps.options.durable) return;
  let roots: string[];
  try {
    roots = durableModelRoots(deps.context.stateDir);
  } catch (error) {
    deps.options.log(`tinker: cannot read the state directory: ${(error as Error).message}`);
    return;
  }
  for (const root of roots) {
    const modelId = basename(dirname(root));
    let loaded: Awaited<ReturnType<typeof loadNewest>>;
    try {
      loaded = await loadNewest(deps, modelId);
    } catch (error) {
      loaded = undefined;
      deps.options.log(`tinker: model ${modelId}: ${(error as Error).message}`);
    }
    if (loaded === undefined) {
      deps.options.log(`tinker: model ${modelId} not restored: no usable durable state under ${root}`);
      continue;
    }
    const { meta, policy } = loaded;
    const session = deps.state.sessions.get(meta.sessionId) ?? {
      id: meta.sessionId,
      nextModelSeq: 0,
      nextSamplerSeq: 0,
      lastHeartbeat: Date.now(),
    };
    session.nextModelSeq = Math.max(session.nextModelSeq, meta.modelSeq + 1);
    session.nextSamplerSeq = Math.max(session.nextSamplerSeq, meta.nextSamplerSeq);
    deps.state.sessions.set(session.id, session);
    const model: TrainingModel = {
      id: meta.modelId,
      sessionId: meta.sessionId,
      baseModel: meta.baseModel,
      loraConfig: meta.loraConfig,
      policy: Promise.resolve(policy),
      sequencer: undefined as unknown as Sequencer,
      optimizerSteps: meta.optimizerSteps,
      modelSeq: meta.modelSeq,
      lastSeqId: meta.lastSeqId,
      completed: meta.completed,
    };
    model.sequencer = resumedSequencer(deps, model, meta.lastSeqId);
    deps.state.models.set(model.id, model);
    for (const step of meta.completed)
      deps.futures.restore(step.key, step.requestId, model.id, { kind: 'json', body: step.body });
    deps.options.log(
      `tinker: restored model ${model.id} (${meta.optimizerSteps} optimizer steps, last seq_id ${meta.lastSeqId ?? 'none'})`,
    );
  }
}

/** Replaces the model's policy by its last durable state (drops accumulated gradients). */
export async function reloadPolicy(deps: TinkerDeps, model: TrainingModel): Promise<void> {
  const loaded = await loadNewest(deps, model.id);
  if (loaded === undefined) throw new Error(`model ${model.id}: no usable durable state to reload`);
  const previous = await model.policy;
  model.policy = Promise.resolve(loaded.policy);
  await releasePolicy(previous);
}
