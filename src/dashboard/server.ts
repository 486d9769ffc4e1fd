// `curricula dashboard`'s HTTP server: the JSON API (api-routes.ts) and the static front-end
// (static-files.ts), over one runs directory, read-only. Patterns from src/server/app.ts: loopback by
// default, a token on every request when one is set (access-token.ts), every error a JSON body with the
// right status (a UserError is a 400, a DashboardError carries its own status; a 500 says only that it
// happened, its message goes to stderr), a handler that throws never takes the server down. Only GET routes exist, so the default body limit is kept small.
import Fastify, { type FastifyInstance } from 'fastify';
import { UserError } from '../core/errors.ts';
import { errorBody } from '../server/app.ts';
import { requireToken } from './access-token.ts';
import { registerApiRoutes } from './api-routes.ts';
import { DashboardError } from './errors.ts';
import { realRunsDir } from './run-path.ts';
import { registerStaticFiles } from './static-files.ts';

export interface DashboardOptions {
  runsDir: string;
  /** Required on every request when set (non-loopback hosts). */
  token?: string;
}

export async function buildDashboard(options: DashboardOptions): Promise<FastifyInstance> {
  const realRoot = realRunsDir(options.runsDir);
  const app = Fastify({ bodyLimit: 64 * 1024, logger: false });
  if (options.token !== undefined) app.addHook('onRequest', requireToken(options.token));
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    const status =
      error instanceof DashboardError
        ? error.statusCode
        : error instanceof UserError
          ? 400
          : typeof error.statusCode === 'number' && error.statusCode >= 400
            ? error.statusCode
            : 500;
    const type =
      status >= 500 ? 'server_error' : status === 404 ? 'not_found_error' : 'invalid_request_error';
    // An unexpected error's message may carry anything it met (a path, a parser's quote of a file): the
    // client gets a generic line, the dashboard's own stderr the message.
    if (status >= 500) console.error(`dashboard: ${error.message}`);
    const message =
      status >= 500 ? 'internal error (the message is on the dashboard’s stderr)' : error.message;
    void reply.code(status).send(errorBody(message, type));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(errorBody(`no route ${request.method} ${request.url}`, 'not_found_error'));
  });
  registerStaticFiles(app);
  registerApiRoutes(app, realRoot);
  return app;
}
