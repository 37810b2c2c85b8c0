package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A test fixture (moved from main: the receive path reads headers with the static accessors, which cost
 * nothing per packet, and never used it). Reusable flyweight over one received RoCEv2 UDP payload (BTH ... pad, ICRC). {@link #wrap}
 * validates the framing and then exposes the header fields in place, without allocating. The ICRC
 * is not verified here (it needs the IP addresses; see {@link Icrc}). Confine an instance to one
 * thread; it is valid until the next {@code wrap} or until the buffer is reused.
 */
public final class PacketView {

    private ByteBuffer buf;
    private int off;
    private int length;
    private Opcode opcode;
    private int payloadLength;

    /**
     * Parses the UDP payload at {@code buf[off, off + length)}.
     *
     * @return this view
     * @throws MalformedPacketException if the packet is too short, has an unknown opcode, TVer != 0,
     *                                  or its pad count and length are inconsistent
     */
    public PacketView wrap(ByteBuffer buf, int off, int length) {
        if (buf.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("buffer must be big-endian");
        }
        if (off < 0 || length < 0 || off + length > buf.limit()) {
            throw new IllegalArgumentException("extent outside the buffer: off=" + off + " length=" + length);
        }
        this.buf = null;
        this.opcode = null;
        if (length < Bth.LENGTH + Icrc.LENGTH) {
            throw new MalformedPacketException("bth", 0, "packet of " + length + " bytes is shorter than BTH + ICRC");
        }
        Opcode op = Opcode.of(Bth.opcode(buf, off));
        if (Bth.transportVersion(buf, off) != 0) {
            throw new MalformedPacketException("bth.tver", 1, "transport version " + Bth.transportVersion(buf, off) + " != 0");
        }
        int pad = Bth.padCount(buf, off);
        int rest = length - op.headerLength() - Icrc.LENGTH; // payload + pad
        if (rest < 0) {
            throw new MalformedPacketException("length", op.headerLength(),
                length + " bytes is shorter than the " + op.headerLength() + "-byte headers of " + op + " + ICRC");
        }
        if (!op.hasPayload()) {
            if (rest != 0) {
                throw new MalformedPacketException("length", op.headerLength(), op + " carries no payload but "
                    + rest + " bytes follow its headers");
            }
            if (pad != 0) {
                throw new MalformedPacketException("bth.padcnt", 1, op + " without payload has pad count " + pad);
            }
        } else {
            // REF §2.3: payload + pad is a multiple of 4; First/Middle carry whole PMTUs, pad 0.
            if ((rest & 3) != 0) {
                throw new MalformedPacketException("length", op.headerLength(),
                    "payload + pad of " + rest + " bytes is not a multiple of 4");
            }
            if (pad > rest) {
                throw new MalformedPacketException("bth.padcnt", 1, "pad count " + pad + " exceeds the " + rest
                    + " bytes after the headers");
            }
            if (pad != 0 && !op.isEnd()) {
                throw new MalformedPacketException("bth.padcnt", 1, op + " must have pad count 0, has " + pad);
            }
        }
        this.buf = buf;
        this.off = off;
        this.length = length;
        this.opcode = op;
        this.payloadLength = rest - pad;
        return this;
    }

    /** The wrapped buffer. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** Absolute offset of the BTH (start of the UDP payload). */
    public int offset() {
        return off;
    }

    /** UDP payload length including the ICRC. */
    public int length() {
        return length;
    }

    public Opcode opcode() {
        return opcode;
    }

    public boolean solicitedEvent() {
        return Bth.solicitedEvent(buf, off);
    }

    public boolean migReq() {
        return Bth.migReq(buf, off);
    }

    public int padCount() {
        return Bth.padCount(buf, off);
    }

    public int pkey() {
        return Bth.pkey(buf, off);
    }

    public boolean fecn() {
        return Bth.fecn(buf, off);
    }

    public boolean becn() {
        return Bth.becn(buf, off);
    }

    public int destQp() {
        return Bth.destQp(buf, off);
    }

    public boolean ackRequest() {
        return Bth.ackRequest(buf, off);
    }

    public int psn() {
        return Bth.psn(buf, off);
    }

    /** RETH virtual address; only if {@code opcode().hasReth()}. */
    public long rethVirtualAddress() {
        return Reth.virtualAddress(buf, ext(opcode.rethOffset()));
    }

    public int rethRkey() {
        return Reth.rkey(buf, ext(opcode.rethOffset()));
    }

    /** RETH DMA length, unsigned 32-bit. */
    public long rethDmaLength() {
        return Reth.dmaLength(buf, ext(opcode.rethOffset()));
    }

    public int aethSyndrome() {
        return Aeth.syndrome(buf, ext(opcode.aethOffset()));
    }

    public int aethMsn() {
        return Aeth.msn(buf, ext(opcode.aethOffset()));
    }

    public int immDt() {
        return ImmDt.value(buf, ext(opcode.immDtOffset()));
    }

    public int iethRkey() {
        return Ieth.rkey(buf, ext(opcode.iethOffset()));
    }

    public int dethQkey() {
        return Deth.qkey(buf, ext(opcode.dethOffset()));
    }

    public int dethSrcQp() {
        return Deth.srcQp(buf, ext(opcode.dethOffset()));
    }

    public long atomicVirtualAddress() {
        return AtomicEth.virtualAddress(buf, ext(opcode.atomicEthOffset()));
    }

    public int atomicRkey() {
        return AtomicEth.rkey(buf, ext(opcode.atomicEthOffset()));
    }

    public long atomicSwapOrAdd() {
        return AtomicEth.swapOrAdd(buf, ext(opcode.atomicEthOffset()));
    }

    public long atomicCompare() {
        return AtomicEth.compare(buf, ext(opcode.atomicEthOffset()));
    }

    public long atomicAckOriginalValue() {
        return AtomicEth.originalValue(buf, ext(opcode.atomicAckEthOffset()));
    }

    /** Absolute offset of the payload. */
    public int payloadOffset() {
        return off + opcode.headerLength();
    }

    /** Payload length (pad excluded). */
    public int payloadLength() {
        return payloadLength;
    }

    /** Absolute offset of the ICRC trailer. */
    public int icrcOffset() {
        return off + length - Icrc.LENGTH;
    }

    /** The ICRC trailer as a CRC value. */
    public int icrc() {
        return Icrc.trailer(buf, off, length);
    }

    private int ext(int relative) {
        if (relative < 0) {
            throw new IllegalStateException(opcode + " has no such extension header");
        }
        return off + relative;
    }

    /**
     * Decodes the CM MAD of a received GSI packet after checking it is a UD SEND Only to QP1 with
     * the GSI Q_Key and a 256-byte payload (REF §5.1, §1.6).
     */
    public CmMad gsiMad() {
        if (opcode() != Opcode.UD_SEND_ONLY) {
            throw new MalformedPacketException("bth.opcode", 0, "GSI packet with opcode " + opcode());
        }
        if (destQp() != Mad.GSI_QP) {
            throw new MalformedPacketException("bth.destqp", 5, "GSI packet to QP " + destQp());
        }
        if (dethQkey() != Mad.GSI_QKEY) {
            throw new MalformedPacketException("deth.qkey", Bth.LENGTH, "GSI packet with Q_Key 0x"
                + Integer.toHexString(dethQkey()));
        }
        if (payloadLength() != Mad.LENGTH) {
            throw new MalformedPacketException("mad", opcode().headerLength(), "GSI payload of "
                + payloadLength() + " bytes, expected 256");
        }
        return CmCodec.decodeMad(buffer(), payloadOffset());
    }
}
