package io.vibridge.vitcp.engine;

import java.util.Arrays;
import java.util.Collection;

/**
 * Segments {@link ViConnection#produce} emitted and {@link ViConnection#written()} has not confirmed
 * yet, oldest first: lets an owner batch writes. Preallocated, so producing allocates nothing.
 */
final class Unwritten {

    /** What a produced segment was. */
    enum Produced {
        CONTROL,
        /** Send, RDMA Write or RDMA Read Request. */
        DATA,
        RESPONSE,
        NOP
    }

    private final int capacity;
    private final Produced[] kind;
    private final boolean[] eom;
    private final boolean[] report;
    // the work whose last segment this is, and whether writing it completes the work
    private final OutboundWork[] work;
    private final boolean[] completes;
    // a Read Response's message number
    private final int[] message;
    private int head;
    private int count;

    Unwritten(int capacity) {
        this.capacity = capacity;
        kind = new Produced[capacity];
        eom = new boolean[capacity];
        report = new boolean[capacity];
        work = new OutboundWork[capacity];
        completes = new boolean[capacity];
        message = new int[capacity];
    }

    boolean full() {
        return count == capacity;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /**
     * @param lastOf the work whose last segment this is, or null
     * @param complete writing the segment completes {@code lastOf}
     * @param carriesReport the segment carries this side's error report (Reliable Reception)
     * @param msg a Read Response's message number
     */
    void add(Produced k, boolean endOfMessage, OutboundWork lastOf, boolean complete, boolean carriesReport, int msg) {
        int i = (head + count) % capacity;
        kind[i] = k;
        eom[i] = endOfMessage;
        work[i] = lastOf;
        completes[i] = complete;
        report[i] = carriesReport;
        message[i] = msg;
        count++;
    }

    // ---- the oldest segment

    Produced kind() {
        return kind[head];
    }

    boolean endOfMessage() {
        return eom[head];
    }

    boolean carriesReport() {
        return report[head];
    }

    OutboundWork lastOf() {
        return work[head];
    }

    boolean completes() {
        return completes[head];
    }

    int message() {
        return message[head];
    }

    /** The oldest segment was written. */
    void remove() {
        work[head] = null;
        head = (head + 1) % capacity;
        count--;
    }

    /** Moves the works that writing would have completed into {@code out}, then forgets everything. */
    void drainCompletable(Collection<OutboundWork> out) {
        for (int k = 0; k < count; k++) {
            int i = (head + k) % capacity;
            if (completes[i]) {
                out.add(work[i]);
            }
        }
        clear();
    }

    void clear() {
        Arrays.fill(work, null);
        head = 0;
        count = 0;
    }
}
