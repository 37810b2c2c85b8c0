package io.vibridge.iwarp.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The TCP segments of a siw capture: from the committed text extracts in {@code siw/segments/} (made by
 * {@code siw/segments.py}; the pcaps are not in git), or straight from a pcap when one is at hand.
 */
final class SiwSegments {

    /** One TCP segment's payload; {@code fromClient}: the direction that starts with the MPA Request. */
    record Segment(int frame, boolean fromClient, byte[] payload) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Segment s && frame == s.frame && fromClient == s.fromClient
                    && Arrays.equals(payload, s.payload);
        }

        @Override
        public int hashCode() {
            return frame * 31 + Arrays.hashCode(payload);
        }

        @Override
        public String toString() {
            return "#" + frame + (fromClient ? " c " : " s ") + payload.length + " B";
        }
    }

    private SiwSegments() {
    }

    private static byte[] resource(String path) {
        try (InputStream in = SiwSegments.class.getResourceAsStream(path)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The committed extract of {@code name} (e.g. "siw-rping-crc-on"). */
    static List<Segment> load(String name) {
        byte[] raw = resource("/siw/segments/" + name + ".txt");
        if (raw == null) {
            byte[] gz = resource("/siw/segments/" + name + ".txt.gz");
            if (gz == null) {
                throw new IllegalArgumentException("no extract for " + name);
            }
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
                raw = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        List<Segment> out = new ArrayList<>();
        for (String line : new String(raw, StandardCharsets.US_ASCII).split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(" ");
            out.add(new Segment(Integer.parseInt(f[0]), f[1].equals("c"), HexFormat.of().parseHex(f[2])));
        }
        return out;
    }

    /** The pcap {@code name}.pcap on the test class path, or null (the pcaps are not committed). */
    static byte[] pcap(String name) {
        return resource("/siw/" + name + ".pcap");
    }

    /**
     * Parses a classic little-endian pcap (LINKTYPE_ETHERNET or LINKTYPE_RAW), IPv4, TCP, as segments.py does:
     * payload-bearing segments in record order, a retransmitted range once, the client the side whose bytes
     * start with the MPA Request.
     */
    static List<Segment> parsePcap(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0xA1B2C3D4) {
            throw new IllegalArgumentException("not a little-endian microsecond pcap");
        }
        int linktype = b.getInt(20);
        record Raw(int frame, long flow, byte[] payload) {
        }
        List<Raw> raw = new ArrayList<>();
        Map<Long, long[]> next = new HashMap<>();
        Map<Long, byte[]> first = new HashMap<>();
        int off = 24;
        int frame = 0;
        while (off < file.length) {
            int incl = b.getInt(off + 8);
            int p = off + 16;
            off = p + incl;
            frame++;
            ByteBuffer pkt = ByteBuffer.wrap(file, p, incl).slice();        // big-endian from here
            int ip;
            if (linktype == 1) {
                if (pkt.getShort(12) != 0x0800) {
                    continue;
                }
                ip = 14;
            } else if (linktype == 101) {
                ip = 0;
            } else {
                throw new IllegalArgumentException("link type " + linktype);
            }
            if ((pkt.get(ip) & 0xF0) != 0x40 || pkt.get(ip + 9) != 6) {
                continue;
            }
            int ihl = (pkt.get(ip) & 0xF) * 4;
            int total = pkt.getShort(ip + 2) & 0xFFFF;
            int tcp = ip + ihl;
            int sport = pkt.getShort(tcp) & 0xFFFF;
            int dport = pkt.getShort(tcp + 2) & 0xFFFF;
            long seq = pkt.getInt(tcp + 4) & 0xFFFF_FFFFL;
            int data = tcp + ((pkt.get(tcp + 12) & 0xF0) >>> 4) * 4;
            int len = ip + total - data;
            if (len <= 0) {
                continue;
            }
            byte[] payload = new byte[len];
            pkt.get(data, payload);
            long flow = (long) sport << 16 | dport;
            long[] n = next.computeIfAbsent(flow, k -> new long[] {seq});
            first.putIfAbsent(flow, payload);
            long skip = (n[0] - seq) & 0xFFFF_FFFFL;
            if (skip >= 1L << 31) {
                throw new IllegalArgumentException("hole before frame " + frame);
            }
            if (skip >= len) {
                continue;
            }
            if (skip > 0) {
                payload = Arrays.copyOfRange(payload, (int) skip, len);
            }
            n[0] = (n[0] + payload.length) & 0xFFFF_FFFFL;
            raw.add(new Raw(frame, flow, payload));
        }
        byte[] key = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
        List<Long> clients = first.entrySet().stream().filter(e -> e.getValue().length >= 16
                && Arrays.equals(e.getValue(), 0, 16, key, 0, 16)).map(Map.Entry::getKey).toList();
        if (clients.size() != 1) {
            throw new IllegalArgumentException(clients.size() + " streams start with an MPA Request");
        }
        return raw.stream().map(r -> new Segment(r.frame(), r.flow() == clients.getFirst(), r.payload())).toList();
    }

    /** One direction's bytes, concatenated. */
    static byte[] stream(List<Segment> segments, boolean fromClient) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        segments.stream().filter(s -> s.fromClient() == fromClient).forEach(s -> out.writeBytes(s.payload()));
        return out.toByteArray();
    }
}
