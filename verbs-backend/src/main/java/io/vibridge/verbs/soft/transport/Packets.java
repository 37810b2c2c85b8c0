package io.vibridge.verbs.soft.transport;

import java.nio.ByteBuffer;

/**
 * Minimal allocation-free header access used by the transport (IB-WIRE-REFERENCE §2, §3). The wire
 * package holds the full codecs; this private helper keeps the engine self-contained.
 */
final class Packets {
    static final int BTH = 12;
    static final int SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_LAST_IMM = 0x03,
            SEND_ONLY = 0x04, SEND_ONLY_IMM = 0x05, WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08,
            WRITE_LAST_IMM = 0x09, WRITE_ONLY = 0x0A, WRITE_ONLY_IMM = 0x0B, READ_REQUEST = 0x0C,
            READ_RESP_FIRST = 0x0D, READ_RESP_MIDDLE = 0x0E, READ_RESP_LAST = 0x0F, READ_RESP_ONLY = 0x10,
            ACKNOWLEDGE = 0x11;
    static final int PSN_MASK = 0xFFFFFF;
    /** AETH syndrome "ACK, no credit information" (§3.2). */
    static final int SYNDROME_ACK = 0x1F;

    private Packets() {
    }

    static boolean hasReth(int op) {
        return op == WRITE_FIRST || op == WRITE_ONLY || op == WRITE_ONLY_IMM || op == READ_REQUEST;
    }

    static boolean hasImm(int op) {
        return op == SEND_LAST_IMM || op == SEND_ONLY_IMM || op == WRITE_LAST_IMM || op == WRITE_ONLY_IMM;
    }

    static boolean hasAeth(int op) {
        return op == READ_RESP_FIRST || op == READ_RESP_LAST || op == READ_RESP_ONLY || op == ACKNOWLEDGE;
    }

    /** BTH + extension headers; -1 for opcodes we do not implement (atomics, invalidate, ...). */
    static int headerLength(int op) {
        if (op > ACKNOWLEDGE) {
            return -1;
        }
        return BTH + (hasReth(op) ? 16 : 0) + (hasImm(op) ? 4 : 0) + (hasAeth(op) ? 4 : 0);
    }

    static boolean isSend(int op) {
        return op <= SEND_ONLY_IMM;
    }

    static boolean isWrite(int op) {
        return op >= WRITE_FIRST && op <= WRITE_ONLY_IMM;
    }

    static boolean isReadResponse(int op) {
        return op >= READ_RESP_FIRST && op <= READ_RESP_ONLY;
    }

    static boolean isFirstOrOnly(int op) {
        return op == SEND_FIRST || op == SEND_ONLY || op == SEND_ONLY_IMM || op == WRITE_FIRST
                || op == WRITE_ONLY || op == WRITE_ONLY_IMM || op == READ_RESP_FIRST || op == READ_RESP_ONLY;
    }

    static boolean isLastOrOnly(int op) {
        return op == SEND_LAST || op == SEND_LAST_IMM || op == SEND_ONLY || op == SEND_ONLY_IMM
                || op == WRITE_LAST || op == WRITE_LAST_IMM || op == WRITE_ONLY || op == WRITE_ONLY_IMM
                || op == READ_RESP_LAST || op == READ_RESP_ONLY;
    }

    static void writeBth(ByteBuffer b, int op, boolean se, int pad, int destQp, boolean ackReq, int psn) {
        b.put(0, (byte) op);
        b.put(1, (byte) ((se ? 0x80 : 0) | pad << 4));
        b.putShort(2, (short) 0xFFFF);
        b.putInt(4, destQp & 0xFFFFFF);                 // byte 4 (FECN/BECN/resv) = 0
        b.putInt(8, (ackReq ? 0x80000000 : 0) | psn & PSN_MASK);
    }

    static int opcode(ByteBuffer b) {
        return b.get(0) & 0xFF;
    }

    static boolean solicited(ByteBuffer b) {
        return (b.get(1) & 0x80) != 0;
    }

    static int padCount(ByteBuffer b) {
        return b.get(1) >> 4 & 3;
    }

    static boolean ackReq(ByteBuffer b) {
        return (b.get(8) & 0x80) != 0;
    }

    static int psn(ByteBuffer b) {
        return b.getInt(8) & PSN_MASK;
    }

    static int next(int psn) {
        return psn + 1 & PSN_MASK;
    }

    static int add(int psn, int n) {
        return psn + n & PSN_MASK;
    }

    /** Signed distance a - b in 24-bit PSN space (§2.5). */
    static int diff(int a, int b) {
        return (a - b) << 8 >> 8;
    }

    /** RNR NAK timer code to nanoseconds (§3.2 table). */
    static long rnrNanos(int code) {
        final long[] us = {655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560,
                3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760,
                327680, 491520};
        return us[code & 31] * 1000L;
    }
}
