// Token identity through `curricula serve --openai` with the Qwen3 chat template (issue 30's target):
// 1,000 random multi-turn agent episodes driven by the stock OpenAI client, each request sending the
// whole conversation back (the assistant message as the server returned it, then tool results and
// user turns) with `tools`; a scripted policy over the real Qwen3 tokenizer writes random reasoning
// blocks, tool calls with random JSON arguments, malformed calls, turns cut without an end-of-turn token
// or ended by <|endoftext|>, and action tokens that are not BPE's own tokenization of their text.
// Checked per turn: the server sampled for exactly the prompt it returned (prompt_token_ids); that prompt
// is the previous prompt + the previous sampled tokens (+ <|im_end|> when the turn was cut) + exactly
// what Qwen3's template appends (written out by hand in qwen3Suffix), so the episode is one trajectory
// whose sampled tokens are the model's; the calls come back as tool_calls with the arguments written.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import {
  qwen3Suffix,
  qwen3Tokenizer,
  randomArguments,
  randomText,
  type ScriptedTurn,
  scriptedChatPolicy,
  testTools,
} from '../../testing/chat/test-helpers.ts';
import { post, prompt, serve, serveScripted } from '../../testing/server/openai/serve.ts';
import { type ChatMessage, renderChatFor } from '../../tokenizers/chat-template.ts';

const tokenizer = qwen3Tokenizer();
const tools = testTools.map((tool) => tool.openai) as OpenAI.ChatCompletionTool[];
const text = (tokens: readonly number[]) => tokenizer.decode(tokens, { keepSpecialTokens: true });
const imEnd = tokenizer.eos;

/** What the scripted model writes next, and what it meant by it. */
interface Written {
  turn: ScriptedTurn;
  reasoning: boolean;
  malformed: boolean;
  calls: Record<string, unknown>[];
}

let next: () => ScriptedTurn = () => ({ text: '', end: 'eos' });
const { policy, sampled } = scriptedChatPolicy(tokenizer, () => next());

function write(rng: Rng, last: boolean): Written {
  const reasoning = rng.next() < 0.5;
  const thought = reasoning ? `<think>\n${randomText(rng, 6)}\n</think>\n\n` : '';
  const content = randomText(rng, 5);
  const malformed = !last && rng.next() < 0.15;
  const calls = malformed || last ? [] : Array.from({ length: rng.int(1, 2) }, () => randomArguments(rng));
  const blocks = calls.map((args, i) => {
    const call = { name: testTools[i].name, arguments: args };
    return `<tool_call>\n${rng.next() < 0.5 ? JSON.stringify(call) : JSON.stringify(call, null, 1)}\n</tool_call>`;
  });
  if (malformed) blocks.push('<tool_call>\n{"name": "lookup", "arguments": {oops}}\n</tool_call>');
  const body = `${thought}${content}${blocks.length > 0 && content ? '\n' : ''}${blocks.join('\n')}`;
  const ends: ScriptedTurn['end'][] = ['eos', 'eos', 'eos', 'eos', 'eos', 'eos', 'other', 'none'];
  const turn: ScriptedTurn = { text: body, end: ends[rng.int(0, ends.length - 1)] };
  const length = [...body].length;
  if (length > 1 && rng.next() < 0.3) turn.split = rng.int(1, length - 1);
  return { turn, reasoning, malformed, calls };
}

type Message = OpenAI.ChatCompletionMessageParam;
interface Reply {
  prompt: number[];
  tokens: number[];
  reused: number;
  message: OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  finish: string;
}

