import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Driver, s3OptionsFromEnv, type S3DriverOptions } from '@snapdeck/snapshot';
import { freePort, killOnExit, stopProcess } from './processes.ts';
import { S3_TEST_SECRET } from './test-credentials.ts';

/**
 * A real S3-compatible server for tests: moto (`python3 -m moto.server`, part of this machine's
 * image) on a free 127.0.0.1 port, with one bucket. Not a mock of the SDK: requests go over HTTP.
 */
export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** s3://bucket/prefix, a prefix of its own for this server's user. */
  location: string;
  /** Environment for a child process (or openStorage) to reach the server. */
  env: Record<string, string>;
  /** A fresh, empty s3://bucket/<unique prefix> location. */
  newLocation(name?: string): string;
  /** A driver for a location of this server (default: `location`). */
  open(location?: string, options?: S3DriverOptions): S3Driver;
  /** Empties the server (every bucket) and creates the bucket again. */
  reset(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP) without losing its data: connections are still accepted by the
   * kernel but nothing answers, like an unreachable store. resume() (SIGCONT) brings it back.
   */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

// The SDK warns once per process that it will need Node 22 from 2027: noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';



/** Starts moto on `port`; resolves when it answers, or rejects (with 'port in use' recognisable). */
async function launch(port: number, timeoutMs: number): Promise<ChildProcess> {
  // The server asks the kernel to stop it when this process dies (Linux), so a crashed test run
  // leaves no server behind; elsewhere the prctl call is skipped.
  const script = [
    'import sys, runpy, signal',
    'try:',
    '    import ctypes; ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)',
    'except Exception:',
    '    pass',
    // S3 evaluates If-Match / If-None-Match and writes as one step. moto (5.2) checks, then
    // writes, on a threaded server: two concurrent conditional PUTs can both pass the check (seen
    // as 2 failures in 8 runs of the driver suite's compare-and-swap race under load). One lock
    // around its PutObject handler makes it atomic, as S3 is; other requests stay concurrent.
    'import threading',
    'from moto.s3.responses import S3Response',
    '_put_lock = threading.Lock()',
    '_put_object = S3Response.put_object',
    'def _atomic_put_object(self):',
    '    with _put_lock:',
    '        return _put_object(self)',
    'S3Response.put_object = _atomic_put_object',
    `sys.argv = ["moto.server", "-H", "127.0.0.1", "-p", "${port}"]`,
    'runpy.run_module("moto.server", run_name="__main__", alter_sys=True)',
  ].join('\n');
  const server = spawn('python3', ['-c', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  const spawnError = await new Promise<Error | null>((resolve) => {
    server.once('spawn', () => resolve(null));
    server.once('error', (error) => resolve(error));
  });
  if (spawnError) {
    throw new Error(
      `cannot start the S3 test server: python3 is not available (${spawnError.message}). ` +
        'The storage tests need python3 with moto (python3 -m moto.server), as on this machine image.',
    );
  }
  let output = '';
  let exited: string | null = null;
  server.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  server.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  server.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  killOnExit(server);

  const endpoint = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (exited !== null) {
      if (/No module named moto|ModuleNotFoundError/.test(output)) {
        throw new Error(
          'cannot start the S3 test server: the Python module moto is not installed (python3 -m moto.server). ' +
            'The storage tests need it; it is part of this machine image (PyPI is not reachable here).',
        );
      }
      throw new Error(`the S3 test server (python3 -m moto.server on port ${port}) ${exited}:\n${output}`);
    }
    try {
      const response = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) {
      server.kill('SIGKILL');
      throw new Error(`the S3 test server did not answer on ${endpoint} within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts moto on a free port with one bucket. Call stop() when done (afterAll). */
export async function startS3Server(options: { bucket?: string; timeoutMs?: number } = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? 'snapdeck-test';
  const timeoutMs = options.timeoutMs ?? 20_000;
  let server: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !server; attempt++) {
    port = await freePort();
    try {
      server = await launch(port, timeoutMs);
    } catch (error) {
      // Another process took the port between freePort() and moto's bind: try another one.
      if (attempt >= 3 || !/Address already in use/i.test((error as Error).message)) throw error;
    }
  }
  const endpoint = `http://127.0.0.1:${port}`;

  const env: Record<string, string> = {
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: S3_TEST_SECRET,
    AWS_REGION: 'us-east-1',
    SNAPDECK_S3_ENDPOINT: endpoint,
    // No stray profile or instance-metadata lookups from the test's children.
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const admin = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: S3_TEST_SECRET } });
  const createBucket = () => admin.send(new CreateBucketCommand({ Bucket: bucket }));
  await createBucket();

  const newLocation = (name = 'run') => `s3://${bucket}/${name}-${randomBytes(4).toString('hex')}`;
  const location = newLocation('snapshots');
  let stopped = false;
  return {
    endpoint,
    bucket,
    location,
    env,
    newLocation,
    open: (at = location, extra = {}) => new S3Driver(at, { ...s3OptionsFromEnv(env), ...extra }),
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`resetting the S3 test server failed: ${response.status}`);
      await createBucket();
    },
    pause() {
      server!.kill('SIGSTOP');
    },
    resume() {
      server!.kill('SIGCONT');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      admin.destroy();
      await stopProcess(server!);
    },
  };
}
