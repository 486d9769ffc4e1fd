// Adam / AdamW (Kingma & Ba 2015; Loshchilov & Hutter 2019, decoupled weight decay) with bias correction
// and global-norm gradient clipping, matching torch.optim.AdamW and torch.nn.utils.clip_grad_norm_:
//
//   g ← g · min(1, clip / (‖g‖ + 1e-6))            (‖g‖ over all parameters together)
//   m ← β1·m + (1−β1)·g,   v ← β2·v + (1−β2)·g²,   t ← t + 1
//   p ← p·(1 − lr·λ) − lr · (m / (1−β1^t)) / (sqrt(v / (1−β2^t)) + ε)
//
// Deviation from torch's default: weight decay λ applies only to parameters of rank ≥ 2 (matrices and
// embeddings), not to biases or LayerNorm weights, as in nanoGPT and GPT-2 training.
//
// The state (step t, m and v per parameter) round-trips exactly through `state()` / `loadState()`.
import type { OptimOptions, OptimStepResult } from '../core/policy.ts';
import { tf } from './runtime.ts';

export const adamDefaults = {
  betas: [0.9, 0.999] as [number, number],
  eps: 1e-8,
  weightDecay: 0,
  gradClip: 0,
};

const clipEpsilon = 1e-6;

export interface AdamState {
  step: number;
  /** First moments by parameter name. */
  m: Map<string, Float32Array>;
  /** Second moments by parameter name. */
  v: Map<string, Float32Array>;
}

export class AdamW {
  private stepCount = 0;
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();

  /** `shapes`: every parameter the optimizer will update, by name. Moments start at zero. */
  constructor(shapes: ReadonlyMap<string, readonly number[]>) {
    for (const [name, shape] of shapes) {
      this.m.set(name, tf.variable(tf.zeros([...shape]), false));
      this.v.set(name, tf.variable(tf.zeros([...shape]), false));
    }
  }

  get step(): number {
    return this.stepCount;
  }

  /**
   * One update of `params` with `grads` (same names; a parameter without a gradient is treated as having
   * gradient 0, so its moments still decay and weight decay still applies, as in torch for a zero grad).
   * Does not dispose the gradients.
   */
  apply(
    params: ReadonlyMap<string, tf.Variable>,
    grads: ReadonlyMap<string, tf.Tensor>,
    options: OptimOptions,
  ): OptimStepResult {
    const [beta1, beta2] = options.betas ?? adamDefaults.betas;
    const eps = options.eps ?? adamDefaults.eps;
    const weightDecay = options.weightDecay ?? adamDefaults.weightDecay;
    const gradClip = options.gradClip ?? adamDefaults.gradClip;
    const learningRate = options.learningRate;
    validate({ learningRate, beta1, beta2, eps, weightDecay, gradClip });
    for (const name of grads.keys()) {
      if (!this.m.has(name)) throw new Error(`optimizer has no state for parameter '${name}'`);
    }

    const gradNorm = globalNorm(grads);
    if (!Number.isFinite(gradNorm)) throw new Error(`gradient norm is ${gradNorm}; refusing to update`);
    const clipScale = gradClip > 0 ? Math.min(1, gradClip / (gradNorm + clipEpsilon)) : 1;
    this.stepCount += 1;
    const t = this.stepCount;
    const firstCorrection = 1 - beta1 ** t;
    const secondCorrection = 1 - beta2 ** t;
    tf.tidy(() => {
      for (const [name, param] of params) {
        const m = this.m.get(name);
        const v = this.v.get(name);
        if (!m || !v) throw new Error(`optimizer has no state for parameter '${name}'`);
        const rawGrad = grads.get(name);
        const grad = rawGrad ? (clipScale === 1 ? rawGrad : tf.mul(rawGrad, clipScale)) : tf.zerosLike(param);
        const newM = tf.add(tf.mul(m, beta1), tf.mul(grad, 1 - beta1));
        const newV = tf.add(tf.mul(v, beta2), tf.mul(tf.mul(grad, grad), 1 - beta2));
        const denominator = tf.add(tf.sqrt(tf.div(newV, secondCorrection)), eps);
        const update = tf.div(tf.mul(newM, learningRate / firstCorrection), denominator);
        const decay = weightDecay > 0 && param.rank >= 2 ? 1 - learningRate * weightDecay : 1;
        const decayed = decay === 1 ? param : tf.mul(param, decay);
        m.assign(newM);
        v.assign(newV);
        param.assign(tf.sub(decayed, update));
      }
    });
    return { gradNorm, step: t };
  }

  /** A copy of the full state (exact float32 values). */
  state(): AdamState {
    const m = new Map<string, Float32Array>();
    const v = new Map<string, Float32Array>();
    for (const [name, variable] of this.m) m.set(name, variable.dataSync() as Float32Array);
    for (const [name, variable] of this.v) v.set(name, variable.dataSync() as Float32Array);
    return { step: this.stepCount, m, v };
  }

  /** Restores a state; names and sizes must match this optimizer's parameters exactly. */
  loadState(state: AdamState): void {
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new Error(`invalid optimizer step ${state.step}`);
    for (const [label, source, target] of [
      ['m', state.m, this.m],
      ['v', state.v, this.v],
    ] as const) {
      if (source.size !== target.size) {
        throw new Error(`optimizer state has ${source.size} '${label}' tensors, expected ${target.size}`);
      }
      for (const [name, variable] of target) {
        const values = source.get(name);
        if (!values) throw new Error(`optimizer state lacks '${label}' for parameter '${name}'`);
        if (values.length !== variable.size) {
          throw new Error(
            `optimizer '${label}' of '${name}' has ${values.length} values, expected ${variable.size}`,
          );
        }
        tf.tidy(() => variable.assign(tf.tensor(values, variable.shape, 'float32')));
      }
    }
    this.stepCount = state.step;
  }

  dispose(): void {
    for (const variable of [...this.m.values(), ...this.v.values()]) variable.dispose();
  }
}

/** sqrt(Σ over all tensors of Σ g²), as one float read back from the backend. */
export function globalNorm(grads: ReadonlyMap<string, tf.Tensor>): number {
  if (grads.size === 0) return 0;
  const squared = tf.tidy(() => tf.addN([...grads.values()].map((grad) => tf.sum(tf.mul(grad, grad)))));
  const value = squared.dataSync()[0];
  squared.dispose();
  return Math.sqrt(value);
}

function validate(options: {
  learningRate: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  gradClip: number;
}): void {
  const { learningRate, beta1, beta2, eps, weightDecay, gradClip } = options;
  if (!(learningRate >= 0 && Number.isFinite(learningRate))) {
    throw new RangeError(`learningRate must be a finite number ≥ 0, got ${learningRate}`);
  }
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) {
    throw new RangeError(`betas must lie in [0, 1), got [${beta1}, ${beta2}]`);
  }
  if (!(eps > 0)) throw new RangeError(`eps must be > 0, got ${eps}`);
  if (!(weightDecay >= 0)) throw new RangeError(`weightDecay must be ≥ 0, got ${weightDecay}`);
  if (!(gradClip >= 0)) throw new RangeError(`gradClip must be ≥ 0, got ${gradClip}`);
}
