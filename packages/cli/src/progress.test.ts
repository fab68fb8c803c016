import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressReporter } from './progress.ts';

/** A stream that records what is written; a terminal or a pipe. */
function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: () => string } {
  let text = '';
  const stream = { isTTY, columns: 120, write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WriteStream;
  return { stream, written: () => text };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('progressReporter', () => {
  it('on a pipe, or with CI set on a terminal, writes the notes alone, as plain lines (CI logs stay readable)', () => {
    for (const { isTTY, ci } of [{ isTTY: false, ci: '' }, { isTTY: true, ci: 'true' }]) {
      vi.stubEnv('CI', ci);
      const { stream, written } = fakeStream(isTTY);
      const progress = progressReporter(stream);
      progress.update('digimon reading', 1000, 0);
      progress.update('digimon cards', 5, 10);
      progress.note('skipping chrono-core-playtest.jsonl');
      progress.update('digimon cards', 10, 10);
      progress.done();
      expect(written(), `isTTY ${isTTY}, CI ${ci}`).toBe('skipping chrono-core-playtest.jsonl\n');
    }
  });

  it('on a terminal draws the label, the bar and the count (or the lines read), and clears the line when done', () => {
    vi.stubEnv('CI', '');
    const { stream, written } = fakeStream(true);
    const progress = progressReporter(stream);
    progress.update('digimon reading', 4000, 0);
    expect(written()).toContain(`${'digimon reading'.padEnd(28)} 4000 lines`);
    progress.note('a notice');
    expect(written()).toMatch(/a notice\n$/);
    progress.update('digimon cards', 5, 10);
    expect(written()).toContain(`${'digimon cards'.padEnd(28)} [${'#'.repeat(15)}${'.'.repeat(15)}] 5/10`);
    progress.done();
    expect(written()).toMatch(/\x1b\[2K$/);
  });
});
