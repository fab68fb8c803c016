import { isIP } from 'node:net';
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
 * hop 0), and only when the chain is what N proxies would have written: a chain shorter than N
 * reached the gateway without passing every trusted proxy, and an entry that is not an IP address
 * was not written by one, so both count against the socket's peer. A forged header can then
 * never give a client a subject of its own.
 */
export function clientAddress(c: Context, trustedHops: number | undefined): string {
  // Absent only when the app is called without a socket (in-process tests).
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (!incoming) return 'unknown';
  const peer = incoming.socket.remoteAddress ?? 'unknown';
  if (!trustedHops) return peer;
  // [socket peer, rightmost X-Forwarded-For entry, …, leftmost]: index i is hop i.
  const hops = proxyAddr.all(incoming);
  const client = hops[trustedHops];
  return client !== undefined && isIP(client) !== 0 ? client : peer;
}
