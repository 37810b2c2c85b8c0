# interop/vm/vm.sh: a real Linux RoCE peer (Soft-RoCE, rdma_rxe) and iWARP peer (Soft-iWARP, siw) in a
# qemu VM, for tests.
# Source it from bash (root):   . interop/vm/vm.sh
#
# Address plan (RFC 2544 benchmarking range, exists only inside the namespace):
#   host side of the tap  198.18.0.1/24  ($VM_HOST_IP, device $VM_TAP = vbtap0, in netns $VM_NS)
#   guest virtio NIC      198.18.0.2/24  ($VM_GUEST_IP, rxe0 on it, agent on TCP $VM_AGENT_PORT = 7000)
#   host side of tap 2    198.18.1.1/24  ($VM_HOST2_IP, device $VM_TAP2 = vbtap1, same netns)
#   guest virtio NIC 2    198.18.1.2/24  ($VM_GUEST2_IP, siw0 on it: rdma_cm picks the RDMA device by
#                                         the address's netdev, so siw and rxe need a NIC each)
#   The namespace has no default route and IPv6 off; nothing leaves it. Run host-side peers with
#   vm_host. One VM per shell at a time; every vm_up gets a fresh namespace vbi-<pid>-<n>.
#
# Functions (all return 0 on success; failures print "[vm] ..." on stderr):
#   vm_host_deps            apt-get install the host tools that are missing (qemu-system-x86, qemu-utils,
#                           debootstrap, e2fsprogs, iproute2, socat, iputils-ping, util-linux).
#   vm_image                build or reuse the cached image (build-image.sh); sets VM_IMAGE_DIR and
#                           VM_IMAGE_SECONDS (wall time of that call).
#   vm_up MTU [KERNEL_ARGS] create the netns + tap (MTU 1500 or 9000, same MTU in the guest), boot the
#                           guest (TCG, 2 vCPUs, 2 GiB, root disk snapshot=on), wait for VIBRIDGE-READY
#                           (VM_BOOT_TIMEOUT, default 180 s; on failure prints the serial log tail,
#                           tears everything down and returns 1). Both links get MTU; rxe0 on the
#                           first, siw0 on the second. Sets VM_NS VM_TAP VM_TAP2 VM_MTU VM_QEMU_PID
#                           VM_GUEST_NIC VM_GUEST2_NIC VM_ACTIVE_MTU VM_BOOT_SECONDS VM_SERIAL_LOG VM_LOG_DIR.
#                           Installs EXIT/INT/TERM/HUP traps calling vm_cleanup unless the shell already
#                           has one for that signal (then call vm_cleanup from yours) or VM_NO_TRAP=1.
#                           Call it in the main shell, not in $(...): qemu dies with the shell that started it.
#   vm_exec [-t SEC] CMD    run CMD (one bash -c string, may span lines) in the guest as root, cwd /root,
#                           stdin /dev/null; stream its stdout+stderr; return its exit code. Timeout SEC
#                           (default $VM_EXEC_TIMEOUT or 120): the guest kills CMD and the return is 124.
#                           255: agent unreachable or the connection died without an exit code.
#   vm_exec_bg CMD NAME     start CMD in the guest in the background (own session, nohup, output to
#                           /var/tmp/vibridge-bg/NAME.log); returns at once. NAME: [A-Za-z0-9_.-]+.
#   vm_bg_wait NAME [SEC]   wait up to SEC (default $VM_EXEC_TIMEOUT or 120) for job NAME; print its output;
#                           return its exit code (124 if still running; it is left running).
#   vm_bg_kill NAME [SIG]   signal job NAME's process group (default TERM).
#   vm_host CMD [ARG...]    run a host-side command inside the namespace (ip netns exec $VM_NS ...).
#   vm_counters [-1]        rxe0's hw_counters as name=value, one per line (-1: all on one line).
#   vm_counter NAME         one hw_counter's value (e.g. vm_counter rcvd_seq_err).
#   vm_qps [ARGS]           rdma res show qp [ARGS] in the guest.
#   vm_netem [--all] [--link roce|iwarp|both] SPEC [to-guest|from-guest|both]
#                           tc netem SPEC (e.g. 'loss 2% reorder 25% 50% delay 1ms'; reorder needs a delay)
#                           on a link, default both directions. --link roce (default): the first link,
#                           only RoCEv2 packets (UDP dport 4791); iwarp: the second link (siw0), only
#                           TCP (siw's streams; ARP stays clean); both: the two. --all: every packet
#                           on the link(s), the agent's TCP too on the first. Applied in the guest on
#                           its NICs (egress) and via an ifb per NIC (ingress): the host kernel here
#                           has no sch_netem. Replaces any previous vm_netem.
#   vm_netem_off            remove it (both links).
#   vm_kill                 power the VM off abruptly (SIGKILL qemu); the namespace and tap stay (the
#                           peer just vanishes) until vm_down/vm_cleanup.
#   vm_down                 orderly poweroff (VM_DOWN_TIMEOUT, default 30 s, then SIGKILL), then remove
#                           the namespace (and the tap with it). VM_DOWN_FAST=1 skips the poweroff.
#   vm_cleanup              idempotent, trap-safe: kill qemu and any process left in the namespace,
#                           delete the namespace and the run dir. Never fails.
#   vm_sweep_stale          remove namespaces/qemus left by killed runs (owner process gone); vm_up calls it.
#   vm_alive                true while qemu runs.
#   vm_serial_tail [N]      last N (40) lines of the guest's serial console.
# Environment: VIBRIDGE_INTEROP_CACHE (image cache, /var/cache/vibridge-interop), VIBRIDGE_INTEROP_LOGS
# (serial/qemu logs per run, /tmp/vibridge-interop), VM_EXEC_TIMEOUT, VM_BOOT_TIMEOUT, VM_DOWN_TIMEOUT,
# VM_QUIET=1 (no progress lines).

