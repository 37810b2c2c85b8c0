#!/usr/bin/env bash
# Self-test of the container groundwork, runnable before module gateway exists and independent of
# the Maven build: engine, local base image, Prometheus image, and the service image built from
# deploy/Dockerfile with deploy/bin/vibridge around a STAND-IN jar (deploy/test-fixture: one class
# with the gateway's main class name, compiled here into a temporary jar; never shipped).
#
# Checks: the image runs as uid 10001 with the documented ports and health check; `gateway` and
# `target` commands reach the main class with their arguments; both containers turn healthy
# through `vibridge healthcheck`; the health check fails against a dead port; Prometheus from
# vibridge/prometheus:local scrapes both by their network aliases with its baked configuration;
# SIGTERM reaches the JVM (clean stop, not a kill).
#
#   deploy/scripts/selftest.sh [--keep]     (--keep: leave the selftest image behind)
# Everything it starts carries the label vibridge.selftest=<run id> and is removed at exit.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
deploy=$(dirname "$here")
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
IMAGE=vibridge/gateway:selftest
KEEP=0
[ "${1:-}" = --keep ] && KEEP=1
run_id=selftest-$$-$RANDOM
label="vibridge.selftest=$run_id"

say() { echo "selftest: $*"; }
die() { echo "selftest: FAIL: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/vibridge-selftest.XXXXXX)
net=""
cleanup() {
  local ids
  ids=$(docker ps -aq --filter "label=$label" 2>/dev/null || true)
  # shellcheck disable=SC2086 # a list of container ids
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1
  [ -n "$net" ] && docker network rm "$net" >/dev/null 2>&1
  [ "$KEEP" -eq 1 ] || docker rmi "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

t0=$SECONDS
# 1. Prerequisites (each idempotent, each quick when already done).
"$here/docker-engine.sh"
"$here/make-base-image.sh"
"$here/make-prometheus-image.sh"

# 2. The stand-in jar.
say "compiling the stand-in (deploy/test-fixture)"
mkdir -p "$work/classes" "$work/lib"
"$JDK/bin/javac" --release 25 -d "$work/classes" \
  "$deploy/test-fixture/src/io/vibridge/gateway/cli/Main.java"
"$JDK/bin/jar" --create --file "$work/lib/vibridge-standin.jar" -C "$work/classes" .

# 3. The service image, exactly as for the real gateway but with --lib pointing at the stand-in.
"$here/build-image.sh" --base vibridge/jre-base:25 --tag "$IMAGE" --lib "$work/lib"

# 4. Static image checks.
[ "$(docker image inspect -f '{{.Config.User}}' "$IMAGE")" = 10001:10001 ] || die "image user is not 10001:10001"
ports=$(docker image inspect -f '{{range $p, $_ := .Config.ExposedPorts}}{{$p}} {{end}}' "$IMAGE")
for p in 7470/tcp 7471/tcp 9464/tcp 4791/udp; do
  [[ " $ports" == *" $p "* ]] || die "image does not expose $p (has: $ports)"
done
docker image inspect -f '{{json .Config.Healthcheck.Test}}' "$IMAGE" | grep -q '"healthcheck"' \
  || die "image has no vibridge healthcheck"

# 5. Gateway and target containers on a private network, with Prometheus beside them.
net=$(docker network create --label "$label" "vibridge-$run_id")
gw=$(docker run -d --label "$label" --network "$net" --network-alias gateway "$IMAGE")
tg=$(docker run -d --label "$label" --network "$net" --network-alias target "$IMAGE" target --demo 1)
prom=$(docker run -d --label "$label" --network "$net" vibridge/prometheus:local)

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      for c in "$gw" "$tg" "$prom"; do
        echo "--- $(docker inspect -f '{{.Name}} {{.State.Status}} {{json .State.Health}}' "$c")" >&2
        docker logs "$c" 2>&1 | tail -n 10 >&2
      done
      die "no $what within ${limit}s"
    fi
    sleep 0.5
  done
}
healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ]; }
logs_have() { docker logs "$1" 2>&1 | grep -qF -- "$2"; }
both_scraped() {
  docker exec "$prom" wget -q -O - \
    'http://127.0.0.1:9090/api/v1/query?query=count(up%7Bjob%3D%22vibridge%22%7D%3D%3D1)' \
    | grep -q '"value":\[[0-9.]*,"2"\]'
}

wait_for 30 "gateway arguments in the log" logs_have "$gw" "args=[gateway] user=vibridge"
wait_for 30 "target arguments in the log" logs_have "$tg" "args=[target, --demo, 1] user=vibridge"
wait_for 90 "healthy gateway" healthy "$gw"
wait_for 90 "healthy target" healthy "$tg"
say "gateway and target healthy $((SECONDS - t0)) s into the self-test"
[ "$(docker exec "$gw" id -u)" = 10001 ] || die "the service does not run as uid 10001"
if docker exec "$gw" vibridge healthcheck --url http://127.0.0.1:1/health >/dev/null 2>&1; then
  die "the health check passes against a dead port"
fi
hc_start=$(date +%s%N)
docker exec "$gw" vibridge healthcheck --url http://127.0.0.1:9464/health >/dev/null \
  || die "the health check fails against a live port"
say "one health check (docker exec + JVM start + GET): $((($(date +%s%N) - hc_start) / 1000000)) ms"
wait_for 60 "Prometheus scrape of gateway:9464 and target:9464" both_scraped

# 6. SIGTERM reaches the JVM (the launcher execs java as PID 1): clean stop, not a SIGKILL.
docker stop -t 20 "$gw" >/dev/null
code=$(docker inspect -f '{{.State.ExitCode}}' "$gw")
[ "$code" = 143 ] || die "gateway exited with $code after SIGTERM (137 means it had to be killed)"
logs_have "$gw" "vibridge stand-in: stopped" || die "the JVM's shutdown hooks did not run"

size=$(docker image inspect --format '{{.Size}}' "$IMAGE")
say "PASS in $((SECONDS - t0)) s (stand-in service image $((size / 1000000)) MB)"
