package io.vibridge.vitcp.engine;

/** Why a connected VI left the Connected state. */
public enum BreakCause {
    /** The local consumer disconnected (VIA 4.2). */
    LOCAL_DISCONNECT,
    /** TCP closed or reset by the peer (draft 2.2.2.2.2). */
    TRANSPORT_CLOSED,
    /** This side detected a receive error at Reliable Delivery/Reception (VITCP-PROFILE §6). */
    LOCAL_RECEIVE_ERROR,
    /** The peer reported an error in Remote Error Code (Reliable Reception). */
    REMOTE_ERROR,
    /** A protocol error (VITCP-PROFILE §9.8): closed without report. */
    PROTOCOL_ERROR
}
