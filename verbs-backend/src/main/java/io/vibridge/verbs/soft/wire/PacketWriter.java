package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reusable flyweight that lays out one RoCEv2 UDP payload (BTH, extension headers, payload, zero
 * pad, ICRC placeholder) into a caller-supplied buffer, without allocating. Call {@link #begin},
 * then the extension-header methods the opcode needs, then place the payload (copy with
 * {@link #payload} or write it yourself at {@link #payloadOffset()}), then {@link #finish}, then
 * seal with {@link Icrc}. Confine an instance to one thread.
 */
public final class PacketWriter {

    private ByteBuffer buf;
    private int off;
    private Opcode opcode;
    private int payloadLength;

    /** UDP payload length (ICRC included) of a packet of {@code op} carrying {@code payloadLength} bytes. */
    public static int packetLength(Opcode op, int payloadLength) {
        return op.headerLength() + payloadLength + padFor(payloadLength) + Icrc.LENGTH;
    }

    /** Pad count for a payload length: {@code (-len) & 3} (REF §2.3). */
    public static int padFor(int payloadLength) {
        return -payloadLength & 3;
    }

    /**
     * Starts a packet: writes the BTH at {@code off} with the pad count derived from
     * {@code payloadLength}.
     *
     * @throws IllegalArgumentException if the packet does not fit, a payload is given for an opcode
     *                                  without one, or a First/Middle payload is not a multiple of 4
     */
    public PacketWriter begin(ByteBuffer buf, int off, Opcode op, boolean solicited, int pkey, int destQp,
                              boolean ackReq, int psn, int payloadLength) {
        if (buf.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("buffer must be big-endian");
        }
        if (payloadLength < 0 || (!op.hasPayload() && payloadLength != 0)) {
            throw new IllegalArgumentException(op + " cannot carry " + payloadLength + " payload bytes");
        }
        int pad = padFor(payloadLength);
        if (pad != 0 && !op.isEnd()) {
            throw new IllegalArgumentException(op + " payload must be a multiple of 4, is " + payloadLength);
        }
        if (off < 0 || off + packetLength(op, payloadLength) > buf.limit()) {
            throw new IllegalArgumentException("packet does not fit the buffer");
        }
        Bth.write(buf, off, op.code(), solicited, false, pad, pkey, destQp, ackReq, psn);
        this.buf = buf;
        this.off = off;
        this.opcode = op;
        this.payloadLength = payloadLength;
        return this;
    }

    public PacketWriter reth(long va, int rkey, long dmaLength) {
        Reth.write(buf, ext(opcode.rethOffset()), va, rkey, dmaLength);
        return this;
    }

    public PacketWriter aeth(int syndrome, int msn) {
        Aeth.write(buf, ext(opcode.aethOffset()), syndrome, msn);
        return this;
    }

    public PacketWriter immDt(int imm) {
        ImmDt.write(buf, ext(opcode.immDtOffset()), imm);
        return this;
    }

    public PacketWriter ieth(int rkey) {
        Ieth.write(buf, ext(opcode.iethOffset()), rkey);
        return this;
    }

    public PacketWriter deth(int qkey, int srcQp) {
        Deth.write(buf, ext(opcode.dethOffset()), qkey, srcQp);
        return this;
    }

    public PacketWriter atomicEth(long va, int rkey, long swapOrAdd, long compare) {
        AtomicEth.write(buf, ext(opcode.atomicEthOffset()), va, rkey, swapOrAdd, compare);
        return this;
    }

    public PacketWriter atomicAckEth(long originalValue) {
        AtomicEth.writeAck(buf, ext(opcode.atomicAckEthOffset()), originalValue);
        return this;
    }

    /** Absolute offset where the payload goes. */
    public int payloadOffset() {
        return off + opcode.headerLength();
    }

    /** Copies exactly the announced payload length from {@code src[srcOff, srcOff + payloadLength)}. */
    public PacketWriter payload(ByteBuffer src, int srcOff) {
        buf.put(payloadOffset(), src, srcOff, payloadLength);
        return this;
    }

    /** Copies exactly the announced payload length from {@code src[srcOff, srcOff + payloadLength)}. */
    public PacketWriter payload(byte[] src, int srcOff) {
        buf.put(payloadOffset(), src, srcOff, payloadLength);
        return this;
    }

    /**
     * Zeroes the pad and the ICRC placeholder.
     *
     * @return the UDP payload length including the ICRC, to pass to {@link Icrc} and the socket
     */
    public int finish() {
        int padAt = payloadOffset() + payloadLength;
        int pad = padFor(payloadLength);
        for (int i = 0; i < pad + Icrc.LENGTH; i++) {
            buf.put(padAt + i, (byte) 0);
        }
        return packetLength(opcode, payloadLength);
    }

    private int ext(int relative) {
        if (opcode == null) {
            throw new IllegalStateException("begin() first");
        }
        if (relative < 0) {
            throw new IllegalStateException(opcode + " has no such extension header");
        }
        return off + relative;
    }
}
