import { describe, expect, it } from 'vitest';
import { isTypeScriptModule, siblingModule } from './sibling-module.ts';

describe('siblingModule', () => {
  it('keeps .ts next to a source module and switches to .js next to a compiled one', () => {
    expect(siblingModule('./worker.ts', 'file:///repo/src/rewards/reward.ts').href).toBe(
      'file:///repo/src/rewards/worker.ts',
    );
    expect(siblingModule('./worker.ts', 'file:///pkg/dist/rewards/reward.js').href).toBe(
      'file:///pkg/dist/rewards/worker.js',
    );
    expect(siblingModule('../policy/tokenizer.ts', 'file:///pkg/dist/bench/x.mjs').href).toBe(
      'file:///pkg/dist/policy/tokenizer.js',
    );
  });

  it('refuses anything but a relative .ts path', () => {
    expect(() => siblingModule('./worker.js', import.meta.url)).toThrow(/relative path to a \.ts module/);
    expect(() => siblingModule('worker.ts', import.meta.url)).toThrow(/relative path/);
  });

  it('tells TypeScript module URLs from compiled ones', () => {
    expect(isTypeScriptModule(new URL('file:///a/b.ts'))).toBe(true);
    expect(isTypeScriptModule(new URL('file:///a/b.mts'))).toBe(true);
    expect(isTypeScriptModule(new URL('file:///a/b.js'))).toBe(false);
  });
});
