// `curricula serve`: one HTTP server exposing the embedded model over the protocols asked for (OpenAI-
// compatible sampling, Tinker-compatible training; protocols.ts). What every protocol shares lives here:
// - loopback by default (the CLI refuses a non-loopback host without an API key);
// - an API key, when set, is required on every request, as `Authorization: Bearer <key>` (OpenAI
//   clients) or `X-API-Key: <key>` (Tinker SDK); a missing or wrong key gets 401 with a JSON body, compared
//   in constant time;
// - a per-request body limit (413 beyond it), and per-request bounds on what a request may ask of the
//   model (limits.ts: sampling rows and estimated memory, training tokens; a 400 naming the limit);
// - every error is a JSON body with the right status code; a handler that throws never takes the server
//   down, and a UserError (bad input) is a 400, not a 500.
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { UserError } from '../core/errors.ts';
import { type ProtocolContext, type ProtocolName, protocols } from './protocols.ts';

export interface ServerOptions {
  /** Protocols to expose (at least one). */
  protocols: ProtocolName[];
  /** Required on every request when set. */
  apiKey?: string;
  /** Largest request body in bytes (default 64 MiB). */
  bodyLimit?: number;
  /** What the protocols serve (checkpoint, policy factory). */
  context: ProtocolContext;
}

export const defaultBodyLimit = 64 * 1024 * 1024;

/** A JSON error body in the OpenAI shape, which the Tinker SDK also reads (`error` key ⇒ failure). */
export function errorBody(message: string, type: string, code?: string): object {
  return { error: { message, type, ...(code ? { code } : {}) } };
}

function keyMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && /^Bearer\s+/i.test(authorization)) {
    return authorization.replace(/^Bearer\s+/i, '');
  }
  return null;
}

/** Builds the server (not listening yet): auth, body limit, JSON errors, then each protocol's routes. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  if (options.protocols.length === 0) throw new UserError('serve: choose at least one protocol');
  const app = Fastify({ bodyLimit: options.bodyLimit ?? defaultBodyLimit, logger: false });
  const apiKey = options.apiKey;
  if (apiKey !== undefined) {
    app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const key = presentedKey(request);
      if (key === null || !keyMatches(key, apiKey)) {
        await reply
          .code(401)
          .send(errorBody(key === null ? 'missing API key' : 'invalid API key', 'authentication_error'));
      }
    });
  }
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    const status =
      error instanceof UserError
        ? 400
        : typeof error.statusCode === 'number' && error.statusCode >= 400
          ? error.statusCode
          : 500;
    const type = status >= 500 ? 'server_error' : 'invalid_request_error';
    void reply.code(status).send(errorBody(error.message, type, error.code));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody(`no route ${request.method} ${request.url}`, 'not_found_error'));
  });
  for (const name of options.protocols) await protocols.get(name)(app, options.context);
  return app;
}
