package io.vibridge.verbs.soft.wire;

/** Outcome of an ICRC verification, so the device can count which path accepted a packet. */
public enum IcrcCheck {
    /** Valid for the IP header as our own kernel writes it (IPv4: ID 0, DF; or IPv6). */
    VALID,
    /**
     * Not valid with IPv4 ID 0, but valid for some other 16-bit IP ID (peers such as rxe that let
     * the kernel choose the ID). Only 16 of the 32 check bits were effectively tested.
     */
    VALID_SOME_IP_ID,
    /** Invalid: drop the packet. */
    INVALID
}
