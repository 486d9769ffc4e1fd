// A judge call's response body, read as text, usage and (when asked) the top log-probabilities of each
// generated token, from either OpenAI shape: chat (`choices[0].message.content`, `logprobs.content[]`
// with `top_logprobs: [{token, logprob}]`) or completions (`choices[0].text`, `logprobs.tokens`,
// `top_logprobs: [{token: logprob}]`). A body of neither shape is a JudgeCallError naming the server.
import { z } from 'zod';

/** One generated token and its most likely alternatives (natural-log probabilities). */
export interface TokenAlternatives {
  token: string;
  top: { token: string; logprob: number }[];
}

export interface JudgeReply {
  text: string;
  /** The server's token counts; absent when it sent none. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Per generated token, when the request asked for top log-probabilities and the server gave them. */
  tokens?: TokenAlternatives[];
}

/** A judge call that returned something other than a completion. */
export class JudgeCallError extends Error {
  override name = 'JudgeCallError';
}

const usageSchema = z
  .object({ prompt_tokens: z.number().nonnegative(), completion_tokens: z.number().nonnegative() })
  .nullish();

const chatSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        logprobs: z
          .object({
            content: z
              .array(
                z.object({
                  token: z.string(),
                  logprob: z.number(),
                  top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

const completionsSchema = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        logprobs: z
          .object({
            tokens: z.array(z.string()).nullish(),
            top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullish(),
          })
          .nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

export function parseReply(body: unknown, api: 'chat' | 'completions', where: string): JudgeReply {
  const parsed = api === 'chat' ? chatSchema.safeParse(body) : completionsSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new JudgeCallError(
      `${where}: not a ${api === 'chat' ? 'chat completion' : 'completion'} (${issue.path.join('.') || '(body)'}: ${issue.message})`,
    );
  }
  const usage = parsed.data.usage
    ? { promptTokens: parsed.data.usage.prompt_tokens, completionTokens: parsed.data.usage.completion_tokens }
    : undefined;
  const reply: JudgeReply = { text: '', ...(usage ? { usage } : {}) };
  if (api === 'chat') {
    const [choice] = (parsed.data as z.infer<typeof chatSchema>).choices;
    reply.text = choice.message.content ?? '';
    const content = choice.logprobs?.content;
    if (content)
      reply.tokens = content.map((entry) => ({ token: entry.token, top: entry.top_logprobs ?? [] }));
  } else {
    const [choice] = (parsed.data as z.infer<typeof completionsSchema>).choices;
    reply.text = choice.text;
    const { tokens, top_logprobs: top } = choice.logprobs ?? {};
    if (tokens && top) {
      reply.tokens = tokens.map((token, i) => ({
        token,
        top: Object.entries(top[i] ?? {}).map(([alternative, logprob]) => ({ token: alternative, logprob })),
      }));
    }
  }
  return reply;
}