VM_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_HOST_IP=198.18.0.1
VM_GUEST_IP=198.18.0.2
VM_PREFIX=24
VM_AGENT_PORT=7000
VM_TAP=vbtap0
VM_GUEST_MAC=52:54:00:12:34:56
# the second link, for siw0 (Soft-iWARP)
VM_HOST2_IP=198.18.1.1
VM_GUEST2_IP=198.18.1.2
VM_TAP2=vbtap1
VM_GUEST2_MAC=52:54:00:12:34:57
VM_RXE=rxe0
VM_SIW=siw0
VM_RUN_ROOT=/run/vibridge-interop
VM_LOG_ROOT=${VIBRIDGE_INTEROP_LOGS:-/tmp/vibridge-interop}
VM_NS=${VM_NS:-}
VM_QEMU_PID=${VM_QEMU_PID:-}
_VM_SEQ=${_VM_SEQ:-0}

_vm_say() { [[ ${VM_QUIET:-0} == 1 ]] || printf '[vm] %s\n' "$*" >&2; }
_vm_err() { printf '[vm] ERROR: %s\n' "$*" >&2; }
_vm_now() { date +%s.%N; }
_vm_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# "pid starttime": identifies a process across pid reuse
_vm_proc_id() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; set -- $s; echo "${20}"; }

