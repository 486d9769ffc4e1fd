// Evaluation over a chat API (issue 30 item 5): `curricula serve --openai` with the Qwen3 chat template
// in front of a scripted Qwen3-tokenizer policy that calls the calculator on the question, then answers
// from the tool's output. The evaluation sends the problem and the calc tool to /v1/chat/completions,
// runs the returned tool_calls here, and grades the last turn: every sample right, one call each, token
// continuity checked on every sample and never broken. A server whose token ids do not continue, a
// malformed call and an unreachable server are each counted, never a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatCompletionsClient } from '../backends/openai/chat-completions.ts';
import { qwen3Tokenizer, scriptedChatPolicy } from '../testing/chat/test-helpers.ts';
import { serveScripted } from '../testing/server/openai/serve.ts';
import { evaluateFromConfig } from './evaluate-config.ts';

const tokenizer = qwen3Tokenizer();
const call = (expression: string) =>
  `<tool_call>\n${JSON.stringify({ name: 'calc', arguments: { expression } })}\n</tool_call>`;
let malformed = false;
const { policy } = scriptedChatPolicy(tokenizer, (prompt) => {
  const text = tokenizer.decode(prompt, { keepSpecialTokens: true });
  const output = /<tool_response>\n(.*?)\n<\/tool_response>/s.exec(
    text.slice(text.lastIndexOf('<|im_start|>user')),
  );
  if (output) return { text: `<think>\nThe tool says ${output[1]}.\n</think>\n\nA:${output[1]}`, end: 'eos' };
  const question = /(\d+\+\d+)/.exec(text.slice(text.lastIndexOf('<|im_start|>user')))?.[1] ?? '0+0';
  return {
    text: malformed ? '<tool_call>\n{"name": "calc", "arguments": {oops}}\n</tool_call>' : call(question),
    end: 'eos',
  };
});

describe('eval over a chat API: tools in the request, tool_calls in the response', () => {
  let server: Awaited<ReturnType<typeof serveScripted>>;
  beforeAll(async () => {
    server = await serveScripted('qwen3-scripted', policy);
  });
  afterAll(async () => {
    await server.app.close();
  });
  const evaluate = (chatApi: ChatCompletionsClient) =>
    evaluateFromConfig(
      {
        tasks: [{ task: 'addition', difficulties: [1, 2] }],
        samples: 2,
        problemsPerDifficulty: 4,
        temperature: 1,
        seed: 3,
        environment: { name: 'tag-tools', tools: ['calc'] },
      },
      { policy: { label: 'scripted', chatApi } },
    );

  it('runs the calls the server parsed and grades the last turn; token ids continue on every sample', async () => {
    const result = await evaluate(new ChatCompletionsClient({ baseUrl: server.url }));
    expect(result.summary.overall.passAt1).toBe(1);
    const tools = result.summary.overall.tools;
    expect(tools).toMatchObject({
      samples: 16,
      callsPerSample: 1,
      callRate: 1,
      tokenDrift: { samples: 16, drifted: 0 },
    });
    expect(tools?.errors).toEqual({ parse: 0, tool: 0, environment: 0 });
  });

  /** The server's answers passed through `edit` (a server that behaves differently). */
  const editing =
    (edit: (body: any, request: any) => void): typeof fetch =>
    async (input, init) => {
      const response = await fetch(input, init);
      const body = await response.json();
      edit(body, JSON.parse(String(init?.body)));
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };

  it('counts a server whose token ids do not continue the conversation (a re-render) as drift', async () => {
    // From the second turn on, one token of the conversation so far is missing, as when a template
    // drops an earlier <think> block.
    const rerendering = editing((body, request) => {
      if (!request.messages.some((message: { role: string }) => message.role === 'tool')) return;
      body.prompt_token_ids.splice(Math.floor(body.prompt_token_ids.length / 2), 1);
    });
    const result = await evaluate(new ChatCompletionsClient({ baseUrl: server.url, fetch: rerendering }));
    expect(result.summary.overall.passAt1).toBe(1);
    expect(result.summary.overall.tools?.tokenDrift).toEqual({ samples: 16, drifted: 16 });
  });

  it('malformed calls: text the server could not parse is graded as the answer; bad arguments are parse errors', async () => {
    malformed = true;
    try {
      // The server returns an unparsable block as content with no calls (as vLLM does): graded, wrong.
      const text = await evaluate(new ChatCompletionsClient({ baseUrl: server.url }));
      expect(text.summary.overall.passAt1).toBe(0);
      expect(text.summary.overall.tools).toMatchObject({ callsPerSample: 0, errors: { parse: 0 } });
    } finally {
      malformed = false;
    }
    // A server whose tool_calls carry arguments that are not JSON: a parse error each turn; under the
    // default policy (respond) the model is told and tries again, until maxTurns (4).
    const broken = editing((body) => {
      for (const choice of body.choices)
        for (const call of choice.message.tool_calls ?? []) call.function.arguments = '{oops';
    });
    const result = await evaluate(new ChatCompletionsClient({ baseUrl: server.url, fetch: broken }));
    expect(result.summary.overall.passAt1).toBe(0);
    expect(result.summary.overall.tools?.errors.parse).toBe(16 * 4);
  });

  it('an unreachable server ends each episode with a named error, and the evaluation still reports', async () => {
    const gone = await evaluate(new ChatCompletionsClient({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }));
    expect(gone.summary.overall.passAt1).toBe(0);
    expect(gone.summary.overall.tools?.errors.environment).toBe(16);
  });
});
