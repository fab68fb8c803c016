import { varyHeader } from '../http/cache-policy.ts';
import type { Step } from '../http/pipeline.ts';

/**
 * Sets the Vary of whatever the request ends with, errors included, to the Vary of the route's
 * successes (http/cache-policy.ts varyHeader says why). Successes set the same value again.
 */
export function varyOn(headers: readonly string[] = []): Step {
  const vary = varyHeader(headers);
  return (c, next) => {
    c.get('headers').Vary = vary;
    return next();
  };
}
