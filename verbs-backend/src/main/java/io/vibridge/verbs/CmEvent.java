package io.vibridge.verbs;

import java.net.InetAddress;

/** Connection manager events. Private data arrays hold the whole CM area (trailing zeros included). */
public sealed interface CmEvent {
    CmId id();

    /** A REQ for a listened Service ID: answer with {@link CmId#accept} or {@link CmId#reject}. */
    record ConnectRequest(CmId id, InetAddress source, long serviceId, byte[] privateData,
                          int responderResources, int initiatorDepth) implements CmEvent {
    }

    /**
     * The connection is up; {@code privateData} is the REP's (active side) or the RTU's (passive side). On the
     * active side {@code responderResources} and {@code initiatorDepth} are the REP's (IBA 12.7.30: the READs
     * the peer accepts and issues at once), else -1 (unknown).
     */
    record Established(CmId id, byte[] privateData, int responderResources, int initiatorDepth) implements CmEvent {
        public Established(CmId id, byte[] privateData) {
            this(id, privateData, -1, -1);
        }
    }

    /** The peer rejected (REJ): IBA reason code (8 invalid Service ID, 28 consumer reject, ...). */
    record Rejected(CmId id, int reason, byte[] privateData) implements CmEvent {
    }

    /** No answer to our REQ (or REP) after all CM retries. */
    record ConnectTimeout(CmId id) implements CmEvent {
    }

    /** DREQ received, or our DREQ answered / timed out; the QP is in ERROR. */
    record Disconnected(CmId id) implements CmEvent {
    }

    /** Timewait is over: the id and its QP number may be reused. */
    record TimewaitExit(CmId id) implements CmEvent {
    }

    /** REJ reasons used here (IB-WIRE-REFERENCE §5.5). */
    int REJ_TIMEOUT = 4;
    int REJ_INVALID_SERVICE_ID = 8;
    int REJ_STALE_CONNECTION = 10;
    int REJ_CONSUMER = 28;
}
