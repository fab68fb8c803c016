#!/usr/bin/env bash
# ensure-package.sh NAME COMMAND PACKAGE [SERVICE]
# Makes sure COMMAND is on PATH, installing the Debian PACKAGE when it is not, and stops SERVICE
# if the package started one (tests run their own servers). Idempotent and quiet: prints nothing
# when COMMAND is already there, one line when it installs, and apt's output only when the
# install fails. Needs root (or sudo) and apt-get. NAME prefixes the messages.
set -euo pipefail

NAME="$1" COMMAND="$2" PACKAGE="$3" SERVICE="${4:-}"

if command -v "$COMMAND" >/dev/null 2>&1; then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "$NAME: $COMMAND is missing and apt-get is not available; install $PACKAGE yourself" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "$NAME: $COMMAND is missing and installing $PACKAGE needs root" >&2
    exit 1
  fi
fi

# Several test workers may call this at the same time: one installs, the others wait for it.
LOCK="${TMPDIR:-/tmp}/snapdeck-ensure-$PACKAGE.lock"
exec 9>"$LOCK"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if command -v "$COMMAND" >/dev/null 2>&1; then
  exit 0
fi

echo "$NAME: installing $PACKAGE with apt-get" >&2
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
# The package lists may be missing (fresh container) or stale: update once if the install fails.
if ! $SUDO apt-get install -y -qq --no-install-recommends "$PACKAGE" >"$LOG" 2>&1; then
  if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "$PACKAGE"; } >>"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "$NAME: installing $PACKAGE failed" >&2
    exit 1
  fi
fi

# The package starts a system service on some images; tests run their own servers.
if [ -n "$SERVICE" ] && command -v service >/dev/null 2>&1; then $SUDO service "$SERVICE" stop >/dev/null 2>&1 || true; fi

command -v "$COMMAND" >/dev/null 2>&1 || { echo "$NAME: $COMMAND still not on PATH after installing $PACKAGE" >&2; exit 1; }
