import { beforeAll, describe, expect, it } from 'vitest';
import { AdamW } from './optimizer.ts';
import { initRuntime, tf } from './runtime.ts';

beforeAll(async () => {
  await initRuntime('wasm');
});

/** torch.optim.AdamW + clip_grad_norm_, written out in float64 for two tensors (matrix decays, bias not). */
function referenceSteps(
  start: { w: number[]; b: number[] },
  gradients: { w: number[]; b: number[] }[],
  options: { lr: number; beta1: number; beta2: number; eps: number; weightDecay: number; clip: number },
) {
  const p = { w: [...start.w], b: [...start.b] };
  const m = { w: start.w.map(() => 0), b: start.b.map(() => 0) };
  const v = { w: start.w.map(() => 0), b: start.b.map(() => 0) };
  const norms: number[] = [];
  gradients.forEach((grad, index) => {
    const t = index + 1;
    const norm = Math.sqrt([...grad.w, ...grad.b].reduce((s, g) => s + g * g, 0));
    norms.push(norm);
    const scale = options.clip > 0 ? Math.min(1, options.clip / (norm + 1e-6)) : 1;
    for (const key of ['w', 'b'] as const) {
      for (let i = 0; i < p[key].length; i++) {
        const g = grad[key][i] * scale;
        m[key][i] = options.beta1 * m[key][i] + (1 - options.beta1) * g;
        v[key][i] = options.beta2 * v[key][i] + (1 - options.beta2) * g * g;
        const mHat = m[key][i] / (1 - options.beta1 ** t);
        const vHat = v[key][i] / (1 - options.beta2 ** t);
        const decay = key === 'w' ? 1 - options.lr * options.weightDecay : 1;
        p[key][i] = p[key][i] * decay - (options.lr * mHat) / (Math.sqrt(vHat) + options.eps);
      }
    }
  });
  return { p, norms };
}

describe('AdamW', () => {
  const start = { w: [0.5, -1, 2, 0.25], b: [0.1, -0.2] };
  const gradients = [
    { w: [1, -2, 0.5, 3], b: [0.3, -0.1] },
    { w: [-0.5, 1, 0.25, -1], b: [2, 0.5] },
    { w: [0.1, 0.1, -4, 0], b: [0, -3] },
  ];
  const options = { lr: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, clip: 2 };

  function run(steps: number, optimizer?: AdamW, params?: Map<string, tf.Variable>) {
    params ??= new Map<string, tf.Variable>([
      ['w', tf.variable(tf.tensor2d(start.w, [2, 2]))],
      ['b', tf.variable(tf.tensor1d(start.b))],
    ]);
    optimizer ??= new AdamW(new Map([...params].map(([name, variable]) => [name, variable.shape])));
    const norms: number[] = [];
    for (let s = optimizer.step; s < steps; s++) {
      const grads = new Map<string, tf.Tensor>([
        ['w', tf.tensor2d(gradients[s].w, [2, 2])],
        ['b', tf.tensor1d(gradients[s].b)],
      ]);
      const result = optimizer.apply(params, grads, {
        learningRate: options.lr,
        betas: [options.beta1, options.beta2],
        eps: options.eps,
        weightDecay: options.weightDecay,
        gradClip: options.clip,
      });
      expect(result.step).toBe(s + 1);
      norms.push(result.gradNorm);
      tf.dispose([...grads.values()]);
    }
    return { params, optimizer, norms };
  }

  it('matches a float64 torch-style AdamW with clipping and decoupled decay (matrices only)', () => {
    const { params, optimizer, norms } = run(3);
    const expected = referenceSteps(start, gradients, options);
    for (let i = 0; i < 3; i++) expect(norms[i]).toBeCloseTo(expected.norms[i], 5);
    // The first step's norm: sqrt(1 + 4 + 0.25 + 9 + 0.09 + 0.01) = sqrt(14.35).
    expect(norms[0]).toBeCloseTo(Math.sqrt(14.35), 5);
    const w = Array.from(params.get('w')!.dataSync());
    const b = Array.from(params.get('b')!.dataSync());
    for (const [i, value] of w.entries()) expect(value).toBeCloseTo(expected.p.w[i], 6);
    for (const [i, value] of b.entries()) expect(value).toBeCloseTo(expected.p.b[i], 6);
    optimizer.dispose();
    tf.dispose([...params.values()]);
  });

  it('resumes exactly from a saved state', () => {
    const straight = run(3);
    const first = run(2);
    const state = first.optimizer.state();
    const restored = new AdamW(new Map([...first.params].map(([name, variable]) => [name, variable.shape])));
    restored.loadState(state);
    expect(restored.step).toBe(2);
    const resumed = run(3, restored, first.params);
    for (const name of ['w', 'b']) {
      expect(resumed.params.get(name)!.dataSync()).toEqual(straight.params.get(name)!.dataSync());
    }
    expect(restored.state().m.get('w')).toEqual(straight.optimizer.state().m.get('w'));
    expect(() => restored.loadState({ ...state, m: new Map([['w', new Float32Array(4)]]) })).toThrow(
      /1 'm' tensors, expected 2/,
    );
    for (const run of [straight, first]) {
      run.optimizer.dispose();
      tf.dispose([...run.params.values()]);
    }
    restored.dispose();
  });
});
