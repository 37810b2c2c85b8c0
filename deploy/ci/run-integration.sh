#!/usr/bin/env bash
# CI steps for the container tests on a machine without a container registry (a fresh CI machine of
# this kind: root, Debian packages and Maven Central only). Called from .ci/run:
#
#   deploy/ci/run-integration.sh prepare   # Docker engine (+compose, buildx), vibridge/jre-base:25,
#                                          # vibridge/prometheus:local; prints what it has
#   deploy/ci/run-integration.sh smoke     # after `mvn install`: the compose system (offline override)
#                                          # up, `vibridge ping` (both framings) and a short `vibridge perf`
#                                          # through it, down
#   deploy/ci/run-integration.sh cleanup   # removes what tests left: containers and networks labelled
#                                          # org.testcontainers=true, the compose project "vibridge"
#   deploy/ci/run-integration.sh all       # prepare, README's test commands (CI=true), smoke, cleanup
#
# `mvn install` (verify and on) builds vibridge/gateway:local (module gateway, pre-integration-test) and runs
# the Failsafe ITs against it; with CI=true they fail instead of skipping when Docker is missing.
# Environment: JAVA_HOME (JDK 25, for smoke's ping/perf), SMOKE_PORT (host port of VI/TCP, 7470),
# SMOKE_RDMATCP_PORT (host port of VI/TCP in seed-004 frames, 7471),
# SMOKE_ADMIN_PORT (9464), SMOKE_PROMETHEUS_PORT (9090).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
scripts=$repo/deploy/scripts
say() { echo "ci-containers: $*"; }
die() { echo "ci-containers: ERROR: $*" >&2; exit 1; }

compose() {
  DOCKER_BUILDKIT=0 VIBRIDGE_PORT=${SMOKE_PORT:-7470} VIBRIDGE_RDMATCP_PORT=${SMOKE_RDMATCP_PORT:-7471} \
    VIBRIDGE_ADMIN_PORT=${SMOKE_ADMIN_PORT:-9464} \
    VIBRIDGE_PROMETHEUS_PORT=${SMOKE_PROMETHEUS_PORT:-9090} \
    docker compose --project-directory "$repo" -f "$repo/docker-compose.yml" -f "$repo/docker-compose.offline.yml" "$@"
}

prepare() {
  local t=$SECONDS
  "$scripts/docker-engine.sh"
  "$scripts/make-base-image.sh"
  "$scripts/make-prometheus-image.sh"
  say "engine $(docker version --format '{{.Server.Version}}'), $(docker compose version)"
  docker image ls --format '  {{.Repository}}:{{.Tag}} {{.Size}}' | grep vibridge || true
  say "prepared in $((SECONDS - t)) s"
}

smoke() {
  local t=$SECONDS java=${JAVA_HOME:+$JAVA_HOME/bin/}java port=${SMOKE_PORT:-7470} framed=${SMOKE_RDMATCP_PORT:-7471}
  compgen -G "$repo/gateway/target/vibridge/lib/*.jar" >/dev/null \
    || die "no gateway/target/vibridge/lib: run the Maven build first"
  say "compose (offline override) up"
  compose up -d --build --wait
  compose ps
  local cp="$repo/gateway/target/vibridge/lib/*" rc=0
  "$java" -cp "$cp" io.vibridge.gateway.cli.Main ping --gateway "127.0.0.1:$port" --discriminator demo -c 5 -i 0.2 || rc=$?
  if [ "$rc" -eq 0 ]; then
    "$java" -cp "$cp" io.vibridge.gateway.cli.Main ping --gateway "127.0.0.1:$framed" --framing rdmatcp \
      --discriminator demo -c 5 -i 0.2 || rc=$?
  fi
  if [ "$rc" -eq 0 ]; then
    "$java" -cp "$cp" io.vibridge.gateway.cli.Main perf --gateway "127.0.0.1:$port" --discriminator demo -n 300 || rc=$?
  fi
  [ "$rc" -eq 0 ] || compose logs --tail 50 || true
  compose down --remove-orphans
  [ "$rc" -eq 0 ] || die "ping/perf through the compose system failed (exit $rc)"
  say "compose smoke passed in $((SECONDS - t)) s"
}

cleanup() {
  docker info >/dev/null 2>&1 || { say "no engine: nothing to clean"; return 0; }
  local c n
  c=$(docker ps -aq --filter label=org.testcontainers=true)
  [ -z "$c" ] || { say "removing containers: $(echo $c)"; docker rm -f -v $c >/dev/null; }
  n=$(docker network ls -q --filter label=org.testcontainers=true)
  [ -z "$n" ] || { say "removing networks: $(echo $n)"; docker network rm $n >/dev/null || true; }
  compose down --remove-orphans >/dev/null 2>&1 || true
  say "clean: $(docker ps -aq | wc -l) containers left"
}

case "${1:-}" in
  prepare) prepare ;;
  smoke) smoke ;;
  cleanup) cleanup ;;
  all)
    prepare
    trap cleanup EXIT
    (cd "$repo" && CI=true ./mvnw -B -ntp install && CI=true ./mvnw -B -ntp -nsu -f examples/testcontainers/pom.xml verify)
    smoke
    ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
