// The native (OpenBLAS) matmul kernels against the wasm ones they replace: values and gradients of
// MatMul, BatchMatMul and _FusedMatMul for every transpose combination, batch broadcasting, bias and
// activations, the model's own shapes, and a full forward + backward of the tiny model. Values are also
// checked against a float64 loop written here; also the leading-axis Sum. Skipped, with the reason, where
// the addon is not built (loading it: native-addon.test.ts; the elementwise kernels: native-elementwise.test.ts).
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeKernels } from '../../test/requirements.ts';
import {
  heapGrowingOuterProduct,
  randomArray,
  randomTensor,
  relativeError,
  tinyModelLogitsAndGradients,
} from '../testing/policy/kernel-test-helpers.ts';
import {
  nativeAddonPath,
  nativeKernelStatus,
  nativeMatMulCount,
  nativeSumCount,
  setNativeKernels,
} from './native-kernels.ts';
import { initRuntime, tf } from './runtime.ts';

const inheritedOpenblasThreads = process.env.OPENBLAS_NUM_THREADS;
await initRuntime('wasm');
const native = nativeKernels();

/** Runs `compute` with the native kernels, then with the wasm ones: [native, wasm, native calls]. */
function onBothPaths(compute: () => Float32Array[]): [Float32Array[], Float32Array[], number] {
  const before = nativeMatMulCount();
  setNativeKernels(true);
  const native = compute();
  const calls = nativeMatMulCount() - before;
  setNativeKernels(false);
  try {
    return [native, compute(), calls];
  } finally {
    setNativeKernels(true);
  }
}

interface MatMulCase {
  name: string;
  aShape: number[];
  bShape: number[];
  transposeA: boolean;
  transposeB: boolean;
  /** _FusedMatMul with this bias length (n) and activation; plain matMul when absent. */
  fused?: { bias: boolean; activation: tf.fused.Activation };
  /** tfjs's BatchMatMul gradient rejects broadcast batch dimensions: compare values only. */
  broadcast?: boolean;
  /**
   * The stock wasm kernel's values are wrong here, so only the reference judges ours. tfjs-backend-wasm
   * 4.22's _FusedMatMul adds the bias wrongly when the batch is > 1 (max error 5.0 on [2,5,4]·[2,4,6]
   * with bias 1..6, while the 2-D product is exact), and its BatchMatMul broadcasts [2,1] with [1,3]
   * as a batch of max(2, 3) = 3: 18 values under a shape of 36.
   */
  stockValuesWrong?: boolean;
}

/** Numpy broadcasting, spelled out: the flat index into `shape` of entry `flat` of `outShape`. */
function sourceIndex(shape: number[], outShape: number[], flat: number): number {
  const position: number[] = [];
  for (let axis = outShape.length - 1; axis >= 0; axis--) {
    position.unshift(flat % outShape[axis]);
    flat = Math.floor(flat / outShape[axis]);
  }
  const offset = outShape.length - shape.length;
  let index = 0;
  for (let axis = 0; axis < shape.length; axis++)
    index = index * shape[axis] + (shape[axis] === 1 ? 0 : position[axis + offset]);
  return index;
}

/** Float64 reference of matMul with numpy-style broadcasting of the batch dimensions. */
function referenceMatMul(c: MatMulCase, a: Float32Array, b: Float32Array, bias?: Float32Array): number[] {
  const ar = c.aShape.length;
  const br = c.bShape.length;
  const m = c.aShape[c.transposeA ? ar - 1 : ar - 2];
  const k = c.aShape[c.transposeA ? ar - 2 : ar - 1];
  const n = c.bShape[c.transposeB ? br - 2 : br - 1];
  const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(
    c.aShape.slice(0, -2),
    c.bShape.slice(0, -2),
  );
  const batches = batchShape.reduce((p, n) => p * n, 1);
  const aIndex = Array.from({ length: batches }, (_, i) => sourceIndex(c.aShape.slice(0, -2), batchShape, i));
  const bIndex = Array.from({ length: batches }, (_, i) => sourceIndex(c.bShape.slice(0, -2), batchShape, i));
  const out: number[] = [];
  for (let batch = 0; batch < aIndex.length; batch++) {
    const aBase = aIndex[batch] * m * k;
    const bBase = bIndex[batch] * k * n;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let sum = bias ? bias[j] : 0;
        for (let p = 0; p < k; p++) {
          const x = a[aBase + (c.transposeA ? p * m + i : i * k + p)];
          const y = b[bBase + (c.transposeB ? j * k + p : p * n + j)];
          sum += x * y;
        }
        out.push(activate(sum, c.fused?.activation ?? 'linear'));
      }
    }
  }
  return out;
}

