// Shared pieces of the conformance helpers (src/api/testing.ts): every `check*` function runs a plug-in
// (task, reward, selector, scaffold, advantage estimator, loss) through the checks the built-in entries
// pass, and throws a ConformanceError naming the first broken property; on success it returns a report
// listing what was checked. The built-ins' own tests call the same helpers (one suite, one code path).
import { ConformanceError } from './errors.ts';

/** What a conformance helper checked, for a plug-in that passed. */
export interface ConformanceReport {
  /** e.g. "task 'my-task'". */
  subject: string;
  /** One line per property checked, in order. */
  checks: string[];
}

/** Collects the checks of one subject and raises the first failure as a ConformanceError. */
export class Checker {
  readonly checks: string[] = [];

  constructor(readonly subject: string) {}

  /** Records `property` as checked; throws when `ok` is false (`detail` says what was found). */
  that(ok: boolean, property: string, detail?: () => string): void {
    if (!ok) this.fail(detail ? `${property} (${detail()})` : property);
    if (!this.checks.includes(property)) this.checks.push(property);
  }

  /** Runs `body`; an error it throws becomes a ConformanceError that names `what`. */
  call<T>(what: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      if (error instanceof ConformanceError) throw error;
      this.fail(`${what} threw: ${describeError(error)}`);
    }
  }

  /** As `call`, for an async body. */
  async callAsync<T>(what: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof ConformanceError) throw error;
      this.fail(`${what} threw: ${describeError(error)}`);
    }
  }

  /** Throws when `body` does NOT throw an error of `errorClass`. */
  throws(property: string, errorClass: abstract new (...args: never[]) => Error, body: () => unknown): void {
    let thrown: unknown;
    try {
      body();
    } catch (error) {
      thrown = error;
    }
    this.that(thrown instanceof errorClass, property, () =>
      thrown === undefined ? 'nothing was thrown' : `threw ${describeError(thrown)}`,
    );
  }

  fail(property: string): never {
    throw new ConformanceError(this.subject, property);
  }

  report(): ConformanceReport {
    return { subject: this.subject, checks: [...this.checks] };
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** A value's JSON text, cut to `limit` characters, for failure messages. */
export function preview(value: unknown, limit = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Plain deep equality for JSON-like values (arrays, plain objects, primitives; NaN equals NaN). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
