// The SSE parser against streams written by hand: events cut at every possible place give the same
// events as the whole stream; CRLF, CR and LF line ends; comments; missing `event` and `data` fields.
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse.ts';

function parseAll(pieces: readonly string[]): SseEvent[] {
  const parser = new SseParser();
  return pieces.flatMap((piece) => parser.push(piece));
}

const stream =
  'event: task_id\r\ndata: abc\r\n\r\n: ping\r\n\r\nevent: chunk\ndata: {"ok":\n\nevent:end\rdata:  true}\r\rdata: line1\ndata: line2\n\nid: 7\nretry\n\n';
const expected: SseEvent[] = [
  { event: 'task_id', data: 'abc' },
  { event: 'chunk', data: '{"ok":' },
  { event: 'end', data: ' true}' },
  { event: 'message', data: 'line1\nline2' },
];

describe('SseParser', () => {
  it('parses event types, data lines, comments and the three line ends', () => {
    expect(parseAll([stream])).toEqual(expected);
  });

  it('gives the same events however the stream is cut (every split point, and char by char)', () => {
    for (let at = 0; at <= stream.length; at++) {
      expect(parseAll([stream.slice(0, at), stream.slice(at)])).toEqual(expected);
    }
    expect(parseAll([...stream])).toEqual(expected);
  });

  it('dispatches a named event without data as empty, drops an unnamed one and an unfinished one', () => {
    expect(parseAll(['event: end\n\n', 'id: 1\n\n', 'event: end\ndata: x'])).toEqual([
      { event: 'end', data: '' },
    ]);
  });
});
