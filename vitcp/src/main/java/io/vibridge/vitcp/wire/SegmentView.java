package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A reusable, allocation-free flyweight that validates one complete received segment and exposes
 * its fields (VITCP-PROFILE §2-5, §9).
 *
 * <p>{@link #wrap} checks everything that can be checked from the segment's bytes alone, in this
 * order, and throws {@link ProtocolException} (field + absolute offset) at the first violation:
 * <ol>
 * <li>at least 24 bytes available; Version = 1;</li>
 * <li>Type not reserved (12..31);</li>
 * <li>Segment Length at least 24 + the type's extra header (RDMA: 16; CE: 16 minimum) and at most
 *     {@code available};</li>
 * <li>flags: Immediate Data Valid only on the End-of-Message segment of a Send or RDMA Write (or
 *     their unordered forms) (§3); Transmit Error only on types that carry payload (Send, RDMA Write,
 *     RDMA Read Response and unordered forms): the draft (2.2.2.2.5) lets a sender that cannot
 *     retransmit pad a data segment and set it, so such a segment is accepted and reported by
 *     {@link #isTransmitError()}, and its payload is padding, not data: the engine must not deliver it
 *     as the message's contents;</li>
 * <li>single-segment types (RDMA Read Request, NOP, Connect Request/Accept/Reject/No Match): End of
 *     Message set (§2, §9.1) and Data Offset 0; NOP, Connect Reject, Connect No Match and RDMA Read
 *     Request carry no payload (§2);</li>
 * <li>Connect Request/Accept: the CE header is valid ({@link ConnectionHeader#validate}) and ends
 *     exactly at the end of the segment (connection segments carry no payload);</li>
 * <li>data types: Data Offset + payload length fits in u32; RDMA Write: Data Offset + payload length
 *     at most RDMA Length (§4).</li>
 * </ol>
 * Not checked here (needs connection state, so it is the engine's job): message number sequence,
 * segment ordering, MTU, credits, Message ACK, and the Remote Error Code bytes (which receivers
 * ignore at Unreliable and Reliable Delivery, draft 3.1; see {@link ViErrorType#of(int, int)}).
 *
 * <p>After a successful wrap every header field is cached in the view, so accessors do not reread
 * the buffer; the payload stays in the buffer at {@link #payloadOffset()}. After a failed wrap the
 * view is invalid ({@link #isValid()} false) until the next successful wrap. Not thread-safe: one
 * view per reader. {@code available} must lie within the buffer's limit (an
 * {@link IndexOutOfBoundsException} otherwise: a caller bug, not bad input).
 */
public final class SegmentView {

    private ByteBuffer buf;
    private int off;
    private boolean valid;
    private SegmentType type;
    private int flags;
    private int segmentLength;
    private long dataOffset;
    private int immediateData;
    private int messageNumber;
    private int messageAck;
    private int rxDescriptorsPosted;
    private int viErrorType;
    private int isErrorCode;
    private long rdmaAddress;
    private int rdmaHandle;
    private long rdmaLength;
    private int payloadOffset;
    private int securityTypeOffset;

    /**
     * For a stream reader: the Segment Length of the segment starting at {@code off}, once its first
     * 4 bytes are available, or -1 when fewer than 4 are. Validates Version, Type (not reserved) and
     * that the length is at least the type's minimum; it does not need the rest of the segment.
     *
     * @throws ProtocolException on a bad Version, a reserved Type or an impossible length
     */
    public static int frameLength(ByteBuffer buf, int off, int available) {
        if (available < 4) {
            return -1;
        }
        Objects.checkFromIndexSize(off, 4, buf.limit()); // caller bug, not bad input
        checkVersion(buf, off);
        SegmentType t = SegmentType.of(SegmentHeader.typeCode(buf, off), off + SegmentHeader.OFF_TYPE_FLAGS);
        int length = SegmentHeader.segmentLength(buf, off);
        checkMinimumLength(t, length, off);
        return length;
    }

    /**
     * Validates the segment at absolute offset {@code off} with {@code available} readable bytes
     * there (extra bytes beyond the Segment Length are ignored) and points this view at it.
     *
     * @return this view
     * @throws ProtocolException at the first violation (see the class comment)
     */
    public SegmentView wrap(ByteBuffer buf, int off, int available) {
        valid = false;
        if (available < SegmentHeader.LENGTH) {
            throw new ProtocolException("Segment Header", off,
                    "truncated: " + Math.max(available, 0) + " bytes available, 24 needed");
        }
        Objects.checkFromIndexSize(off, available, buf.limit()); // caller bug, not bad input
        checkVersion(buf, off);
        SegmentType t = SegmentType.of(SegmentHeader.typeCode(buf, off), off + SegmentHeader.OFF_TYPE_FLAGS);
        int length = SegmentHeader.segmentLength(buf, off);
        checkMinimumLength(t, length, off);
        if (length > available) {
            throw new ProtocolException("Segment Length", off + SegmentHeader.OFF_SEGMENT_LENGTH,
                    "segment length " + length + " exceeds the " + available + " bytes available");
        }
        int f = SegmentHeader.flags(buf, off);
        int flagsAt = off + SegmentHeader.OFF_TYPE_FLAGS;
        boolean eom = (f & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
        if ((f & SegmentHeader.FLAG_IMMEDIATE) != 0) {
            if (!(t.isSend() || t.isRdmaWrite())) {
                throw new ProtocolException("Flags", flagsAt, "Immediate Data Valid set on a " + t + " segment");
            }
            if (!eom) {
                throw new ProtocolException("Flags", flagsAt, "Immediate Data Valid set without End of Message");
            }
        }
        if ((f & SegmentHeader.FLAG_TRANSMIT_ERROR) != 0 && !t.carriesPayload()) {
            throw new ProtocolException("Flags", flagsAt, "Transmit Error set on a " + t + " segment");
        }
        long dOff = SegmentHeader.dataOffset(buf, off);
        int payloadAt = off + t.minimumSegmentLength();
        long rAddr = 0;
        int rHandle = 0;
        long rLen = 0;
        int secAt = -1;
        if (t.hasRdmaHeader()) {
            int r = off + SegmentHeader.LENGTH;
            rAddr = RdmaHeader.address(buf, r);
            rHandle = RdmaHeader.handle(buf, r);
            rLen = RdmaHeader.length(buf, r);
        }
        if (!t.carriesPayload()) {
            // Single-segment types: RDMA Read Request (§2 "exactly one segment"), NOP and connection
            // segments (§9.1).
            if (!eom) {
                throw new ProtocolException("Flags", flagsAt, t + " without End of Message");
            }
            if (dOff != 0) {
                throw new ProtocolException("Data Offset", off + SegmentHeader.OFF_DATA_OFFSET,
                        t + " is a single segment, Data Offset must be 0, got " + dOff);
            }
            if (t.hasConnectionHeader()) {
                int ce = off + SegmentHeader.LENGTH;
                int ceLength = ConnectionHeader.validate(buf, ce, off + length);
                if (SegmentHeader.LENGTH + ceLength != length) {
                    throw new ProtocolException("Segment Length", off + SegmentHeader.OFF_SEGMENT_LENGTH,
                            "segment length " + length + " but the CE header ends after "
                                    + (SegmentHeader.LENGTH + ceLength) + " bytes");
                }
                secAt = ConnectionHeader.securityTypeOffset(buf, ce);
                payloadAt = off + length;
            } else if (length != t.minimumSegmentLength()) {
                throw new ProtocolException("Segment Length", off + SegmentHeader.OFF_SEGMENT_LENGTH,
                        t + " carries no payload: segment length must be " + t.minimumSegmentLength() + ", got "
                                + length);
            }
        } else {
            long end = dOff + (off + length - payloadAt);
            if ((end >>> 32) != 0) {
                throw new ProtocolException("Data Offset", off + SegmentHeader.OFF_DATA_OFFSET,
                        "Data Offset " + dOff + " + payload runs past 2^32");
            }
            if (t.hasRdmaHeader() && end > rLen) {
                throw new ProtocolException("RDMA Length", off + SegmentHeader.LENGTH + RdmaHeader.OFF_LENGTH,
                        "Data Offset " + dOff + " + payload " + (off + length - payloadAt)
                                + " exceeds RDMA Length " + rLen);
            }
        }
        this.buf = buf;
        this.off = off;
        this.type = t;
        this.flags = f;
        this.segmentLength = length;
        this.dataOffset = dOff;
        this.immediateData = SegmentHeader.immediateData(buf, off);
        this.messageNumber = SegmentHeader.messageNumber(buf, off);
        this.messageAck = SegmentHeader.messageAck(buf, off);
        this.rxDescriptorsPosted = SegmentHeader.rxDescriptorsPosted(buf, off);
        this.viErrorType = SegmentHeader.viErrorType(buf, off);
        this.isErrorCode = SegmentHeader.isErrorCode(buf, off);
        this.rdmaAddress = rAddr;
        this.rdmaHandle = rHandle;
        this.rdmaLength = rLen;
        this.payloadOffset = payloadAt;
        this.securityTypeOffset = secAt;
        this.valid = true;
        return this;
    }

    private static void checkVersion(ByteBuffer buf, int off) {
        int v = SegmentHeader.version(buf, off);
        if (v != SegmentHeader.VERSION) {
            throw new ProtocolException("Version", off + SegmentHeader.OFF_VERSION, "unsupported version " + v);
        }
    }

    private static void checkMinimumLength(SegmentType t, int length, int off) {
        if (length < t.minimumSegmentLength()) {
            throw new ProtocolException("Segment Length", off + SegmentHeader.OFF_SEGMENT_LENGTH,
                    "segment length " + length + " below the minimum " + t.minimumSegmentLength() + " of " + t);
        }
    }

    /** True after a successful {@link #wrap} (and until the next failed one). */
    public boolean isValid() {
        return valid;
    }

    public ByteBuffer buffer() {
        return buf;
    }

    /** Absolute offset of the segment in {@link #buffer()}. */
    public int offset() {
        return off;
    }

    public SegmentType type() {
        return type;
    }

    /** The 3 flag bits. */
    public int flags() {
        return flags;
    }

    public boolean isEndOfMessage() {
        return (flags & SegmentHeader.FLAG_END_OF_MESSAGE) != 0;
    }

    public boolean isImmediateValid() {
        return (flags & SegmentHeader.FLAG_IMMEDIATE) != 0;
    }

    /** Transmit Error (draft 2.2.2.2.5): the payload is padding, not the message's data. */
    public boolean isTransmitError() {
        return (flags & SegmentHeader.FLAG_TRANSMIT_ERROR) != 0;
    }

    public int segmentLength() {
        return segmentLength;
    }

    /** Unsigned 32-bit Data Offset. */
    public long dataOffset() {
        return dataOffset;
    }

    /** Meaningful only when {@link #isImmediateValid()}. */
    public int immediateData() {
        return immediateData;
    }

    public int messageNumber() {
        return messageNumber;
    }

    public int messageAck() {
        return messageAck;
    }

    public int rxDescriptorsPosted() {
        return rxDescriptorsPosted;
    }

    public int viErrorType() {
        return viErrorType;
    }

    public int isErrorCode() {
        return isErrorCode;
    }

    public boolean hasRdmaHeader() {
        return type.hasRdmaHeader();
    }

    /** RDMA Address (0 when the type has no RDMA header). */
    public long rdmaAddress() {
        return rdmaAddress;
    }

    /** Registered Memory Handle (0 when the type has no RDMA header). */
    public int rdmaHandle() {
        return rdmaHandle;
    }

    /** Unsigned RDMA Length (0 when the type has no RDMA header). */
    public long rdmaLength() {
        return rdmaLength;
    }

    /** Absolute offset of the payload (after segment and RDMA headers). */
    public int payloadOffset() {
        return payloadOffset;
    }

    /** Payload bytes; 0 for NOP, connection segments and RDMA Read Requests. */
    public int payloadLength() {
        return off + segmentLength - payloadOffset;
    }

    /** Absolute offset of the CE header; -1 when the type has none. */
    public int connectionHeaderOffset() {
        return type.hasConnectionHeader() ? off + SegmentHeader.LENGTH : -1;
    }

    /** Security Type of the CE header; -1 when the type has none. */
    public int securityType() {
        return securityTypeOffset < 0 ? -1 : Bytes.u16(buf, securityTypeOffset);
    }

    /** Security Length of the CE header; -1 when the type has none. */
    public int securityLength() {
        return securityTypeOffset < 0 ? -1 : Bytes.u16(buf, securityTypeOffset + 2);
    }

    /** Absolute offset of the Security Information; -1 when the type has no CE header. */
    public int securityInfoOffset() {
        return securityTypeOffset < 0 ? -1 : securityTypeOffset + 4;
    }

    /** Decodes the CE header (allocates; connection setup only). */
    public ConnectionHeader connectionHeader() {
        if (!type.hasConnectionHeader()) {
            throw new IllegalStateException(type + " has no CE header");
        }
        return ConnectionHeader.decode(buf, off + SegmentHeader.LENGTH, off + segmentLength);
    }

    @Override
    public String toString() {
        if (!valid) {
            return "SegmentView[invalid]";
        }
        return "SegmentView[" + type + " flags=" + flags + " len=" + segmentLength + " dataOffset=" + dataOffset
                + " msg=" + Integer.toUnsignedString(messageNumber) + " ack=" + Integer.toUnsignedString(messageAck)
                + " rx=" + rxDescriptorsPosted + " err=" + viErrorType + "/" + isErrorCode
                + (type.hasRdmaHeader() ? " rdma=0x" + Long.toHexString(rdmaAddress) + "/" + rdmaHandle + "/"
                        + rdmaLength : "")
                + " payload=" + payloadLength() + "]";
    }
}
