#!/bin/sh
# Varnish for compose.yaml: varnishd with the shipped snapdeck.vcl, and a watch on the gateways'
# addresses. Varnish resolves a backend's name once, when it loads the VCL, while a gateway
# container that restarts or is re-created may get another address; so every 5 s the names of
# backends.vcl are resolved again, and when an address changed the same VCL is loaded anew (the
# old one is discarded). A name that does not resolve (a stopped gateway) changes nothing: the
# probes already keep it out of rotation. Ends, and so stops the container, when varnishd ends.
set -eu
VCL=/etc/varnish/snapdeck.vcl
NAMES="$(sed -n 's/^ *\.host = "\([^"]*\)";.*/\1/p' /etc/varnish/backends.vcl | sort -u)"

varnishd -F -f "$VCL" "$@" &
VARNISHD=$!
trap 'kill -TERM "$VARNISHD" 2>/dev/null' TERM INT

addresses() {
  for name in $NAMES; do printf '%s=%s\n' "$name" "$(getent ahostsv4 "$name" | awk 'NR == 1 { print $1 }')"; done
}

seen="$(addresses)"
loaded=boot
while kill -0 "$VARNISHD" 2>/dev/null; do
  sleep 5 &
  wait $! || true
  now="$(addresses)"
  # Only when every name resolves (a stopped gateway is the probes' business) and one moved.
  if [ "$now" != "$seen" ] && ! printf '%s\n' "$now" | grep -q '=$'; then
    name="reload$(date +%s)"
    if varnishadm vcl.load "$name" "$VCL" >/dev/null && varnishadm vcl.use "$name" >/dev/null; then
      echo "varnish.sh: a gateway moved ($(echo $now)): VCL reloaded as $name" >&2
      varnishadm vcl.discard "$loaded" >/dev/null 2>&1 || true
      loaded="$name"
      seen="$now"
    fi
  fi
done
wait "$VARNISHD"
