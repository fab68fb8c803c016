import type { Context } from 'hono';
import { ERRORS, ERROR_STATUS, type ErrorCode } from '@snapdeck/contract';

/** The contract's error body, `{"error": <documented string>}` plus an optional `detail`. */
export function errorBody(code: ErrorCode, detail?: string): string {
  return JSON.stringify(detail === undefined ? { error: ERRORS[code] } : { error: ERRORS[code], detail });
}

export function sendError(c: Context, code: ErrorCode, detail?: string, headers?: Record<string, string>): Response {
  return c.body(errorBody(code, detail), ERROR_STATUS[code] as 400, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    ...headers,
  });
}
