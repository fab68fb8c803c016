import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';

function limitOf(value: string): number | null {
  if (value === 'unlimited') return Infinity;
  return /^\d+$/.test(value) ? Number(value) : null;
}

/**
 * The process's soft open-file limit (RLIMIT_NOFILE), which Node does not expose: Linux lists it in
 * /proc/self/limits; elsewhere a shell's `ulimit -n` is the limit this process passed on to it.
 * Infinity when unlimited; null when neither says (Windows).
 */
export function openFileLimit(): number | null {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (line) return limitOf(line[1]!);
  } catch {
    // not Linux
  }
  try {
    const value = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }).trim();
    return limitOf(value);
  } catch {
    return null;
  }
}

/**
 * `serve --max-connections` when not given: what the open-file limit leaves after
 * OPERATOR_DEFAULTS.fdReserve descriptors for files, storage, Redis and logs, at most
 * OPERATOR_DEFAULTS.maxConnectionsCap, and at least 1. Beyond it a connection is closed as soon as
 * it is accepted, so a flood of idle sockets cannot exhaust the descriptors that serving needs.
 */
export function defaultMaxConnections(limit: number | null = openFileLimit()): number {
  const descriptors = limit ?? OPERATOR_DEFAULTS.fdLimitFallback;
  return Math.max(1, Math.min(OPERATOR_DEFAULTS.maxConnectionsCap, descriptors - OPERATOR_DEFAULTS.fdReserve));
}