async function ask(client: OpenAI, messages: Message[]): Promise<Reply> {
  const response = (await client.chat.completions.create({
    model: 'qwen3-scripted',
    messages,
    tools,
    max_tokens: 4096,
    return_token_ids: true,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming)) as unknown as {
    prompt_token_ids: number[];
    prompt_reused_tokens: number;
    choices: { message: Reply['message']; token_ids: number[]; finish_reason: string }[];
  };
  const [choice] = response.choices;
  return {
    prompt: response.prompt_token_ids,
    tokens: choice.token_ids,
    reused: response.prompt_reused_tokens,
    message: choice.message,
    finish: choice.finish_reason,
  };
}

/** A message as a re-rendering server hands it to the template: arguments parsed, no null content. */
function asTemplateSees(message: Message): ChatMessage {
  const calls = 'tool_calls' in message ? message.tool_calls : undefined;
  return {
    ...message,
    content: message.content ?? '',
    ...(calls && {
      tool_calls: calls.map((call) =>
        call.type === 'function'
          ? { ...call, function: { ...call.function, arguments: JSON.parse(call.function.arguments) } }
          : call,
      ),
    }),
  };
}

/** One episode; what is wrong with it (empty when nothing), and whether a whole re-render drifts. */
async function episode(client: OpenAI, id: number): Promise<{ problems: string[]; drifts: boolean }> {
  const rng = new Rng(5000 + id);
  const messages: Message[] = [{ role: 'user', content: `Episode ${id}: ${randomText(rng, 6)}` }];
  if (rng.next() < 0.3) messages.unshift({ role: 'system', content: randomText(rng, 6, 1) });
  const turns = rng.int(1, 4);
  const problems: string[] = [];
  let previous: { reply: Reply; written: Written; appended: Message[] } | undefined;
  for (let k = 0; k < turns; k++) {
    const written = write(rng, k === turns - 1);
    next = () => written.turn;
    const reply = await ask(client, messages);
    if (JSON.stringify(sampled.get(reply.prompt.join(','))?.at(-1)) !== JSON.stringify(reply.tokens))
      problems.push(`turn ${k}: token_ids are not what was sampled for prompt_token_ids`);
    if (!previous) {
      const first = renderChatFor(tokenizer, messages as never, { addGenerationPrompt: true, tools });
      if (text(reply.prompt) !== first || reply.reused !== 0) problems.push('first prompt');
    } else {
      const before = [...previous.reply.prompt, ...previous.reply.tokens];
      const cut = previous.written.turn.end !== 'eos';
      const head = reply.prompt.slice(0, before.length);
      if (JSON.stringify(head) !== JSON.stringify(before)) problems.push(`turn ${k}: earlier tokens changed`);
      if (reply.reused !== before.length)
        problems.push(`turn ${k}: reused ${reply.reused} of ${before.length}`);
      const added = text(reply.prompt.slice(before.length));
      if (added !== `${cut ? '<|im_end|>' : ''}${qwen3Suffix(previous.appended as never)}`)
        problems.push(`turn ${k}: appended ${JSON.stringify(added)}`);
      if (cut && reply.prompt[before.length] !== imEnd)
        problems.push(`turn ${k}: no <|im_end|> closes the cut turn`);
    }
    const calls = (reply.message.tool_calls ?? []).map((call) =>
      call.type === 'function' ? JSON.parse(call.function.arguments) : null,
    );
    if (JSON.stringify(calls) !== JSON.stringify(written.calls)) problems.push(`turn ${k}: tool_calls`);
    if ((reply.finish === 'tool_calls') !== written.calls.length > 0)
      problems.push(`turn ${k}: finish_reason`);
    if (written.malformed && !reply.message.content?.includes('{oops}'))
      problems.push(`turn ${k}: malformed text`);
    if (written.reasoning !== (reply.message.reasoning_content !== undefined))
      problems.push(`turn ${k}: reasoning_content`);
    messages.push(reply.message as Message);
    const appended: Message[] = (reply.message.tool_calls ?? []).map((call) => ({
      role: 'tool',
      tool_call_id: call.id,
      content: randomText(rng, 8),
    }));
    if (appended.length === 0 || rng.next() < 0.25)
      appended.push({ role: 'user', content: randomText(rng, 6, 1) });
    messages.push(...appended);
    previous = { reply, written, appended };
  }
  // The control: what a server that re-renders the conversation would have shown the model last turn.
  const last = previous as NonNullable<typeof previous>;
  const whole = renderChatFor(tokenizer, messages.slice(0, -last.appended.length - 1).map(asTemplateSees), {
    addGenerationPrompt: true,
    tools,
  });
  return { problems, drifts: whole !== text(last.reply.prompt) };
}

describe('serve --openai over the Qwen3 chat template: tools, tool_calls, token identity', () => {
  let server: Awaited<ReturnType<typeof serveScripted>>;
  let client: OpenAI;
  beforeAll(async () => {
    server = await serveScripted('qwen3-scripted', policy);
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(async () => {
    await server.app.close();
  });

  it('keeps every sampled token of 1,000 episodes: each prompt extends the last prompt and its sample', async () => {
    const failures: string[] = [];
    let drifting = 0;
    for (let id = 0; id < 1000; id++) {
      const result = await episode(client, id);
      failures.push(...result.problems.map((what) => `episode ${id}: ${what}`));
      if (result.drifts) drifting++;
    }
    expect(failures.slice(0, 10)).toEqual([]);
    // Re-rendering whole would have changed the context of many of these episodes (dropped <think>
    // blocks, the template's own JSON spacing): the reuse is what keeps them intact.
    expect(drifting).toBeGreaterThan(200);
  }, 120_000);

  it('renders a conversation it did not produce whole (prompt_reused_tokens 0)', async () => {
    next = () => ({ text: 'hi', end: 'eos' });
    const messages: Message[] = [{ role: 'user', content: 'Episode x: hello' }];
    const first = await ask(client, messages);
    const edited = { ...first.message, content: `${first.message.content} (edited)` } as Message;
    const again = await ask(client, [...messages, edited, { role: 'user', content: 'go on' }]);
    expect(again.reused).toBe(0);
    const kept = await ask(client, [
      ...messages,
      first.message as Message,
      { role: 'user', content: 'go on' },
    ]);
    expect(kept.reused).toBe(first.prompt.length + first.tokens.length);
  });

  it('streams a reply with tool calls as one delta that the stock client accumulates', async () => {
    next = () => ({
      text: '<think>\nplan\n</think>\n\nLooking.\n<tool_call>\n{"name": "lookup", "arguments": {"query": "x"}}\n</tool_call>',
      end: 'eos',
    });
    const stream = client.chat.completions.stream({
      model: 'qwen3-scripted',
      messages: [{ role: 'user', content: 'Episode s: find x' }],
      tools,
      max_tokens: 64,
    });
    const final = await stream.finalChatCompletion();
    const [choice] = final.choices;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Looking.');
    const [call] = choice.message.tool_calls ?? [];
    expect(call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      'lookup',
      { query: 'x' },
    ]);
  });

  it('refuses what it cannot do with a clear 400', async () => {
    const forced = client.chat.completions.create({
      model: 'qwen3-scripted',
      messages: [{ role: 'user', content: 'x' }],
      tools,
      tool_choice: { type: 'function', function: { name: 'lookup' } },
    });
    await expect(forced).rejects.toThrow(/only 'auto' and 'none' are supported/);
    const orphan = client.chat.completions.create({
      model: 'qwen3-scripted',
      messages: [{ role: 'tool', content: 'x' } as Message],
    });
    await expect(orphan).rejects.toThrow(/tool message needs tool_call_id/);
  });
});

describe('serve --openai over the embedded model (no chat template)', () => {
  it('answers tools and tool messages with a 400 that says why', async () => {
    const server = await serve();
    try {
      const withTools = await post(server.url, '/v1/chat/completions', {
        messages: [{ role: 'user', content: prompt }],
        tools,
      });
      expect(withTools.status).toBe(400);
      expect(withTools.body.error.message).toMatch(/no chat template .* cannot be shown tools/);
      const plain = await post(server.url, '/v1/chat/completions', {
        messages: [{ role: 'user', content: prompt }],
        max_tokens: 4,
      });
      expect(plain.status).toBe(200);
      expect(plain.body.prompt_reused_tokens).toBeUndefined();
    } finally {
      await server.app.close();
    }
  });
});
