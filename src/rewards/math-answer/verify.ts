// Synchronous verification core run inside the worker (work in progress: string comparison only).
import { extractAnswer } from './extract.ts';
import { normalizeAnswer } from './normalize.ts';

export type VerifyTask =
  | {
      kind: 'verify';
      gold: string;
      completion: string;
      question?: string;
      relTol: number;
      boxedOnly: boolean;
    }
  | { kind: 'equivalent'; gold: string; answer: string; relTol: number };

export interface WorkerVerdict {
  correct: boolean;
  extracted: string | null;
  reason?: string;
  goldUnparseable?: boolean;
}

export function verifyTask(task: VerifyTask): WorkerVerdict {
  const answer =
    task.kind === 'verify' ? (extractAnswer(task.completion, task)?.answer ?? null) : task.answer;
  if (answer === null) return { correct: false, extracted: null, reason: 'no answer found' };
  const correct = normalizeAnswer(answer).latex === normalizeAnswer(task.gold).latex;
  return correct
    ? { correct, extracted: answer }
    : { correct, extracted: answer, reason: `wrong: got ${answer}` };
}
