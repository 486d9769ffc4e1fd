// Reads what the sources say about an option: the doc comment above `key:` in a schema, and the text of
// its `.default(…)` when that is an expression rather than a literal (e.g. `availableParallelism()`,
// whose value depends on the machine, so the index prints the expression, not this machine's value).
// Used by the method index and the config reference (./method-index.ts, ./config-reference.ts), so the
// notes are written once, next to the schema, and copied from there.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What the source says about one option key. */
export interface OptionNote {
  /** The doc comment (or line comments) just above `key:`, on one line; '' when none. */
  comment: string;
  /** The `.default(EXPR)` text when EXPR is not a plain literal; undefined otherwise. */
  defaultExpression?: string;
}

const sourceCache = new Map<string, string>();

function readSource(file: string): string {
  let text = sourceCache.get(file);
  if (text === undefined) {
    text = readFileSync(file, 'utf8');
    sourceCache.set(file, text);
  }
  return text;
}

/** The non-test .ts files of a file's folder, the file itself first. */
export function siblingSources(file: string): string[] {
  const dir = dirname(file);
  const others = readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
    .map((name) => join(dir, name))
    .filter((path) => path !== file)
    .sort();
  return [file, ...others];
}

function commentAbove(lines: readonly string[], index: number): string {
  const collected: string[] = [];
  let i = index - 1;
  if (lines[i]?.trim().endsWith('*/')) {
    while (i >= 0) {
      collected.unshift(lines[i]);
      if (lines[i].trim().startsWith('/**') || lines[i].trim().startsWith('/*')) break;
      i--;
    }
    return collected
      .join(' ')
      .replace(/\/\*\*?|\*\//g, '')
      .replace(/\s\*\s/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  }
  while (i >= 0 && lines[i].trim().startsWith('//')) collected.unshift(lines[i--].trim().slice(2).trim());
  return collected.join(' ').replace(/\s+/g, ' ').trim();
}

const literal = /^(-?[\d_.e]+|'[^']*'|"[^"]*"|true|false|null|\[\]|\{\})$/;

/** How many lines of `files` define `key:` (a note on a key defined in several places is ambiguous). */
export function keyDefinitions(key: string, files: readonly string[]): number {
  const pattern = keyPattern(key);
  return files.reduce(
    (count, file) =>
      count +
      readSource(file)
        .split('\n')
        .filter((line) => pattern.test(line)).length,
    0,
  );
}

function keyPattern(key: string): RegExp {
  return new RegExp(`^\\s*${key.replace(/[$]/g, '\\$')}:\\s`);
}

/** Notes on `key` from the first of `files` that defines it as `key:` with a comment or a default. */
export function optionNote(key: string, files: readonly string[]): OptionNote {
  const pattern = keyPattern(key);
  for (const file of files) {
    const lines = readSource(file).split('\n');
    for (let index = 0; index < lines.length; index++) {
      if (!pattern.test(lines[index])) continue;
      const comment = commentAbove(lines, index);
      const expression = lines[index].match(/\.default\((.*)\),?\s*$/)?.[1];
      const defaultExpression =
        expression?.includes('(') && !literal.test(expression) ? expression : undefined;
      if (comment !== '' || defaultExpression !== undefined) {
        return { comment, ...(defaultExpression === undefined ? {} : { defaultExpression }) };
      }
    }
  }
  return { comment: '' };
}

/** The header's `// Defaults …:` sentence (where the method's defaults come from), on one line; '' if none. */
export function headerDefaults(file: string): string {
  const header = readSource(file)
    .split(/^import /m)[0]
    .split('\n');
  const start = header.findIndex((line) => /^\/\/ Defaults\b[^:]*:/.test(line));
  if (start < 0) return '';
  const lines = [header[start].slice(3)];
  // The sentence goes on until a line ends it with a full stop (at most four more lines).
  for (const line of header.slice(start + 1, start + 5)) {
    const text = line.slice(2).trim();
    if (!line.startsWith('//') || text === '' || /[.:]$/.test(lines[lines.length - 1])) break;
    lines.push(text);
  }
  return lines.join(' ').replace(/\s+/g, ' ').trim();
}
