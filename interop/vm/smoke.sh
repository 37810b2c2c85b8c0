#!/bin/bash
# interop/vm/smoke.sh: end-to-end check of the Soft-RoCE/Soft-iWARP peer VM (see README.md). Needs root.
#   MTU 1500: rping server+client inside the guest (rxe0 to itself), active_mtu 1024, counters,
#             ping from the host side, siw0 on the second NIC, rping over siw0 (siw to siw in the
#             guest) with MPA CRC off and on, a 65 s command through the agent (runs alongside),
#             netem plumbing (RoCEv2-only filter, both directions), vm_kill + vm_down.
#   MTU 9000: active_mtu 4096, 8972-byte DF ping on both links, rping over rxe0 and siw0, orderly vm_down.
# Exits 0 only if every step passed. SMOKE_LONG=0 skips the 65 s command.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/vm.sh"

LOG=${VIBRIDGE_INTEROP_LOGS:-/tmp/vibridge-interop}/smoke-$$.log
mkdir -p "$(dirname "$LOG")"; : >"$LOG"
FAILS=0
declare -a TIMES=()
T_ALL=$(_vm_now)

note() { printf '[smoke] %s\n' "$*"; }
# step NAME CMD...: run CMD (a function), log its output, print one line with the time
step() {
    local name=$1 t0 rc el; shift
    t0=$(_vm_now)
    { echo "=== $name"; } >>"$LOG"
    "$@" >>"$LOG" 2>&1; rc=$?
    el=$(_vm_since "$t0")
    TIMES+=("$(printf '%-44s %6s s  %s' "$name" "$el" "$([[ $rc == 0 ]] && echo ok || echo "FAIL rc=$rc")")")
    if [[ $rc == 0 ]]; then note "ok    $name (${el} s)"; else note "FAIL  $name (${el} s, rc=$rc; log $LOG)"; FAILS=$((FAILS + 1)); fi
    return $rc
}
expect_eq() { [[ $1 == "$2" ]] || { echo "expected '$2', got '$1'"; return 1; }; }

active_mtu() { vm_exec -t 30 "ibv_devinfo -d rxe0 | awk '/active_mtu/ {print \$2; exit}'"; }
check_mtu() { local m; m=$(active_mtu) || return 1; echo "active_mtu=$m"; expect_eq "$m" "$1"; }

# rping_pair [ADDR [DEV]]: rping server and client in the guest on ADDR (default the rxe0 address),
# checking that rdma_cm put the listener on DEV (default rxe0)
rping_pair() {
    local addr=${1:-$VM_GUEST_IP} dev=${2:-$VM_RXE} out rc=0
    vm_exec_bg "rping -s -a $addr -p 7174 -C 3 -v -V" rping_srv || return 1
    # the server is up when rdma_cm shows its listening id, e.g.
    # "link siw0/1 cm-idn 0 state LISTEN ps TCP pid 400 comm rping src-addr 198.18.1.2:7174 ..."
    vm_exec -t 60 "for i in \$(seq 1 200); do rdma res show cm_id | grep -q 'link $dev/1 .* state LISTEN .* src-addr $addr:7174 ' && exit 0; sleep 0.2; done; rdma res show cm_id; exit 1" \
        || { echo "rping server not listening on $dev $addr"; vm_bg_wait rping_srv 1; return 1; }
    out=$(vm_exec -t 120 "rping -c -a $addr -p 7174 -C 3 -v -V -S 64") || rc=$?
    echo "--- client (rc=$rc)"; echo "$out"
    echo "--- server"; vm_bg_wait rping_srv 60 || rc=$((rc ? rc : 1))
    [[ $(grep -c 'ping data' <<<"$out") == 3 ]] || { echo "client: expected 3 'ping data' lines"; rc=1; }
    return $rc
}

counters_nonzero() {
    local c s r
    c=$(vm_counters -1) || return 1
    echo "$c"
    COUNTERS=$c
    s=$(grep -o 'sent_pkts=[0-9]*' <<<"$c" | cut -d= -f2); r=$(grep -o 'rcvd_pkts=[0-9]*' <<<"$c" | cut -d= -f2)
    ((s > 0 && r > 0)) || { echo "sent_pkts=$s rcvd_pkts=$r: expected traffic"; return 1; }
}

