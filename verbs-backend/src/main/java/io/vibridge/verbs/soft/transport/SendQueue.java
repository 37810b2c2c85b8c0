package io.vibridge.verbs.soft.transport;

import io.vibridge.verbs.WcOpcode;
import io.vibridge.verbs.WrOpcode;
import io.vibridge.verbs.soft.resource.SoftMemoryRegion;

/**
 * The send queue of one RC QP, a fixed ring of work queue elements shared by its requester, which posts at
 * the tail and transmits from its own cursor, and its completer, which retires from the head (Linux rxe's
 * {@code qp->sq}: the requester's {@code req.wqe_index} and the completer's consumer index). Under the QP's monitor.
 */
final class SendQueue {

    /** A send work queue element, reused in place (nothing allocated per post). */
    static final class Wqe {
        long wrId;
        WrOpcode op;
        SoftMemoryRegion mr;
        int off;
        int len;
        long raddr;
        int rkey;
        int imm;
        /** SEND_WITH_INV: the R_Key for the Last/Only packet's IETH. */
        int invalidateRkey;
        boolean signaled;
        boolean solicited;
        int firstPsn;
        int lastPsn;
        int npkts;
        /** READ response packets taken so far. */
        int readRcvd;
    }

    private final Wqe[] ring;
    /** The oldest incomplete element: the completer retires from here. */
    private long head;
    /** The next free element: the requester posts here. */
    private long tail;

    SendQueue(int capacity) {
        ring = new Wqe[capacity];
        for (int i = 0; i < capacity; i++) {
            ring[i] = new Wqe();
        }
    }

    int capacity() {
        return ring.length;
    }

    long head() {
        return head;
    }

    long tail() {
        return tail;
    }

    boolean isEmpty() {
        return head == tail;
    }

    boolean isFull() {
        return tail - head >= ring.length;
    }

    /** The element at ring index {@code i} (head &lt;= i &lt; tail for a live one). */
    Wqe at(long i) {
        return ring[(int) (i % ring.length)];
    }

    /** The element a post fills next; {@link #append} makes it live. */
    Wqe free() {
        return at(tail);
    }

    void append() {
        tail++;
    }

    /** The oldest incomplete element; the queue must not be empty. */
    Wqe oldest() {
        return at(head);
    }

    /** Retires the oldest element and returns it. */
    Wqe retire() {
        return at(head++);
    }

    /** The completion opcode of a work request's opcode. */
    static WcOpcode wcOpcode(WrOpcode op) {
        return switch (op) {
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
        };
    }
}
