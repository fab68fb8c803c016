#
# snapdeck behind Varnish: the cache configuration the project ships and tests (Varnish 7.1,
# Debian's package; `test/varnish*.test.ts` run it in front of a real gateway).
#
#   varnishd -a :80 -f /etc/varnish/snapdeck.vcl -s malloc,1g
#
# No parameter needs changing: in particular this file works with the default
# http_gzip_support=on (see "Accept-Encoding" below). Edit backends.vcl (the gateways, beside
# this file) and the purgers ACL.
#
# Each rule says why, and what it is on Fastly (which runs VCL, so most lines carry over) and on
# Cloudflare (rules in the dashboard or a Worker). docs/operators/cache.md has the same list as a
# table.
#

vcl 4.1;

import std;

import directors;

# The gateways (`snapdeck serve`), health-probed on /readyz, in a round-robin director named
# `gateways`: all in backends.vcl, the operator's list.
include "./backends.vcl";

# Who may send PURGE (the hosts running `snapdeck keys revoke` / `decks import --purge`).
# Fastly: purges go to its API (POST /service/<id>/purge with the same Surrogate-Key header
# and a Fastly-Key token) instead of to the cache. Cloudflare: the purge_cache API, by tag.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # X-Request-Id: the client's own when it is sane (the gateway's rule), otherwise one made
    # here; either way it goes to the gateway (its access log) and back to the client, also
    # on a hit, where the stored response still names the request that filled the cache.
    # Fastly: `set req.http.X-Request-Id = uuid.version4();` when it is missing or malformed.
    # Cloudflare: its cf-ray plays this part; a Transform Rule can set X-Request-Id from it.
    if (req.http.X-Request-Id !~ "^[A-Za-z0-9._-]{1,128}$") {
        set req.http.X-Request-Id = "varnish-" + std.integer(time=now) + "-" + req.xid;
    }

    # One spelling per path, before any rule. Every rule below matches the path as sent, while
    # the gateway resolves dot segments (`/x/../metrics`, `/%2e/metrics` are /metrics to it) and
    # percent-decodes (`/%6detrics` too). So a path not in its one plain spelling is refused:
    # - a `.` or `..` segment, plain or percent-encoded in either case (`%2e`, `.%2E` ...);
    # - an encoded `/` or `\` (`%2F`, `%5C`), a `\` (URL parsers read it as `/`), `//`;
    # - a percent-encoded character that needs no encoding (letters, digits, `-._~`: RFC 3986
    #   6.2.2.2 says to decode them, so they are a second spelling of the same path), or a `%`
    #   not followed by two hex digits;
    # - a fragment (`#` is never part of a request target) or a target that is not a path (`*`;
    #   Varnish has already reduced an absolute `http://host/path` to its path).
    # Paths the gateway serves need none of these (ids are letters, digits, `_` and `-`). The
    # gateway answers the same 400 to dot segments, encoded `/` and `//` sent to it directly.
    # test/varnish-spellings.test.ts: 0 of 332 spellings of the paths below reach their route.
    # Fastly: the same tests (its regex engine is PCRE too). Cloudflare: keep "Normalize incoming
    # URLs" and "Normalize URLs to origin" on (Rules > Settings) and block the rest with a WAF
    # custom rule on http.request.uri.path.
    set req.http.X-Snapdeck-Path = regsub(req.url, "\?.*$", "");
    if (req.http.X-Snapdeck-Path !~ "^/" ||
        req.http.X-Snapdeck-Path ~ "(?i)/(\.|%2e){1,2}(/|$)" ||
        req.http.X-Snapdeck-Path ~ "//|\\|#" ||
        req.http.X-Snapdeck-Path ~ "(?i)%(2f|5c)" ||
        req.http.X-Snapdeck-Path ~ "(?i)%(2d|2e|3[0-9]|[46][1-9a-f]|[57][0-9a]|5f|7e)" ||
        req.http.X-Snapdeck-Path ~ "%([^0-9A-Fa-f]|.[^0-9A-Fa-f]|.?$)") {
        unset req.http.X-Snapdeck-Path;
        return (synth(400, "Invalid request path"));
    }
    unset req.http.X-Snapdeck-Path;

    # PURGE with `Surrogate-Key: <token> <token> ...` bans every stored object whose
    # Surrogate-Key names one of the tokens (the gateway's tokens: http/surrogate-keys.ts).
    # A ban is checked on every lookup, so the next request misses at once; the ban lurker
    # removes the objects in the background. Fastly: its surrogate-key purge (the same header).
    # Cloudflare: purge by Cache-Tag (have a Transform Rule copy Surrogate-Key into Cache-Tag,
    # with commas instead of spaces).
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "PURGE is not allowed from this address"));
        }
        std.collect(req.http.Surrogate-Key, " ");
        # Tokens of letters, digits, _ : - only: nothing in them can change the regex below.
        if (req.http.Surrogate-Key !~ "^ *[A-Za-z0-9_:-]+( +[A-Za-z0-9_:-]+)* *$") {
            return (synth(400, "PURGE needs a Surrogate-Key header: space-separated tokens of letters, digits, _ : -"));
        }
        # "(^|[[:space:]])(k1|k2)([[:space:]]|$)": whole tokens only. No space and no quotes in
        # it: ban() in VCL splits its argument on spaces and would keep quotes as part of the regex.
        set req.http.X-Purge-Regex = "(^|[[:space:]])(" + regsuball(regsub(req.http.Surrogate-Key, "^ *(.*[^ ]) *$", "\1"), " +", "|") + ")([[:space:]]|$)";
        if (std.ban("obj.http.Surrogate-Key ~ " + req.http.X-Purge-Regex)) {
            return (synth(200, "Purged"));
        }
        return (synth(400, std.ban_error()));
    }

    # /metrics is for the operator's network, not the public: scrape each gateway directly.
    # (/healthz and /readyz pass through, never stored.) Fastly/Cloudflare: do not route
    # /metrics to the origin.
    if (req.url ~ "^/metrics(\?|$)") {
        return (synth(404, "Not found"));
    }

    # Accept-Encoding: the gateway stores every page and card as brotli, gzip and plain bytes,
    # so each needs exactly one cache entry: reduce whatever the client sent to "br", "gzip"
    # or nothing, as the gateway does (q=0 refuses a coding; "*" takes brotli unless refused,
    # then gzip). Varnish's own gzip handling (http_gzip_support, on by default) would then
    # rewrite the header to gzip and never fetch brotli, so the choice is kept in
    # X-Snapdeck-Encoding: it goes into the cache key (vcl_hash) and back into the request to
    # the gateway (vcl_backend_fetch).
    # Fastly: normalises Accept-Encoding itself but keeps gzip only; set it from
    # Fastly-Orig-Accept-Encoding the same way. Cloudflare: it negotiates compression with
    # clients itself (recompressing what it cached as needed); no rule to write.
    # A coding is accepted when listed without q=0, or when "*" is (RFC 9110 §12.5.3: "*" is any
    # coding the header does not name) and it is not itself listed with q=0.
    if (req.http.Accept-Encoding ~ "(?i)(^|,)\s*br\s*(,|$|;(?!\s*q\s*=\s*0(\.0*)?\s*(,|$)))" ||
        (req.http.Accept-Encoding ~ "(?i)(^|,)\s*\*\s*(,|$|;(?!\s*q\s*=\s*0(\.0*)?\s*(,|$)))" &&
         req.http.Accept-Encoding !~ "(?i)(^|,)\s*br\s*;\s*q\s*=\s*0(\.0*)?\s*(,|$)")) {
        set req.http.X-Snapdeck-Encoding = "br";
    } elsif (req.http.Accept-Encoding ~ "(?i)(^|,)\s*(x-)?gzip\s*(,|$|;(?!\s*q\s*=\s*0(\.0*)?\s*(,|$)))" ||
        (req.http.Accept-Encoding ~ "(?i)(^|,)\s*\*\s*(,|$|;(?!\s*q\s*=\s*0(\.0*)?\s*(,|$)))" &&
         req.http.Accept-Encoding !~ "(?i)(^|,)\s*(x-)?gzip\s*;\s*q\s*=\s*0(\.0*)?\s*(,|$)")) {
        set req.http.X-Snapdeck-Encoding = "gzip";
    } else {
        set req.http.X-Snapdeck-Encoding = "identity";
    }
    if (req.http.X-Snapdeck-Encoding == "identity") {
        unset req.http.Accept-Encoding;
    } else {
        set req.http.Accept-Encoding = req.http.X-Snapdeck-Encoding;
    }

    # Search index files (/v1/search/{name}/{version}/...) are immutable and the same for every
    # client; the engine adds a cache-busting `?ts=` to some of its requests, and the gateway
    # ignores any query there, so the cache does too: one entry per file, served from here.
    # Fastly: the same regsub in vcl_recv. Cloudflare: a Cache Rule ignoring the query string
    # for /v1/search/*.
    if (req.url ~ "^/v1/search/[^/?]+/[^/?]+/") {
        set req.url = regsub(req.url, "\?.*$", "");
    }

    # The keyed endpoints: /v1/games..., /v1/decks/public, /v1/decks/changes, /v1/decks/details
    # and /v1/decks/{id}/text. GET /v1/decks/{id} is the same for every client (it is limited per
    # client address, not per key), so a key must not split its cache entry. A keyed endpoint
    # added later and missing here is still safe: the gateway's `Vary: X-API-Key` keeps one
    # variant per key.
    if (req.url ~ "^/v1/games(/|\?|$)" ||
        req.url ~ "^/v1/decks/(public|changes|details)(\?|$)" ||
        req.url ~ "^/v1/decks/[^/?]+/text(\?|$)") {
        set req.http.X-Snapdeck-Keyed = "yes";
        # Several X-API-Key headers become one, as the gateway reads them, so the cache key and
        # the gateway see the same key.
        std.collect(req.http.X-API-Key);
    } else {
        set req.http.X-Snapdeck-Keyed = "no";
    }

    # Only GET and HEAD are cacheable; POST /v1/decks/details and CORS preflights go through.
    # Fastly/Cloudflare: the same by default.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }

    # A keyed request without a key is a 401 for anyone: nothing to look up, nothing to store,
    # and no marker that could make the URL uncacheable for the partners who have a key.
    if (req.http.X-Snapdeck-Keyed == "yes" && !req.http.X-API-Key) {
        return (pass);
    }

    # A deck token (share token or pd_ link) reaches a private deck, answered `private,
    # no-store`: go straight through, so the secret never becomes part of a cache key.
    # The gateway reads `token` percent-decoded (Hono's c.req.query: the query after the first
    # `?`, split on `&`, each name up to its first `=`, `+` and %XX decoded once), so `%74oken=`,
    # `toke%6E=`, `%74%6F%6B%65%6E=` are tokens too. Its name then starts right after a `?` or
    # `&` with the five letters, each plain or percent-encoded (nothing decodes to nothing), so
    # the test is that, on the URL as sent, in either case and either case of hex, `;` counted as
    # a separator too: wider than the gateway's notion (`Token=`, `;token=`, `token%3D` pass as
    # well), never narrower. test/varnish-spellings.test.ts has the table of spellings. No `.*`
    # in it: on a 12 KB query, `\?.*token` exceeded PCRE's match limit and failed the request.
    # Fastly: the same condition with return(pass). Cloudflare: a Cache Rule "bypass cache"
    # when `lower(url_decode(http.request.uri.query)) contains "token"`.
    if (req.url ~ "(?i)[?&;](t|%[57]4)(o|%[46]f)(k|%[46]b)(e|%[46]5)(n|%[46]e)") {
        return (pass);
    }

    # The gateway reads neither cookies nor Authorization: drop them, so a browser's cookies
    # do not make deck pages uncacheable (Varnish's builtin VCL passes such requests).
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
}