host_ping() { vm_host ping -n -c 3 -i 0.2 -W 3 "$@" "$VM_GUEST_IP"; }
host_ping2() { vm_host ping -n -c 3 -i 0.2 -W 3 "$@" "$VM_GUEST2_IP"; }

# siw0 exists on the second NIC, is active, and its module is ours (updates/, vibridge's parameters)
siw_device() {
    vm_exec -t 30 "rdma link show $VM_SIW/1; ibv_devinfo -d $VM_SIW | grep -E 'transport|state|active_mtu'
        modinfo -F filename siw; ls /sys/module/siw/parameters" || return 1
    vm_exec -t 30 "rdma link show $VM_SIW/1 | grep -q 'state ACTIVE .*netdev $VM_GUEST2_NIC' \
        && ibv_devinfo -d $VM_SIW | grep -q 'transport:.*iWARP' \
        && [ -w /sys/module/siw/parameters/mpa_crc_required ]"
}

# rping over siw0 with MPA CRC on (siw's mpa_crc_required parameter, read at connection setup)
siw_rping_crc() {
    local rc=0
    vm_exec -t 30 'echo 1 >/sys/module/siw/parameters/mpa_crc_required' || return 1
    rping_pair "$VM_GUEST2_IP" "$VM_SIW" || rc=$?
    vm_exec -t 30 'echo 0 >/sys/module/siw/parameters/mpa_crc_required' || rc=1
    return $rc
}

# netem: only UDP dport 4791 goes through netem, in both directions; check with tc's own counters
netem_plumbing() {
    vm_netem 'loss 0% delay 1ms' both || return 1
    # host -> guest: 5 datagrams to 4791 (rxe drops them: bad ICRC) and 5 to port 9 (discarded)
    local i
    for i in 1 2 3 4 5; do
        vm_host bash -c 'echo x >/dev/udp/198.18.0.2/4791; echo x >/dev/udp/198.18.0.2/9' || return 1
    done
    # guest -> host: the same, plus the ICMP port-unreachables the host sends back
    vm_exec -t 30 'for i in 1 2 3 4 5; do echo x >/dev/udp/198.18.0.1/4791; echo x >/dev/udp/198.18.0.1/9; done; sleep 1
        tc -s qdisc show dev vbifb0; tc -s qdisc show dev eth0' || return 1
    local in out
    in=$(vm_exec -t 30 "tc -s qdisc show dev vbifb0 | awk '/Sent/ {print \$4; exit}'")
    out=$(vm_exec -t 30 "tc -s qdisc show dev eth0 | awk '/qdisc netem/ {f=1} f && /Sent/ {print \$4; exit}'")
    echo "netem packets: to-guest=$in from-guest=$out (expect 5 and 5)"
    [[ $in == 5 && $out == 5 ]] || return 1
    # everything, 100 ms each way: a ping's RTT must exceed 200 ms
    vm_netem --all 'delay 100ms' both || return 1
    local rtt
    rtt=$(vm_host ping -n -c 2 -W 5 "$VM_GUEST_IP" | awk -F'/' '/^rtt/ {print int($5)}')
    echo "rtt with netem delay 100ms both ways: ${rtt} ms"
    vm_netem_off || return 1
    ((rtt >= 200)) || return 1
    vm_exec -t 30 'tc qdisc show dev eth0; ip link show vbifb0 2>&1 | head -1'
}

long_command() {
    local t0 el out rc=0
    t0=$SECONDS
    out=$(vm_exec -t 120 'for i in $(seq 1 13); do echo tick $i; sleep 5; done; echo done; exit 3') || rc=$?
    el=$((SECONDS - t0))
    echo "$out"; echo "rc=$rc elapsed=${el}s"
    [[ $rc == 3 && $(grep -c '^tick' <<<"$out") == 13 && $el -ge 60 ]]
}