function activate(x: number, activation: tf.fused.Activation): number {
  switch (activation) {
    case 'relu':
      return Math.max(x, 0);
    case 'relu6':
      return Math.min(Math.max(x, 0), 6);
    case 'leakyrelu':
      return x > 0 ? x : 0.2 * x;
    case 'sigmoid':
      return 1 / (1 + Math.exp(-x));
    case 'elu':
      return x > 0 ? x : Math.expm1(x);
    default:
      return x;
  }
}

/** The case's product on the current path, then d(sum(product · probe)) / d(a, b[, bias]). */
function productAndGradients(c: MatMulCase, seed: number): Float32Array[] {
  return tf.tidy(() => {
    const a = randomTensor(c.aShape, seed);
    const b = randomTensor(c.bShape, seed + 1);
    const bias = c.fused?.bias ? randomTensor([outputShape(c).at(-1) as number], seed + 2) : undefined;
    const probe = randomTensor(outputShape(c), seed + 3);
    const product = (x: tf.Tensor, y: tf.Tensor, z?: tf.Tensor) =>
      c.fused
        ? tf.fused.matMul({
            a: x,
            b: y,
            transposeA: c.transposeA,
            transposeB: c.transposeB,
            bias: z,
            activation: c.fused.activation,
          })
        : tf.matMul(x, y, c.transposeA, c.transposeB);
    const loss = (x: tf.Tensor, y: tf.Tensor, z?: tf.Tensor) => tf.sum(tf.mul(product(x, y, z), probe));
    if (!differentiable(c)) return [product(a, b, bias).dataSync() as Float32Array];
    const inputs = bias ? [a, b, bias] : [a, b];
    const gradients = tf.grads((...xs: tf.Tensor[]) => loss(xs[0], xs[1], xs[2]))(inputs);
    return [product(a, b, bias), ...gradients].map((t) => t.dataSync() as Float32Array);
  });
}

/** tfjs differentiates fused matmuls only through linear and relu, and no broadcast batch. */
function differentiable(c: MatMulCase): boolean {
  return !c.broadcast && (!c.fused || ['linear', 'relu'].includes(c.fused.activation));
}

function outputShape(c: MatMulCase): number[] {
  const ar = c.aShape.length;
  const br = c.bShape.length;
  const batchShape = tf.broadcast_util.assertAndGetBroadcastShape(
    c.aShape.slice(0, -2),
    c.bShape.slice(0, -2),
  );
  return [...batchShape, c.aShape[c.transposeA ? ar - 1 : ar - 2], c.bShape[c.transposeB ? br - 2 : br - 1]];
}

/** a: [..., m, k] and b: [..., k, n] stored as the transpose flags say. */
function shapes(
  aBatch: number[],
  bBatch: number[],
  m: number,
  k: number,
  n: number,
  tA: boolean,
  tB: boolean,
) {
  return { aShape: [...aBatch, ...(tA ? [k, m] : [m, k])], bShape: [...bBatch, ...(tB ? [n, k] : [k, n])] };
}

const transposeCombinations = [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
] as const;

function transposeCases(name: string, aBatch: number[], bBatch: number[], m: number, k: number, n: number) {
  return transposeCombinations.map(([transposeA, transposeB]) => ({
    name: `${name} tA=${transposeA} tB=${transposeB}`,
    ...shapes(aBatch, bBatch, m, k, n, transposeA, transposeB),
    transposeA,
    transposeB,
  }));
}

const matMulCases: MatMulCase[] = [
  ...transposeCases('2-D', [], [], 7, 5, 3),
  ...transposeCases('batched', [2, 3], [2, 3], 9, 8, 7),
  ...[
    ...transposeCases('a broadcast over b', [1], [4], 3, 6, 5),
    ...transposeCases('b without batch', [2, 2], [], 4, 3, 6),
    ...transposeCases('rank 3 with rank 4', [3], [2, 3], 2, 5, 4),
  ].map((c) => ({ ...c, broadcast: true })),
  ...transposeCases('general broadcast', [2, 1], [1, 3], 3, 4, 2).map((c) => ({
    ...c,
    broadcast: true,
    stockValuesWrong: true,
  })),
  ...transposeCases('one row', [], [], 1, 16, 9),
];

