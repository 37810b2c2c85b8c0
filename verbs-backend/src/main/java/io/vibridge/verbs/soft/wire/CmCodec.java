package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Encodes and decodes CM MADs (REF §5.2-5.5) and the UD packets that carry them to QP1 (§5.1).
 * Offsets below are within the 232-byte data area (MAD offset 24 + n). Reserved fields are written
 * as zero and ignored on receive; {@link MalformedPacketException} offsets are relative to the MAD.
 */
public final class CmCodec {

    private static final int D = Mad.DATA_OFFSET;

    private CmCodec() {
    }

    /** Writes the 256-byte MAD at {@code out.position()} and advances the position by 256. */
    public static void encodeMad(CmMessage message, long transactionId, ByteBuffer out) {
        int off = out.position();
        encodeMad(message, transactionId, 0, out, off);
        out.position(off + Mad.LENGTH);
    }

    /** Writes the 256-byte MAD (CM Send, class version 2) at an absolute offset. */
    public static void encodeMad(CmMessage message, long transactionId, int attributeModifier, ByteBuffer out, int off) {
        checkBuffer(out, off);
        MadHeader.cmSend(transactionId, message.attributeId())
            .withModifier(attributeModifier).write(out, off);
        int d = off + D;
        for (int i = 0; i < Mad.DATA_LENGTH; i += 8) {
            out.putLong(d + i, 0L);
        }
        switch (message) {
            case CmReq m -> encodeReq(m, out, d);
            case CmRep m -> encodeRep(m, out, d);
            case CmRtu m -> encodeIds(m.localCommId(), m.remoteCommId(), m.privateData(), out, d, 8);
            case CmDrep m -> encodeIds(m.localCommId(), m.remoteCommId(), m.privateData(), out, d, 8);
            case CmDreq m -> {
                out.putInt(d + 8, m.remoteQpn() << 8);
                encodeIds(m.localCommId(), m.remoteCommId(), m.privateData(), out, d, 12);
            }
            case CmMra m -> {
                out.put(d + 8, (byte) (m.messageMraed().code() << 6));
                out.put(d + 9, (byte) (m.serviceTimeout() << 3));
                encodeIds(m.localCommId(), m.remoteCommId(), m.privateData(), out, d, 10);
            }
            case CmRej m -> {
                byte[] ari = m.additionalRejectInfo();
                out.put(d + 8, (byte) (m.messageRejected().code() << 6));
                out.put(d + 9, (byte) (ari.length << 1));
                out.putShort(d + 10, (short) m.reason());
                out.put(d + 12, ari);
                encodeIds(m.localCommId(), m.remoteCommId(), m.privateData(), out, d, 84);
            }
        }
    }

    /**
     * Decodes the 256-byte MAD at {@code mad.position()} and advances the position by 256.
     *
     * @throws MalformedPacketException if fewer than 256 bytes remain, the header is not a CM Send
     *                                  of class version 2, the attribute is not REQ/REP/RTU/REJ/
     *                                  DREQ/DREP/MRA, or a field holds a reserved value
     */
    public static CmMad decodeMad(ByteBuffer mad) {
        if (mad.remaining() < Mad.LENGTH) {
            throw new MalformedPacketException("mad", 0, "MAD of " + mad.remaining() + " bytes, expected 256");
        }
        CmMad result = decodeMad(mad, mad.position());
        mad.position(mad.position() + Mad.LENGTH);
        return result;
    }

