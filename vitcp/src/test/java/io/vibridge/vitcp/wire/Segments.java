package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/**
 * Test fixture: writers for data-phase segments (the engine writes its own headers with
 * {@link SegmentHeader#write} and {@link RdmaHeader#write}). Each writes the headers at absolute
 * offset {@code off}, computes the Segment Length from the payload length, and returns the header
 * length: the caller puts {@code payloadLength} bytes at {@code off + returned value}.
 */
public final class Segments {

    private Segments() {
    }

    /** Header bytes (segment header + RDMA header where present) of a data segment of this type. */
    public static int headerLength(SegmentType type) {
        return type.hasConnectionHeader() ? SegmentHeader.LENGTH : type.minimumSegmentLength();
    }

    /** Largest payload one segment of this type can carry. */
    public static int maxPayload(SegmentType type) {
        return SegmentHeader.MAX_SEGMENT_LENGTH - headerLength(type);
    }

    /**
     * Writes the segment header and, for RDMA Write / Read Request types, the RDMA header (the RDMA
     * arguments are ignored for other types).
     *
     * @param type a data type: Send, RDMA Write, RDMA Read Request, RDMA Read Response, or unordered
     * @return header length; the payload goes at {@code off + return}
     * @throws IllegalArgumentException for a non-data type or a payload that does not fit
     */
    public static int writeData(ByteBuffer buf, int off, SegmentType type, int flags, int payloadLength,
            long dataOffset, int immediate, int messageNumber, int messageAck, int rxDescriptorsPosted,
            int viErrorType, int isErrorCode, long rdmaAddress, int rdmaHandle, long rdmaLength) {
        if (!(type.carriesPayload() || type.isRdmaReadRequest())) {
            throw new IllegalArgumentException(type + " is not a data segment type");
        }
        int header = headerLength(type);
        if (payloadLength < 0 || payloadLength > SegmentHeader.MAX_SEGMENT_LENGTH - header) {
            throw new IllegalArgumentException("payload " + payloadLength + " does not fit one " + type + " segment");
        }
        SegmentHeader.write(buf, off, type, flags, header + payloadLength, dataOffset, immediate, messageNumber,
                messageAck, rxDescriptorsPosted, viErrorType, isErrorCode);
        if (type.hasRdmaHeader()) {
            RdmaHeader.write(buf, off + SegmentHeader.LENGTH, rdmaAddress, rdmaHandle, rdmaLength);
        }
        return header;
    }

    /** A Send (or Send Unordered) segment header. @return 24 */
    public static int writeSend(ByteBuffer buf, int off, boolean unordered, int flags, int payloadLength,
            long dataOffset, int immediate, int messageNumber, int messageAck, int rxDescriptorsPosted) {
        return writeData(buf, off, unordered ? SegmentType.SEND_UNORDERED : SegmentType.SEND, flags, payloadLength,
                dataOffset, immediate, messageNumber, messageAck, rxDescriptorsPosted, 0, 0, 0, 0, 0);
    }

    /** An RDMA Write (or unordered) segment's headers. @return 40 */
    public static int writeRdmaWrite(ByteBuffer buf, int off, boolean unordered, int flags, int payloadLength,
            long dataOffset, int immediate, int messageNumber, int messageAck, int rxDescriptorsPosted,
            long rdmaAddress, int rdmaHandle, long rdmaLength) {
        return writeData(buf, off, unordered ? SegmentType.RDMA_WRITE_UNORDERED : SegmentType.RDMA_WRITE, flags,
                payloadLength, dataOffset, immediate, messageNumber, messageAck, rxDescriptorsPosted, 0, 0,
                rdmaAddress, rdmaHandle, rdmaLength);
    }

    /** A whole RDMA Read Request (or unordered) segment: End of Message, no payload. @return 40 */
    public static int writeRdmaReadRequest(ByteBuffer buf, int off, boolean unordered, int messageNumber,
            int messageAck, int rxDescriptorsPosted, long rdmaAddress, int rdmaHandle, long rdmaLength) {
        return writeData(buf, off, unordered ? SegmentType.RDMA_READ_REQUEST_UNORDERED : SegmentType.RDMA_READ_REQUEST,
                SegmentHeader.FLAG_END_OF_MESSAGE, 0, 0, 0, messageNumber, messageAck, rxDescriptorsPosted, 0, 0,
                rdmaAddress, rdmaHandle, rdmaLength);
    }

    /** An RDMA Read Response segment header (Message Number = the request's). @return 24 */
    public static int writeReadResponse(ByteBuffer buf, int off, int flags, int payloadLength, long dataOffset,
            int requestMessageNumber, int messageAck, int rxDescriptorsPosted) {
        return writeData(buf, off, SegmentType.RDMA_READ_RESPONSE, flags, payloadLength, dataOffset, 0,
                requestMessageNumber, messageAck, rxDescriptorsPosted, 0, 0, 0, 0, 0);
    }

    /**
     * A whole NOP segment (§2, §9.1-9.2): End of Message, Message Number = the sender's last assigned
     * number; a Reliable Reception error report puts the VI Error Type and IS code here (§6).
     *
     * @return 24
     */
    public static int writeNop(ByteBuffer buf, int off, int lastMessageNumber, int messageAck,
            int rxDescriptorsPosted, int viErrorType, int isErrorCode) {
        SegmentHeader.write(buf, off, SegmentType.NOP, SegmentHeader.FLAG_END_OF_MESSAGE, SegmentHeader.LENGTH, 0, 0,
                lastMessageNumber, messageAck, rxDescriptorsPosted, viErrorType, isErrorCode);
        return SegmentHeader.LENGTH;
    }
}
