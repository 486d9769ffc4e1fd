// A scripted OpenAI-compatible judge for tests: an injected `fetch` that answers each chat (or completions)
// request with `reply(prompt, call number)` — text, or a Response for HTTP errors — like vLLM would, with
// usage, and records every request.

export interface JudgeCall {
  url: string;
  body: Record<string, unknown>;
}

export function scriptedJudge(reply: (prompt: string, n: number) => string | Response): {
  fetch: typeof globalThis.fetch;
  calls: JudgeCall[];
} {
  const calls: JudgeCall[] = [];
  const fetch = (async (url: string, init: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    calls.push({ url, body });
    const messages = body.messages as { content: string }[] | undefined;
    const prompt = messages ? messages[0].content : String(body.prompt);
    const answer = reply(prompt, calls.length);
    if (answer instanceof Response) return answer;
    return Response.json({
      choices: [{ message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 100, completion_tokens: 20 },
    });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}
