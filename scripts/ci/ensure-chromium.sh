#!/usr/bin/env bash
# Makes sure Debian's `chromium` is on PATH (the browser test of GET /docs drives it headless with
# playwright-core, which never downloads a browser), installing the package when it is not
# (scripts/ci/ensure-package.sh: quiet when present, root or sudo and apt-get otherwise).
set -euo pipefail
exec bash "$(dirname "$0")/ensure-package.sh" ensure-chromium chromium chromium
