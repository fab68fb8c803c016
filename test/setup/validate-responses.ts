/**
 * vitest setup file: every response a test gets with fetch from a gateway on 127.0.0.1 under
 * /v1 is checked against the OpenAPI document (test/helpers/openapi-validator.ts) — the published
 * one (open schemas, as partners validate) and the strict one (closed schemas: no field the
 * document does not name). The document is the one the gateway serves: GET /v1/openapi.json is
 * buildOpenApiDocument() (test/openapi.test.ts checks that byte for byte), built here in-process
 * so that validation adds no request to what tests count (quotas, logs, metrics).
 *
 * A response that does not conform fails the test that got it, in afterEach (or afterAll for
 * responses of beforeAll hooks). The checks run there, not when the response arrives, so that
 * they take no time from what a test measures (concurrency, Retry-After against the clock).
 */
import { afterAll, afterEach } from 'vitest';
import { buildOpenApiDocument } from '@snapdeck/contract';
import { OpenApiValidator, type CheckedResponse } from '../helpers/openapi-validator.ts';
import { responseValidation } from '../helpers/response-validation.ts';

// Built on first use: test files that make no request pay nothing.
let validators: { published: OpenApiValidator; strict: OpenApiValidator } | undefined;
const realFetch = globalThis.fetch;
const pending = new Set<Promise<void>>();
/** Responses read but not yet checked: the checking (ajv) runs in afterEach, outside the test's timing. */
const received: CheckedResponse[] = [];
const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

function requestOf(input: Parameters<typeof fetch>[0], init?: RequestInit): { method: string; url: URL } {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { method, url };
}

globalThis.fetch = async function validatingFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const response = await realFetch(input, init);
  const { method, url } = requestOf(input, init);
  if (!responseValidation.enabled || !LOCAL.has(url.hostname) || !url.pathname.startsWith('/v1/') || method === 'OPTIONS') return response;
  const copy = response.clone();
  const done: Promise<void> = copy
    .text()
    .then((text) => {
      received.push({ method, url, status: response.status, headers: response.headers, text });
    })
    // A body cut short (a server stopped on purpose) cannot be checked; the test sees why.
    .catch(() => undefined)
    .finally(() => pending.delete(done));
  pending.add(done);
  return response;
};

/** Checks every response received so far. */
async function checkReceived(): Promise<void> {
  await Promise.all([...pending]);
  if (received.length === 0) return;
  validators ??= {
    published: new OpenApiValidator(buildOpenApiDocument() as any),
    strict: new OpenApiValidator(buildOpenApiDocument({ strict: true }) as any),
  };
  for (const checked of received.splice(0)) {
    const problems = validators.published.check(checked);
    if (problems.length === 0) problems.push(...validators.strict.check(checked).map((p) => `(strict document) ${p}`));
    responseValidation.problems.push(...problems);
    responseValidation.validated += 1;
  }
}

async function report(): Promise<void> {
  await checkReceived();
  const problems = responseValidation.problems.splice(0);
  if (problems.length > 0) {
    throw new Error(`${problems.length} response(s) do not conform to /v1/openapi.json:\n${[...new Set(problems)].slice(0, 20).join('\n')}`);
  }
}

afterEach(report);
afterAll(report);
