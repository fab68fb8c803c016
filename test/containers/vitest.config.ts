import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The container test (`npm run test:containers`; .ci/run runs it after `npm test`, which leaves it
 * out: it needs podman and takes minutes). One file, alone; the suite's setup files as in
 * vitest.config.ts (responses validated against the OpenAPI document, outputs scanned for secrets).
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/containers/**/*.container.ts'],
    setupFiles: ['test/setup/validate-responses.ts', 'test/setup/scan-secrets.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
