// One episode in an environment served over HTTP by an ORS server (ors-client.ts), for the embedded
// character model, in the compact syntax of tag-tools.ts: the server's tools' names become stop strings
// `</name>`; a turn that ends with `<name>input</name>` is forwarded to the server as a tool call (the
// input read by tool-input.ts), and its output is appended as `<out>…</out>` (or `<out>error: why</out>`
// when the environment reports the call failed). Each output's reward is that turn's reward; `finished`
// ends the episode. EOS, the turn's budget or a turn without a call end the episode too, with reward 0:
// ORS has no end-of-episode grading call, so an environment grades through its tools (a `submit` tool),
// and an episode the policy ends without one earns only what its calls earned.
//
// Session lifecycle (openrewardstandard.io/specification/overview): initialObservation creates the
// session and its episode for the task spec, fetches the server's prompt (the spec's step 3, where a
// server's failed setup shows) and the session's tools; the first observation is the run's prompt tokens,
// so the policy sees the format it was trained on. close() deletes the session, best effort, never throws.
// A server that cannot be reached after the retries, is late or answers something that is not the
// protocol makes initialObservation or step throw a RemoteEnvironmentError: the runner (episode.ts) ends
// only this episode, end 'environment_error', with that message.
import type { Tokenizer } from '../../core/policy.ts';
import type { Action, Environment, Observation, StepResult } from '../contract.ts';
import { encodable, toolOutputText } from '../tag-tools.ts';
import { blocksText, type OrsClient, type OrsToolSpec } from './ors-client.ts';
import { RemoteEnvironmentError } from './remote-error.ts';
import { toolInput } from './tool-input.ts';

/** What a remote episode is made of: the server, the environment's name, the task and the prompt. */
export interface RemoteEnvironmentOptions {
  client: OrsClient;
  /** The environment's name on the server (the `{env_name}` of its endpoints). */
  env: string;
  /** The task spec sent with POST /create (its shape is the environment's). */
  taskSpec: Record<string, unknown>;
  tokenizer: Tokenizer;
  /** The first observation: the prompt's tokens (BOS included). */
  prompt: number[];
  /** Longer tool outputs are cut (default 64 characters). */
  maxOutputChars?: number;
  /** The server's tools the policy may call; absent or empty: every tool the session lists. */
  allowedTools?: readonly string[];
}

function cut(text: string, most: number): string {
  return text.length <= most ? text : `${text.slice(0, most)}…(${text.length - most} more)`;
}

/** One episode of an ORS environment in the compact tag syntax (see the file header). */
export class RemoteEnvironment implements Environment {
  private sid: string | undefined;
  private tools: OrsToolSpec[] = [];
  private stop: string[] = [];

  constructor(private readonly options: RemoteEnvironmentOptions) {}

  /** Opens the session and its episode; the run's prompt, with every server tool's closing tag as a stop. */
  async initialObservation(): Promise<Observation> {
    const { client, env } = this.options;
    this.sid = await client.createSession();
    await client.create(this.sid, env, this.options.taskSpec);
    await client.prompt(env, this.sid);
    const listed = await client.tools(env, this.sid);
    const where = client.url(`/${encodeURIComponent(env)}/tools`);
    const allowed = this.options.allowedTools ?? [];
    const missing = allowed.filter((name) => !listed.some((tool) => tool.name === name));
    if (missing.length > 0)
      throw new RemoteEnvironmentError(
        'GET',
        where,
        `the environment has no tool ${missing.join(', ')} (tools)`,
      );
    const tools = allowed.length === 0 ? listed : listed.filter((tool) => allowed.includes(tool.name));
    if (tools.length === 0) throw new RemoteEnvironmentError('GET', where, 'the environment offers no tools');
    const bad = tools.find((tool) => !/^[A-Za-z0-9_.-]+$/.test(tool.name));
    if (bad)
      throw new RemoteEnvironmentError(
        'GET',
        where,
        `tool name ${JSON.stringify(bad.name)} cannot be a tag (letters, digits, _ . - only)`,
      );
    this.tools = tools;
    this.stop = tools.map((tool) => `</${tool.name}>`);
    return { tokens: [...this.options.prompt], stop: { stop: this.stop } };
  }

  /** Forwards the call the action ends with and shows its output; ends the episode when there is none. */
  async step(action: Action): Promise<StepResult> {
    const tool =
      action.stopReason === 'stop'
        ? this.tools.find((candidate) => action.text.endsWith(`</${candidate.name}>`))
        : undefined;
    if (!tool || this.sid === undefined) return { reward: 0, done: true };
    const metrics = { tool_calls: 1, [`tool_calls/${tool.name}`]: 1 };
    const close = `</${tool.name}>`;
    const open = action.text.lastIndexOf(`<${tool.name}>`, action.text.length - close.length);
    const input =
      open < 0
        ? { ok: false as const, message: `${close} without <${tool.name}> in the same turn` }
        : toolInput(tool, action.text.slice(open + tool.name.length + 2, action.text.length - close.length));
    if (!input.ok)
      return this.shown(`error: ${input.message}`, 0, metrics, { kind: 'parse', message: input.message });
    const result = await this.options.client.call(this.options.env, this.sid, tool.name, input.input);
    if (!result.ok)
      return this.shown(`error: ${result.error}`, 0, metrics, { kind: 'tool', message: result.error });
    const reward = result.output.reward ?? 0;
    if (result.output.finished) return { reward, done: true, metrics };
    return this.shown(blocksText(result.output.blocks), reward, metrics);
  }

  /** Deletes the session (best effort: a failure is ignored, never thrown). */
  async close(): Promise<void> {
    const sid = this.sid;
    this.sid = undefined;
    if (sid !== undefined) await this.options.client.delete(sid).catch(() => undefined);
  }

  private shown(
    output: string,
    reward: number,
    metrics: Record<string, number>,
    error?: StepResult['error'],
  ): StepResult {
    const text = toolOutputText(cut(output, this.options.maxOutputChars ?? 64));
    return {
      reward,
      done: false,
      observation: { tokens: encodable(this.options.tokenizer, text), stop: { stop: this.stop } },
      error,
      metrics,
    };
  }
}
