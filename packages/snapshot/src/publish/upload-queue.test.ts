import { describe, expect, it } from 'vitest';
import { UploadQueue } from './upload-queue.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('UploadQueue', () => {
  it('runs at most `inFlight` uploads, and makes the producer wait while every slot is taken', async () => {
    const queue = new UploadQueue(2);
    let running = 0;
    let peak = 0;
    let produced = 0;
    const upload = async () => {
      running += 1;
      peak = Math.max(peak, running);
      await tick();
      running -= 1;
    };
    for (let i = 0; i < 6; i++) {
      await queue.add(upload);
      produced += 1;
      // The producer gets ahead of the uploads by at most the slots.
      expect(running).toBeLessThanOrEqual(2);
    }
    await queue.drain();
    expect(produced).toBe(6);
    expect(peak).toBe(2);
    expect(running).toBe(0);
  });

  it('throws the first failure to the producer and from drain', async () => {
    const queue = new UploadQueue(1);
    await queue.add(async () => {
      throw new Error('first');
    });
    await queue.add(async () => {}).catch(() => {}); // may or may not have seen the failure yet
    await expect(queue.add(async () => {})).rejects.toThrow('first');
    await expect(queue.drain()).rejects.toThrow('first');
  });
});
