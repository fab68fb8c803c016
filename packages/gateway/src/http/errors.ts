import type { Context } from 'hono';
import { ERRORS, ERROR_STATUS, type ErrorCode } from '@snapdeck/contract';
import type { GatewayEnv } from '../env.ts';
import { CACHE } from './cache-policy.ts';
import { respond } from './respond.ts';

/** The contract's error body, `{"error": <documented string>}` plus an optional `detail`. */
export function errorBody(code: ErrorCode, detail?: string): string {
  return JSON.stringify(detail === undefined ? { error: ERRORS[code] } : { error: ERRORS[code], detail });
}

export function sendError(c: Context<GatewayEnv>, code: ErrorCode, detail?: string, headers?: Record<string, string>): Response {
  return respond(c, ERROR_STATUS[code], errorBody(code, detail), Object.assign({ 'Content-Type': 'application/json', 'Cache-Control': CACHE.error }, headers));
}
