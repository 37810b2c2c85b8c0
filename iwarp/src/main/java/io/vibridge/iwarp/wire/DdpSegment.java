package io.vibridge.iwarp.wire;

import java.nio.ByteBuffer;

/**
 * A DDP segment with its RDMAP control (RFC 5041 §4, RFC 5040 §4.2): the ULPDU of one FPDU. A reusable
 * flyweight: {@link #wrap} validates a received segment in place and the accessors read it, so the data
 * path allocates nothing per segment; the static {@code write*} methods lay out headers to send.
 *
 * <pre>
 *  0  T | L | res (4) | DV (2)        T: tagged, L: last segment of the message, DV: DDP version 1
 *  1  RV (2) | res (2) | Opcode (4)   RDMAP version 1 and opcode, in DDP's 8 reserved-for-ULP bits
 *  tagged (RDMA Write, Read Response):
 *  2  STag (u32)
 *  6  Tagged Offset (u64)             payload at 14
 *  untagged (Sends, Read Request, Terminate):
 *  2  reserved for ULP (u32)          the STag to invalidate for Send with Invalidate, else 0
 *  6  Queue Number (u32)              0 Send, 1 Read Request, 2 Terminate
 * 10  Message Sequence Number (u32)   per queue, from 1
 * 14  Message Offset (u32)            the payload's offset in the message; payload (or RDMAP header) at 18
 * </pre>
 *
 * Reserved bits are sent as zero and ignored on receipt (RFC 5041 §4.2).
 */
public final class DdpSegment {

    public static final int TAGGED_HEADER = 14;
    public static final int UNTAGGED_HEADER = 18;
    public static final int DDP_VERSION = 1;
    public static final int RDMAP_VERSION = 1;

    static final int FLAG_TAGGED = 0x80;
    static final int FLAG_LAST = 0x40;

    private ByteBuffer buf;
    private int off;
    private int length;
    private RdmapOpcode opcode;

