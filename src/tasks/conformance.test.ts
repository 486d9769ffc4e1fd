// Conformance suite: every registered task passes checkTask (src/tasks/conformance.ts), the same helper a
// user runs on their own task; and the helper catches a task that breaks its contract.
import { describe, expect, it } from 'vitest';
import { ConformanceError } from '../core/errors.ts';
import { addition } from './addition.ts';
import { checkTask } from './conformance.ts';
import { tasks } from './index.ts';
import type { Task } from './task.ts';

describe.each(tasks.names())('task %s', (name) => {
  it('passes checkTask', () => {
    const report = checkTask(tasks.get(name));
    expect(report.subject).toBe(`task '${name}'`);
    expect(report.checks.length).toBeGreaterThan(10);
  });
});

describe('checkTask on broken tasks', () => {
  it('names the property a broken task violates', () => {
    const throwing: Task = {
      ...addition,
      verify: (problem, completion) => {
        if (completion === '') throw new Error('empty completion');
        return addition.verify(problem, completion);
      },
    };
    expect(() => checkTask(throwing)).toThrow(ConformanceError);
    expect(() => checkTask(throwing)).toThrow('verify("") threw: Error: empty completion');
    const lenient: Task = {
      ...addition,
      verify: (problem) => ({ correct: true, extracted: problem.answer }),
    };
    expect(() => checkTask(lenient)).toThrow("rejects another problem's answer");
    const badAlphabet: Task = { ...addition, alphabet: '0123456789' };
    expect(() => checkTask(badAlphabet, { seeds: 2 })).toThrow('use only the alphabet');
  });
});
