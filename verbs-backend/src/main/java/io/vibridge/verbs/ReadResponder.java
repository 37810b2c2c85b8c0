package io.vibridge.verbs;

import java.nio.ByteBuffer;

/** Completes one inbound RDMA READ handed to a {@link QueuePairAccessHandler#onRead}, exactly once. */
public interface ReadResponder {
    /** Sends {@code data} (position..limit, exactly the requested length) as the READ response. */
    void complete(ByteBuffer data);

    /** Answers with a NAK Remote Access Error (the requester's QP goes to the error state). */
    void fail();
}
