#!/usr/bin/env bash
# Builds the local Java 25 base image vibridge/jre-base:25 WITHOUT any registry: a jlink runtime
# made from the machine's Temurin 25 JDK, the C libraries it links against, Debian's busybox-static
# for /bin/sh, nc and wget, and minimal /etc files with the non-root user vibridge (uid/gid 10001),
# imported with `docker import`. Idempotent: skips when the tag exists, unless --force.
#
#   deploy/scripts/make-base-image.sh [--force] [--tag TAG] [--jdk DIR]
#
# Why jlink rather than a copy of the JDK: ~130 MB instead of ~270 MB, no compiler or tools a
# service never runs, and still a full JRE for everything our dependencies use. The module set
# below is what `jdeps --print-module-deps --multi-release 25` reports over the whole runtime
# dependency set of module gateway (vertx-core 5.2 and netty 4.2, micrometer 1.16 with the
# Prometheus registry, logback 1.5, slf4j 2, typesafe config 1.4, picocli 4.7, disni 2.1):
#   java.base java.compiler java.desktop java.naming java.sql jdk.jfr jdk.management jdk.unsupported
# (java.desktop: java.beans, used by typesafe config's ConfigBeanFactory and by micrometer-core),
# plus modules that are only found at run time through service loading or reflection, which jdeps
# cannot see: jdk.naming.dns (Netty's resolver reads name servers through JNDI DNS), jdk.net
# (extended socket options), jdk.crypto.ec, jdk.charsets, jdk.zipfs, java.net.http, java.xml
# (logback's XML configuration), jdk.httpserver, and the operations modules java.instrument,
# jdk.management.agent, jdk.management.jfr and jdk.jcmd (jcmd/jstack in the container), and the
# incubator module jdk.incubator.vector, which the launcher adds for the seed-004 CRC (vitcp RdmaTcpCrc).
# The image carries its module list as the label vibridge.modules: an image of an older list is rebuilt.
# --generate-cds-archive adds ~29 MB of class-data sharing, which shortens every JVM start (the
# health check starts one every few seconds).
set -euo pipefail

TAG=vibridge/jre-base:25
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
FORCE=0
MODULES=java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,\
java.naming,java.net.http,java.sql,java.xml,jdk.charsets,jdk.crypto.ec,jdk.httpserver,jdk.jcmd,\
jdk.jfr,jdk.management,jdk.management.agent,jdk.management.jfr,jdk.naming.dns,jdk.net,\
jdk.unsupported,jdk.zipfs,jdk.incubator.vector
readonly JAVA_DIR=/opt/java/openjdk   # same JAVA_HOME as the public eclipse-temurin images
readonly APP_UID=10001 APP_USER=vibridge

say() { echo "make-base-image: $*"; }
die() { echo "make-base-image: ERROR: $*" >&2; exit 1; }
usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case $1 in
    --force) FORCE=1 ;;
    --tag) TAG=${2:?--tag needs a value}; shift ;;
    --jdk) JDK=${2:?--jdk needs a value}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
  shift
done

command -v docker >/dev/null 2>&1 || die "docker not found: run deploy/scripts/docker-engine.sh first"
docker info >/dev/null 2>&1 || die "the Docker engine does not answer: run deploy/scripts/docker-engine.sh first"
if [ "$FORCE" -eq 0 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
  if [ "$(docker image inspect --format '{{index .Config.Labels "vibridge.modules"}}' "$TAG" 2>/dev/null)" = "$MODULES" ]; then
    say "$TAG exists (use --force to rebuild)"
    exit 0
  fi
  say "$TAG has another module set: rebuilding it"
fi
[ -x "$JDK/bin/jlink" ] || die "no jlink in $JDK (set --jdk to a JDK 25)"
major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JDK/release")
[ "$major" = 25 ] || die "$JDK is Java ${major:-?}, not 25"

start=$SECONDS
old_id=$(docker image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)
work=$(mktemp -d /tmp/jre-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"

# 1. Java runtime.
say "jlink runtime from $JDK"
"$JDK/bin/jlink" --add-modules "$MODULES" --strip-debug --no-man-pages --no-header-files \
  --generate-cds-archive --output "$root$JAVA_DIR" >"$work/jlink.log" 2>&1 \
  || { cat "$work/jlink.log" >&2; die "jlink failed"; }

# 2. The shared libraries the runtime links against, at the paths ldd reports, plus the dynamic
# loader and libgcc_s (glibc loads it on demand to unwind threads). The X11 and sound back ends of
# java.desktop are left without their libraries: the service runs headless (java.desktop is here
# for java.beans).
headless_only='/lib(awt_xawt|jawt|jsound|splashscreen)\.so$'
copy_lib() {
  local src=$1
  [ -e "$root$src" ] && return 0
  mkdir -p "$root$(dirname "$src")"
  cp -L "$src" "$root$src"
}
while IFS= read -r so; do
  [[ $so =~ $headless_only ]] && continue
  while read -r name arrow path _; do
    if [ "$arrow" = "=>" ] && [ "$path" = "not" ]; then
      [ -e "$(dirname "$so")/$name" ] || [ -e "$root$JAVA_DIR/lib/$name" ] || [ -e "$root$JAVA_DIR/lib/server/$name" ] \
        || die "${so#"$root"} needs $name, which this machine lacks"
    elif [ "$arrow" = "=>" ] && [ "${path#/}" != "$path" ]; then
      case $path in "$root"*) ;; *) copy_lib "$path" ;; esac
    elif [ "${name#/}" != "$name" ]; then
      copy_lib "$name"   # the dynamic loader
    fi
  done < <(ldd "$so" 2>/dev/null || true)
