package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.ViConnection;
import io.vibridge.vitcp.wire.IsCode;

/** A pending Connect Request returned by VipConnectWait (VIA 4.1): accept it on a VI or reject it. */
public final class IncomingConnection {
    private final Link link;
    private final ConnectRequestInfo info;

    IncomingConnection(Link link, ConnectRequestInfo info) {
        this.link = link;
        this.info = info;
    }

    /** The requester's address and attributes. */
    public ConnectRequestInfo info() {
        return info;
    }

    /**
     * VipConnectAccept: connects {@code vi} (Idle) with the requester. A reliability level mismatch
     * answers Connect Reject IS 9 (VITCP-PROFILE §5) and throws INVALID_RELIABILITY_LEVEL.
     */
    public void accept(Vi vi) {
        vi.acceptOn(link, info);
    }

    /** VipConnectReject: Connect Reject with IS code 8 (consumer rejected), then close. */
    public void reject() {
        reject(IsCode.CONSUMER_REJECTED);
    }

    /** Connect Reject with a chosen IS code. */
    public void reject(int isCode) {
        link.lock.lock();
        try {
            ViConnection.State s = link.engine.state();
            if (s == ViConnection.State.PASSIVE_PENDING_ACCEPT) {
                link.engine.reject(isCode);
            }
        } finally {
            link.lock.unlock();
        }
        link.kick();
    }

    static void noMatch(Link l) {
        l.lock.lock();
        try {
            if (l.engine.state() == ViConnection.State.PASSIVE_PENDING_ACCEPT) {
                l.engine.noMatch();
            }
        } finally {
            l.lock.unlock();
        }
        l.kick();
    }
}
