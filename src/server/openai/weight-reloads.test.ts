// `curricula serve --openai` reloading weights (issue 26, item 3): a bad path names the request field;
// reloads every 150 ms under concurrent seeded sampling never fail a request, every response matches
// exactly one weight version, and each replaced model is closed once its last request ends.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedBackend } from '../../policy/embedded-backend.ts';
import { checkpoint, post, prompt, serve } from '../../testing/server/openai/serve.ts';

describe('weight reloads', () => {
  it('update_weights_from_disk names model_path (not lora_path) when the path is bad', async () => {
    const server = await serve();
    try {
      const bad = await post(server.url, '/update_weights_from_disk', {
        model_path: mkdtempSync(join(tmpdir(), 'not-a-checkpoint-')),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^model_path '.*' is not a checkpoint directory/);
      expect(bad.body.error.message).not.toMatch(/lora_path/);
      const vllm = await post(server.url, '/start_weight_update', {});
      expect(vllm.status).toBe(200);
      const badVllm = await post(server.url, '/update_weights', { update_info: { path: '/nonexistent' } });
      expect(badVllm.status).toBe(400);
      expect(badVllm.body.error.message).toMatch(/^update_info\.path '/);
    } finally {
      await server.app.close();
    }
  });

  it('reloads every 150 ms under concurrent seeded sampling: 0 failures, each response one version', async () => {
    // Version B: demo-cold after one optimizer step (other weights, same config and tokenizer).
    const dirB = mkdtempSync(join(tmpdir(), 'curricula-version-b-'));
    const trained = await EmbeddedBackend.load(checkpoint);
    const tokens = [trained.tokenizer.bos, ...trained.tokenizer.encode(prompt)];
    await trained.forwardBackward([{ tokens, weights: tokens.slice(1).map(() => 1) }], 'cross_entropy');
    await trained.optimStep({ learningRate: 0.05 });
    await trained.save(dirB);
    trained.dispose();
    const dirA = mkdtempSync(join(tmpdir(), 'curricula-version-a-'));
    cpSync(checkpoint, dirA, { recursive: true });

    const server = await serve();
    try {
      const requests = Array.from({ length: 6 }, (_, index) => ({
        prompt: `Add: ${index}+${index}=`,
        n: 2,
        max_tokens: 6,
        seed: 100 + index,
        return_token_ids: true,
        prompt_logprobs: 1,
      }));
      const answer = (body: any) =>
        JSON.stringify(body.choices.map((choice: any) => [choice.token_ids, choice.prompt_logprobs]));
      const versions: Array<Map<number, string>> = [];
      for (const dir of [dirA, dirB]) {
        expect((await post(server.url, '/update_weights_from_disk', { model_path: dir })).status).toBe(200);
        const answers = new Map<number, string>();
        for (const [index, body] of requests.entries()) {
          const response = await post(server.url, '/v1/completions', body);
          expect(response.status).toBe(200);
          answers.set(index, answer(response.body));
        }
        versions.push(answers);
      }
      expect(versions[0].get(0)).not.toBe(versions[1].get(0));

      let stop = false;
      let reloads = 0;
      const reloader = (async () => {
        while (!stop) {
          const response = await post(server.url, '/update_weights_from_disk', {
            model_path: reloads % 2 === 0 ? dirA : dirB,
          });
          expect(response.status).toBe(200);
          reloads++;
          await new Promise((resume) => setTimeout(resume, 150));
        }
      })();
      const failures: string[] = [];
      const seen = [0, 0];
      let sent = 0;
      const client = async (start: number) => {
        for (let index = start; !stop; index++) {
          const which = index % requests.length;
          sent++;
          const response = await post(server.url, '/v1/completions', requests[which]);
          if (response.status !== 200) {
            failures.push(`${response.status} ${JSON.stringify(response.body)}`);
            continue;
          }
          const got = answer(response.body);
          const matches = versions.filter((version) => version.get(which) === got).length;
          if (matches !== 1) failures.push(`request ${which}: matches ${matches} versions`);
          else seen[versions[0].get(which) === got ? 0 : 1]++;
        }
      };
      const clients = Array.from({ length: 8 }, (_, index) => client(index));
      await new Promise((resume) => setTimeout(resume, 4_000));
      stop = true;
      await Promise.all([reloader, ...clients]);
      expect({ sent, failures: failures.length, first: failures.slice(0, 3) }).toEqual({
        sent,
        failures: 0,
        first: [],
      });
      if (process.env.ROBUSTNESS_LOG) console.log({ sent, reloads, seen, failures: failures.length });
      expect(reloads).toBeGreaterThanOrEqual(5);
      expect(sent).toBeGreaterThanOrEqual(20);
      expect(seen[0]).toBeGreaterThan(0);
      expect(seen[1]).toBeGreaterThan(0);
      // Every replaced model was closed once its last request ended.
      expect(server.app.openAiModels!.retiredOpen).toBe(0);
    } finally {
      await server.app.close();
    }
  }, 30_000);
});
