// The tool-use cold start's traces (src/tasks/addition-calc.ts) are episodes of the tag-tool environment:
// the supervised datum of a worked solution has exactly the tokens the environment's episode has when the
// policy writes the solution's own parts, and its loss weights are exactly the episode's trained mask —
// so a cold start learns to write the calls and read the outputs, never to predict an output.
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { additionProblem } from '../tasks/addition.ts';
import { additionCalc } from '../tasks/addition-calc.ts';
import { promptTokens, solutionDatum } from '../tasks/format.ts';
import { isHeldOut } from '../tasks/held-out-partition.ts';
import {
  policyParts,
  printableTokenizer,
  sampledWeights,
  scriptedEpisode,
} from '../testing/environments/scripted-turns.ts';
import { parseEpisodeLimits } from './limits.ts';
import { TagToolEnvironment } from './tag-tools.ts';
import { calculator } from './tools/calculator.ts';

const tokenizer = printableTokenizer();

describe('tool-use traces of addition-calc', () => {
  it('are the tag-tool episodes, token for token and mask for mask, at every level', async () => {
    const rng = new Rng(5);
    for (let digits = 1; digits <= 12; digits++) {
      const problem = additionCalc.generate(rng, digits);
      expect(problem.observationSpans).toHaveLength(1);
      const environment = new TagToolEnvironment({
        tokenizer,
        prompt: promptTokens(tokenizer, problem),
        tools: [calculator],
        grade: (completion) => (additionCalc.verify(problem, completion).correct ? 1 : 0),
      });
      const limits = parseEpisodeLimits({ maxTurnTokens: 200, maxObservationTokens: 200 });
      const episode = await scriptedEpisode(tokenizer, policyParts(problem), environment, limits);
      expect(episode.return, problem.prompt).toBe(1);
      const datum = solutionDatum(tokenizer, problem);
      expect(datum.tokens).toEqual(episode.tokens);
      // weights[t] weighs tokens[t + 1]: trained where the policy sampled it (after the prompt).
      expect(datum.weights).toEqual(sampledWeights(episode, promptTokens(tokenizer, problem).length));
      expect(datum.tokens.length).toBeLessThanOrEqual(additionCalc.maxSequenceTokens!(digits));
    }
  });

  it("grades as addition does and sits on addition's held-out side", () => {
    const rng = new Rng(9);
    let heldOut = 0;
    for (let i = 0; i < 400; i++) {
      const problem = additionCalc.generate(rng, 1 + (i % 8));
      const [left, right] = problem.prompt.trim().split('+');
      const plain = additionProblem(left, right);
      expect(problem.prompt).toBe(plain.prompt);
      expect(isHeldOut(problem, 0.2)).toBe(isHeldOut(plain, 0.2));
      if (isHeldOut(problem, 0.2)) heldOut++;
      expect(additionCalc.verify(problem, problem.solution).correct).toBe(true);
      // The tool's output is not an answer: the answer line must copy it.
      expect(
        additionCalc.verify(problem, `<calc>${left}+${right}</calc><out>${plain.answer}</out>`).correct,
      ).toBe(false);
    }
    expect(heldOut).toBeGreaterThan(40);
  });
});
