package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/**
 * A whole connection-establishment segment (VITCP-PROFILE §2, §5, §9.1-9.4): Connect Request,
 * Connect Accept, Connect Reject or Connect No Match. Off the hot path: immutable records.
 *
 * <p>Encoding writes Version 1, End of Message (§9.1), Data Offset 0 and Immediate Data 0, and for
 * the fields a variant does not carry, 0.
 */
public sealed interface ControlSegment permits ConnectRequest, ConnectAccept, ConnectReject, ConnectNoMatch {

    SegmentType type();

    /** Segment Length this segment encodes to. */
    int encodedLength();

    /**
     * Writes the whole segment at absolute offset {@code off}.
     *
     * @return bytes written ({@link #encodedLength()})
     */
    int encode(ByteBuffer buf, int off);

    /**
     * Validates (as {@link SegmentView#wrap}) and decodes one complete connection-establishment
     * segment at {@code off} with {@code len} bytes available.
     *
     * @throws ProtocolException when the bytes are not a valid segment, or a valid segment of a
     *     type other than Connect Request/Accept/Reject/No Match (field "Type")
     */
    static ControlSegment decode(ByteBuffer buf, int off, int len) {
        return decode(new SegmentView().wrap(buf, off, len));
    }

    /** Decodes from an already validated view. @throws ProtocolException for a non-setup type */
    static ControlSegment decode(SegmentView v) {
        return switch (v.type()) {
            case CONNECT_REQUEST -> new ConnectRequest(v.messageNumber(), v.messageAck(), v.rxDescriptorsPosted(),
                    v.connectionHeader());
            case CONNECT_ACCEPT -> new ConnectAccept(v.messageNumber(), v.messageAck(), v.rxDescriptorsPosted(),
                    v.connectionHeader());
            case CONNECT_REJECT -> new ConnectReject(v.viErrorType(), v.isErrorCode());
            case CONNECT_NO_MATCH -> new ConnectNoMatch();
            default -> throw new ProtocolException("Type", v.offset() + SegmentHeader.OFF_TYPE_FLAGS,
                    v.type() + " is not a connection-establishment segment");
        };
    }

    /** Shared encoder of the two CE-carrying variants. */
    static int encodeWithHeader(ByteBuffer buf, int off, SegmentType type, int initialMessageNumber,
            int messageAck, int rxDescriptorsPosted, ConnectionHeader header) {
        int length = SegmentHeader.LENGTH + header.encodedLength();
        SegmentHeader.write(buf, off, type, SegmentHeader.FLAG_END_OF_MESSAGE, length, 0, 0, initialMessageNumber,
                messageAck, rxDescriptorsPosted, 0, 0);
        header.encode(buf, off + SegmentHeader.LENGTH);
        return length;
    }
}
