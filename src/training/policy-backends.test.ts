// The policy-backend registry's checks of the tokenizer settings: they belong to remote backends (the
// embedded policy refuses them, naming the key), and a remote backend reads policy.tokenizer before it
// connects, so a bad directory is named before any network call.
import { describe, expect, it } from 'vitest';
import { policyBackendOf } from './policy-backends.ts';
import type { RlPolicyBlock } from './policy-block.ts';

describe('policy backends: tokenizer settings', () => {
  it('the embedded policy refuses policy.tokenizer, promptFormat and chatTemplateVariables', () => {
    for (const extra of [
      { tokenizer: 'models/qwen' },
      { promptFormat: 'chat' as const },
      { chatTemplateVariables: { enable_thinking: false } },
    ]) {
      const policy = { workers: 1, ...extra } as RlPolicyBlock;
      const key = Object.keys(extra)[0];
      expect(() => policyBackendOf(policy).validate({ policy })).toThrow(
        new RegExp(`policy\\.${key} is for remote backends`),
      );
    }
  });

  it('a Tinker policy reads policy.tokenizer before connecting', async () => {
    const policy = {
      workers: 1,
      backend: 'tinker',
      tokenizer: '/nonexistent/model',
      // Port 9 (discard) on loopback: nothing listens; the tokenizer error must come first.
      tinker: { url: 'http://127.0.0.1:9', baseModel: 'm' },
    } as unknown as RlPolicyBlock;
    const factory = policyBackendOf(policy);
    factory.validate({ policy });
    await expect(
      factory.build({ policy, checkpoint: null, init: null, create: async () => never(), role: 'policy' }),
    ).rejects.toThrow(/policy\.tokenizer \/nonexistent\/model: no tokenizer\.json there/);
  });
});

function never(): never {
  throw new Error('not called');
}
