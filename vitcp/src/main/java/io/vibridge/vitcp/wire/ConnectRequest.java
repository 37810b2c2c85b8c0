package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Connect Request (type 5, VITCP-PROFILE §5): the caller's Initial Message Number travels in
 * Message Number, Message ACK is 0 (§9.3; kept as decoded, not enforced), Rx Descriptors Posted is
 * the caller's initial credits (§9.4), the CE header describes the caller.
 */
public record ConnectRequest(int initialMessageNumber, int messageAck, int rxDescriptorsPosted,
        ConnectionHeader header) implements ControlSegment {

    public ConnectRequest {
        Objects.requireNonNull(header, "header");
        if ((rxDescriptorsPosted & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("rx descriptors posted " + rxDescriptorsPosted + " outside u16");
        }
    }

    /** Message ACK 0, as §9.3 requires of a Connect Request. */
    public ConnectRequest(int initialMessageNumber, int rxDescriptorsPosted, ConnectionHeader header) {
        this(initialMessageNumber, 0, rxDescriptorsPosted, header);
    }

    @Override
    public SegmentType type() {
        return SegmentType.CONNECT_REQUEST;
    }

    @Override
    public int encodedLength() {
        return SegmentHeader.LENGTH + header.encodedLength();
    }

    @Override
    public int encode(ByteBuffer buf, int off) {
        return ControlSegment.encodeWithHeader(buf, off, type(), initialMessageNumber, messageAck,
                rxDescriptorsPosted, header);
    }
}
