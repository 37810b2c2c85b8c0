package io.vibridge.verbs.soft.port;

/**
 * A QP as the transmit thread sees it. The transmit queue is linked through the QPs themselves, so a post
 * allocates nothing.
 */
public interface Transmittable {
    /** The next QP in the transmit queue (written before this one is published to the queue). */
    Transmittable txNext();

    void txNext(Transmittable next);

    /** The transmit thread's turn: sends what the window allows. */
    void transmit();

    /** For logs. */
    int qpNum();
}
