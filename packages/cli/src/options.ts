import { InvalidArgumentError } from 'commander';

/** Commander parser for options that take a positive whole number (quotas, sizes). */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/** Commander parser for counts where 0 means "none" (trusted proxy hops). */
export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number (0 or more)');
  return Number(value);
}
