#!/usr/bin/env python3
"""iwarp/src/test/resources/siw/segments.py: the TCP payload of each segment of the siw captures, in
capture order, as text the engine tests replay (the pcaps themselves are not committed: .gitignore has
*.pcap). Reads classic pcap (LINKTYPE_ETHERNET as tcpdump -i lo writes it, or LINKTYPE_RAW), IPv4, TCP;
no tshark needed.

    segments.py [PCAP ...]        default: the captures SiwReplayTest uses, written to segments/

One line per TCP segment that carries payload:

    <frame> <c|s> <hex of the payload>

frame: the pcap record number from 1 (tshark's frame number); c: client -> server (the side whose stream
starts with the MPA Request), s: server -> client. A retransmitted byte range is written once, at its
first copy; a hole in a stream is an error. Files over 64 KiB are written gzip'ed (mtime 0, so the bytes
do not change from run to run). SiwSegmentsTest checks the committed files against the pcaps when
they are present."""
import gzip, os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = ["siw-rping-crc-on.pcap", "siw-rping-crc-off.pcap", "siw-rping-p2p.pcap",
           "siw-rping-65000-crc-on.pcap", "siw-rping-65000-lo64k-crc-on.pcap"]


def records(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    assert magic == 0xA1B2C3D4, f"{path}: not a little-endian microsecond pcap (magic {magic:#x})"
    linktype = struct.unpack("<I", d[20:24])[0]
    off, n = 24, 0
    while off < len(d):
        _, _, incl, _ = struct.unpack("<IIII", d[off:off + 16])
        off += 16
        pkt, off, n = d[off:off + incl], off + incl, n + 1
        if linktype == 1:                       # Ethernet: tcpdump on lo, zero MACs
            if pkt[12:14] != b"\x08\x00":
                continue
            ip = pkt[14:]
        elif linktype == 101:                   # raw IPv4 (TcpPcap)
            ip = pkt
        else:
            raise SystemExit(f"{path}: link type {linktype}")
        if ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl, total = (ip[0] & 15) * 4, struct.unpack(">H", ip[2:4])[0]
        tcp = ip[ihl:total]
        sport, dport, seq = struct.unpack(">HHI", tcp[:8])
        payload = tcp[(tcp[12] >> 4) * 4:]
        yield n, (sport, dport), seq, payload


def segments(path):
    flows, out = {}, []
    for n, flow, seq, payload in records(path):
        if not payload:
            continue
        f = flows.setdefault(flow, {"next": seq, "first": payload})
        skip = (f["next"] - seq) & 0xFFFFFFFF
        if skip < 1 << 31:                      # at or before the next expected byte
            if skip >= len(payload):
                continue                        # all of it seen already
            payload = payload[skip:]
        else:
            raise SystemExit(f"{path}: hole before frame {n}")
        f["next"] = (f["next"] + len(payload)) & 0xFFFFFFFF
        out.append((n, flow, payload))
    client = [k for k, f in flows.items() if f["first"].startswith(b"MPA ID Req Frame")]
    assert len(client) == 1, f"{path}: {len(client)} streams start with an MPA Request"
    return [(n, "c" if flow == client[0] else "s", p) for n, flow, p in out]


def main():
    names = sys.argv[1:] or [os.path.join(HERE, p) for p in DEFAULT]
    os.makedirs(os.path.join(HERE, "segments"), exist_ok=True)
    for path in names:
        base = os.path.basename(path)[:-len(".pcap")]
        text = (f"# {base}.pcap: TCP payload per segment, <frame> <c|s> <hex>; written by ../segments.py\n"
                + "".join(f"{n} {d} {p.hex()}\n" for n, d, p in segments(path))).encode("ascii")
        target = os.path.join(HERE, "segments", base + ".txt")
        if len(text) > 65536:
            with open(target + ".gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0,
                                                                filename="") as z:
                z.write(text)
            target += ".gz"
        else:
            open(target, "wb").write(text)
        lines = text.count(b"\n") - 1
        print(f"{target}: {lines} segments")


main()
