// The loss conformance check against the real `curricula serve --tinker`: every built-in loss passes
// (value and per-token gradient weights = the closed form), and a loss the server refuses is reported.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../../policy/embedded-backend.ts';
import {
  checkpoint,
  clientOptions,
  startTinkerServer,
} from '../../../testing/backends/tinker/client/test-server.ts';
import { TinkerPolicyBackend } from './backend.ts';
import { checkLossConformance } from './conformance.ts';
import { probeLosses } from './loss-probe.ts';

let app: FastifyInstance;
let backend: TinkerPolicyBackend;

beforeAll(async () => {
  let url: string;
  ({ app, url } = await startTinkerServer());
  const local = await EmbeddedBackend.load(checkpoint);
  backend = await TinkerPolicyBackend.connect(clientOptions(url), { tokenizer: local.tokenizer });
  local.dispose();
});

afterAll(async () => {
  await backend?.close();
  await app?.close();
});

describe('tinker-check: built-in losses against their closed forms', () => {
  it('cross_entropy, importance_sampling, ppo and cispo match in value and gradient weights', async () => {
    const results = await checkLossConformance(backend);
    expect(results.map((result) => result.loss)).toEqual([
      'cross_entropy',
      'importance_sampling',
      'ppo',
      'cispo',
    ]);
    for (const result of results) {
      expect(result).toMatchObject({ accepted: true, pass: true });
      expect(result.valueError).toBeLessThan(1e-4);
      expect(result.gradientResidual).toBeLessThan(1e-3);
    }
  });

  it('a loss the server does not know is reported as refused', async () => {
    const [dro] = await checkLossConformance(backend, ['dro']);
    expect(dro.accepted).toBe(false);
    expect(dro.pass).toBe(false);
    expect(dro.error).toMatch(/dro/);
  });

  it('the cheap probe: forward-only requests show which losses the server accepts', async () => {
    // dro first: a refused request uses up its seq_id on the server, and the client must move on.
    const probes = await probeLosses(backend, [
      'dro',
      'cross_entropy',
      'importance_sampling',
      'ppo',
      'cispo',
    ]);
    expect(probes.map(({ loss, accepted, error }) => [loss, accepted || error])).toEqual([
      ['dro', probes[0].error],
      ['cross_entropy', true],
      ['importance_sampling', true],
      ['ppo', true],
      ['cispo', true],
    ]);
    expect(probes[0].accepted).toBe(false);
    expect(probes[0].error).toMatch(/Tinker forward_backward: HTTP 400: .*'dro' is not supported/);
  });
});
