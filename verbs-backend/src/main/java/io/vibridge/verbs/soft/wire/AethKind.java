package io.vibridge.verbs.soft.wire;

/** Type of an AETH syndrome, bits 6:5 (REF §3.2). */
public enum AethKind {
    ACK, RNR_NAK, RESERVED, NAK
}
