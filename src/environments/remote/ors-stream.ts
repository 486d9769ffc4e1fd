// The ORS result stream (openrewardstandard.io/specification/sse): a tool call (and, in the Python SDK's
// server, /create_session) answers with Server-Sent Events: `task_id` (the call's id, for reconnection),
// `chunk`s of the result's JSON when it is longer than 4 KB, then `end` with its last piece — the result
// is the chunks and the end's data joined — or `error` with a message. Comments (keep-alive pings) and
// other event types are skipped. The bytes read are capped like any answer (http.ts); a stream that ends
// before `end` or `error` is an error of the server. Reconnection by task id is not used: a broken stream
// fails the call.
import type { BodyReader } from './http.ts';
import { SseParser } from './sse.ts';

/** What a result stream said: the joined result text, or the server's error message; and its task id. */
export type OrsStreamResult =
  | { kind: 'end'; data: string; taskId?: string }
  | { kind: 'error'; message: string; taskId?: string };

/** Reads an ORS result stream of at most `maxBytes` bytes (see the file header). */
export function orsStream(maxBytes: number): BodyReader<OrsStreamResult> {
  return async (response, fail) => {
    const reader = response.body?.getReader();
    if (!reader) throw fail('answered an empty event stream');
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    let taskId: string | undefined;
    let total = 0;
    const ended = (): never => {
      throw fail(
        `the event stream ended without an 'end' or 'error' event (${total} bytes, ${chunks.length} chunks)`,
      );
    };
    // The result once an `end` or `error` event arrives; undefined while the stream goes on.
    const take = (text: string): OrsStreamResult | undefined => {
      for (const event of parser.push(text)) {
        if (event.event === 'task_id') taskId = event.data.trim();
        else if (event.event === 'chunk') chunks.push(event.data);
        else if (event.event === 'end') return { kind: 'end', data: chunks.join('') + event.data, taskId };
        else if (event.event === 'error')
          return { kind: 'error', message: event.data || 'unknown error', taskId };
      }
      return undefined;
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        // A last event the server did not end with a blank line still counts.
        if (done) return take(`${decoder.decode()}\n\n`) ?? ended();
        total += value.byteLength;
        if (total > maxBytes)
          throw fail(`streamed more than the ${maxBytes} bytes allowed (maxResponseBytes)`);
        const result = take(decoder.decode(value, { stream: true }));
        if (result) return result;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  };
}
