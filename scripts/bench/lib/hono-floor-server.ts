/**
 * The framework floor: Hono on @hono/node-server (the gateway's stack) answering one route with
 * the same response from memory, and nothing else: no key, no quota, no cursor, no lookup, no log.
 * Whatever the gateway does per request comes on top of this, so its ratio to the bare server
 * bounds the gateway's. Usage: tsx hono-floor-server.ts PORT BODY_FILE HEADERS_JSON_FILE
 */
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const [portText, bodyFile, headersFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const headers: Record<string, string> = JSON.parse(readFileSync(headersFile!, 'utf8'));
const app = new Hono();
app.get('/v1/games/:slug/cards', () => new Response(body, { headers: { ...headers } }));
const server = serve({ fetch: app.fetch, port: Number(portText), hostname: '127.0.0.1' }, () => process.send?.('ready'));
(server as import('node:http').Server).keepAliveTimeout = 65_000;
