import { sendError } from '../http/response.ts';
import type { Step } from '../http/pipeline.ts';
import type { Scope } from '@snapdeck/store';

/** 403 `Insufficient scope` when the key lacks the scope (run after requireApiKey). */
export function requireScope(scope: Scope): Step {
  return (c, next) => (c.get('apiKey').scopes.includes(scope) ? next() : sendError(c, 'insufficientScope'));
}
