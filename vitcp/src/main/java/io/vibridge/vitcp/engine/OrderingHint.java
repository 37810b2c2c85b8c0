package io.vibridge.vitcp.engine;

/**
 * The seed-002 ordering hint of an outbound work (the "un-ordered" and "half-ordered" bits of a
 * transmit descriptor). Hints only: an implementation may ignore them and stays compliant, so the
 * engine may always send a work with its ordered type (VITCP-PROFILE §9.10).
 *
 * <p>Seed 002 ordering chart (is order kept between a first and a second operation?):
 *
 * <pre>
 *   first \ second   ordered  half-ordered  unordered
 *   ordered            yes        yes          yes
 *   half-ordered       yes        yes          no
 *   unordered          yes        yes          no
 * </pre>
 */
public enum OrderingHint {
    /** Neither bit: fully ordered, as VIA requires, also with respect to unordered operations. */
    ORDERED,
    /**
     * Completes at the remote side only after all preceding operations; a following unordered operation
     * may pass it. Sent with the ordered type, but it does not hold later unordered works back (seed 002:
     * "allows subsequent un-ordered messages to be sent with the un-ordered message type without having
     * to wait for the associated TCP ACK").
     */
    HALF_ORDERED,
    /** May be reordered with other unordered and half-ordered operations before it. */
    UNORDERED
}
