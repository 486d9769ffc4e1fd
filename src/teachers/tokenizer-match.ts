// Does a teacher tokenize exactly like the student? On-policy distillation compares log-probs token by
// token (the teacher scores the STUDENT's token ids), so a teacher with another vocabulary would score
// different text, silently. A mismatch is refused at setup with one line naming the first difference.
//
// Two checks, both before a run writes anything:
// - checkpoints (embedded teacher, embedded student): the two tokenizer.json files describe the same
//   tokenizer (same canonical JSON), read before any model is loaded;
// - built backends (a remote teacher or student): the same special ids and vocabulary size, and the same
//   ids for every probe text (the pool's prompts and solutions and the tasks' alphabets).
// A cross-tokenizer teacher would need the student's text re-tokenized for the teacher and the two
// log-prob sequences aligned (byte- or character-level spans, as rllm's `shared_tokenizer: false` and
// TRL GOLD's universal logit distillation do); that is not built here (docs/guidance.md, "Teachers").
import type { Tokenizer } from '../core/policy.ts';

/** The first difference between two tokenizers on their special ids, vocabulary and probes; null = none. */
export function tokenizerMismatch(
  student: Tokenizer,
  teacher: Tokenizer,
  probes: readonly string[],
): string | null {
  for (const key of ['vocabSize', 'bos', 'eos', 'pad'] as const) {
    if (student[key] !== teacher[key]) return `${key} ${teacher[key]} (student ${student[key]})`;
  }
  for (const probe of probes) {
    const studentIds = encodeOrNull(student, probe);
    const teacherIds = encodeOrNull(teacher, probe);
    if (studentIds === null) continue;
    if (teacherIds === null) return `the teacher cannot encode ${JSON.stringify(probe.slice(0, 40))}`;
    if (studentIds.join() !== teacherIds.join()) {
      return `${JSON.stringify(probe.slice(0, 40))} encodes as [${teacherIds.slice(0, 8).join(',')}…] (student [${studentIds.slice(0, 8).join(',')}…])`;
    }
  }
  return null;
}

/** Canonical JSON (sorted keys), so two tokenizer.json files compare by content, not by formatting. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function encodeOrNull(tokenizer: Tokenizer, text: string): number[] | null {
  try {
    return tokenizer.encode(text);
  } catch {
    return null;
  }
}
