// How a sampling server picks up new weights after a training step, by name (config `weightUpdate`):
// - 'vllm-lora': POST /v1/load_lora_adapter {lora_name, lora_path, load_inplace: true}; later requests
//   name the adapter as their model (vllm serve/lora/api_router.py; the server needs
//   VLLM_ALLOW_RUNTIME_LORA_UPDATING=True). `curricula serve` takes a full checkpoint directory here.
// - 'sglang-disk': POST /update_weights_from_disk {model_path} → {success, message}; the model id stays.
// - 'vllm-disk': vLLM's disk weight transfer (dev mode, `--weight-transfer-config '{"backend":"disk"}'`):
//   /init_weight_transfer_engine, /start_weight_update, /update_weights {update_info: {path}},
//   /finish_weight_update (remote-and-guidance-2026.md §4; unverified in a release); the model id stays.
// - 'none': the server's weights never change (evaluation, judges).
// The directory must be readable by the server (same machine or a shared file system).
import { UserError } from '../../core/errors.ts';
import type { OpenAiHttpClient } from '../../core/http-client.ts';
import { Registry } from '../../core/registry.ts';

export interface WeightUpdate {
  /** Checkpoint or adapter directory, as the server sees it. */
  dir: string;
  /** Name for the new weights (the adapter name for vLLM). */
  name: string;
  /** The model id requests use now. */
  model: string;
}

/** Tells the server to load new weights; returns the model id to sample from afterwards. */
export type WeightUpdater = (http: OpenAiHttpClient, update: WeightUpdate) => Promise<string>;

export const weightUpdaters = new Registry<WeightUpdater>('weight update method', (registry) =>
  registry
    .register('none', async () => {
      throw new UserError(
        "this OpenAI-compatible policy has weightUpdate 'none': it cannot load new weights",
      );
    })
    .register('vllm-lora', async (http, update) => {
      await http.post('/v1/load_lora_adapter', {
        lora_name: update.name,
        lora_path: update.dir,
        load_inplace: true,
      });
      return update.name;
    })
    .register('sglang-disk', async (http, update) => {
      const response = await http.post('/update_weights_from_disk', { model_path: update.dir });
      const body = response.body as { success?: unknown; message?: unknown } | null;
      if (body?.success !== true) {
        throw new UserError(
          `${http.baseUrl}/update_weights_from_disk did not load ${update.dir}: ${String(body?.message)}`,
        );
      }
      return update.model;
    })
    .register('vllm-disk', async (http, update) => {
      await http.post('/init_weight_transfer_engine', { init_info: {} });
      await http.post('/start_weight_update', {});
      try {
        await http.post('/update_weights', { update_info: { path: update.dir } });
      } finally {
        await http.post('/finish_weight_update', {});
      }
      return update.model;
    }),
);
