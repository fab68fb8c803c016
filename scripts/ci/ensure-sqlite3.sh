#!/usr/bin/env bash
# Makes sure the `sqlite3` shell is on PATH (the writer's fault tests open the writer database with
# it, as an operator would), installing the Debian package when it is not
# (scripts/ci/ensure-package.sh: quiet when present, root or sudo and apt-get otherwise).
set -euo pipefail
exec bash "$(dirname "$0")/ensure-package.sh" ensure-sqlite3 sqlite3 sqlite3
