package io.vibridge.verbs.soft.wire;

import java.nio.ByteBuffer;

/**
 * ACK Extended Transport Header, 4 bytes: syndrome byte and 24-bit MSN (REF §3.2), plus the
 * syndrome, credit-count and RNR-timer encodings.
 */
public final class Aeth {

    public static final int LENGTH = 4;

    // NAK codes, syndrome bits 4:0 when the type is NAK (REF §3.2).
    public static final int PSN_SEQUENCE_ERROR = 0;
    public static final int INVALID_REQUEST = 1;
    public static final int REMOTE_ACCESS_ERROR = 2;
    public static final int REMOTE_OPERATIONAL_ERROR = 3;
    public static final int INVALID_RD_REQUEST = 4;

    /** Credit code "invalid / unlimited": what rxe always sends. */
    public static final int CREDIT_INVALID = 0x1F;
    /** Plain ACK without credit information (syndrome 0x1F). */
    public static final int SYNDROME_ACK_NO_CREDIT = 0x1F;

    /** Credit counts by code 0..30 (REF §3.2); code 31 = invalid. */
    private static final int[] CREDITS = {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
        2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
    };

    /** RNR timer by code, in microseconds (REF §3.2; code 25 is 61440, not rxe's typo 61410). */
    private static final int[] RNR_TIMER_MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560,
        3_840, 5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880,
        163_840, 245_760, 327_680, 491_520,
    };

    private Aeth() {
    }

    public static int syndrome(ByteBuffer buf, int off) {
        return buf.get(off) & 0xFF;
    }

    public static int msn(ByteBuffer buf, int off) {
        return buf.getInt(off) & Psn.MASK;
    }

    public static void write(ByteBuffer buf, int off, int syndrome, int msn) {
        if ((syndrome & ~0xFF) != 0 || (msn & ~Psn.MASK) != 0) {
            throw new IllegalArgumentException("AETH field out of range");
        }
        buf.putInt(off, (syndrome << 24) | msn);
    }

    /** ACK syndrome with a credit code 0..31. */
    public static int ack(int creditCode) {
        return checkCode(creditCode);
    }

    /** RNR NAK syndrome with an RNR timer code 0..31. */
    public static int rnrNak(int timerCode) {
        return 0x20 | checkCode(timerCode);
    }

    /** NAK syndrome with a NAK code 0..31 (see the constants). */
    public static int nak(int nakCode) {
        return 0x60 | checkCode(nakCode);
    }

    /** Kind of a syndrome; a set reserved bit 7 counts as {@link AethKind#RESERVED} (rxe masks 0xE0). */
    public static AethKind kind(int syndrome) {
        if ((syndrome & 0x80) != 0) {
            return AethKind.RESERVED;
        }
        return switch ((syndrome >> 5) & 3) {
            case 0 -> AethKind.ACK;
            case 1 -> AethKind.RNR_NAK;
            case 2 -> AethKind.RESERVED;
            default -> AethKind.NAK;
        };
    }

    /** Low five bits of a syndrome: credit code, RNR timer code or NAK code. */
    public static int code(int syndrome) {
        return syndrome & 0x1F;
    }

    /** Credits granted by a credit code, or -1 for code 31 (invalid / unlimited). */
    public static int credits(int creditCode) {
        checkCode(creditCode);
        return creditCode == CREDIT_INVALID ? -1 : CREDITS[creditCode];
    }

    /** Largest credit code whose credit count does not exceed {@code credits} (0..30). */
    public static int creditCodeFor(int credits) {
        if (credits < 0) {
            throw new IllegalArgumentException("negative credits");
        }
        int code = 0;
        while (code + 1 < CREDITS.length && CREDITS[code + 1] <= credits) {
            code++;
        }
        return code;
    }

    /** RNR wait time of a timer code, in microseconds (code 0 = 655.36 ms). */
    public static int rnrTimerMicros(int timerCode) {
        return RNR_TIMER_MICROS[checkCode(timerCode)];
    }

    /** Smallest RNR timer code whose wait is at least {@code micros} (code 0 if none). */
    public static int rnrTimerCodeAtLeast(long micros) {
        int best = 0;
        for (int code = 1; code < RNR_TIMER_MICROS.length; code++) {
            if (RNR_TIMER_MICROS[code] >= micros
                    && (best == 0 || RNR_TIMER_MICROS[code] < RNR_TIMER_MICROS[best])) {
                best = code;
            }
        }
        return best;
    }

    private static int checkCode(int code) {
        if ((code & ~0x1F) != 0) {
            throw new IllegalArgumentException("AETH code out of range 0..31: " + code);
        }
        return code;
    }
}
