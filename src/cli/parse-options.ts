// Parsers for numeric command-line options: a bad value is a UserError naming the option (exit code 2).
import { UserError } from '../core/errors.ts';

export const positiveInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UserError(`${name} must be a positive integer, got '${value}'`);
  }
  return number;
};

export const nonNegativeInteger = (name: string) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UserError(`${name} must be an integer ≥ 0, got '${value}'`);
  return number;
};
