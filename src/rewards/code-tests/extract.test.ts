// Program extraction: which block is used, and that the source is reported.
import { describe, expect, it } from 'vitest';
import { extractProgram } from './extract.ts';

describe('extractProgram', () => {
  it('takes the last block tagged with the language', () => {
    const text =
      'First try:\n```python\nprint(1)\n```\nBetter:\n```py\nprint(2)\n```\n```js\nconsole.log(3)\n```\n';
    expect(extractProgram(text, 'python')).toEqual({
      code: 'print(2)\n',
      source: 'last ```py block',
      fenced: true,
    });
    expect(extractProgram(text, 'javascript')).toEqual({
      code: 'console.log(3)\n',
      source: 'last ```js block',
      fenced: true,
    });
  });

  it('falls back to the last untagged block', () => {
    expect(extractProgram('```\nprint(1)\n```', 'python')).toEqual({
      code: 'print(1)\n',
      source: 'last untagged ``` block',
      fenced: true,
    });
  });

  it('uses the whole text when there is no fence', () => {
    expect(extractProgram('  print(input())\n', 'python')).toEqual({
      code: 'print(input())\n',
      source: 'whole completion (no fence)',
      fenced: false,
    });
    expect(extractProgram('   ', 'python').code).toBeNull();
  });

  it('finds no program when the only fences are in other languages', () => {
    const result = extractProgram('```bash\nls\n```', 'python');
    expect(result.code).toBeNull();
    expect(result.source).toBe('no python code block (fences found: bash)');
  });

  it('grades an unclosed final fence (completion cut at max tokens)', () => {
    expect(extractProgram('```python\nprint(1)\nprint(2', 'python').code).toBe('print(1)\nprint(2');
  });

  it('keeps inner backticks that do not close the fence', () => {
    const text = '````python\ns = "```"\nprint(s)\n````';
    expect(extractProgram(text, 'python').code).toBe('s = "```"\nprint(s)\n');
  });
});
