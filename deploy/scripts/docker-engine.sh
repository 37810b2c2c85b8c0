#!/usr/bin/env bash
# Makes a working Docker engine plus the compose v2 (and buildx) CLI plugins available on a fresh
# Debian bookworm machine with no container registry, and no systemd. Idempotent: a no-op when the
# engine answers and the plugins work. Run as root. See docs/containers-offline.md.
#
#   deploy/scripts/docker-engine.sh            # engine + compose + buildx
#   DOCKER_ENGINE_LOG=/path/dockerd.log ...    # where dockerd logs (default /tmp/dockerd.log)
#   DOCKER_CLI_PLUGINS_DIR=/dir ...            # where plugins go (default /usr/local/lib/docker/cli-plugins,
#                                              # a system dir every Docker CLI searches)
set -euo pipefail

readonly LOG=${DOCKER_ENGINE_LOG:-/tmp/dockerd.log}
readonly PLUGINS_DIR=${DOCKER_CLI_PLUGINS_DIR:-/usr/local/lib/docker/cli-plugins}
readonly WAIT_SECONDS=${DOCKER_ENGINE_WAIT_SECONDS:-60}
# Bookworm only has the Python docker-compose 1.29; trixie's packages carry compose v2 and buildx.
readonly PLUGIN_SUITE=trixie
readonly DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive

say() { echo "docker-engine: $*"; }
die() { echo "docker-engine: ERROR: $*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" -eq 0 ] || die "$1 needs root (run as root or with sudo)"
}

apt_updated=0
apt_install() {
  need_root "installing $*"
  local err
  err=$(mktemp)
  if [ "$apt_updated" -eq 0 ]; then
    apt-get update -qq >/dev/null 2>"$err" || { cat "$err" >&2; rm -f "$err"; die "apt-get update failed"; }
    apt_updated=1
  fi
  # Quiet on success (debconf chatter included); the whole error output on failure.
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>"$err" \
    || { cat "$err" >&2; rm -f "$err"; die "apt-get install $* failed"; }
  rm -f "$err"
}

engine_answers() { docker info >/dev/null 2>&1; }

ensure_engine() {
  if engine_answers; then
    return 0
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    say "installing Debian docker.io (dockerd)"
    apt_install docker.io
    command -v dockerd >/dev/null 2>&1 || die "docker.io installed but dockerd is not on PATH"
  fi
  local pid=""
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    need_root "starting dockerd"
    # A dockerd killed without cleaning up leaves its pid file, and a new one then refuses to start
    # (no dockerd runs here, so whatever process may now have that pid is not one).
    if [ -f /var/run/docker.pid ]; then
      say "removing the stale /var/run/docker.pid of a dockerd that is gone"
      rm -f /var/run/docker.pid
    fi
    say "starting dockerd (log: $LOG)"
    # No systemd here: a detached daemon in its own session survives this script.
    setsid dockerd >"$LOG" 2>&1 </dev/null &
    pid=$!
  fi
  local deadline=$((SECONDS + WAIT_SECONDS)) grace=$((SECONDS + 2))
  until engine_answers; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "--- last lines of $LOG:" >&2
      tail -n 20 "$LOG" >&2 2>/dev/null || true
      die "dockerd did not answer 'docker info' within ${WAIT_SECONDS}s"
    fi
    # Gone: neither the process we started nor any dockerd (after a grace period for exec).
    if [ "$SECONDS" -ge "$grace" ] && ! { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; } \
        && ! pgrep -x dockerd >/dev/null 2>&1; then
      echo "--- last lines of $LOG:" >&2
      tail -n 20 "$LOG" >&2 2>/dev/null || true
      die "dockerd exited"
    fi
    sleep 0.2
  done
}

# Downloads the named trixie packages into $2 with apt-get's own machinery, using a private
# sources list, lists and cache: the system's apt state, sources and installed packages are untouched.
fetch_trixie_debs() {
  local dest=$1; shift
  local apt_root="$dest/apt"
  mkdir -p "$apt_root/lists/partial" "$apt_root/cache/archives/partial" "$apt_root/etc"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $PLUGIN_SUITE main" \
    >"$apt_root/etc/sources.list"
  local opts=(
    -o "Dir::Etc::SourceList=$apt_root/etc/sources.list"
    -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$apt_root/lists"
    -o "Dir::Cache=$apt_root/cache"
    -o "APT::Get::List-Cleanup=0"
    -o "Debug::NoLocking=1"
  )
  apt-get "${opts[@]}" update -qq >/dev/null 2>"$apt_root/update.err" \
    || { cat "$apt_root/update.err" >&2; die "apt-get update for $PLUGIN_SUITE failed"; }
  (cd "$dest" && apt-get "${opts[@]}" download -qq "$@" >/dev/null 2>"$apt_root/download.err") \
    || { cat "$apt_root/download.err" >&2; die "apt-get download $* from $PLUGIN_SUITE failed"; }
}

# Copies the CLI plugin binary named $2 out of the .deb files in $1 into PLUGINS_DIR.
install_plugin_from_debs() {
  local work=$1 name=$2 deb extracted found=""
  for deb in "$work"/*.deb; do
    extracted="$work/x-$(basename "$deb" .deb)"
    [ -d "$extracted" ] || dpkg-deb -x "$deb" "$extracted"
    found=$(find "$extracted" -path '*/cli-plugins/*' -name "$name" -type f | head -n 1)
    [ -n "$found" ] && break
  done
  [ -n "$found" ] || die "no cli-plugins/$name binary in the downloaded packages"
  install -D -m 0755 "$found" "$PLUGINS_DIR/$name"
}

ensure_plugins() {
  local missing=()
  docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
  docker buildx version >/dev/null 2>&1 || missing+=(docker-buildx)
  [ "${#missing[@]}" -eq 0 ] && return 0
  need_root "installing ${missing[*]} into $PLUGINS_DIR"
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script expects Debian"
  local work
  work=$(mktemp -d /tmp/docker-plugins.XXXXXX)
  # shellcheck disable=SC2064 # expand now: $work is local
  trap "rm -rf '$work'" EXIT
  say "fetching ${missing[*]} from Debian $PLUGIN_SUITE"
  fetch_trixie_debs "$work" "${missing[@]}"
  local pkg
  for pkg in "${missing[@]}"; do
    install_plugin_from_debs "$work" "$pkg"
  done
  rm -rf "$work"
  trap - EXIT
  docker compose version >/dev/null 2>&1 || die "'docker compose version' fails after installing into $PLUGINS_DIR"
  docker buildx version >/dev/null 2>&1 || die "'docker buildx version' fails after installing into $PLUGINS_DIR"
}

main() {
  command -v docker >/dev/null 2>&1 || apt_install docker.io
  ensure_engine
  ensure_plugins
  say "engine $(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})')," \
      "$(docker compose version --short 2>/dev/null | sed 's/^/compose /')," \
      "$(docker buildx version 2>/dev/null | awk '{print "buildx " $2}')"
}

main "$@"
