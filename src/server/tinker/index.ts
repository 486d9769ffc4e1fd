// Tinker-compatible routes of `curricula serve --tinker` (placeholder until the routes land).
import type { FastifyInstance } from 'fastify';
import type { ProtocolContext } from '../protocols.ts';

export async function registerTinker(_app: FastifyInstance, _context: ProtocolContext): Promise<void> {
  throw new Error('curricula serve --tinker is not built yet');
}
