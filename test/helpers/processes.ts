import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port on 127.0.0.1 that was free a moment ago (the caller retries if another process takes it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills the child (SIGKILL) if this test process exits first, so no server outlives a run. */
export function killOnExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
}
