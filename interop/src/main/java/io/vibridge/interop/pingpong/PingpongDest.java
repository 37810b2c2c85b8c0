package io.vibridge.interop.pingpong;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * One side's connection data, ibv_rc_pingpong's {@code struct pingpong_dest} (libibverbs/examples/rc_pingpong.c),
 * and its TCP message:
 *
 * <pre>
 * char msg[sizeof "0000:000000:000000:00000000000000000000000000000000"];   // 52 bytes
 * gid_to_wire_gid(&amp;my_dest->gid, gid);
 * sprintf(msg, "%04x:%06x:%06x:%s", my_dest->lid, my_dest->qpn, my_dest->psn, gid);
 * write(sockfd, msg, sizeof msg)                                            // 51 characters and a NUL
 * ...
 * sscanf(msg, "%x:%x:%x:%s", &amp;rem_dest->lid, &amp;rem_dest->qpn, &amp;rem_dest->psn, gid);
 * wire_gid_to_gid(gid, &amp;rem_dest->gid);
 * </pre>
 *
 * <p>On RoCE the LID is 0 ({@code portinfo.lid}); the PSN is {@code lrand48() & 0xffffff}; the GID is the port's
 * GID at {@code -g}'s index (all zeros without {@code -g}).
 *
 * @param lid 16 bits
 * @param qpn 24 bits
 * @param psn 24 bits: the sender's {@code sq_psn}, the PSN the receiver of this message must expect
 * @param gid 16 bytes
 */
public record PingpongDest(int lid, int qpn, int psn, byte[] gid) {
    /** {@code sizeof msg}. */
    public static final int MESSAGE_LENGTH = 52;

    public PingpongDest {
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("lid must be 16 bits: " + lid);
        }
        if (qpn < 0 || qpn > 0xFFFFFF) {
            throw new IllegalArgumentException("qpn must be 24 bits: " + qpn);
        }
        if (psn < 0 || psn > 0xFFFFFF) {
            throw new IllegalArgumentException("psn must be 24 bits: " + psn);
        }
        if (gid.length != WireGid.GID_LENGTH) {
            throw new IllegalArgumentException("gid must be 16 bytes, got " + gid.length);
        }
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    /** The 52 bytes rc_pingpong writes: {@code "%04x:%06x:%06x:%s"} and the terminating NUL. */
    public byte[] toMessage() {
        String text = String.format(Locale.ROOT, "%04x:%06x:%06x:%s", lid, qpn, psn, WireGid.toWire(gid));
        byte[] out = new byte[MESSAGE_LENGTH];
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, out, 0, b.length);          // 51 bytes; out[51] stays the NUL
        return out;
    }

    /**
     * Reads a peer's message as {@code sscanf(msg, "%x:%x:%x:%s", ...)} then {@code wire_gid_to_gid} do, but
     * refuses what they would silently misread: the text ends at the first NUL, must be three hex fields and a
     * 32-digit GID separated by ':'.
     */
    public static PingpongDest parse(byte[] message) {
        int end = 0;
        while (end < message.length && message[end] != 0) {
            end++;
        }
        String text = new String(message, 0, end, StandardCharsets.US_ASCII);
        String[] f = text.split(":", -1);
        if (f.length != 4) {
            throw new IllegalArgumentException("not an rc_pingpong address message (LID:QPN:PSN:GID): \"" + text
                    + "\"");
        }
        return new PingpongDest(hex(f[0], "LID", 4), hex(f[1], "QPN", 6), hex(f[2], "PSN", 6),
                WireGid.fromWire(f[3].strip()));
    }

    private static int hex(String field, String name, int digits) {
        if (field.isEmpty() || field.length() > digits) {
            throw new IllegalArgumentException(name + " must be 1.." + digits + " hex digits, got \"" + field + "\"");
        }
        try {
            return HexFormat.fromHexDigits(field);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " is not hex: \"" + field + "\"", e);
        }
    }

    /** rc_pingpong's line: {@code LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s}. */
    public String describe() {
        return String.format(Locale.ROOT, "LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", lid, qpn, psn,
                WireGid.ntop(gid));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PingpongDest d && d.lid == lid && d.qpn == qpn && d.psn == psn
                && Arrays.equals(d.gid, gid);
    }

    @Override
    public int hashCode() {
        return ((lid * 31 + qpn) * 31 + psn) * 31 + Arrays.hashCode(gid);
    }

    @Override
    public String toString() {
        return "PingpongDest[" + describe() + "]";
    }
}
