#!/usr/bin/env bash
# Makes sure Debian's headless-capable `chromium` is on PATH (the browser test of GET /docs drives
# it with playwright-core, which never downloads a browser), installing the package when it is
# missing. Idempotent and quiet: prints nothing when Chromium is there, one line when it installs
# it, and the apt output only when the install fails. Needs root (or sudo) and apt-get.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium is missing and apt-get is not available; install Chromium yourself" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "ensure-chromium: chromium is missing and installing it needs root" >&2
    exit 1
  fi
fi

# Several test workers may call this at the same time: one installs, the others wait for it.
LOCK="${TMPDIR:-/tmp}/snapdeck-ensure-chromium.lock"
exec 9>"$LOCK"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

echo "ensure-chromium: installing chromium with apt-get" >&2
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing (fresh container) or stale: update once if the install fails.
if ! $SUDO apt-get install -y -qq --no-install-recommends chromium >"$LOG" 2>&1; then
  if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium; } >>"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "ensure-chromium: installing chromium failed" >&2
    exit 1
  fi
fi

command -v chromium >/dev/null 2>&1 || { echo "ensure-chromium: chromium still not on PATH after install" >&2; exit 1; }
