// The access token a non-loopback dashboard requires (like `curricula serve`'s API key, app.ts). The token
// is generated (32 random bytes, hex) and printed once in the URL; the browser presents it as `?token=` on
// the first page load, after which the server sets an HttpOnly SameSite=Strict cookie so the page's own
// requests (scripts, API polling) carry it. API clients may send `Authorization: Bearer <token>` instead.
// Every route, static files included, needs it; a missing or wrong token gets 401 with a JSON body,
// compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../server/app.ts';

export const TOKEN_COOKIE = 'curricula_dashboard_token';

export function generateToken(): string {
  return randomBytes(32).toString('hex');
}

/** Loopback hosts need no token; anything else (0.0.0.0, a LAN address, a name) does. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function matches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function presented(request: FastifyRequest): { token: string; fromQuery: boolean } | null {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && /^Bearer\s+/i.test(authorization)) {
    return { token: authorization.replace(/^Bearer\s+/i, ''), fromQuery: false };
  }
  const query = (request.query as Record<string, unknown> | undefined)?.token;
  if (typeof query === 'string') return { token: query, fromQuery: true };
  const cookie = request.headers.cookie;
  if (typeof cookie === 'string') {
    for (const part of cookie.split(';')) {
      const [name, ...rest] = part.trim().split('=');
      if (name === TOKEN_COOKIE) return { token: rest.join('='), fromQuery: false };
    }
  }
  return null;
}

/** An onRequest hook that answers 401 unless the request carries the token. */
export function requireToken(token: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const given = presented(request);
    if (given === null || !matches(given.token, token)) {
      await reply
        .code(401)
        .send(
          errorBody(given === null ? 'missing access token' : 'invalid access token', 'authentication_error'),
        );
      return;
    }
    if (given.fromQuery) {
      void reply.header('set-cookie', `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    }
  };
}
