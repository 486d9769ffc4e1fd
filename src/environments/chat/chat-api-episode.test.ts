// runChatApiEpisode's limits with a fake chat API: an environment step that never answers ends the
// episode as an environment error within stepTimeoutMs, and the environment is closed.
import { describe, expect, it } from 'vitest';
import type { ChatApi } from '../../backends/openai/chat-completions.ts';
import { testTools } from '../../testing/chat/test-helpers.ts';
import { parseEpisodeLimits } from '../limits.ts';
import { runChatApiEpisode } from './chat-api-episode.ts';
import type { ChatEnvironment } from './contract.ts';

const api: ChatApi = {
  label: 'fake',
  complete: async () => ({
    content: null,
    toolCalls: [{ id: 'c0', name: 'lookup', arguments: '{"query": "x"}' }],
    finishReason: 'tool_calls',
  }),
};

describe('runChatApiEpisode', () => {
  it('ends an episode whose environment step hangs, within stepTimeoutMs, and closes the environment', async () => {
    let closed = false;
    const hanging: ChatEnvironment = {
      tools: testTools,
      initialMessages: async () => [{ role: 'user', content: 'find x' }],
      step: () => new Promise(() => undefined),
      close: async () => {
        closed = true;
      },
    };
    const started = Date.now();
    const episode = await runChatApiEpisode(hanging, api, {
      limits: parseEpisodeLimits({ stepTimeoutMs: 50 }),
      temperature: 1,
      topP: 1,
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(episode.end).toBe('environment_error');
    expect(episode.reason).toMatch(/the environment step did not answer within 50 ms/);
    expect(episode.errors.environment).toBe(1);
    expect(closed).toBe(true);
  });
});
