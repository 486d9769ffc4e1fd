// OpenAI-compatible routes of `curricula serve --openai` (placeholder until the routes land).
import type { FastifyInstance } from 'fastify';
import type { ProtocolContext } from '../protocols.ts';

export async function registerOpenAi(_app: FastifyInstance, _context: ProtocolContext): Promise<void> {
  throw new Error('curricula serve --openai is not built yet');
}
