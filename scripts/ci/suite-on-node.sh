#!/usr/bin/env bash
# suite-on-node.sh VERSION
# Runs the whole suite (npm ci, npm test, and npm run test:deep where node-versions says deep=) on Node.js VERSION in a fresh clone of
# this checkout's HEAD: git clone into a temporary folder with `shared` beside it (a symlink to
# this checkout's ../shared, where the tests read ../shared/data/raw), Node from
# scripts/ci/ensure-node.sh first on PATH (node, npm and npx are VERSION), native addons
# (better-sqlite3, msgpackr-extract) compiled against that Node's own headers (npm_config_nodedir),
# or against the release that scripts/ci/node-versions names with `headers=` on VERSION's line.
# Prints one timing line per phase; the first failing phase fails the run.
# The clone is removed at the end unless SNAPDECK_KEEP_CLONE=1 (kept on failure too, for a look).
set -euo pipefail

VERSION="${1:?usage: suite-on-node.sh VERSION (see scripts/ci/node-versions)}"
HERE="$(cd "$(dirname "$0")" && pwd)"
SRC="$(git -C "$HERE" rev-parse --show-toplevel)"
TAG="suite-on-node $VERSION"
START=$SECONDS

NODE_DIR="$(bash "$HERE/ensure-node.sh" "$VERSION")"
# The headers addons are built against: VERSION's own unless its line in node-versions says otherwise.
HEADERS="$(awk -v v="$VERSION" '$1 == v { for (i = 2; i <= NF; i++) if ($i ~ /^headers=/) { sub(/^headers=/, "", $i); print $i } }' "$HERE/node-versions")"
DEEP="$(awk -v v="$VERSION" '$1 == v { for (i = 2; i <= NF; i++) if ($i ~ /^deep=/) { sub(/^deep=/, "", $i); print $i } }' "$HERE/node-versions")"
if [ -n "$HEADERS" ]; then
  [ "${HEADERS%%.*}" = "${VERSION%%.*}" ] || { echo "$TAG: headers=$HEADERS is not on the $VERSION line" >&2; exit 1; }
  HEADERS_DIR="$(bash "$HERE/ensure-node.sh" "$HEADERS")"
else
  HEADERS_DIR="$NODE_DIR"
fi

# Nothing from an outer npm (npm run …) may point the suite at another node or npm.
while IFS= read -r name; do unset "$name"; done < <(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p')
unset NODE NODE_OPTIONS
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$HEADERS_DIR"
hash -r

[ "$(node --version)" = "v$VERSION" ] || { echo "$TAG: node on PATH is $(node --version), not v$VERSION" >&2; exit 1; }
[ "$(npm exec --yes=false -- node --version)" = "v$VERSION" ] || { echo "$TAG: npm runs another node" >&2; exit 1; }
[ "$(npx --yes=false node --version)" = "v$VERSION" ] || { echo "$TAG: npx runs another node" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/snapdeck-node-$VERSION.XXXXXX")"
keep=0
cleanup() {
  if [ "$keep" = 1 ] || [ "${SNAPDECK_KEEP_CLONE:-0}" = 1 ]; then echo "$TAG: the clone is kept in $WORK/snapdeck" >&2
  else rm -rf "$WORK"; fi
}
trap cleanup EXIT

git clone --quiet --no-hardlinks "$SRC" "$WORK/snapdeck"
if [ -d "$SRC/../shared" ]; then ln -s "$(cd "$SRC/../shared" && pwd -P)" "$WORK/shared"
else echo "$TAG: no ../shared beside $SRC: the tests of the real card data are skipped" >&2; fi
cd "$WORK/snapdeck"
echo "$TAG: node $(node --version), npm $(npm --version), nodedir $npm_config_nodedir, commit $(git rev-parse --short HEAD), clone $PWD"

# phase NAME COMMAND...: runs COMMAND, prints how long it took; a failure fails the run.
phase() {
  local name="$1" began=$SECONDS status=0
  shift
  echo "$TAG: $name ..."
  "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    keep=1
    echo "$TAG: FAILED: $name (exit $status) after $((SECONDS - began)) s" >&2
    exit "$status"
  fi
  echo "$TAG: $name: $((SECONDS - began)) s"
}

# The addons must load in this node (a binary built for another ABI would not), and a Database
# dropped unclosed must not abort the process when V8 collects it (it does, deterministically,
# with better-sqlite3 12 built against Node 24.19.0+ headers: see node-versions); says which
# binary each one loaded and which headers better-sqlite3 was built against.
check_addons() {
  grep -h '"nodedir"' node_modules/better-sqlite3/build/config.gypi 2>/dev/null | sed 's/^ */better-sqlite3 built with /' || true
  node -e "
    const Database = require('better-sqlite3');
    new Database(':memory:').prepare('select 1').get();
    const gyp = require('node-gyp-build-optional-packages');
    const extract = require('msgpackr-extract');
    if (typeof extract.extractStrings !== 'function') throw new Error('msgpackr-extract loaded without extractStrings');
    console.log('node ' + process.version + ' (modules ' + process.versions.modules + '): better-sqlite3 ' + require.resolve('better-sqlite3/build/Release/better_sqlite3.node') + ', msgpackr-extract ' + gyp.path(require('path').dirname(require.resolve('msgpackr-extract'))));
  "
}

phase "npm ci" npm ci --no-audit --no-fund
phase "native addons" check_addons
phase "npm test" npm test
if [ -n "$DEEP" ]; then phase "npm run test:deep (SNAPDECK_CASES=$DEEP)" env SNAPDECK_CASES="$DEEP" npm run test:deep
else echo "$TAG: no deep= in node-versions: npm run test:deep is left to the line that has one"; fi
echo "$TAG: all phases passed in $((SECONDS - START)) s"
