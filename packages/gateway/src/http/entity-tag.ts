import type { Encoding } from '@snapdeck/snapshot';

const SUFFIX: Record<Encoding, string> = { identity: '', br: '-br', gzip: '-gz' };

/** Strong entity tag of one representation: the content tag plus the encoding. */
export function entityTag(tag: string, encoding: Encoding): string {
  return `"${tag}${SUFFIX[encoding]}"`;
}

/** True when If-None-Match names this content in any of its encodings (or is "*"). */
export function notModified(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const value = candidate.trim().replace(/^W\//, '');
    if (value === `"${tag}"` || value === `"${tag}-br"` || value === `"${tag}-gz"`) return true;
  }
  return false;
}
