package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Lays out whole RDMAP messages as FPDUs (RFC 5040 §4, RFC 5041 §5, RFC 5044 §4): each message is cut
 * into DDP segments of at most {@link #maxUlpdu} bytes, one per FPDU, and written in one go, so two
 * messages of one stream never interleave on the wire. Keeps the outbound MSN of each untagged queue
 * (RFC 5041 §5.3: from 1, one per message). The caller sizes the destination with {@link #length}.
 */
final class RdmapWriter {
    private final int maxUlpdu;
    private final CRC32C crc;
    /** The next outbound MSN per untagged queue. */
    private final int[] msn = {1, 1, 1};

    /**
     * @param maxFpdu the largest FPDU to emit, whole (length field, ULPDU, pad, CRC); siw emits its TCP MSS
     *                rounded down to 8 (siw_qp_tx.c siw_update_tcpseg)
     * @param crc     whether FPDUs carry CRC32C (else zeros)
     */
    RdmapWriter(int maxFpdu, boolean crc) {
        this.maxUlpdu = maxUlpdu(maxFpdu);
        this.crc = crc ? new CRC32C() : null;
    }

    /** The largest segment an FPDU of {@code maxFpdu} bytes holds (pad 0); refuses a size that holds no useful one. */
    static int maxUlpdu(int maxFpdu) {
        int ulpdu = ((maxFpdu - Fpdu.CRC_LENGTH) & ~3) - Fpdu.LENGTH_FIELD;
        if (ulpdu < RdmapOpcode.READ_REQUEST.headerLength() + 4) {
            throw new IllegalArgumentException("an FPDU of " + maxFpdu + " bytes holds no useful segment");
        }
        return Math.min(ulpdu, Fpdu.MAX_ULPDU - 3);
    }

    int maxUlpdu() {
        return maxUlpdu;
    }

    /** Payload bytes one FPDU of {@code op} carries. */
    private int perSegment(RdmapOpcode op) {
        return maxUlpdu - op.headerLength();
    }

    /** Bytes the message {@code op} with {@code payload} payload bytes takes on the wire. */
    int length(RdmapOpcode op, long payload) {
        if (payload < 0) {
            throw new IllegalArgumentException("a message of " + payload + " bytes");
        }
        int per = perSegment(op);
        long whole = payload / per;
        int rest = (int) (payload % per);
        long n = whole * Fpdu.length(maxUlpdu);
        if (rest > 0 || whole == 0) {
            n += Fpdu.length(op.headerLength() + rest);
        }
        return Math.toIntExact(n);
    }

    /** An untagged Send (any of the four kinds) of {@code len} bytes of {@code src} at {@code srcOff}. */
    void send(ByteBuffer dst, RdmapOpcode op, int invalidateStag, ByteBuffer src, int srcOff, int len) {
        requireLength(len);
        int m = msn[RdmapOpcode.QN_SEND]++;
        int per = perSegment(op);
        int mo = 0;
        do {
            int n = Math.min(per, len - mo);
            int at = dst.position();
            int h = DdpSegment.writeUntagged(dst, at + Fpdu.LENGTH_FIELD, op, mo + n == len, invalidateStag, m, mo);
            copy(src, srcOff + mo, dst, at + Fpdu.LENGTH_FIELD + h, n);
            dst.position(at + Fpdu.seal(dst, at, h + n, crc));
            mo += n;
        } while (mo < len);
    }

    /** An RDMA Write or Read Response of {@code len} bytes to {@code stag} at {@code to}. */
    void tagged(ByteBuffer dst, RdmapOpcode op, int stag, long to, ByteBuffer src, int srcOff, int len) {
        tagged(dst, op, stag, to, src, srcOff, len, true);
    }

    /**
     * Segments of a tagged message, {@code len} bytes to {@code stag} at {@code to}: the whole message or, with
     * {@code ends} false, a run of its segments the next run continues (RFC 5041 §5.2: only the message's final
     * segment has the Last flag).
     */
    void tagged(ByteBuffer dst, RdmapOpcode op, int stag, long to, ByteBuffer src, int srcOff, int len, boolean ends) {
        requireLength(len);
        int per = perSegment(op);
        int done = 0;
        do {
            int n = Math.min(per, len - done);
            int at = dst.position();
            int h = DdpSegment.writeTagged(dst, at + Fpdu.LENGTH_FIELD, op, ends && done + n == len, stag, to + done);
            copy(src, srcOff + done, dst, at + Fpdu.LENGTH_FIELD + h, n);
            dst.position(at + Fpdu.seal(dst, at, h + n, crc));
            done += n;
        } while (done < len);
    }

    /** A Read Request (queue 1), one FPDU. */
    void readRequest(ByteBuffer dst, ReadRequest r) {
        int at = dst.position();
        int h = DdpSegment.writeUntagged(dst, at + Fpdu.LENGTH_FIELD, RdmapOpcode.READ_REQUEST, true, 0,
                msn[RdmapOpcode.QN_READ_REQUEST]++, 0);
        r.encode(dst, at + Fpdu.LENGTH_FIELD + h);
        dst.position(at + Fpdu.seal(dst, at, h + ReadRequest.LENGTH, crc));
    }

    /** Bytes a Terminate takes. */
    static int terminateLength(Terminate t) {
        return Fpdu.length(DdpSegment.UNTAGGED_HEADER + t.length());
    }

    /** A Terminate (queue 2), one FPDU. */
    void terminate(ByteBuffer dst, Terminate t) {
        int at = dst.position();
        int h = DdpSegment.writeUntagged(dst, at + Fpdu.LENGTH_FIELD, RdmapOpcode.TERMINATE, true, 0,
                msn[RdmapOpcode.QN_TERMINATE]++, 0);
        t.encode(dst, at + Fpdu.LENGTH_FIELD + h);
        dst.position(at + Fpdu.seal(dst, at, h + t.length(), crc));
    }

    /** A negative length would lay out FPDUs whose ULPDU is shorter than its own header. */
    private static void requireLength(int len) {
        if (len < 0) {
            throw new IllegalArgumentException("a message of " + len + " bytes");
        }
    }

    private static void copy(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int n) {
        if (n > 0) {
            dst.put(dstOff, src, srcOff, n);
        }
    }
}
