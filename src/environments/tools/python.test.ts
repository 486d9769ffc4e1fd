// The python tool in the code-tests sandbox: what a program prints is the answer; an exception, a
// timeout, a flood of output or a network attempt is a tool error saying why. Skipped, with the reason,
// where bubblewrap cannot run.
import { describe, expect, it } from 'vitest';
import { bubblewrap, unlessSkipped } from '../../../test/requirements.ts';
import { pythonTool } from './python.ts';

const sandbox = bubblewrap();
const tool = unlessSkipped(sandbox, () => pythonTool({ limits: { timeoutMs: 2000, maxOutputBytes: 4096 } }));
const options = { timeoutMs: 10_000, maxOutputChars: 200 };

describe(`python tool${sandbox.label}`, () => {
  it.skipIf(sandbox.skip)('answers with what the program prints', async () => {
    expect(await tool.call({ code: 'print(2**100)' }, options)).toEqual({
      ok: true,
      output: '1267650600228229401496703205376',
    });
    expect(
      await tool.call({ code: 'import sys\nprint(sum(range(10)))\nprint("x", file=sys.stderr)' }, options),
    ).toEqual({
      ok: true,
      output: '45',
    });
  });

  it.skipIf(sandbox.skip)(
    'reports failures, timeouts, floods and the network as tool errors',
    async () => {
      expect(await tool.call({ code: 'raise ValueError("bad")' }, options)).toEqual({
        ok: false,
        kind: 'tool',
        message: 'exit 1: ValueError: bad',
      });
      expect(await tool.call({ code: 'while True: pass' }, options)).toMatchObject({
        ok: false,
        kind: 'tool',
        message: expect.stringMatching(/ran past 2000 ms|killed by|exit/),
      });
      expect(await tool.call({ code: 'print("x" * 100000)' }, options)).toEqual({
        ok: false,
        kind: 'tool',
        message: 'the program printed more than 4096 bytes',
      });
      const network = await tool.call(
        { code: 'import socket\nsocket.create_connection(("1.1.1.1", 80), timeout=1)\nprint("reached")' },
        options,
      );
      expect(network.ok).toBe(false);
      expect(await tool.call({ code: '' }, options)).toMatchObject({ ok: false, kind: 'parse' });
    },
    30_000,
  );
});
