// The dashboard's JSON API (all GET, all read-only):
//   /api/runs                                  runs table (unreadable directories listed with the reason)
//   /api/runs/:name/config[?diff=<other>]      config, and the differing keys against another run
//   /api/runs/:name/keys                       metric keys, last step, steps with samples
//   /api/runs/:name/series?keys=a,b&after=N    metric series after step N (live polling: only new steps)
//   /api/runs/:name/samples?step=N             the step's samples grouped by problem (an episode's turns included)
//   /api/runs/:name/histogram?step=N[&bins=B]  reward histogram of the step's samples
//   /api/compare?runs=a,b[&keys=..][&baseline=g][&headline=k]  seed groups, mean ± sd curves, final table
// Every run name goes through resolveRunDir before any read.
import type { FastifyInstance } from 'fastify';
import { compareView } from './compare-view.ts';
import { DashboardError } from './errors.ts';
import { listRuns } from './run-list.ts';
import { resolveRunDir } from './run-path.ts';
import {
  configDiff,
  metricKeys,
  metricSeries,
  rewardHistogram,
  runConfig,
  sampleGroups,
} from './run-views.ts';

type Query = Record<string, string | undefined>;

function integer(query: Query, name: string, fallback?: number): number {
  const text = query[name];
  if (text === undefined) {
    if (fallback !== undefined) return fallback;
    throw new DashboardError(400, `query parameter '${name}' is required`);
  }
  if (!/^-?\d+$/.test(text)) throw new DashboardError(400, `'${name}' must be an integer, got '${text}'`);
  return Number(text);
}

function list(query: Query, name: string): string[] {
  return (query[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function registerApiRoutes(app: FastifyInstance, realRoot: string): void {
  const run = (params: unknown) => resolveRunDir(realRoot, (params as { name: string }).name);

  app.get('/api/runs', async () => ({ runsDir: realRoot, runs: listRuns(realRoot) }));

  app.get('/api/runs/:name/config', async (request) => {
    const query = request.query as Query;
    const config = runConfig(run(request.params));
    if (query.diff === undefined) return { config };
    const other = runConfig(resolveRunDir(realRoot, query.diff));
    return { config, diffAgainst: query.diff, diff: configDiff(config, other) };
  });

  app.get('/api/runs/:name/keys', async (request) => metricKeys(run(request.params)));

  app.get('/api/runs/:name/series', async (request) => {
    const query = request.query as Query;
    const keys = list(query, 'keys');
    if (keys.length === 0)
      throw new DashboardError(400, "query parameter 'keys' is required (comma-separated)");
    if (keys.length > 200) throw new DashboardError(400, `at most 200 keys per request, got ${keys.length}`);
    return metricSeries(run(request.params), keys, integer(query, 'after', -1));
  });

  app.get('/api/runs/:name/samples', async (request) => {
    const query = request.query as Query;
    const step = integer(query, 'step');
    return { step, groups: sampleGroups(run(request.params), step) };
  });

  app.get('/api/runs/:name/histogram', async (request) => {
    const query = request.query as Query;
    return rewardHistogram(run(request.params), integer(query, 'step'), integer(query, 'bins', 10));
  });

  app.get('/api/compare', async (request) => {
    const query = request.query as Query;
    const names = list(query, 'runs');
    if (names.length > 64)
      throw new DashboardError(400, `at most 64 runs per comparison, got ${names.length}`);
    return compareView({
      dirs: names.map((name) => resolveRunDir(realRoot, name)),
      keys: list(query, 'keys'),
      baseline: query.baseline || undefined,
      headline: query.headline || undefined,
    });
  });
}
