import { describe, expect, it } from 'vitest';
import { printable } from './printable.ts';

describe('printable', () => {
  it('removes escape sequences and control characters, keeps text, newlines and tabs', () => {
    expect(printable('a\u001b[31mred\u001b[0m\tb\n')).toBe('ared\tb\n');
    expect(printable('\u001b]0;title\u0007x')).toBe('x'); // OSC ended by BEL
    expect(printable('\u001b]8;;http://e\u001b\\link\u001b]8;;\u001b\\')).toBe('link'); // OSC ended by ST
    expect(printable('\u009b2Jok\u009d0;t\u009cz')).toBe('okz'); // 8-bit CSI and OSC
    expect(printable('\u001bP+q\u001b\\y')).toBe('y'); // DCS
    expect(printable('fake\r\b\u0000\u007f\u0085\u202eok')).toBe('fakeok');
    expect(printable('\u001b7\u001b8é ✓')).toBe('é ✓'); // two-byte ESC sequences; other Unicode is kept
  });
});
