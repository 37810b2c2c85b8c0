#!/usr/bin/env python3
"""iwarp/src/test/resources/siw/fpdus.py: lists the MPA Request/Reply and every MPA FPDU of a pcap of one iWARP
connection (siw's rping captures here), reassembled from each direction's TCP byte stream with
tshark's field output (no other dependency), with the frames each spans and its bytes in hex.

    fpdus.py FILE.pcap [--hex-max N] [--crc]

--crc: the capture has MPA CRC on (the last 4 bytes of each FPDU are CRC32C, checked here).
Stream offsets are relative to the first payload byte of that direction (the MPA Request or
Reply's 'M'); frames are tshark's frame numbers."""
import subprocess, sys

OPS = {0: "Write", 1: "Read Request", 2: "Read Response", 3: "Send", 4: "Send with Invalidate",
       5: "Send with SE", 6: "Send with SE and Invalidate", 7: "Terminate"}

def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF

def streams(pcap):
    out = subprocess.run(["tshark", "-r", pcap, "-o", "tcp.desegment_tcp_streams:FALSE", "-Y", "tcp.len > 0",
                          "-T", "fields", "-e", "frame.number", "-e", "tcp.srcport", "-e", "tcp.dstport",
                          "-e", "tcp.seq", "-e", "tcp.payload"],
                         capture_output=True, text=True, check=True).stdout
    st = {}
    for line in out.splitlines():
        fn, sp, dp, seq, payload = line.split("\t")
        data = bytes.fromhex(payload.replace(":", ""))
        s = st.setdefault((int(sp), int(dp)), {"segs": []})
        s["segs"].append((int(seq), int(fn), data))
    for s in st.values():
        s["segs"].sort()
        buf, frames, base = bytearray(), [], s["segs"][0][0]
        for seq, fn, data in s["segs"]:
            off = seq - base
            if off < len(buf):          # retransmission: keep the first copy
                data = data[len(buf) - off:]
                off = len(buf)
            assert off == len(buf), "hole in the stream"
            frames.append((off, fn))
            buf += data
        s["buf"], s["frames"] = bytes(buf), frames
    return st

def frames_of(frames, start, end):
    return [fn for i, (off, fn) in enumerate(frames)
            if off < end and (frames[i + 1][0] if i + 1 < len(frames) else 1 << 62) > start]

def parse(buf, frames, crc):
    """yield (kind, start, end, description) for the MPA Req/Rep then each FPDU"""
    assert buf[:8] == b"MPA ID R", buf[:16]
    pd = int.from_bytes(buf[18:20], "big")
    kind = "MPA Request" if buf[:16] == b"MPA ID Req Frame" else "MPA Reply"
    flags, rev = buf[16], buf[17]
    desc = f"flags 0x{flags:02x} (M={flags >> 7} C={(flags >> 6) & 1} R={(flags >> 5) & 1} res=0x{flags & 0x1f:02x}) rev {rev} pd_len {pd}"
    if pd >= 4 and flags & 0x10:
        ird, ord_ = int.from_bytes(buf[20:22], "big"), int.from_bytes(buf[22:24], "big")
        desc += (f"; IRD {ird & 0x3fff} ORD {ord_ & 0x3fff} peer-to-peer {ird >> 15} "
                 f"RTR zero-length-Send {(ird >> 14) & 1} Write {ord_ >> 15} Read {(ord_ >> 14) & 1}")
    yield kind, 0, 20 + pd, desc
    off = 20 + pd
    while off + 2 <= len(buf):
        ulen = int.from_bytes(buf[off:off + 2], "big")
        body = 2 + ulen
        pad = (4 - body % 4) % 4
        end = off + body + pad + 4
        if end > len(buf):
            yield "truncated", off, len(buf), ""
            return
        ddp, rdmap = buf[off + 2], buf[off + 3]
        tagged, last = ddp >> 7, (ddp >> 6) & 1
        op = rdmap & 0xf
        d = f"ULPDU {ulen} B, pad {pad}, FPDU {end - off} B; DDP 0x{ddp:02x} ({'tagged' if tagged else 'untagged'}{', last' if last else ''}), RDMAP 0x{rdmap:02x} ({OPS.get(op, op)})"
        h = buf[off + 4:]
        if tagged:
            d += f", STag 0x{h[0:4].hex()} TO 0x{h[4:12].hex()}, payload {ulen - 14} B"
        else:
            d += f", QN {int.from_bytes(h[4:8], 'big')} MSN {int.from_bytes(h[8:12], 'big')} MO {int.from_bytes(h[12:16], 'big')}, payload {ulen - 18} B"
        wire = buf[end - 4:end]
        if crc:
            good = crc32c(buf[off:end - 4]).to_bytes(4, "little") == wire
            d += f", CRC {wire.hex()} ({'good' if good else 'BAD'}: CRC32C LSB first)"
        else:
            d += f", CRC field {wire.hex()}"
        yield OPS.get(op, str(op)), off, end, d
        off = end

def main():
    args = sys.argv[1:]
    hex_max = 256
    if "--hex-max" in args:
        i = args.index("--hex-max"); hex_max = int(args[i + 1]); del args[i:i + 2]
    crc = "--crc" in args
    args = [a for a in args if a != "--crc"]
    st = streams(args[0])
    # the initiator (client) is the side that sent the MPA Request
    order = sorted(st, key=lambda k: 0 if st[k]["buf"].startswith(b"MPA ID Req") else 1)
    for k in order:
        s = st[k]
        role = "client -> server" if s["buf"].startswith(b"MPA ID Req") else "server -> client"
        print(f"## {role} (TCP {k[0]} -> {k[1]}, {len(s['buf'])} bytes)")
        n = 0
        for kind, a, b, desc in parse(s["buf"], s["frames"], crc):
            fr = frames_of(s["frames"], a, b)
            n += 1
            print(f"[{n}] {kind} @ stream offset {a}, frames {','.join(map(str, fr))}: {desc}")
            data = s["buf"][a:b]
            print("    " + (data.hex() if len(data) <= hex_max else data[:hex_max].hex() + f"... ({len(data)} bytes)"))
        print()

main()
