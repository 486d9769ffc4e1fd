// The dashboard's static front-end: a fixed registry of files (URL path → file and content type), so no
// request path ever reaches the file system. The page's own files live in src/dashboard/web/; uPlot's
// script and stylesheet are served from the installed npm package (node_modules/uplot/dist), never a CDN.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const WEB = join(dirname(fileURLToPath(import.meta.url)), 'web');

function uplotDist(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('uplot'));
}

const JS = 'text/javascript; charset=utf-8';

/** URL path → [absolute file, content type]. */
function registry(): Map<string, [string, string]> {
  const files = new Map<string, [string, string]>();
  files.set('/', [join(WEB, 'index.html'), 'text/html; charset=utf-8']);
  files.set('/web/style.css', [join(WEB, 'style.css'), 'text/css; charset=utf-8']);
  for (const name of [
    'app.js',
    'api.js',
    'charts.js',
    'runs-page.js',
    'run-page.js',
    'panels.js',
    'samples-page.js',
    'sample-view.js',
    'episode-view.js',
    'tokens.js',
    'compare-page.js',
  ]) {
    files.set(`/web/${name}`, [join(WEB, name), JS]);
  }
  const dist = uplotDist();
  files.set('/vendor/uPlot.iife.min.js', [join(dist, 'uPlot.iife.min.js'), JS]);
  files.set('/vendor/uPlot.min.css', [join(dist, 'uPlot.min.css'), 'text/css; charset=utf-8']);
  return files;
}

export function registerStaticFiles(app: FastifyInstance): void {
  // No icon: answered with 204 so the browser's automatic request does not log a 404.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).send());
  for (const [url, [file, type]] of registry()) {
    app.get(url, async (_request, reply) => {
      // Read per request: cheap, and an edited front-end file shows on reload.
      return reply.type(type).header('cache-control', 'no-cache').send(readFileSync(file));
    });
  }
}
