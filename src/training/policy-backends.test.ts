// The policy-backend registry's checks of the tokenizer settings: they belong to remote backends (the
// embedded policy refuses them, naming the key), and a remote backend reads policy.tokenizer before it
// connects, so a bad directory is named before any network call.
import { describe, expect, it } from 'vitest';
import { policyBackendOf, policyBackends, resolvePolicyAddress } from './policy-backends.ts';
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

describe('policy addresses: one resolver for both naming schemes', () => {
  it('maps bare ids, tinker://, http(s):// and openai: to their backends', () => {
    expect(resolvePolicyAddress('embedded')).toEqual({ backend: 'embedded' });
    expect(resolvePolicyAddress('tinker')).toEqual({ backend: 'tinker' });
    expect(resolvePolicyAddress('tinker://127.0.0.1:8000')).toEqual({
      backend: 'tinker',
      address: 'tinker://127.0.0.1:8000',
    });
    expect(resolvePolicyAddress('https://tinker.example/v1')).toEqual({
      backend: 'tinker',
      address: 'https://tinker.example/v1',
    });
    expect(resolvePolicyAddress('openai:http://127.0.0.1:8000#demo')).toEqual({
      backend: 'openai',
      address: 'http://127.0.0.1:8000#demo',
    });
  });

  it('policyBackendOf names the registered backend; an unknown one lists the known', () => {
    expect(policyBackendOf(undefined)).toBe(policyBackends.get('embedded'));
    expect(policyBackendOf({ backend: 'tinker' } as RlPolicyBlock)).toBe(policyBackends.get('tinker'));
    expect(policyBackends.info('tinker')?.kind).toBe('policy-backend');
    expect(() => policyBackendOf({ backend: 'nope' } as unknown as RlPolicyBlock)).toThrow(
      "unknown policy backend 'nope'; known: embedded, tinker",
    );
  });
});

function never(): never {
  throw new Error('not called');
}
