// Finds the program in a completion: the last fenced block tagged with the problem's language, else the last
// untagged fenced block, else the whole text when the completion has no fence at all.
//
// TAROT (custom_rewards/*.py, `extract_code`) and open-r1 take the last ```python block and give an empty
// program when there is none. Deviation: we also accept an untagged fence and, for fence-free completions,
// the whole text (a bare program), and we say which one was used. A completion whose only fences are in
// other languages yields no program: running its prose as code would only produce a syntax error.
import type { Language } from './sandbox.ts';

export interface ExtractedProgram {
  /** The program text, or null when none was found. */
  code: string | null;
  /** What was used, e.g. 'last ```python block', 'whole completion (no fence)'. */
  source: string;
  /** 1 when the program came from a fenced block. */
  fenced: boolean;
}

const tags: Record<Language, readonly string[]> = {
  python: ['python', 'python3', 'py'],
  javascript: ['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs'],
};

// A fence opens at the start of a line with three or more backticks and an optional info string, and closes
// with a line of at least as many backticks. An unclosed last fence runs to the end of the text (a
// completion cut off at max tokens still has its code graded).
const fencePattern = /^(`{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)(?:^\1`*[ \t]*$|(?![\s\S]))/gm;

export function extractProgram(completion: string, language: Language): ExtractedProgram {
  const blocks: { tag: string; body: string }[] = [];
  for (const match of completion.matchAll(fencePattern)) {
    blocks.push({ tag: match[2].toLowerCase(), body: match[3] });
  }
  if (blocks.length === 0) {
    const code = completion.trim();
    return code
      ? { code: `${code}\n`, source: 'whole completion (no fence)', fenced: false }
      : { code: null, source: 'empty completion', fenced: false };
  }
  const tagged = blocks.filter((block) => tags[language].includes(block.tag));
  if (tagged.length > 0) {
    const block = tagged[tagged.length - 1];
    return { code: block.body, source: `last \`\`\`${block.tag} block`, fenced: true };
  }
  const untagged = blocks.filter((block) => block.tag === '');
  if (untagged.length > 0) {
    return { code: untagged[untagged.length - 1].body, source: 'last untagged ``` block', fenced: true };
  }
  const found = [...new Set(blocks.map((block) => block.tag))].join(', ');
  return { code: null, source: `no ${language} code block (fences found: ${found})`, fenced: false };
}