const fusedCases: MatMulCase[] = [
  ...transposeCases('fused with bias', [2], [2], 5, 4, 6).map((c) => ({
    ...c,
    fused: { bias: true, activation: 'linear' as const },
    stockValuesWrong: true,
  })),
  ...(['relu', 'relu6', 'leakyrelu', 'sigmoid', 'elu'] as const).map((activation) => ({
    name: `fused ${activation}`,
    ...shapes([], [], 6, 5, 4, false, false),
    transposeA: false,
    transposeB: false,
    fused: { bias: true, activation },
  })),
  {
    name: 'fused, no bias',
    ...shapes([3], [3], 4, 5, 6, false, true),
    transposeA: false,
    transposeB: true,
    fused: { bias: false, activation: 'linear' },
  },
];

describe.skipIf(native.skip)(`native matmul kernels${native.label}`, () => {
  afterAll(() => setNativeKernels(true));

  it('reports OpenBLAS with one thread', () => {
    const status = nativeKernelStatus();
    expect(status.active).toBe(true);
    expect(status.threads).toBe(1);
    expect(status.blas).toMatch(/OpenBLAS/);
    // Set for the load only: child processes must not inherit it.
    expect(process.env.OPENBLAS_NUM_THREADS).toBe(inheritedOpenblasThreads);
  });

  it('takes the heap after allocating the output (an allocation that grows the wasm memory)', () => {
    const before = nativeMatMulCount();
    const { corners, expected, heapGrew } = heapGrowingOuterProduct((a, b) => tf.matMul(a, b));
    expect(nativeMatMulCount()).toBe(before + 1);
    expect(heapGrew).toBe(true);
    expect(corners).toEqual(expected);
  });

  for (const [index, c] of [...matMulCases, ...fusedCases].entries()) {
    it(`${c.name}: ${c.aShape} × ${c.bShape} equals the float64 reference and the wasm kernel, gradients too`, () => {
      const [native, wasm, calls] = onBothPaths(() => productAndGradients(c, 10 * index));
      // Forward, then (where differentiable) one BatchMatMul per gradient operand.
      expect(calls).toBeGreaterThanOrEqual(native.length === 1 ? 1 : 3);
      const a = randomArray(
        c.aShape.reduce((p, n) => p * n, 1),
        10 * index,
      );
      const b = randomArray(
        c.bShape.reduce((p, n) => p * n, 1),
        10 * index + 1,
      );
      const n = outputShape(c).at(-1) as number;
      const bias = c.fused?.bias ? randomArray(n, 10 * index + 2) : undefined;
      expect(relativeError(native[0], referenceMatMul(c, a, b, bias))).toBeLessThan(1e-5);
      expect(native).toHaveLength(wasm.length);
      expect(native).toHaveLength(differentiable(c) ? 3 + (bias ? 1 : 0) : 1);
      if (c.stockValuesWrong) {
        const reference = referenceMatMul(c, a, b, bias);
        const stockRight = wasm[0].length === reference.length && relativeError(wasm[0], reference) < 1e-2;
        expect(stockRight).toBe(false);
      }
      for (let i = c.stockValuesWrong ? 1 : 0; i < native.length; i++)
        expect(relativeError(native[i], wasm[i])).toBeLessThan(1e-4);
    });
  }

  it('runs the base model shapes (linear layers, attention, head) like wasm', () => {
    const [b, t, d, h, v] = [8, 128, 128, 4, 64];
    // As the model calls them; their gradients are the transposed products.
    const plain = { transposeA: false, transposeB: false };
    const cases: MatMulCase[] = [
      { name: 'qkv', ...shapes([], [], b * t, d, 3 * d, false, false), ...plain },
      { name: 'mlp', ...shapes([], [], b * t, d, 4 * d, false, false), ...plain },
      { name: 'mlp projection', ...shapes([], [], b * t, 4 * d, d, false, false), ...plain },
      { name: 'head', ...shapes([], [], b * t, d, v, false, false), ...plain },
      {
        name: 'scores',
        ...shapes([b, h], [b, h], t, d / h, t, false, true),
        transposeA: false,
        transposeB: true,
      },
      { name: 'attention values', ...shapes([b, h], [b, h], t, t, d / h, false, false), ...plain },
      {
        name: 'sampler qkv (fused)',
        ...shapes([], [], 64, d, 3 * d, false, false),
        ...plain,
        fused: { bias: true, activation: 'linear' },
      },
    ];
    for (const c of cases) {
      const [native, wasm, calls] = onBothPaths(() => productAndGradients(c, 7));
      expect(calls).toBeGreaterThanOrEqual(3);
      for (let i = 0; i < native.length; i++)
        expect(relativeError(native[i], wasm[i]), c.name).toBeLessThan(1e-4);
    }
  });

  it('gives the tiny model the same logits and parameter gradients as wasm (< 1e-4 relative)', () => {
    const [native, wasm, calls] = onBothPaths(tinyModelLogitsAndGradients);
    // 2 layers × (4 linear + 2 attention) + head, forward twice, plus two products per backward matmul.
    expect(calls).toBeGreaterThanOrEqual(2 * (2 * 6 + 1) + 2 * (2 * 6 + 1));
    expect(native).toHaveLength(1 + 2 + 12 * 2 + 3);
    for (let i = 0; i < native.length; i++) expect(relativeError(native[i], wasm[i])).toBeLessThan(1e-4);
  });

  it('sums over leading axes like the wasm kernel (the bias gradient), and leaves other sums to it', () => {
    const cases: [number[], number | number[], boolean][] = [
      [[1024, 512], 0, false],
      [[2, 3, 4], [0, 1], false],
      [[2, 3, 4], [1, 0], true],
      [[2, 3, 4], -3, false],
      [[5, 1], 0, true],
      [[3, 0, 2], 0, false],
    ];
    for (const [index, [shape, axis, keepDims]] of cases.entries()) {
      const sums = nativeSumCount();
      const [native, wasm, calls] = onBothPaths(() => [
        tf.tidy(() => tf.sum(randomTensor(shape, index), axis, keepDims).dataSync() as Float32Array),
      ]);
      expect(nativeSumCount() - sums, `${shape} ${axis}`).toBe(1);
      expect(calls).toBe(0);
      // Float32 sums of the same numbers; the order can differ from the stock kernel's (axes [1, 0]).
      expect(relativeError(native[0], wasm[0]), `${shape} ${axis}`).toBeLessThan(1e-6);
      const shapes = [true, false].map((on) => {
        setNativeKernels(on);
        return tf.tidy(() => tf.sum(tf.zeros(shape), axis, keepDims).shape);
      });
      setNativeKernels(true);
      expect(shapes[0]).toEqual(shapes[1]);
    }
    const before = nativeSumCount();
    tf.tidy(() => {
      const x = randomTensor([2, 3, 4], 1);
      tf.sum(x, 1).dataSync();
      tf.sum(x).dataSync();
      tf.sum(tf.cast(x, 'int32'), 0).dataSync();
    });
    expect(nativeSumCount()).toBe(before);
  });

  it('gives a linear layer the same bias gradient as wasm', () => {
    const compute = () =>
      tf.tidy(() => {
        const x = randomTensor([64, 16], 1);
        const weight = randomTensor([16, 24], 2);
        const bias = randomTensor([24], 3);
        const probe = randomTensor([64, 24], 4);
        const loss = (w: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(tf.add(tf.matMul(x, w), b), probe));
        return tf
          .grads(loss)([weight, bias])
          .map((g) => g.dataSync() as Float32Array);
      });
    const sums = nativeSumCount();
    const [native, wasm] = onBothPaths(compute);
    expect(nativeSumCount()).toBeGreaterThan(sums);
    for (let i = 0; i < native.length; i++) expect(relativeError(native[i], wasm[i])).toBeLessThan(1e-6);
  });

  it('leaves prelu and a non-vector bias to the wasm kernel', () => {
    const before = nativeMatMulCount();
    tf.tidy(() => {
      const a = randomTensor([4, 3], 1);
      const b = randomTensor([3, 5], 2);
      tf.fused.matMul({ a, b, activation: 'prelu', preluActivationWeights: tf.fill([5], 0.1) }).dataSync();
    });
    expect(nativeMatMulCount()).toBe(before);
  });

  it('refuses operands outside the wasm heap instead of touching other memory', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath);
    const heap = new Uint8Array(64);
    expect(() => addon.matmul(heap, false, false, 2, 2, 2, 1, 0, 0, 16, 0, 60, -1, 0, 0)).toThrow(
      /outside the wasm heap/,
    );
    expect(() => addon.matmul(heap, false, false, 2, 2, 2, 2, 0, 4, 16, 0, 48, -1, 0, 0)).toThrow(
      /outside the wasm heap/,
    );
  });
});
