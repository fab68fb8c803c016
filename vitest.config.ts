import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Every response of a gateway under /v1 is validated against the OpenAPI document; every
    // captured output (responses, CLI and serve output) is scanned for secrets.
    setupFiles: ['test/setup/validate-responses.ts', 'test/setup/scan-secrets.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files start real servers and write real files, each in its own process; three at a time
    // on 2 cores, because the slowest files mostly wait (storage freezes, cache expiries, timeouts).
    pool: 'forks',
    maxWorkers: 3,
  },
});
