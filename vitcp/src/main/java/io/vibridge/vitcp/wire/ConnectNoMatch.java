package io.vibridge.vitcp.wire;

import java.nio.ByteBuffer;

/** Connect No Match (type 8): no listener matched the called discriminator (draft 4.3). */
public record ConnectNoMatch() implements ControlSegment {

    @Override
    public SegmentType type() {
        return SegmentType.CONNECT_NO_MATCH;
    }

    @Override
    public int encodedLength() {
        return SegmentHeader.LENGTH;
    }

    @Override
    public int encode(ByteBuffer buf, int off) {
        SegmentHeader.write(buf, off, type(), SegmentHeader.FLAG_END_OF_MESSAGE, SegmentHeader.LENGTH, 0, 0, 0, 0, 0,
                0, 0);
        return SegmentHeader.LENGTH;
    }
}
