#!/usr/bin/env bash
# Makes sure `redis-server` (and redis-cli) are on PATH, installing the Debian package when they
# are not (scripts/ci/ensure-package.sh: quiet when present, root or sudo and apt-get otherwise).
set -euo pipefail
exec bash "$(dirname "$0")/ensure-package.sh" ensure-redis redis-server redis-server redis-server
