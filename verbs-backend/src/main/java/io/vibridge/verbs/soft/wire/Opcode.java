package io.vibridge.verbs.soft.wire;

/**
 * BTH opcodes understood by the engine: every RC opcode of REF §2.2 except the newer-rxe FLUSH and
 * ATOMIC WRITE, plus the two UD opcodes used by QP1. UC, RD and CNP opcodes are unknown here (the
 * engine implements neither) and decode as malformed.
 *
 * <p>Framing: {@link #isFirst()}, {@link #isMiddle()}, {@link #isLast()}, {@link #isOnly()} follow
 * rxe's START/END masks, so single-packet operations (READ request, ACK, atomics, UD sends) are
 * "only".
 */
public enum Opcode {
    SEND_FIRST(0x00, H.START | H.SEND | H.PAYLOAD | H.REQ),
    SEND_MIDDLE(0x01, H.SEND | H.PAYLOAD | H.REQ),
    SEND_LAST(0x02, H.END | H.SEND | H.PAYLOAD | H.REQ),
    SEND_LAST_WITH_IMMEDIATE(0x03, H.END | H.SEND | H.PAYLOAD | H.REQ | H.IMM),
    SEND_ONLY(0x04, H.START | H.END | H.SEND | H.PAYLOAD | H.REQ),
    SEND_ONLY_WITH_IMMEDIATE(0x05, H.START | H.END | H.SEND | H.PAYLOAD | H.REQ | H.IMM),
    RDMA_WRITE_FIRST(0x06, H.START | H.WRITE | H.PAYLOAD | H.REQ | H.RETH),
    RDMA_WRITE_MIDDLE(0x07, H.WRITE | H.PAYLOAD | H.REQ),
    RDMA_WRITE_LAST(0x08, H.END | H.WRITE | H.PAYLOAD | H.REQ),
    RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, H.END | H.WRITE | H.PAYLOAD | H.REQ | H.IMM),
    RDMA_WRITE_ONLY(0x0A, H.START | H.END | H.WRITE | H.PAYLOAD | H.REQ | H.RETH),
    RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, H.START | H.END | H.WRITE | H.PAYLOAD | H.REQ | H.RETH | H.IMM),
    RDMA_READ_REQUEST(0x0C, H.START | H.END | H.READ_REQ | H.REQ | H.RETH),
    RDMA_READ_RESPONSE_FIRST(0x0D, H.START | H.READ_RESP | H.PAYLOAD | H.AETH),
    RDMA_READ_RESPONSE_MIDDLE(0x0E, H.READ_RESP | H.PAYLOAD),
    RDMA_READ_RESPONSE_LAST(0x0F, H.END | H.READ_RESP | H.PAYLOAD | H.AETH),
    RDMA_READ_RESPONSE_ONLY(0x10, H.START | H.END | H.READ_RESP | H.PAYLOAD | H.AETH),
    ACKNOWLEDGE(0x11, H.START | H.END | H.ACK | H.AETH),
    ATOMIC_ACKNOWLEDGE(0x12, H.START | H.END | H.ACK | H.AETH | H.ATOMIC_ACK_ETH),
    COMPARE_SWAP(0x13, H.START | H.END | H.ATOMIC | H.REQ | H.ATOMIC_ETH),
    FETCH_ADD(0x14, H.START | H.END | H.ATOMIC | H.REQ | H.ATOMIC_ETH),
    SEND_LAST_WITH_INVALIDATE(0x16, H.END | H.SEND | H.PAYLOAD | H.REQ | H.IETH),
    SEND_ONLY_WITH_INVALIDATE(0x17, H.START | H.END | H.SEND | H.PAYLOAD | H.REQ | H.IETH),
    UD_SEND_ONLY(0x64, H.START | H.END | H.SEND | H.PAYLOAD | H.REQ | H.DETH),
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, H.START | H.END | H.SEND | H.PAYLOAD | H.REQ | H.DETH | H.IMM);

    /** Flag bits; a holder class because enum constructors cannot read the enum's own statics. */
    private static final class H {
        static final int START = 1, END = 1 << 1, SEND = 1 << 2, WRITE = 1 << 3, READ_REQ = 1 << 4,
            READ_RESP = 1 << 5, ACK = 1 << 6, ATOMIC = 1 << 7, PAYLOAD = 1 << 8, REQ = 1 << 9,
            RETH = 1 << 10, AETH = 1 << 11, IMM = 1 << 12, DETH = 1 << 13, IETH = 1 << 14,
            ATOMIC_ETH = 1 << 15, ATOMIC_ACK_ETH = 1 << 16;
    }

    private static final Opcode[] BY_CODE = new Opcode[256];

    static {
        for (Opcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final int flags;
    private final int headerLength;
    private final int rethOffset;
    private final int aethOffset;
    private final int immDtOffset;
    private final int dethOffset;
    private final int iethOffset;
    private final int atomicEthOffset;
    private final int atomicAckEthOffset;

    Opcode(int code, int flags) {
        this.code = code;
        this.flags = flags;
        // Extension headers follow the BTH in this order (REF §2.2): DETH, RETH, AETH,
        // AtomicAckETH, AtomicETH, ImmDt, IETH.
        int off = Bth.LENGTH;
        dethOffset = (flags & H.DETH) != 0 ? off : -1;
        off += (flags & H.DETH) != 0 ? Deth.LENGTH : 0;
        rethOffset = (flags & H.RETH) != 0 ? off : -1;
        off += (flags & H.RETH) != 0 ? Reth.LENGTH : 0;
        aethOffset = (flags & H.AETH) != 0 ? off : -1;
        off += (flags & H.AETH) != 0 ? Aeth.LENGTH : 0;
        atomicAckEthOffset = (flags & H.ATOMIC_ACK_ETH) != 0 ? off : -1;
        off += (flags & H.ATOMIC_ACK_ETH) != 0 ? AtomicEth.ACK_LENGTH : 0;
        atomicEthOffset = (flags & H.ATOMIC_ETH) != 0 ? off : -1;
        off += (flags & H.ATOMIC_ETH) != 0 ? AtomicEth.LENGTH : 0;
        immDtOffset = (flags & H.IMM) != 0 ? off : -1;
        off += (flags & H.IMM) != 0 ? ImmDt.LENGTH : 0;
        iethOffset = (flags & H.IETH) != 0 ? off : -1;
        off += (flags & H.IETH) != 0 ? Ieth.LENGTH : 0;
        headerLength = off;
    }

    /**
     * The opcode for a BTH OpCode byte.
     *
     * @throws MalformedPacketException for codes this engine does not know (offset 0)
     */
    public static Opcode of(int code) {
        Opcode op = (code & ~0xFF) == 0 ? BY_CODE[code] : null;
        if (op == null) {
            throw new MalformedPacketException("bth.opcode", 0, "unknown opcode 0x" + Integer.toHexString(code));
        }
        return op;
    }

    /** The opcode for a code, or null if unknown (no exception). */
    public static Opcode lookup(int code) {
        return (code & ~0xFF) == 0 ? BY_CODE[code] : null;
    }

    public int code() {
        return code;
    }

    /** BTH plus all extension headers of this opcode, in bytes. */
    public int headerLength() {
        return headerLength;
    }

    public boolean hasReth() {
        return rethOffset >= 0;
    }

    public boolean hasAeth() {
        return aethOffset >= 0;
    }

    public boolean hasImmDt() {
        return immDtOffset >= 0;
    }

    public boolean hasDeth() {
        return dethOffset >= 0;
    }

    public boolean hasIeth() {
        return iethOffset >= 0;
    }

    public boolean hasAtomicEth() {
        return atomicEthOffset >= 0;
    }

    public boolean hasAtomicAckEth() {
        return atomicAckEthOffset >= 0;
    }

    /** Offset of the RETH from the BTH start, -1 if absent. */
    public int rethOffset() {
        return rethOffset;
    }

    /** Offset of the AETH from the BTH start, -1 if absent. */
    public int aethOffset() {
        return aethOffset;
    }

    /** Offset of the ImmDt from the BTH start, -1 if absent. */
    public int immDtOffset() {
        return immDtOffset;
    }

    /** Offset of the DETH from the BTH start, -1 if absent. */
    public int dethOffset() {
        return dethOffset;
    }

    /** Offset of the IETH from the BTH start, -1 if absent. */
    public int iethOffset() {
        return iethOffset;
    }

    /** Offset of the AtomicETH from the BTH start, -1 if absent. */
    public int atomicEthOffset() {
        return atomicEthOffset;
    }

    /** Offset of the AtomicAckETH from the BTH start, -1 if absent. */
    public int atomicAckEthOffset() {
        return atomicAckEthOffset;
    }

    /** Whether packets of this opcode carry payload bytes (possibly zero of them). */
    public boolean hasPayload() {
        return (flags & H.PAYLOAD) != 0;
    }

    public boolean isFirst() {
        return (flags & (H.START | H.END)) == H.START;
    }

    public boolean isMiddle() {
        return (flags & (H.START | H.END)) == 0;
    }

    public boolean isLast() {
        return (flags & (H.START | H.END)) == H.END;
    }

    public boolean isOnly() {
        return (flags & (H.START | H.END)) == (H.START | H.END);
    }

    /** First or only packet of a message. */
    public boolean isStart() {
        return (flags & H.START) != 0;
    }

    /** Last or only packet of a message. */
    public boolean isEnd() {
        return (flags & H.END) != 0;
    }

    /** SEND of any kind, RC or UD. */
    public boolean isSend() {
        return (flags & H.SEND) != 0;
    }

    public boolean isRdmaWrite() {
        return (flags & H.WRITE) != 0;
    }

    public boolean isReadRequest() {
        return (flags & H.READ_REQ) != 0;
    }

    public boolean isReadResponse() {
        return (flags & H.READ_RESP) != 0;
    }

    /** ACKNOWLEDGE or ATOMIC ACKNOWLEDGE. */
    public boolean isAck() {
        return (flags & H.ACK) != 0;
    }

    /** CmpSwap or FetchAdd. */
    public boolean isAtomic() {
        return (flags & H.ATOMIC) != 0;
    }

    /** Sent by the requester (to the responder); the others are responses. */
    public boolean isRequest() {
        return (flags & H.REQ) != 0;
    }

    /** Reliable Connected transport (opcode bits 7:5 = 000). */
    public boolean isRc() {
        return (code & 0xE0) == 0;
    }

    /** Unreliable Datagram transport (opcode bits 7:5 = 011). */
    public boolean isUd() {
        return (code & 0xE0) == 0x60;
    }
}
