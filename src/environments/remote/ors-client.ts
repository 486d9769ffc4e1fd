// A client of the Open Reward Standard (ORS, openrewardstandard.io/specification/{overview,http-api,sse}):
// an environment served over HTTP by another process, in any language. One session is one episode:
// POST /create_session → sid; POST /create {env_name, task_spec} with X-Session-ID; GET /{env}/prompt;
// POST /{env}/call {name, input} answered over SSE (ors-stream.ts) with a ToolOutput {blocks, reward?,
// finished, metadata?} or {ok: false, error}; POST /delete. Discovery: /health, /list_environments,
// /{env}/tools (or /{env}/task_tools within a session), /{env}/splits, POST /{env}/tasks {split}.
// Every answer is checked against the shapes the specification gives (the Python SDK's pydantic models,
// src/ors/types.py); anything else is a RemoteEnvironmentError quoting what did not fit. Not used: the
// secrets field, /ping keep-alive (sessions expire after 15 idle minutes; an episode is shorter),
// reconnection by task id, image blocks (shown as [image]).
import { z } from 'zod';
import { type HttpOptions, type HttpRequest, jsonBody, send } from './http.ts';
import { orsStream } from './ors-stream.ts';
import { RemoteEnvironmentError } from './remote-error.ts';

const toolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()).nullish(),
});

/** A tool the server offers: its name, description and JSON Schema of its input (null: no parameters). */
export type OrsToolSpec = z.output<typeof toolSpecSchema>;

const blockSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image') }),
]);

const toolOutputSchema = z.object({
  blocks: z.array(blockSchema),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  reward: z.number().nullish(),
  finished: z.boolean().default(false),
});

/** What a tool call returned: text blocks, the optional reward of this step and whether the episode ended. */
export type OrsToolOutput = z.output<typeof toolOutputSchema>;

const callResultSchema = z.union([
  z.object({ ok: z.literal(true), output: toolOutputSchema }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/** A call's result: the tool's output, or the error the environment reported for it. */
export type OrsCallResult = z.output<typeof callResultSchema>;

const splitSchema = z.object({ name: z.string(), type: z.string() });

/** A task split of an environment ('train', 'validation' or 'test' type). */
export type OrsSplit = z.output<typeof splitSchema>;

/** The text of a list of blocks: text blocks joined by newlines, an image as [image]. */
export function blocksText(blocks: OrsToolOutput['blocks']): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : '[image]')).join('\n');
}

