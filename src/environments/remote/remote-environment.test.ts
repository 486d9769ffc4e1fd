// The remote environment against an independent server: the stdlib-only toy ORS server in Python
// (src/testing/environments/ors_toy_server.py), started on a free port. Episodes run through the real
// runner (runEpisodes) with a scripted policy; the layout, mask, rewards and ends are checked against
// what a person computes from the script; the conformance suite runs on it; bad servers end only their
// own episode with end 'environment_error' and an error naming the endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyBackend, SampledSequence, SampleOptions } from '../../core/policy.ts';
import type { Problem } from '../../core/problem.ts';
import { CharTokenizer } from '../../policy/tokenizer.ts';
import { closedPort, startToyOrsServer, type ToyOrsServer } from '../../testing/environments/ors-server.ts';
import { perRow } from '../../testing/policy/test-helpers.ts';
import { checkEnvironment } from '../conformance.ts';
import { runEpisodes } from '../episode.ts';
import { parseEpisodeLimits } from '../limits.ts';
import { OrsClient } from './ors-client.ts';
import { remoteBlockSchema, remoteEnvironmentFor } from './remote-block.ts';

const tokenizer = new CharTokenizer([
  '\n',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
]);

/** A policy whose action is `reply(context so far)`, cut at the first stop string it contains. */
function scriptedPolicy(reply: (context: string) => string): PolicyBackend {
  const policy = {
    tokenizer,
    contextLength: 256,
    async sample(prompts: number[][], options: SampleOptions): Promise<SampledSequence[][]> {
      return prompts.map((prompt) => {
        let text = reply(tokenizer.decode(prompt));
        let stopReason: SampledSequence['stopReason'] = 'eos';
        for (const stop of options.stop ?? []) {
          const at = text.indexOf(stop);
          if (at >= 0) {
            text = text.slice(0, at + stop.length);
            stopReason = 'stop';
          }
        }
        const tokens = [...tokenizer.encode(text), ...(stopReason === 'eos' ? [tokenizer.eos] : [])];
        const logprobs = tokens.map(() => -1);
        return [{ tokens, text, logprobs, samplingLogprobs: logprobs, stopReason }];
      });
    },
  } as unknown as PolicyBackend;
  policy.sample = perRow(policy.sample.bind(policy));
  return policy;
}

function problem(prompt: string, answer: string): Problem {
  return {
    id: `p-${prompt}`,
    task: 'addition',
    prompt,
    answer,
    solution: 'not sent',
    category: 'addition',
    difficulty: 1,
    params: {},
  };
}

/** The calc-then-submit script: `<calc>…</calc>` on the question, then `<submit>` of the output. */
function calcThenSubmit(context: string): string {
  const output = /<out>([^<]*)<\/out>$/.exec(context);
  if (output) return `<submit>${output[1]}</submit>`;
  const question = /Q: ([0-9+]+)/.exec(context)?.[1] ?? '0';
  return `<calc>${question}</calc>`;
}

let server: ToyOrsServer;
beforeAll(async () => {
  server = await startToyOrsServer();
});
afterAll(async () => {
  await server?.stop();
});

const limits = parseEpisodeLimits({ maxTurns: 4, maxTurnTokens: 40, stepTimeoutMs: 5000 });

function environment(url: string, p: Problem, extra: Record<string, unknown> = {}) {
  const block = remoteBlockSchema.parse({ name: 'remote', url, env: 'arith', ...extra });
  const prompt = [tokenizer.bos, ...tokenizer.encode(`Q: ${p.prompt}\nA:`)];
  return remoteEnvironmentFor(block, { tokenizer, prompt, problem: p });
}

describe('RemoteEnvironment (ORS) against the toy Python server', () => {
  it('runs calc then submit: outputs appended and masked, the server rewards the right answer', async () => {
    const episodes = await runEpisodes(
      scriptedPolicy(calcThenSubmit),
      [environment(server.url, problem('2+3', '5')), environment(server.url, problem('2+3', '6'))],
      { limits, temperature: 1, topP: 1, seed: 1 },
    );
    const prompt = 'Q: 2+3\nA:';
    for (const [index, episode] of episodes.entries()) {
      expect(episode.end).toBe('done');
      expect(tokenizer.decode(episode.tokens)).toBe(
        `${prompt}<calc>2+3</calc><out>5</out><submit>5</submit>`,
      );
      // 1 BOS + prompt written, the call sampled, the output written, the submit sampled.
      const mask = [
        ...Array(1 + prompt.length).fill(0),
        ...Array('<calc>2+3</calc>'.length).fill(1),
        ...Array('<out>5</out>'.length).fill(0),
        ...Array('<submit>5</submit>'.length).fill(1),
      ];
      expect(episode.mask).toEqual(mask);
      expect(episode.turns.map((turn) => turn.reward)).toEqual([0, index === 0 ? 1 : 0]);
      expect(episode.return).toBe(index === 0 ? 1 : 0);
      expect(episode.metrics).toEqual({ tool_calls: 2, 'tool_calls/calc': 1, 'tool_calls/submit': 1 });
    }
  });

  it('ends at EOS without a call (return 0), shows a tool error and a parse error to the policy', async () => {
    const replies = ['no call here', '<calc>abc</calc>', '1+1</calc>'];
    const episodes = await runEpisodes(
      scriptedPolicy((context) =>
        context.includes('<out>') ? 'done' : replies[Number(/Q: (\d)/.exec(context)?.[1])],
      ),
      [0, 1, 2].map((k) => environment(server.url, problem(String(k), '0'))),
      { limits, temperature: 1, topP: 1, seed: 1 },
    );
    expect(episodes[0]).toMatchObject({ end: 'done', return: 0 });
    expect(episodes[0].turns).toHaveLength(1);
    expect(tokenizer.decode(episodes[1].tokens)).toContain(
      '<calc>abc</calc><out>error: only integers, + - * and parentheses</out>',
    );
    expect(episodes[1].errors.tool).toBe(1);
    expect(tokenizer.decode(episodes[2].tokens)).toContain(
      '1+1</calc><out>error: </calc> without <calc> in the same turn</out>',
    );
    expect(episodes[2].errors.parse).toBe(1);
  });

  it('passes the environment conformance suite', async () => {
    const report = await checkEnvironment(() => environment(server.url, problem('1+2', '3')), {
      tokenizer,
      name: 'remote',
    });
    expect(report.checks.length).toBeGreaterThan(5);
  });

  it('takes the SDK-style session stream, and close() deletes the session', async () => {
    const episodes = await runEpisodes(
      scriptedPolicy(calcThenSubmit),
      [environment(`${server.url}/fault/ssesession`, problem('4+4', '8'))],
      { limits, temperature: 1, topP: 1, seed: 1 },
    );
    expect(episodes[0]).toMatchObject({ end: 'done', return: 1 });
    const client = new OrsClient(server.url, {
      timeoutMs: 2000,
      retries: 0,
      backoffMs: 0,
      maxResponseBytes: 65_536,
    });
    const sid = await client.createSession();
    await client.create(sid, 'arith', { prompt: 'x', answer: '1' });
    expect(await client.prompt('arith', sid)).toBe('x');
    await client.delete(sid);
    await expect(client.prompt('arith', sid)).rejects.toThrow(
      `GET ${server.url}/arith/prompt: answered 404: Active environment not found`,
    );
    expect(await client.listEnvironments()).toEqual(['arith']);
    expect(await client.splits('arith')).toEqual([{ name: 'train', type: 'train' }]);
    expect(await client.tasks('arith', 'train')).toEqual([{ prompt: '1+1', answer: '2' }]);
  });
});

