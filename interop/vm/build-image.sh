#!/bin/bash
# interop/vm/build-image.sh: build (or reuse from the cache) the Debian bookworm guest that runs
# Linux Soft-RoCE (rdma_rxe) and Soft-iWARP (siw, built out of tree: Debian's kernel lacks it) for
# the interop tests. See README.md.
#
#   build-image.sh [--force]
#
# Prints progress on stderr and, on success, the image directory on stdout (one line). The image
# directory holds vmlinuz, initrd.img, rootfs.ext4 (raw ext4, boot it with snapshot=on) and
# manifest.txt. Cache: ${VIBRIDGE_INTEROP_CACHE:-/var/cache/vibridge-interop}
#   base-<key>/   debootstrapped tree, keyed by the package list and the base recipe below
#   siw-<key>/    siw.ko for the base tree's kernel, keyed by the base, its kernel package version and
#                 the siw recipe below
#   img-<key>/    the image, keyed by this script and the files in guest/ (edits rebuild it)
#   debs/         debootstrap's package cache; debs-siw/ the siw build's (compiler, kernel source)
# Needs root. Installs its host tools (debootstrap, e2fsprogs) with apt-get when missing.
# The Debian mirror is read at run time from the host's apt sources (or $VIBRIDGE_INTEROP_MIRROR).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${VIBRIDGE_INTEROP_CACHE:-/var/cache/vibridge-interop}
SUITE=bookworm
# The guest's packages. udev comes in anyway (initramfs-tools needs it); it also loads the
# RDMA modules rdma-core's rules ask for. /dev/infiniband/* nodes come from devtmpfs.
# tcpdump and ethtool: captures of siw's traffic on the guest's lo (siw to siw in one guest).
# nvme-cli and fio: the NVMe over Fabrics cases (guest/vibridge-nvmeof: nvme-rdma host, fio verify).
PACKAGES=(linux-image-amd64 rdma-core ibverbs-utils rdmacm-utils perftest iproute2 kmod
          systemd-sysv socat procps tcpdump ethtool nvme-cli fio)
KEEP_IMAGES=${VIBRIDGE_INTEROP_KEEP_IMAGES:-3}

FORCE=0
[[ ${1:-} == --force ]] && FORCE=1

