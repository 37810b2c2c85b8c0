package io.vibridge.vitcp.engine;

import java.nio.ByteBuffer;

/** A receive descriptor the engine consumed for an inbound Send or RDMA Write with immediate data. */
public interface InboundReceive {

    /** Bytes the descriptor's scatter list can hold. */
    long capacity();

    /** Places all of {@code src} at byte {@code offset} of the scatter list (within capacity). */
    void place(long offset, ByteBuffer src);
}
