package io.vibridge.iwarp.engine;

import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.mpa.FpduReader;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.Terminate;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The client's side of the wire, built without {@link RdmapWriter} (so that a layout bug of the writer
 * cannot hide itself by building the input too): single FPDUs with any header values, and the decoding
 * of what the engine emits into plain values.
 */
final class Wire {

    static final HexFormat HEX = HexFormat.of();

    private Wire() {
    }

    private static byte[] seal(ByteBuffer b, int ulpdu, boolean crc) {
        int n = Fpdu.seal(b, 0, ulpdu, crc ? new CRC32C() : null);
        byte[] out = new byte[n];
        b.get(0, out);
        return out;
    }

    /** One untagged FPDU (a Send of any kind, or a Read Request / Terminate with {@code payload} as header). */
    static byte[] untagged(boolean crc, RdmapOpcode op, boolean last, int invalidateStag, int msn, int mo,
            byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(Fpdu.length(DdpSegment.UNTAGGED_HEADER + payload.length));
        int h = DdpSegment.writeUntagged(b, 2, op, last, invalidateStag, msn, mo);
        b.put(2 + h, payload);
        return seal(b, h + payload.length, crc);
    }

    static byte[] send(boolean crc, boolean last, int msn, int mo, byte[] payload) {
        return untagged(crc, RdmapOpcode.SEND, last, 0, msn, mo, payload);
    }

    /** One tagged FPDU (RDMA Write or Read Response). */
    static byte[] tagged(boolean crc, RdmapOpcode op, boolean last, int stag, long to, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(Fpdu.length(DdpSegment.TAGGED_HEADER + payload.length));
        int h = DdpSegment.writeTagged(b, 2, op, last, stag, to);
        b.put(2 + h, payload);
        return seal(b, h + payload.length, crc);
    }

    static byte[] readRequest(boolean crc, int msn, ReadRequest r) {
        byte[] h = new byte[ReadRequest.LENGTH];
        r.encode(ByteBuffer.wrap(h), 0);
        return untagged(crc, RdmapOpcode.READ_REQUEST, true, 0, msn, 0, h);
    }

    static byte[] terminate(boolean crc, int msn, Terminate t) {
        byte[] h = new byte[t.length()];
        t.encode(ByteBuffer.wrap(h), 0);
        return untagged(crc, RdmapOpcode.TERMINATE, true, 0, msn, 0, h);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed * 7 + (i >>> 8));
        }
        return b;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    /**
     * One FPDU the engine emitted, decoded: its whole length on the wire, the CRC field as sent, and the
     * segment's fields (tagged ones zero for untagged segments and the other way round). For Read Request and
     * Terminate, {@code payload} is the RDMAP header.
     */
    record Seg(int fpduLength, int crcField, RdmapOpcode op, boolean last, int stag, long to, int invalidateStag,
               int queue, int msn, int mo, byte[] payload) {

        ReadRequest readRequest() {
            return ReadRequest.decode(ByteBuffer.wrap(payload), 0);
        }

        Terminate terminate() {
            return Terminate.decode(ByteBuffer.wrap(payload), 0, payload.length);
        }

        @Override
        public String toString() {
            return op + (last ? " L" : "") + (op.tagged() ? String.format(" STag %08x TO %x", stag, to)
                    : " QN " + queue + " MSN " + msn + " MO " + mo) + ", " + payload.length + " B, FPDU " + fpduLength;
        }
    }

    /**
     * Decodes a stream of FPDUs (CRC checked when {@code crc}, else the field must be zero): throws on
     * anything malformed or a trailing partial FPDU.
     */
    static List<Seg> decode(byte[] stream, boolean crc) {
        List<Seg> out = new ArrayList<>();
        DdpSegment s = new DdpSegment();
        FpduReader reader = new FpduReader((buf, off, len) -> {
            s.wrap(buf, off, len);
            int fpdu = Fpdu.length(len);
            int crcField = buf.getInt(off - Fpdu.LENGTH_FIELD + fpdu - Fpdu.CRC_LENGTH);
            byte[] p = new byte[s.payloadLength()];
            buf.get(s.payloadOffset(), p);
            RdmapOpcode op = s.opcode();
            out.add(op.tagged()
                    ? new Seg(fpdu, crcField, op, s.last(), s.stag(), s.taggedOffset(), 0, 0, 0, 0, p)
                    : new Seg(fpdu, crcField, op, s.last(), 0, 0, s.invalidateStag(), s.queue(), s.msn(),
                            s.messageOffset(), p));
            return true;
        });
        reader.crc(crc);
        reader.receive(ByteBuffer.wrap(stream));
        if (reader.midFpdu()) {
            throw new AssertionError("the stream ends inside an FPDU");
        }
        if (!crc) {
            for (Seg g : out) {
                if (g.crcField() != 0) {
                    throw new AssertionError("CRC field " + Integer.toHexString(g.crcField()) + " without CRC: " + g);
                }
            }
        }
        return out;
    }
}
