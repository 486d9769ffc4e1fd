// search-facts' traces (src/tasks/search-facts.ts) against the real search tool over each problem's own
// documents: every `<out>…</out>` is the tool's answer (searchResults 1), a k-hop question is not
// answered by fewer searches, and the supervised datum of a worked solution is, token for token and mask
// for mask, the tag-tools episode of a block that searches per problem (problem-search.ts).
import { describe, expect, it } from 'vitest';
import type { Problem } from '../core/problem.ts';
import { Rng } from '../core/rng.ts';
import { promptTokens, solutionDatum } from '../tasks/format.ts';
import { searchFacts } from '../tasks/search-facts.ts';
import {
  policyParts,
  printableTokenizer,
  sampledWeights,
  scriptedEpisode,
} from '../testing/environments/scripted-turns.ts';
import { buildTools, environmentFor, tagToolsBlockSchema } from './block.ts';
import { parseEpisodeLimits } from './limits.ts';
import { type SearchDocument, searchTool } from './tools/search.ts';

const tokenizer = printableTokenizer();
const call = { timeoutMs: 5000, maxOutputChars: 64 };
const documentsOf = (problem: Problem) => problem.metadata?.documents as SearchDocument[];
const queries = (problem: Problem) =>
  [...problem.solution.matchAll(/<search>(.*?)<\/search>/g)].map((m) => m[1]);

const block = tagToolsBlockSchema.parse({ name: 'tag-tools', tools: ['search'], searchResults: 1 });
const limits = parseEpisodeLimits({ maxTurnTokens: 200, maxObservationTokens: 200 });

describe('search-facts traces', () => {
  it("show exactly the search tool's answers over the problem's documents", async () => {
    const rng = new Rng(7);
    for (let i = 0; i < 120; i++) {
      const problem = searchFacts.generateFromParams!(rng, { hops: 1 + (i % 3), distractors: i % 7 });
      const tool = searchTool(documentsOf(problem), { results: 1 });
      const shown = (problem.observationSpans ?? []).map(([s, e]) => problem.solution.slice(s, e));
      const answers = [];
      for (const query of queries(problem)) {
        const outcome = await tool.call(tool.fromText(query), call);
        answers.push(outcome.ok ? `<out>${outcome.output}</out>` : outcome.message);
      }
      tool.close();
      expect(answers, problem.prompt).toEqual(shown);
    }
  });

  it('need k searches: the searches before the last (and the question itself) never show the answer', async () => {
    const rng = new Rng(8);
    for (let i = 0; i < 120; i++) {
      const hops = 2 + (i % 2);
      const problem = searchFacts.generateFromParams!(rng, { hops, distractors: i % 7 });
      // The default three results per search: more than the traces show, still not the answer.
      const tool = searchTool(documentsOf(problem));
      const early = [...queries(problem).slice(0, hops - 1), problem.prompt.trim()];
      for (const query of early) {
        const outcome = await tool.call(tool.fromText(query), call);
        const text = outcome.ok ? outcome.output : '';
        expect(text.includes(problem.answer), `${problem.prompt} ${query}: ${text}`).toBe(false);
      }
      const last = await tool.call(tool.fromText(queries(problem)[hops - 1]), call);
      expect(last.ok && last.output.includes(problem.answer)).toBe(true);
      tool.close();
    }
  });

  it('are the episodes of a tag-tools block that searches per problem, token for token and mask for mask', async () => {
    const rng = new Rng(9);
    const { tools, close } = buildTools(block);
    expect(tools).toEqual([]);
    for (let i = 0; i < 30; i++) {
      const problem = searchFacts.generate(rng, 1 + (i % 3));
      const environment = environmentFor(block, tools, {
        tokenizer,
        prompt: promptTokens(tokenizer, problem),
        grade: (completion) => (searchFacts.verify(problem, completion).correct ? 1 : 0),
        problem,
      });
      const episode = await scriptedEpisode(tokenizer, policyParts(problem), environment, limits);
      expect(episode.return, problem.prompt).toBe(1);
      const datum = solutionDatum(tokenizer, problem);
      expect(datum.tokens).toEqual(episode.tokens);
      expect(datum.weights).toEqual(sampledWeights(episode, promptTokens(tokenizer, problem).length));
    }
    close();
  });

  it('give a problem without documents a tool error saying so', async () => {
    const problem = { ...searchFacts.generate(new Rng(1), 1), metadata: {} };
    const environment = environmentFor(block, [], {
      tokenizer,
      prompt: promptTokens(tokenizer, problem),
      grade: () => 0,
      problem,
    });
    const episode = await scriptedEpisode(tokenizer, policyParts(problem), environment, limits);
    expect(episode.errors.tool).toBe(1);
    expect(tokenizer.decode(episode.tokens)).toContain('<out>error: problem search-facts-1-');
  });
});
