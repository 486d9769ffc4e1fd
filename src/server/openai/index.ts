// OpenAI-compatible routes of `curricula serve --openai` (docs/openai-serving.md): completions and chat
// (completions.ts, chat.ts), vLLM's tokens-in/tokens-out pair (generate.ts, chat.ts), the model list and
// weight updates (weights.ts). Every route samples through the PolicyBackend contract, one queue per
// served model (sample-queue.ts), and every policy is closed when the server closes.
import type { FastifyInstance } from 'fastify';
import { loadEmbeddedPolicy } from '../../policy/parallel-factory.ts';
import type { ProtocolContext } from '../protocol-context.ts';
import { registerChat } from './chat.ts';
import { registerCompletions } from './completions.ts';
import { registerGenerate } from './generate.ts';
import { ServedModels } from './served-models.ts';
import { registerWeights } from './weights.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAI protocol's served models (with per-model queue stats); set by registerOpenAi. */
    openAiModels?: ServedModels;
  }
}

export async function registerOpenAi(app: FastifyInstance, context: ProtocolContext): Promise<void> {
  const models = new ServedModels(
    context.modelName,
    context.checkpoint,
    () => context.loadPolicy(),
    context.loadPolicyFrom ?? ((dir) => loadEmbeddedPolicy(dir, 1)),
    0,
    context.limits,
  );
  app.decorate('openAiModels', models);
  app.addHook('onClose', async () => {
    await models.close();
  });
  registerCompletions(app, models);
  registerChat(app, models);
  registerGenerate(app, models);
  registerWeights(app, models);
}
