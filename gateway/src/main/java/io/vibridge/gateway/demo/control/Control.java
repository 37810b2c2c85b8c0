package io.vibridge.gateway.demo.control;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The target's control protocol, carried in ordinary Sends so a client behind the gateway can learn
 * and exercise the target's memory (documented byte by byte in README-tools.md). Big-endian.
 *
 * <pre>
 * request: 0 "VBRG" | 4 version=1 | 5 command | 6 reserved u16 = 0 | 8 request id u32 | 12 arguments
 * reply:   0 "VBRG" | 4 version=1 | 5 command|0x80 | 6 status u16 | 8 request id u32 | 12 results
 * </pre>
 *
 * A Send whose payload starts with the magic and version 1 and is at least 12 bytes long is a control
 * message in every mode; anything else is data (echoed, counted, dropped). Flyweight helpers over
 * absolute indexes: nothing here moves a buffer's position or allocates.
 */
public final class Control {
    /** ASCII "VBRG". */
    public static final int MAGIC = 0x56425247;
    public static final int VERSION = 1;
    public static final int HEADER = 12;
    public static final int REPLY_FLAG = 0x80;

    public static final int QUERY_REGION = 0x01;
    public static final int WRITE_TO_PEER = 0x02;
    public static final int READ_FROM_PEER = 0x03;
    public static final int CHECKSUM_REGION = 0x04;
    public static final int FILL_REGION = 0x05;
    public static final int SET_MODE = 0x06;
    public static final int STATS = 0x07;

    /** Argument bytes after the 12-byte header, per command. */
    static final int[] ARG_LENGTH = {-1, 0, 20, 16, 8, 12, 1, 0};
    /** Result bytes after the 12-byte header of a successful reply, per command. */
    public static final int[] RESULT_LENGTH = {-1, 16, 8, 8, 4, 4, 0, 32};

    public static final int OK = 0;
    public static final int BAD_REQUEST = 1;
    public static final int UNKNOWN_COMMAND = 2;
    public static final int OUT_OF_RANGE = 3;
    public static final int RDMA_FAILED = 4;
    public static final int TOO_LARGE = 5;
    public static final int BUSY = 6;

    /** Largest reply (STATS). */
    public static final int MAX_REPLY = HEADER + 32;

    private Control() {
    }

    /** Is {@code length} bytes at {@code index} a control request? */
    public static boolean isRequest(ByteBuffer b, int index, int length) {
        return length >= HEADER && b.getInt(index) == MAGIC && (b.get(index + 4) & 0xFF) == VERSION
                && (b.get(index + 5) & REPLY_FLAG) == 0;
    }

    /** Is {@code length} bytes at {@code index} a control reply? */
    public static boolean isReply(ByteBuffer b, int index, int length) {
        return length >= HEADER && b.getInt(index) == MAGIC && (b.get(index + 4) & 0xFF) == VERSION
                && (b.get(index + 5) & REPLY_FLAG) != 0;
    }

    public static int command(ByteBuffer b, int index) {
        return b.get(index + 5) & 0x7F;
    }

    public static int status(ByteBuffer b, int index) {
        return b.getShort(index + 6) & 0xFFFF;
    }

    public static int requestId(ByteBuffer b, int index) {
        return b.getInt(index + 8);
    }

    /** Arguments the command needs, or -1 for an unknown command. */
    public static int argumentLength(int command) {
        return command > 0 && command < ARG_LENGTH.length ? ARG_LENGTH[command] : -1;
    }

    /** Writes a request header; returns the index of its arguments. */
    public static int writeRequest(ByteBuffer b, int index, int command, int requestId) {
        b.putInt(index, MAGIC);
        b.put(index + 4, (byte) VERSION);
        b.put(index + 5, (byte) command);
        b.putShort(index + 6, (short) 0);
        b.putInt(index + 8, requestId);
        return index + HEADER;
    }

    /** Writes a reply header; returns the index of its results. */
    public static int writeReply(ByteBuffer b, int index, int command, int status, int requestId) {
        b.putInt(index, MAGIC);
        b.put(index + 4, (byte) VERSION);
        b.put(index + 5, (byte) (command | REPLY_FLAG));
        b.putShort(index + 6, (short) status);
        b.putInt(index + 8, requestId);
        return index + HEADER;
    }

    /** Reply length for a command and status (results only on success). */
    public static int replyLength(int command, int status) {
        return HEADER + (status == OK && command > 0 && command < RESULT_LENGTH.length ? RESULT_LENGTH[command] : 0);
    }

    /**
     * Byte {@code i} of the deterministic pattern used by WRITE_TO_PEER and FILL_REGION:
     * the top byte of {@code seed + i * 0x9E3779B1} (32-bit arithmetic, i counted from the first byte written).
     */
    public static byte patternByte(int seed, long i) {
        return (byte) ((seed + (int) i * 0x9E3779B1) >>> 24);
    }

    /** Fills {@code [index, index + length)} with the pattern. */
    public static void fillPattern(ByteBuffer b, int index, int length, int seed) {
        for (int i = 0; i < length; i++) {
            b.put(index + i, patternByte(seed, i));
        }
    }

    /** CRC32C of {@code [index, index + length)} (position and limit unchanged). */
    public static int crc32c(ByteBuffer b, int index, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b.slice(index, length));
        return (int) crc.getValue();
    }

    /** CRC32C of {@code length} pattern bytes. */
    public static int patternCrc(int seed, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        fillPattern(b, 0, length, seed);
        return crc32c(b, 0, length);
    }

    public static String commandName(int command) {
        return switch (command) {
            case QUERY_REGION -> "QUERY_REGION";
            case WRITE_TO_PEER -> "WRITE_TO_PEER";
            case READ_FROM_PEER -> "READ_FROM_PEER";
            case CHECKSUM_REGION -> "CHECKSUM_REGION";
            case FILL_REGION -> "FILL_REGION";
            case SET_MODE -> "SET_MODE";
            case STATS -> "STATS";
            default -> "command " + command;
        };
    }

    public static String statusName(int status) {
        return switch (status) {
            case OK -> "OK";
            case BAD_REQUEST -> "BAD_REQUEST";
            case UNKNOWN_COMMAND -> "UNKNOWN_COMMAND";
            case OUT_OF_RANGE -> "OUT_OF_RANGE";
            case RDMA_FAILED -> "RDMA_FAILED";
            case TOO_LARGE -> "TOO_LARGE";
            case BUSY -> "BUSY";
            default -> "status " + status;
        };
    }
}
