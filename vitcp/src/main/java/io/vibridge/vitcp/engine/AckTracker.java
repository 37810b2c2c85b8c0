package io.vibridge.vitcp.engine;

import java.util.ArrayDeque;

/**
 * Reliable Reception acknowledgement (VITCP-PROFILE §6): the Message ACK names the last message of the
 * completed prefix of inbound messages, so it never passes an incomplete one. Also holds receive
 * completions back behind RDMA Read responses (VIA 6.3.1.1) and, for owners that complete inbound work
 * themselves, waits for them ({@link ViConnection#manualInboundCompletion}).
 */
final class AckTracker {

    /** A receive completion held back behind outstanding RDMA Read responses. */
    private record Deferred(InboundReceive receive, int status, long length, int immediate) {
    }

    private boolean enabled;
    private boolean manual;
    private int completed;
    private int sent;
    // inbound messages not yet complete, in arrival order
    private int[] messages = new int[4];
    private boolean[] done = new boolean[4];
    private int head;
    private int count;
    private final ArrayDeque<Deferred> deferred = new ArrayDeque<>(0);

    /** Connected: tracks only at Reliable Reception; before any message the ACK is peerIMN - 1 (§6). */
    void start(boolean reliableReception, int peerImn) {
        enabled = reliableReception;
        completed = peerImn - 1;
        sent = completed;
    }

    void manual(boolean manual) {
        this.manual = manual;
    }

    /** The owner, not the engine, completes inbound Sends and RDMA Writes. */
    boolean manual() {
        return manual;
    }

    /** An inbound message began: its number joins the queue. */
    void track(int msg) {
        if (!enabled) {
            return;
        }
        if (count == messages.length) {
            int[] m = new int[count * 2];
            boolean[] d = new boolean[count * 2];
            for (int k = 0; k < count; k++) {
                m[k] = messages[(head + k) % messages.length];
                d[k] = done[(head + k) % messages.length];
            }
            messages = m;
            done = d;
            head = 0;
        }
        int i = (head + count) % messages.length;
        messages[i] = msg;
        done[i] = false;
        count++;
    }

    /**
     * Inbound message {@code msg} is complete (§6: placed and its receive completed; §9.3: a Read once
     * its last response segment went to TCP). The ACK advances over the completed prefix.
     */
    void markDone(int msg) {
        for (int k = 0; k < count; k++) {
            int i = (head + k) % messages.length;
            if (messages[i] == msg) {
                done[i] = true;
                break;
            }
        }
        while (count > 0 && done[head]) {
            completed = messages[head];
            head = (head + 1) % messages.length;
            count--;
        }
    }

    /** The ACK the next segment may carry. */
    int completed() {
        return completed;
    }

    /** The ACK moved since the last segment carried one: a NOP is due if nothing else goes out. */
    boolean unsent() {
        return enabled && completed != sent;
    }

    /** A segment carries {@code ack}. */
    int send(int ack) {
        sent = ack;
        return ack;
    }

    void defer(InboundReceive receive, int status, long length, int immediate) {
        deferred.addLast(new Deferred(receive, status, length, immediate));
    }

    /** The Reads the held completions waited for went out: complete them in order. */
    void releaseDeferred(ConnectionPeer peer) {
        while (!deferred.isEmpty()) {
            Deferred d = deferred.pollFirst();
            peer.receiveCompleted(d.receive, d.status, d.length, d.immediate);
        }
    }

    /** VIA 5.4: held completions complete flushed. */
    void flushDeferred(ConnectionPeer peer, int flushedStatus) {
        while (!deferred.isEmpty()) {
            peer.receiveCompleted(deferred.pollFirst().receive, flushedStatus, 0, 0);
        }
    }
}
