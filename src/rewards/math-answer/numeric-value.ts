// The complex floating-point evaluator over MathJSON (the fallback after exact evaluation, see evaluate.ts),
// and the structural queries compare.ts needs (free symbols, float literals).
import { isMixedNumber, type Json, UnsupportedError } from './evaluate.ts';

export type Complex = [number, number];

const C = (re: number, im = 0): Complex => [re, im];
const cAdd = (a: Complex, b: Complex): Complex => [a[0] + b[0], a[1] + b[1]];
const cMul = (a: Complex, b: Complex): Complex => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
function cDiv(a: Complex, b: Complex): Complex {
  const denominator = b[0] * b[0] + b[1] * b[1];
  return [(a[0] * b[0] + a[1] * b[1]) / denominator, (a[1] * b[0] - a[0] * b[1]) / denominator];
}
function cLog(a: Complex): Complex {
  // -0 imaginary parts (from negating a real) must not select the branch below the cut: ln(-1) = iπ.
  return [Math.log(Math.hypot(a[0], a[1])), Math.atan2(a[1] === 0 ? 0 : a[1], a[0])];
}
function cExp(a: Complex): Complex {
  const m = Math.exp(a[0]);
  return a[1] === 0 ? [m, 0] : [m * Math.cos(a[1]), m * Math.sin(a[1])];
}
function cPow(a: Complex, b: Complex): Complex {
  if (b[1] === 0 && Number.isInteger(b[0]) && Math.abs(b[0]) <= 64) {
    let result: Complex = [1, 0];
    let base = b[0] < 0 ? cDiv([1, 0], a) : a;
    let n = Math.abs(b[0]);
    while (n > 0) {
      if (n & 1) result = cMul(result, base);
      base = cMul(base, base);
      n >>= 1;
    }
    return result;
  }
  if (a[1] === 0 && b[1] === 0 && a[0] >= 0) return [a[0] ** b[0], 0];
  if (a[0] === 0 && a[1] === 0) return [0, 0];
  // Real odd roots of negative reals (x^{1/3} of -8 is -2) follow the real branch, as students expect.
  if (a[1] === 0 && b[1] === 0 && a[0] < 0) {
    const inverse = 1 / b[0];
    if (Number.isInteger(inverse) && Math.abs(inverse) % 2 === 1) return [-((-a[0]) ** b[0]), 0];
  }
  return cExp(cMul(b, cLog(a)));
}
function realOnly(a: Complex, f: (x: number) => number): Complex {
  return a[1] === 0 ? [f(a[0]), 0] : [Number.NaN, Number.NaN];
}
function gammaFactorial(x: number): number {
  if (Number.isInteger(x) && x >= 0 && x <= 170) {
    let result = 1;
    for (let i = 2; i <= x; i++) result *= i;
    return result;
  }
  return x > 170 ? Number.POSITIVE_INFINITY : Number.NaN;
}

const CONSTANTS: Record<string, Complex> = {
  Pi: [Math.PI, 0],
  ExponentialE: [Math.E, 0],
  e: [Math.E, 0],
  ImaginaryUnit: [0, 1],
  i: [0, 1],
  PositiveInfinity: [Number.POSITIVE_INFINITY, 0],
  NegativeInfinity: [Number.NEGATIVE_INFINITY, 0],
  Half: [0.5, 0],
  GoldenRatio: [(1 + Math.sqrt(5)) / 2, 0],
};

export function isConstantSymbol(symbol: string): boolean {
  return symbol in CONSTANTS;
}

