package io.vibridge.gateway.bridge;

/**
 * The lifecycle of a {@link TargetSide}'s RC connection, one method per event: {@link #onEstablished} (the
 * REP), {@link #onDisconnect} (our DREQ), {@link #onDown} (the target's DREQ or REJ, a CM timeout or TimeWait
 * exit, a failure); closing the QP and CQ makes it {@link #CLOSED} from any state. The leg may go down before
 * or after our DREQ, and the DREQ still goes out once after it did, so both orders are states.
 */
enum LegState {
    /** The receives are posted and the CM REQ goes or went out: client messages wait. */
    CONNECTING,
    /** Established: staged client messages go, consumed receives are posted again. */
    UP,
    /**
     * Our DREQ went out on a leg not down: the QP is in ERROR (the verbs SPI's {@code CmId.disconnect}), so
     * what is posted, and what was staged and goes now, flushes; no receive is posted again.
     */
    DISCONNECTING,
    /** Ended or failing, and no DREQ of ours went out yet: nothing new is posted. */
    DOWN,
    /** Ended, and our DREQ went out: only the flushes remain. */
    DISCONNECTED,
    /** The QP and CQ are destroyed. */
    CLOSED;

    /** The CM REP: only a connecting leg comes up (one that ended or disconnected meanwhile stays so). */
    LegState onEstablished() {
        return this == CONNECTING ? UP : this;
    }

    /** Our DREQ goes out: the next state, or this one where it went already (or the side is closed). */
    LegState onDisconnect() {
        return switch (this) {
            case CONNECTING, UP -> DISCONNECTING;
            case DOWN -> DISCONNECTED;
            case DISCONNECTING, DISCONNECTED, CLOSED -> this;
        };
    }

    /** The leg ended or is failing. */
    LegState onDown() {
        return switch (this) {
            case CONNECTING, UP -> DOWN;
            case DISCONNECTING -> DISCONNECTED;
            case DOWN, DISCONNECTED, CLOSED -> this;
        };
    }

    /** Staged client messages are posted (after our DREQ too: their flushes end them). */
    boolean posts() {
        return this == UP || this == DISCONNECTING;
    }

    /** A consumed receive is posted again. */
    boolean reposts() {
        return this == CONNECTING || this == UP;
    }

    /** Nothing new is posted: ended, failing or closed. */
    boolean down() {
        return this == DOWN || this == DISCONNECTED || this == CLOSED;
    }

    /** Our DREQ went out (and the side is not closed). */
    boolean disconnectSent() {
        return this == DISCONNECTING || this == DISCONNECTED;
    }
}
