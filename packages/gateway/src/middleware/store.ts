import type { Context } from 'hono';
import type { MaybePromise } from '@snapdeck/snapshot';
import type { StoreSource } from '@snapdeck/store';
import type { GatewayEnv } from '../env.ts';
import type { Step } from '../http/pipeline.ts';

/**
 * Runs `rest` with the request pinned to one view of the store: taken once (a request already
 * pinned keeps its view), released when the answer is ready, so that a version swap never mixes
 * two versions within a request and a replaced version's files go once no request reads them.
 * No view to serve from (a gateway that never loaded a store version): the acquire throws and
 * the pipeline answers 500.
 */
export function withStoreLease(store: StoreSource, c: Context<GatewayEnv>, rest: () => MaybePromise<Response>): MaybePromise<Response> {
  if (c.get('store') !== undefined) return rest();
  const lease = store.acquire();
  c.set('store', lease.view);
  let result: MaybePromise<Response>;
  try {
    result = rest();
  } catch (error) {
    lease.release();
    throw error;
  }
  if (!(result instanceof Promise)) {
    lease.release();
    return result;
  }
  return result.finally(() => lease.release());
}

export function useStore(store: StoreSource): Step {
  return (c, next) => withStoreLease(store, c, next);
}