/** A client of one ORS server (see the file header); `baseUrl` may carry a path prefix. */
export class OrsClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly options: HttpOptions,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** The URL of `path` ('/create', '/{env}/call') on this server. */
  url(path: string): string {
    return `${this.base}${path}`;
  }

  private envPath(env: string, endpoint: string): string {
    return `/${encodeURIComponent(env)}/${endpoint}`;
  }

  private async json<T>(request: Omit<HttpRequest, 'url'> & { path: string }, schema: z.ZodType<T>) {
    const full: HttpRequest = { ...request, url: this.url(request.path) };
    const body = await send(full, this.options, jsonBody(this.options.maxResponseBytes));
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new RemoteEnvironmentError(
      full.method,
      full.url,
      `answered JSON that is not the protocol's (${issue.path.join('.') || 'the answer'}: ${issue.message}): ${JSON.stringify(body).slice(0, 120)}`,
    );
  }

  /** GET /health. */
  async health(): Promise<void> {
    await this.json({ method: 'GET', path: '/health' }, z.unknown());
  }

  /** GET /list_environments: the environments this server serves. */
  listEnvironments(): Promise<string[]> {
    return this.json({ method: 'GET', path: '/list_environments' }, z.array(z.string()));
  }

  /** The tools of `env`: GET /{env}/task_tools within session `sid` (shared and task tools), else /{env}/tools. */
  async tools(env: string, sid?: string): Promise<OrsToolSpec[]> {
    const schema = z.object({ tools: z.array(toolSpecSchema) });
    if (sid !== undefined) {
      try {
        const path = this.envPath(env, 'task_tools');
        return (await this.json({ method: 'GET', path, headers: { 'X-Session-ID': sid } }, schema)).tools;
      } catch (error) {
        // Servers of the specification's first version have no task_tools: a 404 falls back to /tools.
        if (!(error instanceof RemoteEnvironmentError && / answered 404/.test(error.message))) throw error;
      }
    }
    return (await this.json({ method: 'GET', path: this.envPath(env, 'tools') }, schema)).tools;
  }

  /** GET /{env}/splits. */
  splits(env: string): Promise<OrsSplit[]> {
    return this.json({ method: 'GET', path: this.envPath(env, 'splits') }, z.array(splitSchema));
  }

  /** POST /{env}/tasks {split}: the split's task specs (their shape is the environment's). */
  async tasks(env: string, split: string): Promise<unknown[]> {
    const schema = z.object({ tasks: z.array(z.unknown()) });
    const path = this.envPath(env, 'tasks');
    return (await this.json({ method: 'POST', path, body: { split } }, schema)).tasks;
  }

  /** POST /create_session: a new session id (JSON {sid}, or the SDK's event stream whose task_id is the sid). */
  async createSession(): Promise<string> {
    const request: HttpRequest = { method: 'POST', url: this.url('/create_session') };
    const max = this.options.maxResponseBytes;
    const sid = await send(request, this.options, async (response, fail) => {
      if (!response.headers.get('content-type')?.includes('text/event-stream'))
        return ((await jsonBody(max)(response, fail)) as { sid?: unknown } | null)?.sid;
      const result = await orsStream(max)(response, fail);
      if (result.kind === 'error') throw fail(`answered an error event: ${result.message}`);
      if (!result.data.trim()) return result.taskId;
      try {
        return (JSON.parse(result.data) as { sid?: unknown } | null)?.sid ?? result.taskId;
      } catch {
        throw fail(`answered an end event that is not JSON: ${JSON.stringify(result.data.slice(0, 80))}`);
      }
    });
    if (typeof sid !== 'string' || sid.length === 0)
      throw new RemoteEnvironmentError('POST', request.url, 'answered no session id (sid)');
    return sid;
  }

  /** POST /create: the episode of session `sid` in `env` for `taskSpec`. */
  async create(sid: string, env: string, taskSpec: Record<string, unknown>): Promise<void> {
    const body = { env_name: env, task_spec: taskSpec };
    await this.json({ method: 'POST', path: '/create', body, headers: { 'X-Session-ID': sid } }, z.unknown());
  }

  /** GET /{env}/prompt: the episode's prompt as text. */
  async prompt(env: string, sid: string): Promise<string> {
    const path = this.envPath(env, 'prompt');
    const blocks = await this.json(
      { method: 'GET', path, headers: { 'X-Session-ID': sid } },
      z.array(blockSchema),
    );
    return blocksText(blocks);
  }

  /** POST /{env}/call {name, input}: the tool's output, or the error the environment reported. */
  async call(env: string, sid: string, name: string, input: Record<string, unknown>): Promise<OrsCallResult> {
    const request: HttpRequest = {
      method: 'POST',
      url: this.url(this.envPath(env, 'call')),
      body: { name, input },
      headers: { 'X-Session-ID': sid, Accept: 'text/event-stream' },
    };
    const result = await send(request, this.options, orsStream(this.options.maxResponseBytes));
    const fail = (what: string) => new RemoteEnvironmentError(request.method, request.url, what);
    if (result.kind === 'error') return { ok: false, error: result.message };
    let body: unknown;
    try {
      body = JSON.parse(result.data);
    } catch {
      throw fail(`streamed a result that is not JSON: ${JSON.stringify(result.data.slice(0, 80))}`);
    }
    const parsed = callResultSchema.safeParse(body);
    if (!parsed.success)
      throw fail(`streamed a result that is not a ToolOutput: ${JSON.stringify(body).slice(0, 120)}`);
    return parsed.data;
  }

  /** POST /delete then /delete_session for `sid`: one attempt each, errors ignored (cleanup is best effort). */
  async delete(sid: string): Promise<void> {
    const once = { ...this.options, retries: 0 };
    for (const path of ['/delete', '/delete_session']) {
      const request: HttpRequest = { method: 'POST', url: this.url(path), headers: { 'X-Session-ID': sid } };
      await send(request, once, async (response) => {
        await response.body?.cancel();
      }).catch(() => undefined);
    }
  }
}