killed_vm() {
    # the peer vanishes: qemu killed, the namespace stays, the agent is unreachable
    local ns=$VM_NS rc=0
    vm_kill || return 1
    ! vm_alive || return 1
    _vm_ns_exists "$ns" || { echo "namespace gone after vm_kill"; return 1; }
    VM_QUIET=1 vm_exec -t 5 true 2>&1; rc=$?
    echo "vm_exec after vm_kill: rc=$rc (expect 255)"
    [[ $rc == 255 ]] || return 1
    vm_down
    ! _vm_ns_exists "$ns" || { echo "namespace left behind"; return 1; }
}

note "log: $LOG"
step "image (build or cache)" vm_image || { note "no image, giving up"; exit 1; }
IMG_T=$VM_IMAGE_SECONDS

# ---- MTU 1500 ---------------------------------------------------------------------------------
if step "boot, MTU 1500" vm_up 1500; then
    B1=$VM_BOOT_SECONDS
    LONG_PID=
    if [[ ${SMOKE_LONG:-1} == 1 ]]; then
        LONG_T0=$(_vm_now)
        long_command >"$LOG.long" 2>&1 &
        LONG_PID=$!
    fi
    step "active_mtu 1024 at MTU 1500" check_mtu 1024
    step "rping server+client in the guest (rxe0)" rping_pair
    step "siw0 on the second NIC, iWARP, active" siw_device
    step "rping siw0 to siw0 in the guest" rping_pair "$VM_GUEST2_IP" "$VM_SIW"
    step "rping siw0 to siw0, MPA CRC on" siw_rping_crc
    step "counters (sent/rcvd > 0)" counters_nonzero && note "counters: $COUNTERS"
    step "ping guest from the host side" host_ping
    step "ping 1472 B DF (full 1500 MTU)" host_ping -M "do" -s 1472
    step "ping 1472 B DF on the second link (siw0's)" host_ping2 -M "do" -s 1472
    step "vm_qps" vm_qps
    step "netem plumbing (RoCE filter, both dirs)" netem_plumbing
    if [[ -n $LONG_PID ]]; then
        if wait "$LONG_PID"; then lrc=0; else lrc=$?; fi
        cat "$LOG.long" >>"$LOG"
        el=$(_vm_since "$LONG_T0")
        TIMES+=("$(printf '%-44s %6s s  %s' "65 s command via the agent" "$el" "$([[ $lrc == 0 ]] && echo ok || echo FAIL)")")
        if [[ $lrc == 0 ]]; then note "ok    65 s command via the agent, $(tail -n1 "$LOG.long")"
        else note "FAIL  65 s command via the agent: $(tail -n2 "$LOG.long" | tr '\n' ' ')"; FAILS=$((FAILS + 1)); fi
        rm -f "$LOG.long"
    fi
    step "vm_kill (peer vanishes) + vm_down" killed_vm
else
    B1=-
fi

# ---- MTU 9000 ---------------------------------------------------------------------------------
if step "boot, MTU 9000" vm_up 9000; then
    B2=$VM_BOOT_SECONDS
    step "active_mtu 4096 at MTU 9000" check_mtu 4096
    step "ping 8972 B DF (full 9000 MTU)" host_ping -M "do" -s 8972
    step "ping 8972 B DF on the second link" host_ping2 -M "do" -s 8972
    step "rping at MTU 9000" rping_pair
    step "rping siw0 to siw0 at MTU 9000" rping_pair "$VM_GUEST2_IP" "$VM_SIW"
    step "counters" counters_nonzero && note "counters: $COUNTERS"
    step "vm_down (orderly)" vm_down
else
    B2=-
fi

echo
note "timings:"
printf '    %s\n' "${TIMES[@]}"
note "image ${IMG_T} s, boot@1500 ${B1} s, boot@9000 ${B2} s, total $(_vm_since "$T_ALL") s"
if ((FAILS)); then note "FAILED: $FAILS step(s); log $LOG"; exit 1; fi
note "PASS"
