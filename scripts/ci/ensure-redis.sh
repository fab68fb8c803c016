#!/usr/bin/env bash
# Makes sure `redis-server` (and redis-cli) are on PATH, installing the Debian package when they
# are not. Idempotent and quiet: prints nothing when Redis is already there, one line when it
# installs it, and the apt output only when the install fails. Needs root (or sudo) and apt-get.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is missing and apt-get is not available; install Redis (>= 6) yourself" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "ensure-redis: redis-server is missing and installing it needs root" >&2
    exit 1
  fi
fi

# Several test workers may call this at the same time: one installs, the others wait for it.
LOCK="${TMPDIR:-/tmp}/snapdeck-ensure-redis.lock"
exec 9>"$LOCK"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi

echo "ensure-redis: installing redis-server with apt-get" >&2
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing (fresh container) or stale: update once if the install fails.
if ! $SUDO apt-get install -y -qq --no-install-recommends redis-server >"$LOG" 2>&1; then
  if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends redis-server; } >>"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "ensure-redis: installing redis-server failed" >&2
    exit 1
  fi
fi

# The package starts a system service on some images; tests run their own servers.
if command -v service >/dev/null 2>&1; then $SUDO service redis-server stop >/dev/null 2>&1 || true; fi

command -v redis-server >/dev/null 2>&1 || { echo "ensure-redis: redis-server still not on PATH after install" >&2; exit 1; }
