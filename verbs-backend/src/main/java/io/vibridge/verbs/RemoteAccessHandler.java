package io.vibridge.verbs;

import java.nio.ByteBuffer;

/**
 * Only the home of {@link ReadResponder} now: the region-level handler this interface was (answering
 * remote access to a registered range) is gone, production interception being QP-level
 * ({@link QueuePairAccessHandler}). ReadResponder stays here because the gateway names it
 * {@code RemoteAccessHandler.ReadResponder}; making it top-level is a gateway change.
 */
public interface RemoteAccessHandler {
    /** Completes one inbound READ ({@link QueuePairAccessHandler#onRead}). */
    interface ReadResponder {
        /** Sends {@code data} (position..limit, exactly the requested length) as the READ response. */
        void complete(ByteBuffer data);

        /** Answers with a NAK Remote Access Error (the requester's QP goes to the error state). */
        void fail();
    }
}
