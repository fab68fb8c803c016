import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { describe, expect, it } from 'vitest';
import type { GatewayEnv } from '../env.ts';
import { afterResponse, fromMiddleware, pipeline, type Step } from './pipeline.ts';

const failed = (error: unknown) => new Response(`failed: ${(error as Error).message}`, { status: 500 });

function appWith(steps: Step[]): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  app.all('/', pipeline(steps, failed));
  return app;
}

describe('pipeline', () => {
  it('runs the steps in order and stays synchronous while every step answers now', () => {
    const seen: string[] = [];
    const app = appWith([
      (c, next) => afterResponse(next(), (response) => seen.push(`log ${response.status}`)),
      (c, next) => (seen.push('first'), next()),
      () => (seen.push('handler'), new Response('ok', { status: 201 })),
    ]);
    const response = app.fetch(new Request('http://x/'));
    expect(response).not.toBeInstanceOf(Promise);
    expect((response as Response).status).toBe(201);
    expect(seen).toEqual(['first', 'handler', 'log 201']);
  });

  it('a step that answers ends the request: later steps do not run', async () => {
    let reached = false;
    const app = appWith([() => new Response('no', { status: 401 }), () => ((reached = true), new Response('ok'))]);
    expect((await app.request('/')).status).toBe(401);
    expect(reached).toBe(false);
  });

  it('goes asynchronous only from a step that waits, and keeps the order', async () => {
    const seen: string[] = [];
    const app = appWith([
      (c, next) => afterResponse(next(), (response) => seen.push(`log ${response.status}`)),
      async (c, next) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push('waited');
        return next();
      },
      () => (seen.push('handler'), new Response('ok')),
    ]);
    const response = app.fetch(new Request('http://x/'));
    expect(response).toBeInstanceOf(Promise);
    expect((await response).status).toBe(200);
    expect(seen).toEqual(['waited', 'handler', 'log 200']);
  });

  it('a step that throws, or rejects, is answered by onError, and outer steps see that answer', async () => {
    for (const failing of [
      () => {
        throw new Error('sync boom');
      },
      async () => {
        throw new Error('async boom');
      },
    ] as Step[]) {
      const logged: number[] = [];
      const app = appWith([(c, next) => afterResponse(next(), (response) => logged.push(response.status)), failing]);
      const response = await app.request('/');
      expect(response.status).toBe(500);
      expect(await response.text()).toMatch(/^failed: (sync|async) boom$/);
      expect(logged).toEqual([500]);
    }
  });

  it('runs a Hono middleware (hono/body-limit) as a step: it passes through, or answers', async () => {
    const app = appWith([
      fromMiddleware(bodyLimit({ maxSize: 10, onError: () => new Response('too big', { status: 413 }) })),
      async (c) => new Response(`got ${(await c.req.text()).length}`),
    ]);
    const small = await app.request('/', { method: 'POST', body: '12345' });
    expect([small.status, await small.text()]).toEqual([200, 'got 5']);
    const large = await app.request('/', { method: 'POST', body: 'x'.repeat(100) });
    expect([large.status, await large.text()]).toEqual([413, 'too big']);
  });
});
