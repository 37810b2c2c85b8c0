package io.vibridge.vitcp.engine;

/**
 * The responder side of RDMA Reads (VITCP-PROFILE §9.5): inbound Read Requests whose last response
 * segment has not been produced yet, answered in order. A request stops counting against the window
 * when that segment is produced (handed to the output, in TCP order), not when it is written: the
 * requester cannot see the segment earlier, so it cannot overrun the window.
 */
final class ReadResponderWindow {

    private final int window;
    private final int[] message;
    private final long[] address;
    private final int[] handle;
    private final long[] length;
    private int head;
    private int count;
    // bytes of the head request already produced
    private long sent;
    // the owner's rdmaSource had no data yet: wait for ViConnection.readSourceReady()
    private boolean blocked;
    // responses whose last segment was produced but not yet written
    private int unwritten;

    ReadResponderWindow(int window) {
        this.window = window;
        int slots = Math.max(1, window);
        message = new int[slots];
        address = new long[slots];
        handle = new int[slots];
        length = new long[slots];
    }

    /** One more request would exceed the window this side announced (IS 7). */
    boolean full() {
        return count >= window;
    }

    void add(int msg, long addr, int hdl, long len) {
        int i = (head + count) % message.length;
        message[i] = msg;
        address[i] = addr;
        handle[i] = hdl;
        length[i] = len;
        count++;
    }

    /** A response segment can be produced now. */
    boolean ready() {
        return count > 0 && !blocked;
    }

    /** Some response is not yet produced or not yet written (VIA 6.3.1.1 holds receive completions). */
    boolean outstanding() {
        return count > 0 || unwritten > 0;
    }

    int headMessage() {
        return message[head];
    }

    int headHandle() {
        return handle[head];
    }

    /** Where the next segment's bytes start in the peer's view (its Data Offset). */
    long headOffset() {
        return sent;
    }

    /** Local address of the next segment's bytes. */
    long headAddress() {
        return address[head] + sent;
    }

    long headRemaining() {
        return length[head] - sent;
    }

    void block() {
        blocked = true;
    }

    void unblock() {
        blocked = false;
    }

    /** A segment of {@code chunk} bytes was produced; true when it was the head response's last. */
    boolean produced(int chunk) {
        sent += chunk;
        if (sent < length[head]) {
            return false;
        }
        sent = 0;
        head = (head + 1) % message.length;
        count--;
        unwritten++;
        return true;
    }

    /** The last segment of a response was written; true when no response is outstanding any more. */
    boolean lastSegmentWritten() {
        if (unwritten > 0) {
            unwritten--;
        }
        return !outstanding();
    }

    /** The connection broke: no response will go out. */
    void clear() {
        count = 0;
        unwritten = 0;
        sent = 0;
        blocked = false;
    }
}
