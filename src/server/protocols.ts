// The protocols `curricula serve` can expose, by name: each registers its routes on the shared server
// (app.ts) and serves the embedded model through the PolicyBackend contract.
import { Registry } from '../core/registry.ts';
import { registerOpenAi } from './openai/index.ts';
import type { RegisterProtocol } from './protocol-context.ts';
import { registerTinker } from './tinker/index.ts';

export type { ProtocolContext, RegisterProtocol } from './protocol-context.ts';

export const protocols = new Registry<RegisterProtocol>('serve protocol', (registry) =>
  registry.register('openai', registerOpenAi).register('tinker', registerTinker),
);

export type ProtocolName = 'openai' | 'tinker';
