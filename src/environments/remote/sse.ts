// An incremental parser of Server-Sent Events (the WHATWG "event stream interpretation", html.spec.whatwg.org
// §9.2.6), for the ORS tool-call stream (openrewardstandard.io/specification/sse). Text is pushed as it
// arrives, in pieces cut anywhere (inside a line, between "\r" and "\n"); a blank line ends an event.
// Lines starting with ':' are comments (ORS servers send them as keep-alive pings) and are skipped; a
// line without ':' is a field with an empty value; one space after the colon is dropped; several `data`
// lines join with "\n"; an event without an `event` field is a 'message'. One deviation: an event with
// an `event` field and no `data` line is dispatched with data '' (the standard drops it), so an `end`
// written without data still ends the stream. Fields other than `event` and `data` (`id`, `retry`) are
// ignored: ORS reconnects through its own task id, which this client does not use.

/** One dispatched event: its type ('message' when the stream named none) and its data lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Parses an event stream pushed piece by piece (see the file header). */
export class SseParser {
  private buffer = '';
  /** The previous piece ended in "\r": a "\n" opening the next one belongs to that line end. */
  private afterCarriageReturn = false;
  private eventType = '';
  private dataLines: string[] | null = null;

  /** Feeds the next piece of text; returns the events it completes, in order. */
  push(text: string): SseEvent[] {
    let piece = text;
    if (this.afterCarriageReturn && piece.startsWith('\n')) piece = piece.slice(1);
    this.afterCarriageReturn = false;
    this.buffer += piece;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone "\r" at the very end may be the first half of "\r\n": wait for the next piece.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) {
        this.afterCarriageReturn = true;
      }
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      const data = this.dataLines;
      const named = this.eventType;
      this.eventType = '';
      this.dataLines = null;
      if (data === null && named === '') return undefined;
      return { event: named || 'message', data: (data ?? []).join('\n') };
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.eventType = value;
    else if (field === 'data') this.dataLines = [...(this.dataLines ?? []), value];
    return undefined;
  }
}
