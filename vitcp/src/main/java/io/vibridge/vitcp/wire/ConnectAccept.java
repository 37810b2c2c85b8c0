package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Connect Accept (type 6, VITCP-PROFILE §5): the acceptor's Initial Message Number in Message
 * Number; Message ACK = the requester's IMN - 1 at Reliable Reception, else 0 (§9.3, computed by the
 * engine, see {@link #messageAckFor}); Rx Descriptors Posted = the acceptor's initial credits; in
 * the CE header "calling" is the accepting side and the MTU is the agreed one.
 */
public record ConnectAccept(int initialMessageNumber, int messageAck, int rxDescriptorsPosted,
        ConnectionHeader header) implements ControlSegment {

    public ConnectAccept {
        Objects.requireNonNull(header, "header");
        if ((rxDescriptorsPosted & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("rx descriptors posted " + rxDescriptorsPosted + " outside u16");
        }
    }

    /** The Message ACK a Connect Accept carries (§9.3). */
    public static int messageAckFor(ReliabilityLevel level, int requesterInitialMessageNumber) {
        return level == ReliabilityLevel.RELIABLE_RECEPTION ? requesterInitialMessageNumber - 1 : 0;
    }

    @Override
    public SegmentType type() {
        return SegmentType.CONNECT_ACCEPT;
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
