#!/usr/bin/env bash
# Builds vibridge/prometheus:local without any registry: the prometheus and promtool binaries from
# Debian's `prometheus` package (Go binaries that need only libc and the loader, per ldd), on a
# from-scratch root with busybox-static (sh, wget for the health check), minimal /etc and the
# non-root user nobody (65534). Config: deploy/prometheus/prometheus.yml at
# /etc/prometheus/prometheus.yml; listens on 9090; data in /prometheus. The packages are
# downloaded and extracted, never installed on this machine. Idempotent: skips when the tag
# exists, unless --force. Then starts the image once and waits for /-/ready.
#
#   deploy/scripts/make-prometheus-image.sh [--force] [--tag TAG]
set -euo pipefail

TAG=vibridge/prometheus:local
FORCE=0
here=$(cd "$(dirname "$0")" && pwd)
deploy=$(dirname "$here")

say() { echo "make-prometheus-image: $*"; }
die() { echo "make-prometheus-image: ERROR: $*" >&2; exit 1; }
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case $1 in
    --force) FORCE=1 ;;
    --tag) TAG=${2:?--tag needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

command -v docker >/dev/null 2>&1 || die "docker not found: run deploy/scripts/docker-engine.sh first"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer: run deploy/scripts/docker-engine.sh first"
if [ "$FORCE" -eq 0 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
  say "$TAG exists (use --force to rebuild)"
  exit 0
fi

start=$SECONDS
work=$(mktemp -d /tmp/prometheus-image.XXXXXX)
cid=""
cleanup() {
  [ -n "$cid" ] && docker rm -f "$cid" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
root=$work/rootfs

# apt-get download, with one `apt-get update` when the lists are stale or absent (fresh machine).
download() {
  if ! (cd "$work" && apt-get download -qq "$@" >/dev/null 2>"$work/apt.log"); then
    [ "$(id -u)" -eq 0 ] || { cat "$work/apt.log" >&2; die "apt-get download $* failed"; }
    apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
    (cd "$work" && apt-get download -qq "$@" >/dev/null 2>"$work/apt.log") \
      || { cat "$work/apt.log" >&2; die "apt-get download $* failed"; }
  fi
}

say "prometheus and busybox-static from Debian"
download prometheus busybox-static
dpkg-deb -x "$work"/prometheus_*.deb "$work/prom"
dpkg-deb -x "$work"/busybox-static_*.deb "$work/bb"

mkdir -p "$root/bin" "$root/etc/prometheus" "$root/tmp"
chmod 1777 "$root/tmp"
install -m 0755 "$work/prom/usr/bin/prometheus" "$work/prom/usr/bin/promtool" "$root/bin/"
install -m 0755 "$work/bb/bin/busybox" "$root/bin/busybox"
while IFS= read -r applet; do
  [ "$applet" = bin/busybox ] && continue
  mkdir -p "$root/$(dirname "$applet")"
  [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done < <("$root/bin/busybox" --list-full)

# The libraries the Go binaries link against (libc and the loader, as ldd shows).
for bin in "$root/bin/prometheus" "$root/bin/promtool"; do
  while read -r name arrow path _; do
    lib=""
    if [ "$arrow" = "=>" ] && [ "$path" = "not" ]; then die "$bin needs $name, which this machine lacks"
    elif [ "$arrow" = "=>" ] && [ "${path#/}" != "$path" ]; then lib=$path
    elif [ "${name#/}" != "$name" ]; then lib=$name
    fi
    if [ -n "$lib" ] && [ ! -e "$root$lib" ]; then
      mkdir -p "$root$(dirname "$lib")"
      cp -L "$lib" "$root$lib"
    fi
  done < <(ldd "$bin" 2>/dev/null || true)
done

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/prometheus:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"

# Check the configuration with Debian's own promtool before baking it in.
"$root/bin/promtool" check config "$deploy/prometheus/prometheus.yml" >"$work/promtool.log" 2>&1 \
  || { cat "$work/promtool.log" >&2; die "deploy/prometheus/prometheus.yml does not pass promtool check config"; }

cp "$deploy/prometheus/Dockerfile" "$deploy/prometheus/prometheus.yml" "$work/"
say "docker build (legacy builder, offline) as $TAG"
old_id=$(docker image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
DOCKER_BUILDKIT=0 docker build -q --label vibridge.image=prometheus -t "$TAG" "$work" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; die "docker build failed"; }
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' "$TAG")" ]; then
  docker rmi "$old_id" >/dev/null 2>&1 || true
fi

# Start it once; wait (bounded) for /-/ready, then for the image's HEALTHCHECK to report healthy
# and for a first self-scrape (up{job="prometheus"} == 1): proof it serves queries.
cid=$(docker run -d --label vibridge.selftest=true "$TAG")
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ] || [ "$(docker inspect -f '{{.State.Running}}' "$cid")" != true ]; then
      docker logs "$cid" 2>&1 | tail -n 20 >&2
      die "$TAG: no $what within ${limit}s"
    fi
    sleep 0.5
  done
}
healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$cid")" = healthy ]; }
self_scraped() {
  docker exec "$cid" wget -q -O - 'http://127.0.0.1:9090/api/v1/query?query=up%7Bjob%3D%22prometheus%22%7D' \
    | grep -q '"value":\[[0-9.]*,"1"\]'
}
wait_for 60 "answer on /-/ready" docker exec "$cid" wget -q -O /dev/null http://127.0.0.1:9090/-/ready
wait_for 60 "healthy status" healthy
wait_for 60 "self-scrape" self_scraped
user=$(docker exec "$cid" id -u)
[ "$user" = 65534 ] || die "$TAG runs as uid $user, expected 65534"
size=$(docker image inspect --format '{{.Size}}' "$TAG")
say "$TAG built and ready in $((SECONDS - start)) s, $((size / 1000000)) MB"