sub vcl_hash {
    # The cache key: URL and host (as Varnish's builtin VCL), the normalised encoding, and the
    # API key on keyed endpoints. The gateway also says `Vary: Accept-Encoding, X-API-Key`, but
    # putting the key in the hash gives each partner its own entry instead of one long list of
    # variants per URL, where one partner's fetch in progress would hold up every other
    # partner's request for that URL. A hit therefore only ever serves what the same key was
    # answered, and is not counted against its quota (the gateway never saw it).
    # Fastly: `set req.hash += req.http.X-API-Key;` in vcl_hash. Cloudflare: a Cache Rule
    # whose cache key includes the X-API-Key header (custom cache key), for /v1/* except
    # /v1/decks/{id}; without that, do not cache keyed endpoints on Cloudflare at all.
    hash_data(req.url);
    if (req.http.host) {
        hash_data(req.http.host);
    } else {
        hash_data(server.ip);
    }
    hash_data(req.http.X-Snapdeck-Encoding);
    if (req.http.X-Snapdeck-Keyed == "yes") {
        hash_data(req.http.X-API-Key);
    }
    return (lookup);
}

sub vcl_backend_fetch {
    # The next healthy gateway; a retry (vcl_backend_error) therefore goes to another one.
    set bereq.backend = gateways.backend();
    # Ask the gateway for the encoding this cache entry holds (Varnish has rewritten the
    # header to gzip when http_gzip_support is on).
    if (bereq.http.X-Snapdeck-Encoding == "identity") {
        unset bereq.http.Accept-Encoding;
    } else {
        set bereq.http.Accept-Encoding = bereq.http.X-Snapdeck-Encoding;
    }
    unset bereq.http.X-Snapdeck-Encoding;
    unset bereq.http.X-Snapdeck-Keyed;
    return (fetch);
}

