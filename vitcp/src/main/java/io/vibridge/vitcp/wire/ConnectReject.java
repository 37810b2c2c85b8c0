package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/**
 * Connect Reject (type 7, VITCP-PROFILE §2): the reason travels in IS Error Code ({@link IsCode}),
 * normally with VI Error Type 0 (§6: an IS code travels without a VI Error Type only in a Connect
 * Reject). Other header fields are written as 0 and ignored on receipt.
 */
public record ConnectReject(int viErrorType, int isErrorCode) implements ControlSegment {

    public ConnectReject {
        if ((viErrorType & ~0xFF) != 0 || (isErrorCode & ~0xFF) != 0) {
            throw new IllegalArgumentException("error codes " + viErrorType + "/" + isErrorCode + " outside u8");
        }
    }

    /** A reject with VI Error Type 0 and the given IS code. */
    public ConnectReject(int isErrorCode) {
        this(0, isErrorCode);
    }

    @Override
    public SegmentType type() {
        return SegmentType.CONNECT_REJECT;
    }

    @Override
    public int encodedLength() {
        return SegmentHeader.LENGTH;
    }

    @Override
    public int encode(ByteBuffer buf, int off) {
        SegmentHeader.write(buf, off, type(), SegmentHeader.FLAG_END_OF_MESSAGE, SegmentHeader.LENGTH, 0, 0, 0, 0, 0,
                viErrorType, isErrorCode);
        return SegmentHeader.LENGTH;
    }

    @Override
    public String toString() {
        return "ConnectReject[viErrorType=" + viErrorType + ", isErrorCode=" + isErrorCode + " ("
                + IsCode.describe(isErrorCode) + ")]";
    }
}