    /** Decodes the 256-byte MAD at an absolute offset. */
    public static CmMad decodeMad(ByteBuffer mad, int off) {
        if (mad.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("buffer must be big-endian");
        }
        if (off < 0 || off + Mad.LENGTH > mad.limit()) {
            throw new MalformedPacketException("mad", 0, "MAD truncated: fewer than 256 bytes at offset " + off);
        }
        MadHeader h = MadHeader.read(mad, off);
        if (h.baseVersion() != Mad.BASE_VERSION) {
            throw new MalformedPacketException("mad.baseVersion", 0, "base version " + h.baseVersion() + " != 1");
        }
        if (h.mgmtClass() != Mad.MGMT_CLASS_CM) {
            throw new MalformedPacketException("mad.mgmtClass", 1, "management class 0x"
                + Integer.toHexString(h.mgmtClass()) + " is not CM (0x07)");
        }
        if (h.classVersion() != Mad.CM_CLASS_VERSION) {
            throw new MalformedPacketException("mad.classVersion", 2, "CM class version " + h.classVersion() + " != 2");
        }
        if (h.method() != Mad.METHOD_SEND) {
            throw new MalformedPacketException("mad.method", 3, "method 0x" + Integer.toHexString(h.method())
                + " is not Send (0x03)");
        }
        int d = off + D;
        CmMessage m = switch (h.attributeId()) {
            case Mad.ATTR_REQ -> decodeReq(mad, d);
            case Mad.ATTR_REP -> decodeRep(mad, d);
            case Mad.ATTR_RTU -> new CmRtu(mad.getInt(d), mad.getInt(d + 4), bytes(mad, d + 8, CmRtu.PRIVATE_DATA_SIZE));
            case Mad.ATTR_DREP -> new CmDrep(mad.getInt(d), mad.getInt(d + 4), bytes(mad, d + 8, CmDrep.PRIVATE_DATA_SIZE));
            case Mad.ATTR_DREQ -> new CmDreq(mad.getInt(d), mad.getInt(d + 4), u24(mad, d + 8),
                bytes(mad, d + 12, CmDreq.PRIVATE_DATA_SIZE));
            case Mad.ATTR_MRA -> new CmMra(mad.getInt(d), mad.getInt(d + 4),
                CmTargetMessage.of((mad.get(d + 8) >> 6) & 3, D + 8), (mad.get(d + 9) >> 3) & 0x1F,
                bytes(mad, d + 10, CmMra.PRIVATE_DATA_SIZE));
            case Mad.ATTR_REJ -> {
                int ariLength = (mad.get(d + 9) >> 1) & 0x7F;
                if (ariLength > CmRej.MAX_ARI_LENGTH) {
                    throw new MalformedPacketException("cm.rej.rejectInfoLength", D + 9,
                        "reject info length " + ariLength + " > 72");
                }
                yield new CmRej(mad.getInt(d), mad.getInt(d + 4), CmTargetMessage.of((mad.get(d + 8) >> 6) & 3, D + 8),
                    mad.getShort(d + 10) & 0xFFFF, bytes(mad, d + 12, ariLength),
                    bytes(mad, d + 84, CmRej.PRIVATE_DATA_SIZE));
            }
            default -> throw new MalformedPacketException("mad.attributeId", 16, "unsupported CM attribute 0x"
                + Integer.toHexString(h.attributeId()));
        };
        return new CmMad(h, m);
    }

    /**
     * Lays out a complete GSI packet carrying a CM MAD: BTH (UD SEND Only, P_Key 0xFFFF, dest QP 1),
     * DETH (Q_Key 0x80010000, source QP 1), the MAD, and a zeroed ICRC placeholder to seal with
     * {@link Icrc}.
     *
     * @return the UDP payload length (280)
     */
    public static int writeGsiPacket(PacketWriter writer, ByteBuffer buf, int off, int psn, CmMessage message,
                                     long transactionId) {
        writer.begin(buf, off, Opcode.UD_SEND_ONLY, false, Bth.DEFAULT_PKEY, Mad.GSI_QP, false, psn, Mad.LENGTH)
            .deth(Mad.GSI_QKEY, Mad.GSI_QP);
        encodeMad(message, transactionId, 0, buf, writer.payloadOffset());
        return writer.finish();
    }

    private static void encodeReq(CmReq m, ByteBuffer out, int d) {
        out.putInt(d, m.localCommId());
        out.putInt(d + 4, m.eceVendorId());
        out.putLong(d + 8, m.serviceId());
        out.putLong(d + 16, m.localCaGuid());
        out.putInt(d + 28, m.localQkey());
        out.putInt(d + 32, (m.localQpn() << 8) | m.responderResources());
        out.putInt(d + 36, (m.localEecn() << 8) | m.initiatorDepth());
        out.putInt(d + 40, (m.remoteEecn() << 8) | (m.remoteCmResponseTimeout() << 3)
            | (m.transportServiceType() << 1) | (m.endToEndFlowControl() ? 1 : 0));
        out.putInt(d + 44, (m.startingPsn() << 8) | (m.localCmResponseTimeout() << 3) | m.retryCount());
        out.putShort(d + 48, (short) m.partitionKey());
        out.put(d + 50, (byte) ((m.pathMtu() << 4) | (m.rdcExists() ? 0x08 : 0) | m.rnrRetryCount()));
        out.put(d + 51, (byte) ((m.maxCmRetries() << 4) | (m.srq() ? 0x08 : 0) | m.extendedTransportType()));
        encodePath(m.primaryPath(), out, d + 52);
        encodePath(m.alternatePath(), out, d + 96);
        if (m.sapSupported()) {
            out.put(d + 139, (byte) (out.get(d + 139) | 0x04));
        }
        out.put(d + 140, m.privateData());
    }

    private static CmReq decodeReq(ByteBuffer in, int d) {
        int w32 = in.getInt(d + 32);
        int w36 = in.getInt(d + 36);
        int w40 = in.getInt(d + 40);
        int w44 = in.getInt(d + 44);
        int b50 = in.get(d + 50) & 0xFF;
        int b51 = in.get(d + 51) & 0xFF;
        return new CmReq(in.getInt(d), in.getInt(d + 4) & 0xFFFFFF, in.getLong(d + 8), in.getLong(d + 16), in.getInt(d + 28),
            w32 >>> 8, w32 & 0xFF, w36 >>> 8, w36 & 0xFF, w40 >>> 8, (w40 >> 3) & 0x1F, (w40 >> 1) & 3,
            (w40 & 1) != 0, w44 >>> 8, (w44 >> 3) & 0x1F, w44 & 7, in.getShort(d + 48) & 0xFFFF, b50 >>> 4,
            (b50 & 0x08) != 0, b50 & 7, b51 >>> 4, (b51 & 0x08) != 0, b51 & 7,
            decodePath(in, d + 52), decodePath(in, d + 96), (in.get(d + 139) & 0x04) != 0,
            bytes(in, d + 140, CmReq.PRIVATE_DATA_SIZE));
    }

