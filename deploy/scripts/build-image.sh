#!/usr/bin/env bash
# Builds the vibridge service image from deploy/Dockerfile with the legacy builder (offline), from a
# minimal build context assembled in a temporary directory: deploy/Dockerfile, deploy/bin/vibridge
# and the jars (by default gateway/target/vibridge/lib from the Maven build of module gateway).
# Sending the repository root as context instead would upload every target/ and .git.
#
#   deploy/scripts/build-image.sh [--base IMAGE] [--tag TAG] [--lib DIR] [--if-docker]
#     --base  default: vibridge/jre-base:25 when that image exists locally (make-base-image.sh),
#             else the Dockerfile's default (eclipse-temurin:25-jre, needs a registry)
#     --tag   default: vibridge/gateway:local
#     --lib   directory of jars; default: gateway/target/vibridge/lib
#     --if-docker  (used by `mvn verify`) no engine answering: say so and exit 0, unless CI=true
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
BASE=""
TAG=vibridge/gateway:local
LIB=$repo/gateway/target/vibridge/lib
IF_DOCKER=false

say() { echo "build-image: $*"; }
die() { echo "build-image: ERROR: $*" >&2; exit 1; }
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case $1 in
    --base) BASE=${2:?--base needs a value}; shift ;;
    --tag) TAG=${2:?--tag needs a value}; shift ;;
    --lib) LIB=${2:?--lib needs a value}; shift ;;
    --if-docker) IF_DOCKER=true ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

if [ "$IF_DOCKER" = true ] && [ "${CI:-}" != true ] && ! docker info >/dev/null 2>&1; then
  say "no Docker engine answers: image not built, the container integration tests will be skipped"
  exit 0
fi
docker info >/dev/null 2>&1 || die "the Docker engine does not answer: run deploy/scripts/docker-engine.sh first"
compgen -G "$LIB/*.jar" >/dev/null \
  || die "no jars in $LIB: build module gateway first (./mvnw -B -ntp -pl gateway -am package)"
if [ -z "$BASE" ] && docker image inspect vibridge/jre-base:25 >/dev/null 2>&1; then
  BASE=vibridge/jre-base:25
fi

start=$SECONDS
ctx=$(mktemp -d /tmp/vibridge-context.XXXXXX)
log=$(mktemp /tmp/vibridge-build.XXXXXX)
trap 'rm -rf "$ctx" "$log"' EXIT
mkdir -p "$ctx/deploy/bin" "$ctx/gateway/target/vibridge/lib"
cp "$repo/deploy/Dockerfile" "$ctx/deploy/Dockerfile"
cp "$repo/deploy/bin/vibridge" "$ctx/deploy/bin/vibridge"
# Hard links when on the same file system (no copy of the jars), a copy otherwise.
cp -lL "$LIB"/*.jar "$ctx/gateway/target/vibridge/lib/" 2>/dev/null \
  || cp -L "$LIB"/*.jar "$ctx/gateway/target/vibridge/lib/"

args=(-f "$ctx/deploy/Dockerfile" -t "$TAG" --label "org.opencontainers.image.title=vibridge")
[ -n "$BASE" ] && args+=(--build-arg "BASE=$BASE")
say "building $TAG from base ${BASE:-eclipse-temurin:25-jre (Dockerfile default)}"
old_id=$(docker image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
DOCKER_BUILDKIT=0 docker build -q "${args[@]}" "$ctx" >"$log" 2>&1 \
  || { cat "$log" >&2; die "docker build failed"; }
# A rebuild leaves the previous image untagged: drop it once nothing else refers to it.
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' "$TAG")" ]; then
  docker rmi "$old_id" >/dev/null 2>&1 || true
fi
size=$(docker image inspect --format '{{.Size}}' "$TAG")
say "$TAG built in $((SECONDS - start)) s, $((size / 1000000)) MB"
