package io.vibridge.verbs.soft.cm;

import java.nio.ByteBuffer;

/**
 * Minimal private CM MAD codec of the engine (IB-WIRE-REFERENCE §5.2-§5.5): only the fields the state
 * machines use; all other fields are written as the RoCE values of §5.3 or zero. The wire package's
 * {@code CmCodec} is the complete reference codec.
 */
final class CmWire {
    static final int MAD = 256;
    static final int DATA = 24;
    static final int CLASS_CM = 0x07;
    static final int ATTR_REQ = 0x10, ATTR_MRA = 0x11, ATTR_REJ = 0x12, ATTR_REP = 0x13, ATTR_RTU = 0x14,
            ATTR_DREQ = 0x15, ATTR_DREP = 0x16;

    sealed interface Msg permits Req, Rep, Rtu, Rej, Dreq, Drep, Mra {
    }

    record Req(int localCommId, long serviceId, long caGuid, int localQpn, int responderResources,
               int initiatorDepth, int remoteCmTimeout, int startingPsn, int localCmTimeout, int retryCount,
               int mtuCode, int rnrRetry, int maxCmRetries, byte[] localGid, byte[] remoteGid, int localAckTimeout,
               byte[] privateData) implements Msg {
    }

    record Rep(int localCommId, int remoteCommId, int localQpn, int startingPsn, int responderResources,
               int initiatorDepth, int targetAckDelay, int rnrRetry, long caGuid, byte[] privateData) implements Msg {
    }

    record Rtu(int localCommId, int remoteCommId, byte[] privateData) implements Msg {
    }

    /** REJ; {@code ari} = Additional Reject Information (0..72 bytes, e.g. the CA GUID for reason 4). */
    record Rej(int localCommId, int remoteCommId, int messageRejected, int reason, byte[] ari, byte[] privateData)
            implements Msg {
        Rej(int localCommId, int remoteCommId, int messageRejected, int reason, byte[] privateData) {
            this(localCommId, remoteCommId, messageRejected, reason, new byte[0], privateData);
        }
    }

    record Dreq(int localCommId, int remoteCommId, int remoteQpn, byte[] privateData) implements Msg {
    }

    record Drep(int localCommId, int remoteCommId, byte[] privateData) implements Msg {
    }

    record Mra(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout) implements Msg {
    }

    private CmWire() {
    }

    /** Writes the 256-byte MAD at {@code b[off, off+256)}. */
    static void encode(Msg m, long tid, ByteBuffer b, int off) {
        for (int i = 0; i < MAD; i++) {
            b.put(off + i, (byte) 0);
        }
        b.put(off, (byte) 1);                       // BaseVersion
        b.put(off + 1, (byte) CLASS_CM);
        b.put(off + 2, (byte) 2);                   // ClassVersion
        b.put(off + 3, (byte) 0x03);                // Method Send
        b.putLong(off + 8, tid);
        int d = off + DATA;
        switch (m) {
            case Req r -> {
                b.putShort(off + 16, (short) ATTR_REQ);
                b.putInt(d, r.localCommId());
                b.putLong(d + 8, r.serviceId());
                b.putLong(d + 16, r.caGuid());
                b.putInt(d + 32, r.localQpn() << 8 | r.responderResources() & 0xFF);
                b.putInt(d + 36, r.initiatorDepth() & 0xFF);            // local EECN 0 | initiator depth
                b.putInt(d + 40, r.remoteCmTimeout() << 3);             // remote EECN 0 | timeout, RC(0), no EE FC
                b.putInt(d + 44, r.startingPsn() << 8 | r.localCmTimeout() << 3 | r.retryCount() & 7);
                b.putShort(d + 48, (short) 0xFFFF);                     // P_Key
                b.put(d + 50, (byte) (r.mtuCode() << 4 | r.rnrRetry() & 7));
                b.put(d + 51, (byte) (r.maxCmRetries() << 4));
                b.putShort(d + 52, (short) 0xFFFF);                     // RoCE permissive LIDs
                b.putShort(d + 54, (short) 0xFFFF);
                b.put(d + 56, r.localGid());
                b.put(d + 72, r.remoteGid());
                b.put(d + 93, (byte) 64);                               // hop limit
                b.put(d + 95, (byte) (r.localAckTimeout() << 3));
                b.put(d + 140, r.privateData());
            }
            case Rep r -> {
                b.putShort(off + 16, (short) ATTR_REP);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.putInt(d + 12, r.localQpn() << 8);
                b.putInt(d + 20, r.startingPsn() << 8);
                b.put(d + 24, (byte) r.responderResources());
                b.put(d + 25, (byte) r.initiatorDepth());
                b.put(d + 26, (byte) (r.targetAckDelay() << 3));
                b.put(d + 27, (byte) (r.rnrRetry() << 5));
                b.putLong(d + 28, r.caGuid());
                b.put(d + 36, r.privateData());
            }
            case Rtu r -> {
                b.putShort(off + 16, (short) ATTR_RTU);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.put(d + 8, r.privateData());
            }
            case Rej r -> {
                b.putShort(off + 16, (short) ATTR_REJ);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.put(d + 8, (byte) (r.messageRejected() << 6));
                b.put(d + 9, (byte) (r.ari().length << 1));
                b.putShort(d + 10, (short) r.reason());
                b.put(d + 12, r.ari());
                b.put(d + 84, r.privateData());
            }
            case Dreq r -> {
                b.putShort(off + 16, (short) ATTR_DREQ);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.putInt(d + 8, r.remoteQpn() << 8);
                b.put(d + 12, r.privateData());
            }
            case Drep r -> {
                b.putShort(off + 16, (short) ATTR_DREP);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.put(d + 8, r.privateData());
            }
            case Mra r -> {
                b.putShort(off + 16, (short) ATTR_MRA);
                b.putInt(d, r.localCommId());
                b.putInt(d + 4, r.remoteCommId());
                b.put(d + 8, (byte) (r.messageMraed() << 6));
                b.put(d + 9, (byte) (r.serviceTimeout() << 3));
            }
        }
    }

