#
# The gateways of compose.yaml, for Varnish in the same compose project: the shipped
# deploy/varnish/backends.vcl with each backend at its service name (gateway-1, gateway-2) on
# the port the image listens on (8787). Nothing else differs (test/deploy-containers.test.ts
# compares the two files). compose.yaml mounts it beside the shipped snapdeck.vcl.
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
    .host = "gateway-1";
    .port = "8787";
    .probe = gateway_ready;
    # The gateway answers from memory or within its storage timeout; a slow first byte means
    # it is in trouble, so fail (503) rather than queue behind it.
    .first_byte_timeout = 30s;
    .connect_timeout = 2s;
}

backend gateway_8788 {
    .host = "gateway-2";
    .port = "8787";
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
