package io.vibridge.vitcp.engine;

/** How the connection's collaborators end it; implemented inside {@link ViConnection}. */
interface ConnectionErrors {

    /** VITCP-PROFILE §9.8: close without report, at every level. */
    void protocolError(String why);

    /** Connected to Error (VIA 5.4): inbound refused, everything outstanding flushed, TCP to close. */
    void breakConnection(BreakCause cause, int viErrorType, int isCode);
}