    static long tid(ByteBuffer b, int off) {
        return b.getLong(off + 8);
    }

    /** Decodes a CM MAD; null if it is not a CM Send of class version 2 we handle. */
    static Msg decode(ByteBuffer b, int off) {
        if (b.get(off) != 1 || b.get(off + 1) != CLASS_CM || b.get(off + 2) != 2 || b.get(off + 3) != 0x03) {
            return null;
        }
        int attr = b.getShort(off + 16) & 0xFFFF;
        int d = off + DATA;
        return switch (attr) {
            case ATTR_REQ -> new Req(b.getInt(d), b.getLong(d + 8), b.getLong(d + 16), b.getInt(d + 32) >>> 8,
                    b.get(d + 35) & 0xFF, b.get(d + 39) & 0xFF, (b.get(d + 43) & 0xFF) >>> 3,
                    b.getInt(d + 44) >>> 8, (b.get(d + 47) & 0xFF) >>> 3, b.get(d + 47) & 7,
                    (b.get(d + 50) & 0xFF) >>> 4, b.get(d + 50) & 7, (b.get(d + 51) & 0xFF) >>> 4,
                    bytes(b, d + 56, 16), bytes(b, d + 72, 16), (b.get(d + 95) & 0xFF) >>> 3, bytes(b, d + 140, 92));
            case ATTR_REP -> new Rep(b.getInt(d), b.getInt(d + 4), b.getInt(d + 12) >>> 8, b.getInt(d + 20) >>> 8,
                    b.get(d + 24) & 0xFF, b.get(d + 25) & 0xFF, (b.get(d + 26) & 0xFF) >>> 3,
                    (b.get(d + 27) & 0xFF) >>> 5, b.getLong(d + 28), bytes(b, d + 36, 196));
            case ATTR_RTU -> new Rtu(b.getInt(d), b.getInt(d + 4), bytes(b, d + 8, 224));
            case ATTR_REJ -> new Rej(b.getInt(d), b.getInt(d + 4), (b.get(d + 8) & 0xFF) >>> 6,
                    b.getShort(d + 10) & 0xFFFF, bytes(b, d + 12, Math.min(72, (b.get(d + 9) & 0xFF) >>> 1)),
                    bytes(b, d + 84, 148));
            case ATTR_DREQ -> new Dreq(b.getInt(d), b.getInt(d + 4), b.getInt(d + 8) >>> 8, bytes(b, d + 12, 220));
            case ATTR_DREP -> new Drep(b.getInt(d), b.getInt(d + 4), bytes(b, d + 8, 224));
            case ATTR_MRA -> new Mra(b.getInt(d), b.getInt(d + 4), (b.get(d + 8) & 0xFF) >>> 6,
                    (b.get(d + 9) & 0xFF) >>> 3);
            default -> null;
        };
    }

    private static byte[] bytes(ByteBuffer b, int off, int n) {
        byte[] a = new byte[n];
        b.get(off, a);
        return a;
    }
}
