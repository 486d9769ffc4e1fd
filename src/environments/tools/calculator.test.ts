// The calculator tool: exact integer arithmetic (BigInt), precedence, refusals with the position, and
// callTool's schema check, timeout and output cut.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { calculator, evaluateInteger } from './calculator.ts';
import { defineTool } from './define.ts';

describe('calculator', () => {
  it('adds, subtracts and multiplies exactly, with precedence and parentheses', () => {
    expect(evaluateInteger('1234567+7654321')).toBe('8888888');
    expect(evaluateInteger('99999999 + 1')).toBe('100000000');
    expect(evaluateInteger('2+3*4')).toBe('14');
    expect(evaluateInteger('(2+3)*4')).toBe('20');
    expect(evaluateInteger('10-3-2')).toBe('5');
    expect(evaluateInteger('-5*-5')).toBe('25');
    expect(evaluateInteger('123456789*987654321*1000000007')).toBe('121932631966163686788446883');
  });

  it('refuses what is not an integer expression, saying where', () => {
    expect(() => evaluateInteger('2+')).toThrow(/expected a number at character 3/);
    expect(() => evaluateInteger('2/3')).toThrow(/unexpected '\/' at character 2/);
    expect(() => evaluateInteger('(1+2')).toThrow(/expected '\)'/);
    expect(() => evaluateInteger('')).toThrow(/empty/);
    expect(() => evaluateInteger('process.exit()')).toThrow(/unexpected 'p'/);
    expect(() => evaluateInteger(`${'('.repeat(40)}1${')'.repeat(40)}`)).toThrow(/nested parentheses/);
    expect(() => evaluateInteger('1+'.repeat(101))).toThrow(/longer than 200/);
  });

  it('publishes its input as JSON Schema for OpenAI tools', () => {
    expect(calculator.openai).toEqual({
      type: 'function',
      function: {
        name: 'calc',
        description: calculator.description,
        parameters: {
          type: 'object',
          properties: { expression: { type: 'string', minLength: 1, maxLength: 200 } },
          required: ['expression'],
          additionalProperties: false,
        },
      },
    });
  });

  it('Tool.call: schema errors are parse errors, throws and timeouts tool errors, long output cut', async () => {
    const options = { timeoutMs: 50, maxOutputChars: 5 };
    expect(await calculator.call({ expression: '1+1' }, options)).toEqual({ ok: true, output: '2' });
    expect(await calculator.call({ expression: '' }, options)).toMatchObject({
      ok: false,
      kind: 'parse',
    });
    expect(await calculator.call({ expression: '1+' }, options)).toMatchObject({
      ok: false,
      kind: 'tool',
    });
    expect(await calculator.call({ expression: '9999999*9999999' }, options)).toEqual({
      ok: true,
      output: '99999…(9 more)',
    });
    const hanging = defineTool({
      name: 'hang',
      description: 'never answers',
      input: z.object({}),
      fromText: () => ({}),
      run: () => new Promise<string>(() => {}),
    });
    expect(await hanging.call({}, options)).toEqual({
      ok: false,
      kind: 'tool',
      message: 'no answer within 50 ms',
    });
    expect(() =>
      defineTool({
        name: 'bad name',
        description: '',
        input: z.object({}),
        fromText: () => ({}),
        run: async () => '',
      }),
    ).toThrow(/tool name/);
  });
});