vm_host_deps() {
    local -a need=()
    command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
    command -v qemu-img >/dev/null || need+=(qemu-utils)
    command -v debootstrap >/dev/null || need+=(debootstrap)
    command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
    { command -v ip && command -v tc; } >/dev/null || need+=(iproute2)
    command -v socat >/dev/null || need+=(socat)
    command -v ping >/dev/null || need+=(iputils-ping)
    { command -v setpriv && command -v flock; } >/dev/null || need+=(util-linux)
    ((${#need[@]})) || return 0
    _vm_say "installing host packages: ${need[*]}"
    local log=${TMPDIR:-/tmp}/vibridge-interop-apt.$$.log
    if DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >>"$log" 2>&1; then
        rm -f "$log"
    else
        tail -n 20 "$log" >&2; _vm_err "apt-get install ${need[*]} failed (log $log)"; return 1
    fi
}

vm_image() {
    local t0 dir
    t0=$(_vm_now)
    dir=$("$VM_LIB_DIR/build-image.sh") || { _vm_err "image build failed"; return 1; }
    VM_IMAGE_DIR=$dir
    VM_IMAGE_SECONDS=$(_vm_since "$t0")
}

_vm_ns_exists() { ip netns list 2>/dev/null | awk -v n="$1" '$1 == n {f = 1} END {exit !f}'; }

vm_alive() { [[ -n ${VM_QEMU_PID:-} ]] && kill -0 "$VM_QEMU_PID" 2>/dev/null; }

vm_serial_tail() {
    [[ -n ${VM_SERIAL_LOG:-} && -f $VM_SERIAL_LOG ]] || return 0
    tr -d '\r' <"$VM_SERIAL_LOG" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | tail -n "${1:-40}"
}

# kill every process in namespace $1 (all of them were started by this library's users)
_vm_kill_ns_pids() {
    local ns=$1 pids i
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        pids=$(ip netns pids "$ns" 2>/dev/null) || return 0
        [[ -n $pids ]] || return 0
        if ((i <= 6)); then kill -TERM $pids 2>/dev/null; else kill -KILL $pids 2>/dev/null; fi
        sleep 0.25
    done
}

# tear down namespace $1 and its run dir, killing its qemu first
_vm_teardown() {
    local ns=$1 run=$VM_RUN_ROOT/$1 pid i
    if [[ -f $run/qemu.pid ]]; then
        pid=$(cat "$run/qemu.pid" 2>/dev/null)
        if [[ -n $pid ]] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "-name $ns "; then
            kill -KILL "$pid" 2>/dev/null
            for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
    fi
    if _vm_ns_exists "$ns"; then
        _vm_kill_ns_pids "$ns"
        ip netns del "$ns" 2>/dev/null
    fi
    rm -rf "$run"
}

vm_sweep_stale() {
    local ns owner opid ostart d
    for ns in $( { ip netns list 2>/dev/null | awk '{print $1}'; ls -1 "$VM_RUN_ROOT" 2>/dev/null; } \
                 | grep -E '^vbi-[0-9]+-[0-9]+$' | sort -u); do
        opid=${ns#vbi-}; opid=${opid%-*}
        ostart=
        [[ -f $VM_RUN_ROOT/$ns/owner ]] && read -r _ ostart <"$VM_RUN_ROOT/$ns/owner"
        if [[ -d /proc/$opid ]] && { [[ -z $ostart ]] || [[ $(_vm_proc_id "$opid") == "$ostart" ]]; }; then
            continue    # owner alive: a concurrent run (or ours)
        fi
        _vm_say "removing stale $ns (owner pid $opid is gone)"
        _vm_teardown "$ns"
    done
    # a qemu of ours whose namespace name is gone and whose owner is gone
    for d in $(pgrep -f '^qemu-system-x86_64 -name vbi-[0-9]+-[0-9]+ ' 2>/dev/null); do
        ns=$(tr '\0' ' ' 2>/dev/null <"/proc/$d/cmdline" | awk '{print $3}')
        [[ $ns =~ ^vbi-([0-9]+)-[0-9]+$ ]] || continue
        opid=${BASH_REMATCH[1]}
        [[ -d /proc/$opid ]] && continue
        _vm_say "killing stale qemu $d ($ns)"
        kill -KILL "$d" 2>/dev/null
    done
    return 0
}

vm_cleanup() {
    local ns=${VM_NS:-}
    [[ -n $ns ]] || return 0
    _vm_teardown "$ns" 2>/dev/null
    [[ -n ${VM_QEMU_PID:-} ]] && wait "$VM_QEMU_PID" 2>/dev/null
    VM_NS= VM_QEMU_PID=
    return 0
}

_vm_install_traps() {
    [[ ${VM_NO_TRAP:-0} == 1 || ${_VM_TRAPS:-0} == 1 ]] && return 0
    _VM_TRAPS=1
    local sig
    [[ -z $(trap -p EXIT) ]] && trap 'vm_cleanup' EXIT
    for sig in INT TERM HUP; do
        [[ -n $(trap -p $sig) ]] && continue
        case $sig in
            INT) trap 'vm_cleanup; trap - INT; exit 130' INT ;;
            TERM) trap 'vm_cleanup; trap - TERM; exit 143' TERM ;;
            HUP) trap 'vm_cleanup; trap - HUP; exit 129' HUP ;;
        esac
    done
}

vm_up() {
    local mtu=${1:-}; shift || true
    local extra=${*:-} t0 ns run logd i info
    [[ $mtu =~ ^[0-9]+$ ]] && ((mtu >= 576 && mtu <= 9000)) || { _vm_err "vm_up MTU (576..9000), got '$mtu'"; return 1; }
    [[ $(id -u) == 0 ]] || { _vm_err "vm_up needs root"; return 1; }
    if vm_alive; then _vm_err "a VM is already up ($VM_NS); vm_down first"; return 1; fi
    [[ -n ${VM_NS:-} ]] && vm_cleanup          # a killed VM's namespace
    vm_host_deps || return 1
    vm_sweep_stale
    if [[ -z ${VM_IMAGE_DIR:-} || ! -f ${VM_IMAGE_DIR:-/nonexistent}/.complete ]]; then
        vm_image || return 1
    fi
    touch "$VM_IMAGE_DIR" 2>/dev/null     # in use: build-image.sh's cache cleanup keeps recent ones
    _vm_install_traps

    while :; do
        _VM_SEQ=$((_VM_SEQ + 1)); ns=vbi-$$-$_VM_SEQ
        _vm_ns_exists "$ns" || [[ -e $VM_RUN_ROOT/$ns ]] || break
    done
    run=$VM_RUN_ROOT/$ns logd=$VM_LOG_ROOT/$ns
    mkdir -p "$run" "$logd"
    echo "$$ $(_vm_proc_id $$)" >"$run/owner"
    VM_NS=$ns VM_MTU=$mtu VM_LOG_DIR=$logd VM_SERIAL_LOG=$logd/serial.log VM_RUN_DIR=$run
    VM_GUEST_NIC= VM_GUEST2_NIC= VM_ACTIVE_MTU= VM_BOOT_SECONDS=

    if ! { ip netns add "$ns" \
           && ip -n "$ns" link set lo up \
           && ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
           && ip netns exec "$ns" ip tuntap add dev "$VM_TAP" mode tap \
           && ip -n "$ns" addr add "$VM_HOST_IP/$VM_PREFIX" dev "$VM_TAP" \
           && ip -n "$ns" link set "$VM_TAP" mtu "$mtu" up \
           && ip netns exec "$ns" ip tuntap add dev "$VM_TAP2" mode tap \
           && ip -n "$ns" addr add "$VM_HOST2_IP/$VM_PREFIX" dev "$VM_TAP2" \
           && ip -n "$ns" link set "$VM_TAP2" mtu "$mtu" up; } >"$logd/netns.log" 2>&1; then
        _vm_err "netns/tap setup failed: $(tr '\n' ' ' <"$logd/netns.log")"
        vm_cleanup; return 1
    fi

    local append="root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=1 fsck.mode=skip systemd.show_status=error"
    append+=" vibridge.ip=$VM_GUEST_IP/$VM_PREFIX vibridge.mac=$VM_GUEST_MAC vibridge.mtu=$mtu vibridge.port=$VM_AGENT_PORT"
    append+=" vibridge.rxe=$VM_RXE vibridge.ip2=$VM_GUEST2_IP/$VM_PREFIX vibridge.mac2=$VM_GUEST2_MAC vibridge.siw=$VM_SIW $extra"
    _vm_say "booting guest: ns=$ns mtu=$mtu (serial log $VM_SERIAL_LOG)"
    t0=$(_vm_now)
    : >"$VM_SERIAL_LOG"
    # qemu is exec'ed by ip netns exec, setsid and setpriv: its parent is this shell and it dies with
    # it (pdeathsig). Its own session keeps a Ctrl-C or a signal to our process group from killing it
    # under our feet: the traps tear it down. (With job control on, & already gives it its own process
    # group, and setsid would fork, breaking pdeathsig: skip it then.)
    local -a sess=(setsid)
    [[ $- == *m* ]] && sess=()
    ip netns exec "$ns" "${sess[@]}" setpriv --pdeathsig KILL \
        qemu-system-x86_64 -name "$ns" -nodefaults -no-user-config -display none -monitor none \
        -accel tcg,thread=multi -cpu max -smp 2 -m 2048 -no-reboot \
        -kernel "$VM_IMAGE_DIR/vmlinuz" -initrd "$VM_IMAGE_DIR/initrd.img" -append "$append" \
        -drive "file=$VM_IMAGE_DIR/rootfs.ext4,if=virtio,format=raw,snapshot=on" \
        -netdev "tap,id=n0,ifname=$VM_TAP,script=no,downscript=no" \
        -device "virtio-net-pci,netdev=n0,mac=$VM_GUEST_MAC,romfile=" \
        -netdev "tap,id=n1,ifname=$VM_TAP2,script=no,downscript=no" \
        -device "virtio-net-pci,netdev=n1,mac=$VM_GUEST2_MAC,romfile=" \
        -serial "file:$VM_SERIAL_LOG" -pidfile "$run/qemu.self.pid" ${VM_QEMU_EXTRA:-} \
        </dev/null >"$logd/qemu.log" 2>&1 &
    VM_QEMU_PID=$!
    echo "$VM_QEMU_PID" >"$run/qemu.pid"

    local deadline=$((SECONDS + ${VM_BOOT_TIMEOUT:-180})) why=
    while :; do
        if grep -aq 'VIBRIDGE-READY' "$VM_SERIAL_LOG"; then break; fi
        if grep -aq 'VIBRIDGE-FAILED' "$VM_SERIAL_LOG"; then why="guest setup failed"; break; fi
        if ! vm_alive; then why="qemu exited: $(tail -n 5 "$logd/qemu.log" | tr '\n' ' ')"; break; fi
        if ((SECONDS >= deadline)); then why="no VIBRIDGE-READY after ${VM_BOOT_TIMEOUT:-180} s"; break; fi
        sleep 0.25
    done
    if [[ -z $why ]]; then
        info=$(grep -a 'VIBRIDGE-INFO' "$VM_SERIAL_LOG" | tail -n1 | tr -d '\r')
        [[ $info =~ nic=([^ ]+) ]] && VM_GUEST_NIC=${BASH_REMATCH[1]}
        [[ $info =~ active_mtu=([^ ]+) ]] && VM_ACTIVE_MTU=${BASH_REMATCH[1]}
        [[ $info =~ nic2=([^ ]+) ]] && VM_GUEST2_NIC=${BASH_REMATCH[1]}
        [[ -n $VM_GUEST2_NIC ]] || why="no second NIC / $VM_SIW in the guest (old image?): $info"
        vm_exec -t 30 true >/dev/null || why="agent on $VM_GUEST_IP:$VM_AGENT_PORT does not answer"
    fi
    if [[ -n $why ]]; then
        _vm_err "boot failed ($ns): $why; serial log tail:"
        vm_serial_tail 40 | sed 's/^/    | /' >&2
        vm_cleanup; return 1
    fi
    VM_BOOT_SECONDS=$(_vm_since "$t0")
    _vm_say "guest up in ${VM_BOOT_SECONDS} s: nic=$VM_GUEST_NIC ($VM_RXE) nic2=$VM_GUEST2_NIC ($VM_SIW) mtu=$mtu active_mtu=$VM_ACTIVE_MTU"
}

_vm_need_up() {
    vm_alive && return 0
    _vm_err "${FUNCNAME[1]}: no VM running"; return 255
}

# host side of vm_exec: strip the final "__RC=N" line and exit N; when it is missing, say so and exit 255
# (a command's own 255 is not that: rping 44's teardown race exits 255, for one)
_vm_rc_filter() {
    awk 'NR > 1 { print prev; fflush() }
         { prev = $0 }
         END {
             if (NR > 0 && match(prev, /__RC=[0-9]+$/)) {
                 pre = substr(prev, 1, RSTART - 1); rc = substr(prev, RSTART + 5) + 0
                 if (pre != "") print pre
                 exit rc
             }
             if (NR > 0) print prev
             print "[vm] ERROR: vm_exec: connection ended without an exit code (guest gone?)" > "/dev/stderr"
             exit 255
         }'
}

vm_exec() {
    local t=${VM_EXEC_TIMEOUT:-120}
    if [[ ${1:-} == -t ]]; then t=$2; shift 2; fi
    [[ $# == 1 && $t =~ ^[0-9]+$ ]] || { _vm_err "usage: vm_exec [-t SEC] 'CMD'"; return 2; }
    _vm_need_up || return 255
    local wrapped="timeout -k 5 $t bash -c $(printf %q "$1")" job
    # In the background + wait: a signal's trap then runs at once instead of after the command.
    # The client (cat) runs inside the namespace, so vm_cleanup kills it with everything else there.
    (
        timeout --foreground -k 5 $((t + 30)) ip netns exec "$VM_NS" bash -c '
            { exec 3<>"/dev/tcp/$0/$1"; } 2>/dev/null || exit 254
            printf "%s\n" "$2" >&3
            exec cat <&3' "$VM_GUEST_IP" "$VM_AGENT_PORT" "$wrapped" | _vm_rc_filter
        st=("${PIPESTATUS[@]}")
        case ${st[0]} in
            124|137) _vm_err "vm_exec: no answer from the guest within $((t + 30)) s"; exit 124 ;;
            254) _vm_err "vm_exec: agent $VM_GUEST_IP:$VM_AGENT_PORT unreachable"; exit 255 ;;
        esac
        exit "${st[1]}"
    ) &
    job=$!
    wait "$job"
}

_vm_check_name() { [[ $1 =~ ^[A-Za-z0-9_.-]+$ ]] || { _vm_err "bad job name '$1'"; return 2; }; }

vm_exec_bg() {
    [[ $# == 2 ]] || { _vm_err "usage: vm_exec_bg 'CMD' NAME"; return 2; }
    _vm_check_name "$2" || return 2
    local f=/var/tmp/vibridge-bg/$2
    vm_exec -t 30 "mkdir -p /var/tmp/vibridge-bg; rm -f $f.log $f.rc $f.pid
        setsid nohup bash -c 'echo \$\$ > \"\$2.pid\"; bash -c \"\$1\"; echo \$? > \"\$2.rc.tmp\"; mv \"\$2.rc.tmp\" \"\$2.rc\"' \
            _ $(printf %q "$1") $f </dev/null >$f.log 2>&1 &
        for i in \$(seq 1 50); do [ -s $f.pid ] && exit 0; sleep 0.1; done; echo 'job did not start'; exit 1"
}

vm_bg_wait() {
    [[ $# -ge 1 ]] || { _vm_err "usage: vm_bg_wait NAME [SEC]"; return 2; }
    _vm_check_name "$1" || return 2
    local f=/var/tmp/vibridge-bg/$1 t=${2:-${VM_EXEC_TIMEOUT:-120}}
    vm_exec -t $((t + 10)) "[ -e $f.pid ] || { echo 'vm_bg_wait: no job $1'; exit 127; }
        end=\$((SECONDS + $t)); while [ ! -e $f.rc ] && [ \$SECONDS -lt \$end ]; do sleep 0.5; done
        cat $f.log
        if [ -e $f.rc ]; then exit \$(cat $f.rc); fi
        echo 'vm_bg_wait: job $1 still running after $t s'; exit 124"
}

vm_bg_kill() {
    [[ $# -ge 1 ]] || { _vm_err "usage: vm_bg_kill NAME [SIG]"; return 2; }
    _vm_check_name "$1" || return 2
    local f=/var/tmp/vibridge-bg/$1
    vm_exec -t 30 "[ -s $f.pid ] && kill -${2:-TERM} -- -\$(cat $f.pid) 2>/dev/null; true"
}

vm_host() {
    [[ -n ${VM_NS:-} ]] || { _vm_err "vm_host: no namespace (vm_up first)"; return 255; }
    ip netns exec "$VM_NS" "$@"
}

vm_counters() {
    local join=cat
    [[ ${1:-} == -1 ]] && join="paste -sd' '"
    vm_exec -t 30 "cd /sys/class/infiniband/rxe0/ports/1/hw_counters && for f in *; do echo \"\$f=\$(cat \$f)\"; done | $join"
}

vm_counter() {
    _vm_check_name "${1:-}" || return 2
    vm_exec -t 30 "cat /sys/class/infiniband/rxe0/ports/1/hw_counters/$1"
}

vm_qps() { vm_exec -t 30 "rdma res show qp $*"; }

vm_netem_off() {
    _vm_need_up || return 255
    local nic=${VM_GUEST_NIC:-eth0} nic2=${VM_GUEST2_NIC:-eth1}
    vm_exec -t 30 "for n in $nic $nic2; do tc qdisc del dev \$n root 2>/dev/null; tc qdisc del dev \$n ingress 2>/dev/null; done
        ip link del vbifb0 2>/dev/null; ip link del vbifb1 2>/dev/null; true" >/dev/null
}

# the guest-side tc commands for netem SPEC on one NIC: _vm_netem_nic NIC IFB 'U32 MATCH' SPEC DIR ALL
_vm_netem_nic() {
    local nic=$1 ifb=$2 match=$3 spec=$4 dir=$5 all=$6 s=
    if [[ $dir != to-guest ]]; then        # guest -> host: the guest NIC's egress
        if ((all)); then
            s+="; tc qdisc add dev $nic root handle 1: netem $spec"
        else
            s+="; tc qdisc add dev $nic root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
            s+="; tc qdisc add dev $nic parent 1:3 handle 30: netem $spec"
            s+="; tc filter add dev $nic parent 1: protocol ip prio 1 u32 $match flowid 1:3"
        fi
    fi
    if [[ $dir != from-guest ]]; then      # host -> guest: the NIC's ingress, redirected through an ifb
        s+="; modprobe ifb numifbs=0; ip link add $ifb type ifb"
        s+="; ip link set $ifb mtu \$(cat /sys/class/net/$nic/mtu) up"
        s+="; tc qdisc add dev $ifb root netem $spec"
        s+="; tc qdisc add dev $nic handle ffff: ingress"
        if ((all)); then
            s+="; tc filter add dev $nic parent ffff: matchall action mirred egress redirect dev $ifb"
        else
            s+="; tc filter add dev $nic parent ffff: protocol ip prio 1 u32 $match action mirred egress redirect dev $ifb"
        fi
    fi
    printf '%s' "$s"
}

vm_netem() {
    local all=0 link=roce
    while [[ ${1:-} == --* ]]; do
        case $1 in
            --all) all=1; shift ;;
            --link) link=${2:-}; shift 2 || { _vm_err "vm_netem: --link needs roce|iwarp|both"; return 2; } ;;
            *) _vm_err "vm_netem: unknown option $1"; return 2 ;;
        esac
    done
    local spec=${1:-} dir=${2:-both} nic=${VM_GUEST_NIC:-eth0} nic2=${VM_GUEST2_NIC:-eth1}
    [[ -n $spec ]] || { _vm_err "usage: vm_netem [--all] [--link roce|iwarp|both] 'SPEC' [to-guest|from-guest|both]"; return 2; }
    [[ $spec =~ ^[A-Za-z0-9%.\ _-]+$ ]] || { _vm_err "vm_netem: odd characters in '$spec'"; return 2; }
    case $dir in to-guest|from-guest|both) ;; *) _vm_err "vm_netem: direction '$dir'"; return 2 ;; esac
    case $link in roce|iwarp|both) ;; *) _vm_err "vm_netem: link '$link' (roce|iwarp|both)"; return 2 ;; esac
    vm_netem_off || return $?
    local s="set -e"
    # RoCE link (eth0, rxe0): RoCEv2 packets only (UDP dport 4791), not the agent's TCP
    [[ $link != iwarp ]] && s+=$(_vm_netem_nic "$nic" vbifb0 "match ip protocol 17 0xff match ip dport 4791 0xffff" "$spec" "$dir" "$all")
    # iWARP link (eth1, siw0): TCP only (siw's MPA/DDP streams; nothing else uses TCP there), not ARP
    [[ $link != roce ]] && s+=$(_vm_netem_nic "$nic2" vbifb1 "match ip protocol 6 0xff" "$spec" "$dir" "$all")
    local out rc=0
    out=$(vm_exec -t 30 "$s" 2>&1) || rc=$?
    if ((rc)); then _vm_err "vm_netem failed: $out"; vm_netem_off; return "$rc"; fi
    local what
    case $link in
        roce) what='RoCEv2 only' ;; iwarp) what='iWARP link, TCP only' ;; both) what='RoCEv2 and iWARP TCP only' ;;
    esac
    ((all)) && what="all packets, $link"
    _vm_say "netem '$spec' on $dir ($what)"
}

vm_kill() {
    vm_alive || { _vm_err "vm_kill: no VM running"; return 1; }
    kill -KILL "$VM_QEMU_PID" 2>/dev/null
    wait "$VM_QEMU_PID" 2>/dev/null
    _vm_say "qemu killed (namespace $VM_NS stays until vm_down)"
    return 0
}

vm_down() {
    [[ -n ${VM_NS:-} ]] || return 0
    local t0 i how=poweroff
    t0=$(_vm_now)
    if vm_alive; then
        if [[ ${VM_DOWN_FAST:-0} != 1 ]] && vm_exec -t 15 'systemctl poweroff --no-block' >/dev/null 2>&1; then
            for ((i = 0; i < ${VM_DOWN_TIMEOUT:-30} * 4; i++)); do vm_alive || break; sleep 0.25; done
        fi
        if vm_alive; then how=killed; kill -KILL "$VM_QEMU_PID" 2>/dev/null; fi
        wait "$VM_QEMU_PID" 2>/dev/null
    else
        how="was not running"
    fi
    local ns=$VM_NS
    vm_cleanup
    _vm_say "down: $ns ($how, $(_vm_since "$t0") s)"
    return 0
}
