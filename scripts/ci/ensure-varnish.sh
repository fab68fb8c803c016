#!/usr/bin/env bash
# Makes sure `varnishd` (Varnish 7.1 from Debian, which the shipped deploy/varnish/snapdeck.vcl
# is tested with; it brings the C compiler Varnish compiles VCL with) is installed, with apt-get
# when it is not (scripts/ci/ensure-package.sh: quiet when present, root or sudo otherwise).
# varnishd lives in /usr/sbin, which a non-root PATH may lack.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"
exec bash "$(dirname "$0")/ensure-package.sh" ensure-varnish varnishd varnish varnish