done < <(find "$root$JAVA_DIR" -type f \( -name '*.so' -o -path '*/bin/*' \))
libgcc=/lib/x86_64-linux-gnu/libgcc_s.so.1
[ -e "$libgcc" ] && copy_lib "$libgcc"

# 3. busybox-static: /bin/sh, nc, wget, id, ... (Debian's package, extracted, not installed).
say "busybox-static from Debian"
# One `apt-get update` and a retry when the package lists are stale or absent (fresh machine).
download() {
  if ! (cd "$work" && apt-get download -qq "$@" >/dev/null 2>"$work/apt.log"); then
    [ "$(id -u)" -eq 0 ] || { cat "$work/apt.log" >&2; die "apt-get download $* failed"; }
    apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
    (cd "$work" && apt-get download -qq "$@" >/dev/null 2>"$work/apt.log") \
      || { cat "$work/apt.log" >&2; die "apt-get download $* failed"; }
  fi
}
download busybox-static
dpkg-deb -x "$work"/busybox-static_*.deb "$work/bb"
install -D -m 0755 "$work/bb/bin/busybox" "$root/bin/busybox"
while IFS= read -r applet; do
  [ "$applet" = bin/busybox ] && continue
  mkdir -p "$root/$(dirname "$applet")"
  [ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done < <("$root/bin/busybox" --list-full)

# 4. Minimal /etc, /tmp and the application user's home.
mkdir -p "$root/etc" "$root/tmp" "$root/home/$APP_USER" "$root/root" "$root/var/tmp"
chmod 1777 "$root/tmp" "$root/var/tmp"
chmod 0700 "$root/root"
cat >"$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/bin/sh
$APP_USER:x:$APP_UID:$APP_UID:vibridge:/home/$APP_USER:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
cat >"$root/etc/group" <<GROUP
root:x:0:
$APP_USER:x:$APP_UID:
nogroup:x:65534:
GROUP
printf 'root:*:::::::\n%s:!:::::::\nnobody:*:::::::\n' "$APP_USER" >"$root/etc/shadow"
chmod 0640 "$root/etc/shadow"
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\nservices: files\nprotocols: files\n' \
  >"$root/etc/nsswitch.conf"
printf 'ip\t0\tIP\ntcp\t6\tTCP\nudp\t17\tUDP\n' >"$root/etc/protocols"
cp /etc/services "$root/etc/services" 2>/dev/null || : >"$root/etc/services"
printf 'NAME="vibridge jre-base"\nID=vibridge-jre-base\nVERSION_ID=25\n' >"$root/etc/os-release"
chown "$APP_UID:$APP_UID" "$root/home/$APP_USER"

# 5. Import. Ownership comes from the staging tree (root, except the user's home).
say "docker import as $TAG"
tar -C "$root" --numeric-owner -cf - . | docker import \
  -c "ENV JAVA_HOME=$JAVA_DIR" \
  -c "ENV PATH=$JAVA_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  -c "ENV LANG=C.UTF-8" \
  -c "WORKDIR /" \
  -c 'CMD ["java", "-version"]' \
  -c "LABEL vibridge.modules=$MODULES" \
  -m "local Java 25 base (jlink of $(sed -n 's/^IMPLEMENTOR_VERSION="\(.*\)"/\1/p' "$JDK/release"), busybox-static)" \
  - "$TAG" >/dev/null
# With --force, drop the image the tag pointed at before, once nothing else refers to it.
if [ -n "$old_id" ] && [ "$old_id" != "$(docker image inspect --format '{{.Id}}' "$TAG")" ]; then
  docker rmi "$old_id" >/dev/null 2>&1 || true
fi

# 6. Check it for real: the JVM starts, the shell and the user exist, as the user.
docker run --rm --label vibridge.selftest=true "$TAG" java -Xshare:on -version >/dev/null 2>&1 \
  || die "java does not start in $TAG (or its CDS archive does not map)"
docker run --rm --label vibridge.selftest=true --user "$APP_UID:$APP_UID" "$TAG" \
  sh -c 'test "$(id -un)" = vibridge && touch /tmp/x && nc --help >/dev/null 2>&1; command -v wget >/dev/null' \
  || die "shell, user or busybox applets missing in $TAG"
size=$(docker image inspect --format '{{.Size}}' "$TAG")
say "$TAG built in $((SECONDS - start)) s, $((size / 1000000)) MB"