describe('bad servers end only their own episode, with an error naming the endpoint', () => {
  /** One episode on `url` (extra block keys) beside a good one; the bad one's episode. */
  async function badEpisode(url: string, extra: Record<string, unknown> = {}) {
    const [bad, good] = await runEpisodes(
      scriptedPolicy(calcThenSubmit),
      [
        environment(url, problem('2+3', '5'), { backoffMs: 1, ...extra }),
        environment(server.url, problem('2+3', '5')),
      ],
      { limits, temperature: 1, topP: 1, seed: 1 },
    );
    expect(good).toMatchObject({ end: 'done', return: 1 });
    expect(bad).toMatchObject({ end: 'environment_error', return: 0 });
    expect(bad.errors.environment).toBe(1);
    return bad;
  }

  it('an unreachable port: retried, then the connection error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const episode = await badEpisode(url, { retries: 2 });
    expect(episode.environmentError).toBe(
      `POST ${url}/create_session: connection failed (ECONNREFUSED) (3 attempts)`,
    );
  });

  it('an answer that is not JSON', async () => {
    const url = `${server.url}/fault/garbage`;
    const episode = await badEpisode(url);
    expect(episode.environmentError).toBe(
      `POST ${url}/create_session: answered something that is not JSON: "<html>surely not json</html>"`,
    );
  });

  it('a 500 then success on every endpoint: the retry works; without retries the 500 ends the episode', async () => {
    const url = `${server.url}/fault/flaky`;
    const [episode] = await runEpisodes(
      scriptedPolicy(calcThenSubmit),
      [environment(url, problem('2+3', '5'), { retries: 1, backoffMs: 1 })],
      { limits, temperature: 1, topP: 1, seed: 1 },
    );
    expect(episode).toMatchObject({ end: 'done', return: 1 });
    const failed = await badEpisode(url, { retries: 0 });
    expect(failed.environmentError).toBe(
      `POST ${url}/create_session: answered 500: flaky: try again (1 attempt)`,
    );
  });

  it('a call that hangs: the request timeout', async () => {
    const url = `${server.url}/fault/hang`;
    const episode = await badEpisode(url, { timeoutMs: 300 });
    expect(episode.environmentError).toBe(`POST ${url}/arith/call: did not answer within 300 ms (timeoutMs)`);
    expect(episode.turns).toHaveLength(1);
  });

  it('a body of megabytes is cut at the cap', async () => {
    const url = `${server.url}/fault/huge`;
    const episode = await badEpisode(url, { maxResponseBytes: 65_536 });
    expect(episode.environmentError).toMatch(
      new RegExp(
        `^GET ${url}/arith/prompt: answered \\d+ bytes, more than the 65536 allowed \\(maxResponseBytes\\)$`,
      ),
    );
  });

  it('a tool call streaming megabytes is cut at the cap', async () => {
    const url = `${server.url}/fault/hugecall`;
    const episode = await badEpisode(url, { maxResponseBytes: 65_536 });
    expect(episode.environmentError).toBe(
      `POST ${url}/arith/call: streamed more than the 65536 bytes allowed (maxResponseBytes)`,
    );
  });

  it('a malformed SSE stream: an end that is not JSON, and a stream cut before its end', async () => {
    const badEnd = await badEpisode(`${server.url}/fault/badsse`);
    expect(badEnd.environmentError).toBe(
      `POST ${server.url}/fault/badsse/arith/call: streamed a result that is not JSON: "{not json"`,
    );
    const cut = await badEpisode(`${server.url}/fault/cutsse`);
    expect(cut.environmentError).toMatch(
      new RegExp(
        `^POST ${server.url}/fault/cutsse/arith/call: the event stream ended without an 'end' or 'error' event`,
      ),
    );
  });
});