const UNARY: Record<string, (a: Complex) => Complex> = {
  Negate: (a) => [-a[0], -a[1]],
  Sqrt: (a) => cPow(a, [0.5, 0]),
  Exp: cExp,
  Ln: cLog,
  Lb: (a) => cDiv(cLog(a), [Math.LN2, 0]),
  Lg: (a) => cDiv(cLog(a), [Math.LN10, 0]),
  Abs: (a) => [Math.hypot(a[0], a[1]), 0],
  Square: (a) => cMul(a, a),
  Sin: (a) => realOnly(a, Math.sin),
  Cos: (a) => realOnly(a, Math.cos),
  Tan: (a) => realOnly(a, Math.tan),
  Sec: (a) => realOnly(a, (x) => 1 / Math.cos(x)),
  Csc: (a) => realOnly(a, (x) => 1 / Math.sin(x)),
  Cot: (a) => realOnly(a, (x) => 1 / Math.tan(x)),
  Arcsin: (a) => realOnly(a, Math.asin),
  Arccos: (a) => realOnly(a, Math.acos),
  Arctan: (a) => realOnly(a, Math.atan),
  Arccot: (a) => realOnly(a, (x) => Math.atan(1 / x)),
  Arcsec: (a) => realOnly(a, (x) => Math.acos(1 / x)),
  Arccsc: (a) => realOnly(a, (x) => Math.asin(1 / x)),
  Sinh: (a) => realOnly(a, Math.sinh),
  Cosh: (a) => realOnly(a, Math.cosh),
  Tanh: (a) => realOnly(a, Math.tanh),
  Floor: (a) => realOnly(a, Math.floor),
  Ceil: (a) => realOnly(a, Math.ceil),
  Factorial: (a) => realOnly(a, gammaFactorial),
  Delimiter: (a) => a,
};

/**
 * Complex value of an expression with the free symbols bound by `env`; NaN parts where undefined.
 * Throws UnsupportedError for operators it does not know and for unbound symbols.
 */
export function numericValue(json: Json, env: Record<string, Complex> = {}): Complex {
  if (typeof json === 'number') return C(json);
  if (typeof json === 'string') {
    const value = env[json] ?? CONSTANTS[json];
    if (!value) throw new UnsupportedError(`unbound symbol ${json}`);
    return value;
  }
  if (!Array.isArray(json)) return C(Number(json.num));
  const [head, ...args] = json;
  if (typeof head !== 'string') throw new UnsupportedError('non-symbol head');
  const value = (x: Json) => numericValue(x, env);
  const unary = UNARY[head];
  if (unary && args.length === 1) return unary(value(args[0]));
  switch (head) {
    case 'Add':
      return args.reduce<Complex>((total, x) => cAdd(total, value(x)), [0, 0]);
    case 'Subtract':
      if (args.length !== 2) break;
      return cAdd(value(args[0]), UNARY.Negate(value(args[1])));
    case 'InvisibleOperator':
      if (isMixedNumber(json)) {
        const whole = value(args[0]);
        const fraction = value(args[1]);
        return cAdd(whole, whole[0] < 0 ? UNARY.Negate(fraction) : fraction);
      }
      return args.reduce<Complex>((product, x) => cMul(product, value(x)), [1, 0]);
    case 'Multiply':
      return args.reduce<Complex>((product, x) => cMul(product, value(x)), [1, 0]);
    case 'Divide':
    case 'Rational':
      if (args.length !== 2) break;
      return cDiv(value(args[0]), value(args[1]));
    case 'Power':
      return cPow(value(args[0]), value(args[1]));
    case 'Root':
      return cPow(value(args[0]), cDiv([1, 0], value(args[1])));
    case 'Log': {
      const base = args.length > 1 ? cLog(value(args[1])) : C(Math.LN10);
      return cDiv(cLog(value(args[0])), base);
    }
    case 'Complex':
      return [value(args[0])[0], value(args[1])[0]];
    case 'Binomial': {
      const [n, k] = args.map((x) => value(x)[0]);
      return C(gammaFactorial(n) / (gammaFactorial(k) * gammaFactorial(n - k)));
    }
    case 'Max':
    case 'Min': {
      const values = args.map((x) => value(x)[0]);
      return C(head === 'Max' ? Math.max(...values) : Math.min(...values));
    }
  }
  throw new UnsupportedError(`unsupported operator ${head}`);
}

/** Free symbols of an expression (constants like Pi, e, i excluded). */
export function freeSymbols(json: Json, into = new Set<string>()): Set<string> {
  if (typeof json === 'string') {
    if (!json.startsWith("'") && !isConstantSymbol(json)) into.add(json);
  } else if (Array.isArray(json)) {
    for (let i = 1; i < json.length; i++) freeSymbols(json[i], into);
  }
  return into;
}

/** Whether the expression contains a decimal literal (so tolerance rules apply). */
export function hasFloatLiteral(json: Json): boolean {
  if (typeof json === 'number') return !Number.isInteger(json);
  if (typeof json === 'string') return false;
  if (!Array.isArray(json)) return /[.eE]/.test(json.num) && !/^-?\d+$/.test(json.num);
  for (let i = 1; i < json.length; i++) if (hasFloatLiteral(json[i])) return true;
  return false;
}
