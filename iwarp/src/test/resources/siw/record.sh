#!/bin/bash
# iwarp/src/test/resources/siw/record.sh: records what Linux Soft-iWARP (siw) puts on the wire, siw to siw, with
# unmodified rping (rdma-core) in the interop VM (interop/vm), into the pcaps beside this script.
# Needs root; boots the VM (one at a time: it owns the vbtap0/vbtap1 namespace pair). See README.md.
#
#   iwarp/src/test/resources/siw/record.sh [OUTDIR]      (default: the folder of this script)
#
# Both rping ends run in the guest on siw0 (198.18.1.2, eth1): the TCP connection between them goes
# over the guest's lo, where tcpdump records it. lo gets the links' MTU (1500) and no TSO/GSO/GRO for
# the captures, so TCP's MSS (1448 with timestamps) and so siw's FPDU size (the MSS rounded down to 8,
# siw_qp_tx.c siw_update_tcpseg) and the segments are those of an Ethernet link at MTU 1500.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:-$HERE}
. "$HERE/../../../../../interop/vm/vm.sh"
mkdir -p "$OUT"

vm_up 1500 || exit 1

# capture NAME COUNT 'SIW PARAMS' [RPING ARGS...]: one rping server+client pair on siw0, recorded
# on lo; SIW PARAMS are NAME=VALUE for /sys/module/siw/parameters (read at connection setup).
GUEST_CAPTURE='
set -u
cap() {
    local name=$1 count=$2 params=$3 p tp sp rc=0; shift 3
    for p in mpa_crc_required=0 mpa_crc_strict=0 peer_to_peer=0 $params; do
        echo ${p#*=} >/sys/module/siw/parameters/${p%%=*}
    done
    echo "== $name: rping -C $count -V $* over siw0 ($(cd /sys/module/siw/parameters && grep -H . * | tr "\n" " "))"
    rm -f /var/tmp/$name.pcap
    # --immediate-mode: without it, packets still in the capture ring at the TERM are lost
    tcpdump -i lo -s 0 -U --immediate-mode -w /var/tmp/$name.pcap "tcp port 7174" 2>/var/tmp/$name.tcpdump.log & tp=$!
    for i in $(seq 100); do grep -q "listening on" /var/tmp/$name.tcpdump.log && break; sleep 0.1; done
    rping -s -a 198.18.1.2 -p 7174 -C $count -V "$@" >/var/tmp/$name.server.log 2>&1 & sp=$!
    for i in $(seq 100); do rdma res show cm_id | grep -q "state LISTEN" && break; sleep 0.1; done
    rping -c -a 198.18.1.2 -p 7174 -C $count -V "$@" || rc=$?
    wait $sp || rc=$?
    sleep 1; kill -TERM $tp; wait $tp
    tail -n 3 /var/tmp/$name.tcpdump.log
    echo "rping rc=$rc"
    return $rc
}
ip link set lo mtu 1500
ethtool -K lo tso off gso off gro off
'
rc=0
vm_exec -t 300 "$GUEST_CAPTURE
cap siw-rping-crc-off 2 ''
cap siw-rping-crc-on 2 'mpa_crc_required=1'
cap siw-rping-65000-crc-off 1 '' -S 65000
cap siw-rping-65000-crc-on 1 'mpa_crc_required=1' -S 65000
cap siw-rping-p2p 1 'peer_to_peer=1'
# lo as the kernel sets it up (MTU 65536, TSO/GSO/GRO on): MSS 65483, so one 65000-byte Read Response
# or Write is a single FPDU
ip link set lo mtu 65536
ethtool -K lo tso on gso on gro on
cap siw-rping-65000-lo64k-crc-on 1 'mpa_crc_required=1' -S 65000
" || rc=$?

for f in siw-rping-crc-off siw-rping-crc-on siw-rping-65000-crc-off siw-rping-65000-crc-on siw-rping-p2p \
         siw-rping-65000-lo64k-crc-on; do
    vm_exec -t 60 "base64 -w0 /var/tmp/$f.pcap" | base64 -d >"$OUT/$f.pcap" || rc=1
done
vm_exec -t 60 'echo "kernel $(uname -r) ($(dpkg-query -W -f "\${Version}" linux-image-$(uname -r)))"
    dpkg-query -W -f "\${Package} \${Version}\n" rdma-core rdmacm-utils ibverbs-providers libibverbs1 librdmacm1 tcpdump
    modinfo siw | grep -E "^(filename|vermagic|srcversion|parm)"' >"$OUT/versions.txt" || rc=1
grep "^siw:" "$VM_IMAGE_DIR/manifest.txt" | sed "s/^siw: /siw.ko build: /" >>"$OUT/versions.txt"
vm_down
ls -la "$OUT"/*.pcap
exit $rc
