// The image's HEALTHCHECK (Containerfile): exits 0 when the gateway in this container answers
// GET /healthz with 200 within 2 s, 1 otherwise. The port is the gateway's own setting,
// SNAPDECK_PORT (default 8787); the check runs inside the container, so 127.0.0.1 is the gateway.
// Liveness only: a gateway that is alive but not ready (/readyz 503) is left in place, and the
// balancer's probes on /readyz take it out of rotation instead.
const port = process.env.SNAPDECK_PORT || '8787';
try {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
