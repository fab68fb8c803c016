import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import proxyAddr from 'proxy-addr';

/**
 * The client address a per-address limit counts against.
 *
 * `trustedHops` is the number of proxies in front of the gateway that the operator trusts
 * (`serve --trust-proxy N`; 0 or absent: none). Each proxy appends the address it received the
 * request from on the *right* of X-Forwarded-For; whatever stands further left was written by the
 * client and proves nothing. So the client is the Nth entry from the right (the socket peer being
 * hop 0). proxy-addr walks the hops from the right while the trust function accepts them; trusting
 * hops `i < N` is how Express turns "trust proxy" N into one. With fewer entries than hops it
 * stops at the leftmost one.
 */
export function clientAddress(c: Context, trustedHops: number | undefined): string {
  // Absent only when the app is called without a socket (in-process tests).
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (!incoming) return 'unknown';
  if (!trustedHops) return incoming.socket.remoteAddress ?? 'unknown';
  return proxyAddr(incoming, (_address, hop) => hop < trustedHops) ?? 'unknown';
}
