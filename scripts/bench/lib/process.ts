import { readFileSync } from 'node:fs';

/** Resolves once `url` answers at all (any status), or throws after `seconds`. */
export async function waitForHttp(url: string, seconds = 20): Promise<void> {
  for (const started = Date.now(); Date.now() - started < seconds * 1000; ) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not come up within ${seconds} s`);
}

/** Resident memory of a process now and at its peak, in MB (Linux /proc). */
export function rssMB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}
