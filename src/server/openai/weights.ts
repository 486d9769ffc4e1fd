// Model listing and weight updates:
// - GET /v1/models: {object: 'list', data: [{id, object: 'model', created, owned_by, root, parent,
//   max_model_len}]} (OpenAI shape plus vLLM's root/parent/max_model_len; root is the id, not a path, so
//   that the listing does not reveal the server's file system);
// - POST /v1/load_lora_adapter {lora_name, lora_path, load_inplace?} and /v1/unload_lora_adapter
//   {lora_name} (vLLM; the "adapter" is a full checkpoint directory, served-models.ts); vLLM answers
//   with a plain-text line, so do we;
// - POST /update_weights_from_disk {model_path} (SGLang): replaces the served checkpoint's weights,
//   answers {success, message}.
// - vLLM's disk weight transfer (dev router, `--weight-transfer-config '{"backend":"disk"}'`):
//   POST /init_weight_transfer_engine {init_info}, /start_weight_update, /update_weights
//   {update_info: {path}}, /finish_weight_update {weight_version?}; /update_weights outside a
//   start/finish pair is a 400. Same effect as SGLang's call. Source: remote-and-guidance-2026.md §0 F5, §4
//   (whether the disk backend is in a vLLM release is unverified).
import type { FastifyInstance } from 'fastify';
import { UserError } from '../../core/errors.ts';
import {
  loadAdapterSchema,
  parseBody,
  unloadAdapterSchema,
  updateFromDiskSchema,
  vllmUpdateWeightsSchema,
} from './schemas.ts';
import type { ServedModels } from './served-models.ts';

export function registerWeights(app: FastifyInstance, models: ServedModels): void {
  app.get('/v1/models', async () => {
    const data = [];
    for (const { id } of models.list()) {
      // A lease: a reload meanwhile must not close the model under this read (one unloaded meanwhile
      // is left out).
      if (!models.list().some((listed) => listed.id === id)) continue;
      const lease = models.acquire(id);
      const { model } = lease;
      const policy = await model.queue.policy().finally(lease.release);
      data.push({
        id: model.id,
        object: 'model',
        created: model.created,
        owned_by: 'curricula',
        root: model.id,
        parent: model.parent,
        max_model_len: policy.contextLength,
      });
    }
    return { object: 'list', data };
  });

  app.post('/v1/load_lora_adapter', async (request, reply) => {
    const body = parseBody(loadAdapterSchema, request.body, 'POST /v1/load_lora_adapter');
    await models.load(body.lora_name, body.lora_path, body.load_inplace === true);
    return reply.type('text/plain').send(`Success: LoRA adapter '${body.lora_name}' added successfully.`);
  });

  app.post('/v1/unload_lora_adapter', async (request, reply) => {
    const body = parseBody(unloadAdapterSchema, request.body, 'POST /v1/unload_lora_adapter');
    await models.unload(body.lora_name);
    return reply.type('text/plain').send(`Success: LoRA adapter '${body.lora_name}' removed successfully.`);
  });

  app.post('/update_weights_from_disk', async (request) => {
    const body = parseBody(updateFromDiskSchema, request.body, 'POST /update_weights_from_disk');
    const model = await models.reloadBase(body.model_path, 'model_path');
    return { success: true, message: `Succeeded to update model weights of '${model.id}'.` };
  });

  let updating = false;
  app.post('/init_weight_transfer_engine', async () => ({}));
  app.post('/start_weight_update', async () => {
    updating = true;
    return {};
  });
  app.post('/update_weights', async (request) => {
    const body = parseBody(vllmUpdateWeightsSchema, request.body, 'POST /update_weights');
    if (!updating) throw new UserError('POST /update_weights: call /start_weight_update first');
    await models.reloadBase(body.update_info.path, 'update_info.path');
    return {};
  });
  app.post('/finish_weight_update', async () => {
    updating = false;
    return {};
  });
}