sub vcl_backend_response {
    if (bereq.uncacheable) {
        return (deliver);
    }
    # Store only what the gateway says a shared cache may store: a 200 marked public (a 304
    # answering a refresh arrives here as the 200 it refreshes). Never an error (401, 404,
    # 429 ...), never `private` (deck listings, anything reached by a token), never `no-store`.
    # What is not stored leaves a hit-for-miss marker for 1 s only: long enough to stop a
    # burst of identical requests queueing behind each other, short enough not to keep a URL
    # uncached (and every refetch charged to a quota) once the answer changes. Since keyed
    # entries are per key, one key's 429 never affects another key.
    # Fastly: the same test in vcl_fetch with `return(pass)`. Cloudflare: respects these
    # Cache-Control directives by default ("Origin Cache Control").
    if (beresp.status != 200 ||
        beresp.http.Cache-Control !~ "(?i)(^|,)\s*public\s*(,|$)" ||
        beresp.http.Cache-Control ~ "(?i)(private|no-store|no-cache)") {
        set beresp.uncacheable = true;
        set beresp.ttl = 1s;
        return (deliver);
    }
    # TTL comes from max-age and grace from stale-while-revalidate (Varnish reads both).
    # keep: once TTL and grace are over, the object stays for a day so that the next request
    # refreshes it with If-None-Match and the gateway answers 304 (headers only) instead of
    # sending the page again. Fastly: revalidates stale objects the same way. Cloudflare:
    # revalidates with the origin's ETag when the cached copy has expired.
    set beresp.keep = 1d;
    return (deliver);
}

