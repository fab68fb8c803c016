/**
 * State of the response validation of test/setup/validate-responses.ts, shared with tests (one
 * object per test worker, kept on globalThis so the setup file and the test files see the same).
 */
export interface ResponseValidationState {
  /** Responses checked so far in this worker. */
  validated: number;
  /** Problems not yet reported. */
  problems: string[];
  /** Tests that send what no document describes on purpose may turn it off for a moment. */
  enabled: boolean;
}

const KEY = Symbol.for('snapdeck.responseValidation');
const holder = globalThis as unknown as Record<symbol, ResponseValidationState | undefined>;

export const responseValidation: ResponseValidationState = (holder[KEY] ??= { validated: 0, problems: [], enabled: true });
