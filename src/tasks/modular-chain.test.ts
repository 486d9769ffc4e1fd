import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { modularChain, modularChainProblem } from './modular-chain.ts';

describe('modular-chain', () => {
  it('evaluates left to right with a reduction after each step (hand-checked)', () => {
    const problem = modularChainProblem(
      3,
      [
        { operation: '+', operand: 5 },
        { operation: '*', operand: 4 },
        { operation: '-', operand: 2 },
      ],
      7,
    );
    // 3+5=8≡1, 1*4=4, 4-2=2 (mod 7); with precedence 3+5*4-2 would be 21≡0, so the order matters
    expect(problem.prompt).toBe('mod 7:3;+5;*4;-2\n');
    expect(problem.solution).toBe('3+5=1\n1*4=4\n4-2=2\nA:2');
    expect(problem.answer).toBe('2');
    expect(problem.params).toEqual({ steps: 3, modulus: 7 });
  });

  it('wraps subtraction into [0, p): 2-5 mod 7 = 4', () => {
    const problem = modularChainProblem(2, [{ operation: '-', operand: 5 }], 7);
    expect(problem.solution).toBe('2-5=4\nA:4');
  });

  it('matches an independent evaluation and rejects wrong answers', () => {
    const rng = new Rng(8);
    for (let i = 0; i < 200; i++) {
      const problem = modularChain.generate(rng, 8);
      const [head, body] = problem.prompt.trim().split(':');
      const modulus = BigInt(head.slice(4));
      const [start, ...steps] = body.split(';');
      let value = BigInt(start);
      for (const step of steps) {
        const operand = BigInt(step.slice(1));
        value = step[0] === '+' ? value + operand : step[0] === '-' ? value - operand : value * operand;
        value = ((value % modulus) + modulus) % modulus;
      }
      expect(problem.answer).toBe(String(value));
      const wrong = String((value + 1n) % modulus);
      expect(modularChain.verify(problem, `A:${wrong}`).correct).toBe(false);
    }
  });

  it('uses the default prime moduli in generate and any modulus 2..97 from params', () => {
    const rng = new Rng(2);
    for (let i = 0; i < 100; i++)
      expect([5, 7, 11, 13]).toContain(modularChain.generate(rng, 2).params.modulus);
    expect(modularChain.generateFromParams!(rng, { steps: 3, modulus: 60 }).params).toEqual({
      steps: 3,
      modulus: 60,
    });
  });
});
