package io.vibridge.gateway.admission;

import io.vibridge.gateway.metrics.ClientProtocol;
import java.net.InetAddress;

/**
 * One connection's slot in the pending bound, from accept to the end of its setup: held by the bridge,
 * confined to its event loop. {@link #end} returns the slot once (bridged, answered on the wire, or
 * gone); {@link #failed} counts a setup that ended without an answer.
 */
public final class Pending {
    private final Admission owner;
    private final ClientProtocol frontEnd;
    private final InetAddress client;
    private boolean ended;

    Pending(Admission owner, ClientProtocol frontEnd, InetAddress client) {
        this.owner = owner;
        this.frontEnd = frontEnd;
        this.client = client;
    }

    /** Setup is over: the connection is bridged, was answered (Connect Reject, No Match, MPA Reject), or closed. */
    public void end() {
        if (!ended) {
            ended = true;
            owner.release(frontEnd, client);
        }
    }

    /**
     * Setup ended without an answer: counted by {@code why} and {@link #end}ed. Returns whether to log this one at
     * INFO: the first of its kind in each summary period, so a flood logs one line per kind and period, not one
     * per connection (the others are DEBUG; the summary line counts them). False once ended (counted already).
     */
    public boolean failed(SetupFailure why) {
        if (ended) {
            return false;
        }
        end();
        return owner.failed(frontEnd, why);
    }

    /** Whether setup is still going on. */
    public boolean inSetup() {
        return !ended;
    }
}