sub vcl_backend_error {
    # A GET or HEAD (idempotent) whose gateway could not be reached (refused, reset: a gateway
    # that died before its probe noticed) is tried once more, on the next gateway. Only a quick
    # failure (< 3 s, the connect timeout's order) is retried: a gateway that took the request
    # and then stalled has already cost the client its first-byte timeout.
    # Fastly: `restart` in vcl_error for the same case. Cloudflare: the Load Balancer retries
    # another origin on connection errors.
    if (bereq.retries == 0 && bereq.method ~ "^(GET|HEAD)$" && now - bereq.time < 3s) {
        return (retry);
    }
    # No gateway answered: a JSON error like the gateway's own, never stored.
    set beresp.http.Content-Type = "application/json";
    set beresp.http.Cache-Control = "no-store";
    set beresp.http.Retry-After = "5";
    set beresp.body = {"{"error":"Service unavailable""} + "}";
    return (deliver);
}

sub vcl_deliver {
    # RateLimit* report the quota of the request that reached the gateway. A hit never did
    # (it is free), so the stored values are stale: they could show a window reset already past,
    # or r=1 to a key that the gateway is answering 429. Drop them from hits; misses and
    # passes keep the gateway's fresh ones. The gateway sends them on every keyed response,
    # as the contract says; only the cache knows which answer was a hit.
    # Fastly: the same in vcl_deliver, `if (fastly_info.state ~ "^HIT")`. Cloudflare: a
    # Worker, or a response header Transform Rule removing them (on every response, if your
    # plan cannot test the cache status).
    if (obj.hits > 0) {
        unset resp.http.RateLimit;
        unset resp.http.RateLimit-Policy;
        unset resp.http.RateLimit-Limit;
        unset resp.http.RateLimit-Remaining;
        unset resp.http.RateLimit-Reset;
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # This client's request id, not the one stored with the object.
    set resp.http.X-Request-Id = req.http.X-Request-Id;
    # Purge tokens are for the cache. Fastly and Cloudflare strip theirs the same way.
    unset resp.http.Surrogate-Key;
    unset resp.http.X-Varnish;
    unset resp.http.Via;
    return (deliver);
}

sub vcl_synth {
    # Varnish's own answers (PURGE, refusals) in the API's error shape.
    set resp.http.Content-Type = "application/json";
    set resp.http.Cache-Control = "no-store";
    set resp.http.X-Request-Id = req.http.X-Request-Id;
    # The headers every answer of the gateway carries (decisions.md), on the cache's own too.
    set resp.http.X-Content-Type-Options = "nosniff";
    set resp.http.Access-Control-Allow-Origin = "*";
    unset resp.http.X-Varnish;
    unset resp.http.Server;
    if (resp.status == 200) {
        set resp.body = {"{"purged":""} + req.http.Surrogate-Key + {"""} + "}";
    } else {
        set resp.body = {"{"error":""} + regsuball(resp.reason, {"""}, "'") + {"""} + "}";
    }
    return (deliver);
}
