import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 that was free a moment ago (the OS picks it; the caller retries if another
 * process takes it first). Shared by the benchmarks and the test helpers.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}