say() { printf '[build-image] %s\n' "$*" >&2; }
die() { printf '[build-image] ERROR: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) == 0 ]] || die "must run as root (debootstrap, mkfs)"

# --- host tools ----------------------------------------------------------------------------
need_pkgs=()
command -v debootstrap >/dev/null || need_pkgs+=(debootstrap)
command -v mkfs.ext4 >/dev/null || need_pkgs+=(e2fsprogs)
command -v flock >/dev/null || need_pkgs+=(util-linux)
if ((${#need_pkgs[@]})); then
    say "installing host packages: ${need_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
    apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null 2>&1 \
        || die "apt-get install ${need_pkgs[*]} failed"
fi

# --- the mirror: whatever apt on this host uses for $SUITE ------------------------------------
find_mirror() {
    [[ -n ${VIBRIDGE_INTEROP_MIRROR:-} ]] && { echo "$VIBRIDGE_INTEROP_MIRROR"; return; }
    local f uris suites types enabled line
    # deb822 (*.sources): a stanza with Types: deb, Suites containing $SUITE
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -r $f ]] || continue
        uris= suites= types= enabled=yes
        while IFS= read -r line || [[ -n $line ]]; do
            if [[ -z ${line//[[:space:]]/} ]]; then
                if [[ $enabled != no && " $types " == *" deb "* && " $suites " == *" $SUITE "* && -n $uris ]]; then
                    echo "${uris%% *}"; return
                fi
                uris= suites= types= enabled=yes
                continue
            fi
            case ${line,,} in
                uris:*) uris=$(echo ${line#*:}) ;;
                suites:*) suites=$(echo ${line#*:}) ;;
                types:*) types=$(echo ${line#*:}) ;;
                enabled:*) enabled=$(echo ${line#*:}) ;;
            esac
        done < <(grep -v '^[[:space:]]*#' "$f"; echo)
    done
    # classic one-line format
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -r $f ]] || continue
        awk -v suite="$SUITE" '
            $1 == "deb" {
                i = 2
                if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                if ($(i + 1) == suite) { print $i; exit }
            }' "$f"
    done | head -n1
}
MIRROR=$(find_mirror)
[[ -n $MIRROR ]] || die "no '$SUITE' Debian source in /etc/apt/sources.list{,.d/*}; set VIBRIDGE_INTEROP_MIRROR"
# an apt proxy, if the host's apt has one, for debootstrap's downloads too
if [[ -z ${http_proxy:-} ]] && command -v apt-config >/dev/null; then
    eval "$(apt-config shell APT_HTTP_PROXY Acquire::http::Proxy)"
    [[ -n ${APT_HTTP_PROXY:-} && ${APT_HTTP_PROXY,,} != direct ]] && export http_proxy=$APT_HTTP_PROXY
fi

# --- keys ----------------------------------------------------------------------------------
# base: what goes into the debootstrapped tree (suite, packages, the recipe function's text)
build_base() {
    local tree=$1 log=$2
    mkdir -p "$CACHE/debs"
    debootstrap --variant=minbase --merged-usr --components=main \
        --include="$(IFS=,; echo "${PACKAGES[*]}")" --cache-dir="$CACHE/debs" \
        "$SUITE" "$tree" "$MIRROR" >>"$log" 2>&1
    # no apt sources, lists or caches in the guest (it has no network anyway)
    rm -f "$tree/etc/apt/sources.list" "$tree"/etc/apt/sources.list.d/*
    rm -rf "$tree"/var/lib/apt/lists/* "$tree"/var/cache/apt/*.bin "$tree"/var/cache/apt/archives/*.deb
    rm -rf "$tree"/usr/share/doc/* "$tree"/usr/share/man/* "$tree"/usr/share/info/*
    find "$tree/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
    rm -f "$tree"/var/log/*.log "$tree"/var/log/apt/* "$tree"/var/cache/debconf/*-old
}
base_key=$( { echo "$SUITE ${PACKAGES[*]}"; declare -f build_base; } | sha256sum | cut -c1-16)

# siw: Debian's kernels are built without CONFIG_RDMA_SIW (the user-space provider libsiw is in
# ibverbs-providers), so siw.ko is compiled here from Debian's own linux-source for the base tree's
# exact kernel. The build runs in a throw-away copy of the base tree (same libc, the kernel's gcc-12),
# with the kernel packages pinned to the guest kernel's package version: the mirror may carry other
# versions (and bookworm-security newer ones), whose headers would give a module the kernel refuses.
# siw's knobs are compile-time constants in 6.1 (siw_main.c: const bool mpa_crc_required, ...);
# SIW_PARAMS become module parameters (same defaults, so an unloaded-parameter siw is the stock one)
# for the tests and captures that need MPA CRC on or peer-to-peer mode:
#   modprobe siw mpa_crc_required=1, or /sys/module/siw/parameters/* (read at connection setup).
SIW_PARAMS=(mpa_crc_required mpa_crc_strict peer_to_peer)
# build_siw TREE KVER KPKGVER OUT LOG: TREE is a scratch copy of the base (it gets packages installed)
build_siw() {
    local tree=$1 kver=$2 v=$3 out=$4 log=$5 p n
    local abi=${kver%-*} flavour=${kver##*-} mm
    mm=$(cut -d. -f1,2 <<<"$kver")
    local src=/build/linux-source-$mm/drivers/infiniband/sw/siw
    # the base's apt, pointed at the same suite (no -security: the kernel came from $SUITE)
    printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$tree/etc/apt/sources.list"
    cp --remove-destination /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
    mkdir -p "$CACHE/debs-siw/partial" "$tree/build"
    mount -t proc proc "$tree/proc"
    mount --bind "$CACHE/debs-siw" "$tree/var/cache/apt/archives"
    local rc=0
    {
        chroot "$tree" apt-get update -q \
        && DEBIAN_FRONTEND=noninteractive chroot "$tree" apt-get install -y -q --no-install-recommends \
            make gcc-12 xz-utils "linux-source-$mm=$v" "linux-headers-$kver=$v" \
            "linux-headers-$abi-common=$v" "linux-kbuild-$mm=$v" \
        && tar -C "$tree/build" -xJf "$tree/usr/src/linux-source-$mm.tar.xz" \
            "linux-source-$mm/drivers/infiniband/sw/siw" \
        && ( for p in "${SIW_PARAMS[@]}"; do
               # const bool NAME; -> bool NAME; module_param(NAME, bool, 0644);
               sed -i "s/^extern const bool $p;/extern bool $p;/" "$tree$src/siw.h"
               sed -i "s/^const bool $p;/bool $p;\nmodule_param($p, bool, 0644);\nMODULE_PARM_DESC($p, \"vibridge: a constant (false) in 6.1\");/" \
                   "$tree$src/siw_main.c"
               n=$(grep -c "^module_param($p, bool, 0644);" "$tree$src/siw_main.c")
               [[ $n == 1 ]] && grep -q "^extern bool $p;" "$tree$src/siw.h" \
                   || { echo "siw parameter patch for $p did not apply"; exit 1; }
             done ) \
        && chroot "$tree" make -C "/usr/src/linux-headers-$kver" M="$src" CONFIG_RDMA_SIW=m \
            -j"$(nproc)" modules
    } >>"$log" 2>&1 || rc=$?
    umount "$tree/var/cache/apt/archives"
    umount "$tree/proc"
    ((rc == 0)) || return "$rc"
    # the kernel loads it only with its own vermagic (no modversions mismatch either: same headers)
    local want got
    want=$(chroot "$tree" modinfo -F vermagic "$(cd "$tree" && find "lib/modules/$kver/kernel/drivers/infiniband/sw/rxe" -name 'rdma_rxe.ko*' | head -n1 | sed 's|^|/|')")
    got=$(chroot "$tree" modinfo -F vermagic "$src/siw.ko")
    [[ -n $want && $want == "$got" ]] || { echo "siw.ko vermagic '$got' != kernel's '$want'" >>"$log"; return 1; }
    mkdir -p "$out"
    cp "$tree$src/siw.ko" "$out/siw.ko"
    {
        echo "kernel=$kver package=$v flavour=$flavour vermagic=$got"
        echo "built with: $(chroot "$tree" dpkg-query -W -f '${Package} ${Version}\n' gcc-12 "linux-source-$mm" \
            "linux-headers-$kver" "linux-kbuild-$mm" | paste -sd, | sed 's/,/, /g')"
        echo "parameters: $(chroot "$tree" modinfo -F parm "$src/siw.ko" | cut -d: -f1 | paste -sd' ')"
        echo "sha256=$(sha256sum "$out/siw.ko" | cut -d' ' -f1)"
    } >"$out/info.txt"
}
# libdisni: DiSNI 2.1's JNI library (the disni verbs provider loads it), built from the sources vendored in
# deploy/vendor/disni-2.1 against the base's rdma-core headers (no source host is reachable from here), in a
# throw-away copy of the base tree; the JNI headers are the host JDK's (the only files of a JDK it reads).
DISNI_SRC=$(cd "$HERE/../../deploy/vendor/disni-2.1/libdisni" && pwd)
# build_libdisni TREE JDK_HOME OUT LOG
build_libdisni() {
    local tree=$1 jdk=$2 out=$3 log=$4 rc=0
    printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$tree/etc/apt/sources.list"
    cp --remove-destination /etc/resolv.conf "$tree/etc/resolv.conf" 2>/dev/null || true
    mkdir -p "$CACHE/debs-disni/partial" "$tree/build/jdk/include/linux"
    cp -r "$DISNI_SRC" "$tree/build/libdisni"
    cp "$jdk/include/jni.h" "$tree/build/jdk/include/"
    cp "$jdk/include/linux/jni_md.h" "$tree/build/jdk/include/linux/"
    mount -t proc proc "$tree/proc"
    mount --bind "$CACHE/debs-disni" "$tree/var/cache/apt/archives"
    {
        chroot "$tree" apt-get update -q \
        && DEBIAN_FRONTEND=noninteractive chroot "$tree" apt-get install -y -q --no-install-recommends \
            make g++ autoconf automake libtool libibverbs-dev librdmacm-dev \
        && chroot "$tree" sh -ec 'cd /build/libdisni; ./autoprepare.sh; ./configure --with-jdk=/build/jdk; make'
    } >>"$log" 2>&1 || rc=$?
    umount "$tree/var/cache/apt/archives"
    umount "$tree/proc"
    ((rc == 0)) || return "$rc"
    mkdir -p "$out"
    cp -L "$tree/build/libdisni/src/.libs/libdisni.so" "$out/libdisni.so"
    {
        echo "built with: $(chroot "$tree" dpkg-query -W -f '${Package} ${Version}\n' g++ libibverbs-dev librdmacm-dev \
            | paste -sd, | sed 's/,/, /g')"
        echo "sha256=$(sha256sum "$out/libdisni.so" | cut -d' ' -f1)"
    } >"$out/info.txt"
}
img_key=$( { echo "base=$base_key"; cat "$HERE/build-image.sh"; (cd "$DISNI_SRC" && find . -type f | LC_ALL=C sort | xargs sha256sum);
             cd "$HERE/guest" && for f in $(LC_ALL=C ls); do echo "== $f $(stat -c %a "$f")"; cat "$f"; done; } \
           | sha256sum | cut -c1-16)
BASE=$CACHE/base-$base_key
IMG=$CACHE/img-$img_key

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
    say "waiting for another build (lock $CACHE/.lock)"
    flock 9
fi

if [[ $FORCE == 0 && -f $IMG/.complete ]]; then
    touch "$IMG"          # most recently used: the cache cleanup below keeps it
    say "image cached: $IMG (0 s)"
    echo "$IMG"
    exit 0
fi

t_start=$(date +%s)
WORK=$(mktemp -d "$CACHE/.build.XXXXXX")
cleanup() {
    local m
    # anything a chroot step may have left mounted under the work dir
    for m in $(awk -v w="$WORK" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do umount -l "$m" || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
LOG=$WORK/build.log
: >"$LOG"

# --- base tree -----------------------------------------------------------------------------
if [[ $FORCE == 1 || ! -f $BASE/.complete ]]; then
    say "debootstrap $SUITE (minbase + ${#PACKAGES[@]} packages), log $CACHE/last-build.log ..."
    t0=$(date +%s)
    rm -rf "$BASE"
    if ! build_base "$WORK/base" "$LOG"; then
        cp "$LOG" "$CACHE/last-build.log"
        tail -n 30 "$LOG" >&2
        die "debootstrap failed (full log: $CACHE/last-build.log)"
    fi
    mv "$WORK/base" "$BASE"
    touch "$BASE/.complete"
    say "base tree built in $(( $(date +%s) - t0 )) s: $BASE"
else
    say "base tree cached: $BASE"
fi

# --- siw.ko for the base's kernel ----------------------------------------------------------------
kver=$(cd "$BASE/lib/modules" && LC_ALL=C ls | sort -V | tail -n1)
[[ -n $kver && -f $BASE/boot/vmlinuz-$kver ]] || die "no kernel in the base tree"
kpkg=$(chroot "$BASE" dpkg-query -W -f '${Version}' "linux-image-$kver") || die "no linux-image-$kver package in the base"
siw_key=$( { echo "base=$base_key kernel=$kver $kpkg ${SIW_PARAMS[*]}"; declare -f build_siw; } | sha256sum | cut -c1-16)
SIW=$CACHE/siw-$siw_key
if [[ $FORCE == 1 || ! -f $SIW/.complete ]]; then
    say "building siw.ko for $kver (linux-source $kpkg, in a copy of the base tree) ..."
    t0=$(date +%s)
    rm -rf "$SIW"
    cp -a "$BASE" "$WORK/siwtree"
    if ! build_siw "$WORK/siwtree" "$kver" "$kpkg" "$WORK/siw" "$LOG"; then
        cp "$LOG" "$CACHE/last-build.log"
        tail -n 30 "$LOG" >&2
        die "siw build failed (full log: $CACHE/last-build.log; if linux-source $kpkg is no longer on the mirror, rebuild the base with --force)"
    fi
    rm -rf "$WORK/siwtree"
    mv "$WORK/siw" "$SIW"
    touch "$SIW/.complete"
    say "siw.ko built in $(( $(date +%s) - t0 )) s: $SIW"
else
    say "siw.ko cached: $SIW"
fi

# --- libdisni for the base's rdma-core ---------------------------------------------------------------
JDK_FOR_JNI=${JAVA_HOME:-$(ls -d /usr/lib/jvm/temurin-25-jdk-amd64 2>/dev/null || ls -d /usr/lib/jvm/*/ | head -n1)}
[[ -f $JDK_FOR_JNI/include/jni.h ]] || die "no JDK with include/jni.h (set JAVA_HOME) to build libdisni"
disni_key=$( { echo "base=$base_key"; declare -f build_libdisni; (cd "$DISNI_SRC" && find . -type f | LC_ALL=C sort | xargs sha256sum);
               sha256sum "$JDK_FOR_JNI/include/jni.h" "$JDK_FOR_JNI/include/linux/jni_md.h" | cut -d' ' -f1; } \
             | sha256sum | cut -c1-16)
DISNI=$CACHE/disni-$disni_key
if [[ $FORCE == 1 || ! -f $DISNI/.complete ]]; then
    say "building libdisni (DiSNI 2.1, vendored sources) in a copy of the base tree ..."
    t0=$(date +%s)
    rm -rf "$DISNI"
    cp -a "$BASE" "$WORK/disnitree"
    if ! build_libdisni "$WORK/disnitree" "$JDK_FOR_JNI" "$WORK/disni" "$LOG"; then
        cp "$LOG" "$CACHE/last-build.log"
        tail -n 30 "$LOG" >&2
        die "libdisni build failed (full log: $CACHE/last-build.log)"
    fi
    rm -rf "$WORK/disnitree"
    mv "$WORK/disni" "$DISNI"
    touch "$DISNI/.complete"
    say "libdisni built in $(( $(date +%s) - t0 )) s: $DISNI"
else
    say "libdisni cached: $DISNI"
fi

# --- image tree: base + guest files ------------------------------------------------------------
t0=$(date +%s)
T=$WORK/tree
cp -a "$BASE" "$T"
rm -f "$T/.complete"
install -m 0755 "$HERE/guest/vibridge-boot" "$T/usr/local/sbin/vibridge-boot"
install -m 0755 "$HERE/guest/vibridge-agent-handler" "$T/usr/local/sbin/vibridge-agent-handler"
install -m 0755 "$HERE/guest/vibridge-nvmeof" "$T/usr/local/sbin/vibridge-nvmeof"
install -m 0644 "$HERE/guest/vibridge-boot.service" "$T/etc/systemd/system/vibridge-boot.service"
install -m 0644 "$HERE/guest/vibridge-agent.service" "$T/etc/systemd/system/vibridge-agent.service"
mkdir -p "$T/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/vibridge-boot.service "$T/etc/systemd/system/multi-user.target.wants/vibridge-boot.service"
# nothing periodic, no login prompts: the guest only runs what the tests ask for
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer \
         dpkg-db-backup.timer getty@tty1.service getty-static.service serial-getty@ttyS0.service \
         systemd-timesyncd.service rdma-ndd.service; do
    ln -sf /dev/null "$T/etc/systemd/system/$u"
done
rm -f "$T/etc/systemd/system/getty.target.wants/"*
echo vibridge-peer >"$T/etc/hostname"
printf '127.0.0.1\tlocalhost\n198.18.0.2\tvibridge-peer\n198.18.0.1\tvibridge-host\n' >"$T/etc/hosts"
mkdir -p "$T/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\nForwardToConsole=no\n' >"$T/etc/systemd/journald.conf.d/vibridge.conf"
printf '/dev/vda / ext4 rw,noatime 0 0\n' >"$T/etc/fstab"
# a fixed machine-id: not a "first boot" (no preset-all), same id every run
echo "$img_key$img_key" >"$T/etc/machine-id"
mkdir -p "$T/var/tmp/vibridge-bg"

# rdma-core's udev rules would load iSER, NFS/RDMA (sunrpc) etc. at boot: vibridge-boot loads what it needs
printf '# vibridge: rdma_rxe, ib_uverbs and rdma_ucm are loaded by vibridge-boot\n' >"$T/etc/rdma/modules/rdma.conf"

# siw.ko where modprobe prefers it (updates/ before kernel/), with its dependencies in modules.dep
install -D -m 0644 "$SIW/siw.ko" "$T/lib/modules/$kver/updates/siw.ko"
chroot "$T" depmod -a "$kver" >>"$LOG" 2>&1 || die "depmod failed"
grep -q '^updates/siw\.ko:' "$T/lib/modules/$kver/modules.dep" || die "depmod did not pick up updates/siw.ko"

# libdisni where the JVM's default java.library.path looks (/usr/lib), as in deploy/Dockerfile.rdma
install -m 0755 "$DISNI/libdisni.so" "$T/usr/lib/libdisni.so"

# kernel + a small initrd: just what mounts an ext4 root on virtio-blk (MODULES=most makes a 36 MB
# initrd that costs ~2 s of emulated boot)
printf 'MODULES=list\n' >"$T/etc/initramfs-tools/conf.d/vibridge.conf"
printf '%s\n' virtio_pci virtio_blk ext4 >>"$T/etc/initramfs-tools/modules"
mount -t proc proc "$T/proc"
chroot "$T" update-initramfs -u -k "$kver" >>"$LOG" 2>&1 || { umount "$T/proc"; tail -n 20 "$LOG" >&2; die "update-initramfs failed"; }
umount "$T/proc"
[[ -f $T/boot/initrd.img-$kver ]] || die "no initrd in the tree"
mkdir -p "$WORK/img"
cp "$T/boot/vmlinuz-$kver" "$WORK/img/vmlinuz"
cp "$T/boot/initrd.img-$kver" "$WORK/img/initrd.img"
# the initrd must be able to mount a virtio-blk root
initrd_list=$(chroot "$T" lsinitramfs "/boot/initrd.img-$kver" 2>/dev/null) || die "lsinitramfs failed"
for m in virtio_blk virtio_pci ext4; do
    grep -q "/$m\.ko" "$T/lib/modules/$kver/modules.builtin" || grep -q "/$m\.ko" <<<"$initrd_list" \
        || die "initrd for $kver lacks $m"
done
for m in rdma_rxe virtio_net sch_netem ifb; do
    grep -q "/$m\.ko" "$T/lib/modules/$kver/modules.dep" || die "kernel $kver has no $m module"
done

# ext4 root: contents plus room for test files (writes go to qemu's snapshot overlay)
used_mb=$(du -sm "$T" | cut -f1)
size_mb=$(( used_mb * 115 / 100 + ${VIBRIDGE_INTEROP_IMAGE_FREE_MB:-768} ))
truncate -s "${size_mb}M" "$WORK/img/rootfs.ext4"
mkfs.ext4 -q -F -L vibridge-root -O ^has_journal -E root_owner=0:0 -d "$T" "$WORK/img/rootfs.ext4" >>"$LOG" 2>&1 \
    || { tail -n 20 "$LOG" >&2; die "mkfs.ext4 -d failed"; }
{
    echo "key=$img_key base=$base_key siw=$siw_key suite=$SUITE kernel=$kver"
    echo "siw: $(paste -sd' ' "$SIW/info.txt")"
    echo "libdisni: disni=$disni_key $(paste -sd' ' "$DISNI/info.txt")"
    echo "built=$(date -u +%FT%TZ) tree_mb=$used_mb image_mb=$size_mb"
    chroot "$T" dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null \
        | grep -E '^(linux-image|rdma-core|ibverbs|rdmacm-utils|perftest|socat|systemd |iproute2|udev|tcpdump)'
} >"$WORK/img/manifest.txt"
cp "$LOG" "$WORK/img/build.log"
rm -rf "$IMG"
mv "$WORK/img" "$IMG"
touch "$IMG/.complete" "$IMG"
say "image assembled in $(( $(date +%s) - t0 )) s: $IMG (kernel $kver, root ${size_mb} MiB, tree ${used_mb} MiB)"

# keep the $KEEP_IMAGES most recently used images and the bases they need
ls -1dt "$CACHE"/img-* 2>/dev/null | tail -n +$((KEEP_IMAGES + 1)) | while read -r old; do rm -rf "$old"; done
for b in "$CACHE"/base-*; do
    [[ -d $b && $b != "$BASE" ]] || continue
    grep -qs "base=${b##*/base-}" "$CACHE"/img-*/manifest.txt || rm -rf "$b"
done
for b in "$CACHE"/siw-*; do
    [[ -d $b && $b != "$SIW" ]] || continue
    grep -qs "siw=${b##*/siw-}" "$CACHE"/img-*/manifest.txt || rm -rf "$b"
done

for b in "$CACHE"/disni-*; do
    [[ -d $b && $b != "$DISNI" ]] || continue
    grep -qs "disni=${b##*/disni-}" "$CACHE"/img-*/manifest.txt || rm -rf "$b"
done

say "image build took $(( $(date +%s) - t_start )) s"
echo "$IMG"