    /**
     * Validates the {@code length}-byte ULPDU at {@code off} and makes this view read it: versions, a
     * known opcode whose buffer model and queue match the header, a length that holds the headers, Read
     * Request and Terminate whole in one last segment with nothing after their RDMAP header but what
     * belongs to it. What depends on the connection (MSNs, buffers, STags) is the engine's to check.
     *
     * @throws IwarpProtocolException naming the field and the Terminate it calls for
     */
    public DdpSegment wrap(ByteBuffer buf, int off, int length) {
        this.buf = buf;
        this.off = off;
        this.length = length;
        this.opcode = null;
        if (length < 2) {
            throw new IwarpProtocolException(TerminateCode.DDP_LOCAL_CATASTROPHIC, "ULPDU Length", off - 2,
                    length + " bytes cannot hold the DDP and RDMAP control bytes");
        }
        int ddp = buf.get(off) & 0xFF;
        boolean tagged = (ddp & FLAG_TAGGED) != 0;
        if ((ddp & 3) != DDP_VERSION) {
            throw new IwarpProtocolException(tagged ? TerminateCode.DDP_TAGGED_VERSION
                    : TerminateCode.DDP_UNTAGGED_VERSION, "DDP Version", off, "is " + (ddp & 3) + ", not 1");
        }
        int rdmap = buf.get(off + 1) & 0xFF;
        if (rdmap >>> 6 != RDMAP_VERSION) {
            throw new IwarpProtocolException(TerminateCode.RDMAP_VERSION, "RDMAP Version", off + 1,
                    "is " + (rdmap >>> 6) + ", not 1");
        }
        RdmapOpcode op = RdmapOpcode.of(rdmap);
        if (op == null) {
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Opcode", off + 1,
                    "0x" + Integer.toHexString(rdmap & 0xF) + " is not an RDMAP opcode this stream carries");
        }
        if (op.tagged() != tagged) {
            throw new IwarpProtocolException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, "Tagged flag", off,
                    op + " is " + (op.tagged() ? "tagged" : "untagged") + " but T is " + (tagged ? 1 : 0));
        }
        if (length < op.headerLength()) {
            throw new IwarpProtocolException(TerminateCode.DDP_LOCAL_CATASTROPHIC, "ULPDU Length", off - 2,
                    length + " bytes cannot hold the " + op.headerLength() + "-byte headers of " + op);
        }
        if (!tagged) {
            int qn = buf.getInt(off + 6);
            if (qn != op.queue()) {
                throw new IwarpProtocolException(Integer.compareUnsigned(qn, RdmapOpcode.QUEUES) >= 0
                        ? TerminateCode.DDP_UNTAGGED_INVALID_QN : TerminateCode.RDMAP_UNEXPECTED_OPCODE,
                        "Queue Number", off + 6, Integer.toUnsignedString(qn) + " does not carry " + op);
            }
            if (!op.carriesData()) {   // Read Request, Terminate: one segment, RFC 5040 §4.4, §4.8
                if ((ddp & FLAG_LAST) == 0 || buf.getInt(off + 14) != 0) {
                    throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_INVALID_MO, "Message Offset",
                            off + 14, op + " must be one last segment at offset 0");
                }
                if (op == RdmapOpcode.READ_REQUEST && length != op.headerLength()) {
                    throw new IwarpProtocolException(TerminateCode.DDP_UNTAGGED_TOO_LONG, "ULPDU Length", off - 2,
                            "a Read Request is " + op.headerLength() + " bytes, not " + length);
                }
            }
        }
        this.opcode = op;
        return this;
    }

    public RdmapOpcode opcode() {
        return opcode;
    }

    /** The L flag: the last segment of its message. */
    public boolean last() {
        return (buf.get(off) & FLAG_LAST) != 0;
    }

    /** Tagged: the STag. */
    public int stag() {
        return buf.getInt(off + 2);
    }

    /** Tagged: the Tagged Offset of the first payload byte. */
    public long taggedOffset() {
        return buf.getLong(off + 6);
    }

    /** Untagged: the STag a Send with Invalidate names (0 for the other untagged messages). */
    public int invalidateStag() {
        return buf.getInt(off + 2);
    }

    /** Untagged: the queue number. */
    public int queue() {
        return buf.getInt(off + 6);
    }

    /** Untagged: the Message Sequence Number. */
    public int msn() {
        return buf.getInt(off + 10);
    }

    /** Untagged: the Message Offset of the first payload byte. */
    public int messageOffset() {
        return buf.getInt(off + 14);
    }

    /** Absolute offset of the payload (or, for Read Request and Terminate, of the RDMAP header). */
    public int payloadOffset() {
        return off + (opcode.carriesData() ? opcode.headerLength() : UNTAGGED_HEADER);
    }

    /** Payload bytes (for Read Request and Terminate: their RDMAP header's). */
    public int payloadLength() {
        return off + length - payloadOffset();
    }

    /** The Read Request's RDMAP header (allocates: Read Requests are control, not data path). */
    public ReadRequest readRequest() {
        return ReadRequest.decode(buf, off + UNTAGGED_HEADER);
    }

    /** The Terminate's RDMAP header. */
    public Terminate terminate() {
        return Terminate.decode(buf, off + UNTAGGED_HEADER, length - UNTAGGED_HEADER);
    }

    /** The buffer this view reads. */
    public ByteBuffer buffer() {
        return buf;
    }

    // ------------------------------------------------------------------ writing

    /** Writes a tagged header (RDMA Write, Read Response) at {@code off}; returns its length. */
    public static int writeTagged(ByteBuffer buf, int off, RdmapOpcode op, boolean last, int stag, long taggedOffset) {
        if (!op.tagged()) {
            throw new IllegalArgumentException(op + " is untagged");
        }
        control(buf, off, op, last);
        buf.putInt(off + 2, stag).putLong(off + 6, taggedOffset);
        return TAGGED_HEADER;
    }

    /**
     * Writes an untagged header at {@code off} on the opcode's queue; {@code invalidateStag} is sent only by
     * the Sends with Invalidate (0 otherwise). Returns its length (the RDMAP header of a Read Request or
     * Terminate follows).
     */
    public static int writeUntagged(ByteBuffer buf, int off, RdmapOpcode op, boolean last, int invalidateStag,
            int msn, int messageOffset) {
        if (op.tagged()) {
            throw new IllegalArgumentException(op + " is tagged");
        }
        control(buf, off, op, last);
        buf.putInt(off + 2, op.invalidates() ? invalidateStag : 0).putInt(off + 6, op.queue()).putInt(off + 10, msn)
                .putInt(off + 14, messageOffset);
        return UNTAGGED_HEADER;
    }

    private static void control(ByteBuffer buf, int off, RdmapOpcode op, boolean last) {
        buf.put(off, (byte) ((op.tagged() ? FLAG_TAGGED : 0) | (last ? FLAG_LAST : 0) | DDP_VERSION));
        buf.put(off + 1, (byte) (RDMAP_VERSION << 6 | op.code()));
    }
}
