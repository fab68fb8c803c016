#!/usr/bin/env bash
# Makes sure `promtool` (from Debian's prometheus package, 2.42 on bookworm, which the shipped
# deploy/prometheus/ alert rules are checked and unit-tested with) is installed, with apt-get when
# it is not (scripts/ci/ensure-package.sh: quiet when present, root or sudo otherwise). The package
# starts a Prometheus server on some images; tests need only promtool, so it is stopped.
set -euo pipefail
exec bash "$(dirname "$0")/ensure-package.sh" ensure-prometheus promtool prometheus prometheus
