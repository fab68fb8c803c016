#
# The gateways Varnish sends misses to: included by snapdeck.vcl (`include "./backends.vcl"`,
# looked up beside it). This is the only file to edit when gateways are added or moved: one
# `backend` block each, with the shared probe, and one `add_backend` line in vcl_init.
# Shipped with two gateways on this host, `snapdeck serve --port 8787` and `--port 8788`
# (deploy/systemd: snapdeck-gateway@8787 and @8788).
#
# Fastly: one origin per gateway, with a health check on /readyz and the service's load
# balancing. Cloudflare: a Load Balancer pool with a /readyz monitor.
#

# A gateway is healthy while GET /readyz answers 200: every game's snapshot loaded (and, with
# --store, a store version), and not stopping (on SIGTERM it answers 503 at once). Sick after 2
# failed probes of the last 3, 1 s apart: a dead gateway is out of rotation within about 2 s
# (meanwhile a request that cannot connect is retried on another, snapdeck.vcl). Healthy from the
# start (.initial), so a restart of Varnish does not answer 503 for a probe interval.
probe gateway_ready {
    .url = "/readyz";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

backend gateway_8787 {
    .host = "127.0.0.1";
    .port = "8787";
    .probe = gateway_ready;
    # The gateway answers from memory or within its storage timeout; a slow first byte means
    # it is in trouble, so fail (503) rather than queue behind it.
    .first_byte_timeout = 30s;
    .connect_timeout = 2s;
}

backend gateway_8788 {
    .host = "127.0.0.1";
    .port = "8788";
    .probe = gateway_ready;
    .first_byte_timeout = 30s;
    .connect_timeout = 2s;
}

sub vcl_init {
    # Round robin over the healthy ones; the gateways are stateless (quotas in Redis).
    new gateways = directors.round_robin();
    gateways.add_backend(gateway_8787);
    gateways.add_backend(gateway_8788);
}
