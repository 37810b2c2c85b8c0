package io.vibridge.interop.pingpong;

import java.util.HexFormat;
import java.util.Locale;

/**
 * How ibv_rc_pingpong writes and reads a GID (libibverbs/examples/pingpong.c) and prints it:
 *
 * <pre>
 * void gid_to_wire_gid(const union ibv_gid *gid, char wgid[])
 * {
 *     for (i = 0; i &lt; 4; ++i)
 *         sprintf(&amp;wgid[i * 8], "%08x", htonl(*(uint32_t *)(gid->raw + i * 4)));
 * }
 * void wire_gid_to_gid(const char *wgid, union ibv_gid *gid)
 * {
 *     for (tmp[8] = 0, i = 0; i &lt; 4; ++i) {
 *         memcpy(tmp, wgid + i * 8, 8);
 *         sscanf(tmp, "%x", &amp;v32);
 *         *(uint32_t *)(&amp;gid->raw[i * 4]) = ntohl(v32);
 *     }
 * }
 * </pre>
 *
 * <p>Each 4-byte group is loaded in host order and converted with htonl before printing, so on either
 * byte order the 32 hex digits are the 16 raw GID bytes in order, lowercase ({@code ::ffff:10.0.0.2} is
 * {@code 00000000000000000000ffff0a000002}). The printed form ({@code GID %s}) is glibc's
 * {@code inet_ntop(AF_INET6, ...)}.
 */
public final class WireGid {
    /** Hex digits on the wire: {@code char gid[33]} less its NUL. */
    public static final int WIRE_LENGTH = 32;
    public static final int GID_LENGTH = 16;

    private static final HexFormat HEX = HexFormat.of();

    private WireGid() {
    }

    /** gid_to_wire_gid. */
    public static String toWire(byte[] gid) {
        checkLength(gid);
        return HEX.formatHex(gid);
    }

    /** wire_gid_to_gid; stricter than sscanf: exactly 32 hex digits. */
    public static byte[] fromWire(String wire) {
        if (wire.length() != WIRE_LENGTH) {
            throw new IllegalArgumentException("a wire GID is " + WIRE_LENGTH + " hex digits, got \"" + wire + "\"");
        }
        try {
            return HexFormat.of().parseHex(wire.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a wire GID is hex digits only, got \"" + wire + "\"", e);
        }
    }

    /** glibc inet_ntop(AF_INET6) (resolv/inet_ntop.c inet_ntop6), as ibv_rc_pingpong prints GIDs. */
    public static String ntop(byte[] gid) {
        checkLength(gid);
        int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = ((gid[2 * i] & 0xFF) << 8) | (gid[2 * i + 1] & 0xFF);
        }
        // the longest run of zero words (the first of equal runs); a run of one is not compressed
        int bestBase = -1;
        int bestLen = 0;
        int curBase = -1;
        int curLen = 0;
        for (int i = 0; i < 8; i++) {
            if (words[i] == 0) {
                if (curBase == -1) {
                    curBase = i;
                    curLen = 1;
                } else {
                    curLen++;
                }
            } else if (curBase != -1) {
                if (bestBase == -1 || curLen > bestLen) {
                    bestBase = curBase;
                    bestLen = curLen;
                }
                curBase = -1;
            }
        }
        if (curBase != -1 && (bestBase == -1 || curLen > bestLen)) {
            bestBase = curBase;
            bestLen = curLen;
        }
        if (bestBase != -1 && bestLen < 2) {
            bestBase = -1;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (bestBase != -1 && i >= bestBase && i < bestBase + bestLen) {
                if (i == bestBase) {
                    sb.append(':');
                }
                continue;
            }
            if (i != 0) {
                sb.append(':');
            }
            // an IPv4-compatible (::a.b.c.d) or IPv4-mapped (::ffff:a.b.c.d) address ends in dotted quad
            if (i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && words[5] == 0xFFFF))) {
                sb.append(gid[12] & 0xFF).append('.').append(gid[13] & 0xFF).append('.')
                        .append(gid[14] & 0xFF).append('.').append(gid[15] & 0xFF);
                return sb.toString();
            }
            sb.append(Integer.toHexString(words[i]));
        }
        if (bestBase != -1 && bestBase + bestLen == 8) {
            sb.append(':');
        }
        return sb.toString();
    }

    private static void checkLength(byte[] gid) {
        if (gid.length != GID_LENGTH) {
            throw new IllegalArgumentException("a GID is 16 bytes, got " + gid.length);
        }
    }
}