    /** Path block of 44 bytes (REQ 52-95 / 96-139). */
    private static void encodePath(CmPath p, ByteBuffer out, int o) {
        out.putShort(o, (short) p.localLid());
        out.putShort(o + 2, (short) p.remoteLid());
        p.localGid().write(out, o + 4);
        p.remoteGid().write(out, o + 20);
        out.putInt(o + 36, (p.flowLabel() << 12) | p.packetRate());
        out.put(o + 40, (byte) p.trafficClass());
        out.put(o + 41, (byte) p.hopLimit());
        out.put(o + 42, (byte) ((p.sl() << 4) | (p.subnetLocal() ? 0x08 : 0)));
        out.put(o + 43, (byte) (p.localAckTimeout() << 3));
    }

    private static CmPath decodePath(ByteBuffer in, int o) {
        int w36 = in.getInt(o + 36);
        int b42 = in.get(o + 42) & 0xFF;
        return new CmPath(in.getShort(o) & 0xFFFF, in.getShort(o + 2) & 0xFFFF, Gid.read(in, o + 4),
            Gid.read(in, o + 20), w36 >>> 12, w36 & 0x3F, in.get(o + 40) & 0xFF, in.get(o + 41) & 0xFF,
            b42 >>> 4, (b42 & 0x08) != 0, (in.get(o + 43) >> 3) & 0x1F);
    }

    private static void encodeRep(CmRep m, ByteBuffer out, int d) {
        int ece = m.eceVendorId();
        out.putInt(d, m.localCommId());
        out.putInt(d + 4, m.remoteCommId());
        out.putInt(d + 8, m.localQkey());
        out.putInt(d + 12, (m.localQpn() << 8) | (ece >>> 16));
        out.putInt(d + 16, (m.localEecn() << 8) | ((ece >>> 8) & 0xFF));
        out.putInt(d + 20, (m.startingPsn() << 8) | (ece & 0xFF));
        out.put(d + 24, (byte) m.responderResources());
        out.put(d + 25, (byte) m.initiatorDepth());
        out.put(d + 26, (byte) ((m.targetAckDelay() << 3) | (m.failoverAccepted() << 1)
            | (m.endToEndFlowControl() ? 1 : 0)));
        out.put(d + 27, (byte) ((m.rnrRetryCount() << 5) | (m.srq() ? 0x10 : 0)));
        out.putLong(d + 28, m.localCaGuid());
        out.put(d + 36, m.privateData());
    }

    private static CmRep decodeRep(ByteBuffer in, int d) {
        int w12 = in.getInt(d + 12);
        int w16 = in.getInt(d + 16);
        int w20 = in.getInt(d + 20);
        int b26 = in.get(d + 26) & 0xFF;
        int b27 = in.get(d + 27) & 0xFF;
        int ece = ((w12 & 0xFF) << 16) | ((w16 & 0xFF) << 8) | (w20 & 0xFF);
        return new CmRep(in.getInt(d), in.getInt(d + 4), in.getInt(d + 8), w12 >>> 8, ece, w16 >>> 8, w20 >>> 8,
            in.get(d + 24) & 0xFF, in.get(d + 25) & 0xFF, b26 >>> 3, (b26 >> 1) & 3, (b26 & 1) != 0, b27 >>> 5,
            (b27 & 0x10) != 0, in.getLong(d + 28), bytes(in, d + 36, CmRep.PRIVATE_DATA_SIZE));
    }

    private static void encodeIds(int local, int remote, byte[] privateData, ByteBuffer out, int d, int pdOffset) {
        out.putInt(d, local);
        out.putInt(d + 4, remote);
        out.put(d + pdOffset, privateData);
    }

    private static int u24(ByteBuffer in, int off) {
        return ((in.get(off) & 0xFF) << 16) | ((in.get(off + 1) & 0xFF) << 8) | (in.get(off + 2) & 0xFF);
    }

    private static byte[] bytes(ByteBuffer in, int off, int len) {
        byte[] b = new byte[len];
        in.get(off, b);
        return b;
    }

    private static void checkBuffer(ByteBuffer out, int off) {
        if (out.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("buffer must be big-endian");
        }
        if (out.isReadOnly() || off < 0 || off + Mad.LENGTH > out.limit()) {
            throw new IllegalArgumentException("no room for a 256-byte MAD at offset " + off);
        }
    }
}
