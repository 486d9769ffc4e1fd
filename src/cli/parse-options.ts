// Parsers for numeric command-line options: a bad value is a UserError naming the option (exit code 2).
// The value is quoted cut to its first characters (quote-input.ts), so a huge argument gives a short line.
import { UserError } from '../core/errors.ts';
import { shortInput } from '../core/quote-input.ts';

export const positiveInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UserError(`${name} must be a positive integer, got '${shortInput(value)}'`);
  }
  return number;
};

/** A positive integer at most `max`; above it, the message names the bound and `why` there is one. */
export const boundedInteger = (name: string, max: number, why: string) => (value: string) => {
  const number = positiveInteger(name)(value);
  if (number > max) {
    throw new UserError(
      `${name} must be at most ${max.toLocaleString('en-US')} (${why}), got ${shortInput(value)}`,
    );
  }
  return number;
};

export const nonNegativeInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UserError(`${name} must be an integer ≥ 0, got '${shortInput(value)}'`);
  return number;
};

/** Any integer (a seed). */
export const integer = (name: string) => (value: string) => {
  const number = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(number)) {
    throw new UserError(`${name} must be an integer, got '${shortInput(value)}'`);
  }
  return number;
};

/** A comma-separated list of distinct values, each read by `item` (e.g. `integer(name)`); `noun` names them. */
export const distinctList =
  <T>(name: string, item: (value: string) => T, noun: string) =>
  (value: string): T[] => {
    const values = value.split(',').map((part) => item(part.trim()));
    if (new Set(values).size !== values.length) {
      throw new UserError(`${name} must be distinct ${noun}, comma-separated; got '${shortInput(value)}'`);
    }
    return values;
  };
