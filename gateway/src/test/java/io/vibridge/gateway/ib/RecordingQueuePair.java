package io.vibridge.gateway.ib;

import io.vibridge.verbs.Access;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.MemoryRegion;
import io.vibridge.verbs.QpState;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.ReceiveWorkRequest;
import io.vibridge.verbs.SendWorkRequest;
import io.vibridge.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** A queue pair that only records what is posted to it (copies: the channel reuses its requests). */
final class RecordingQueuePair implements QueuePair {

    record Send(long wrId, WrOpcode opcode, MemoryRegion region, int offset, int length, long remoteAddress,
                int rkey, int immediate) {
    }

    record Receive(long wrId, MemoryRegion region, int offset, int length) {
    }

    final List<Send> sends = new ArrayList<>();
    final List<Receive> receives = new ArrayList<>();
    /** Off: count only, so that a measurement sees the channel's allocations alone. */
    boolean recording = true;
    long sendCount;

    @Override
    public void postSend(SendWorkRequest wr) {
        sendCount++;
        if (recording) {
            sends.add(new Send(wr.wrId, wr.opcode, wr.local, wr.localOffset, wr.length, wr.remoteAddress, wr.rkey,
                    wr.immediate));
        }
    }

    @Override
    public void postRecv(ReceiveWorkRequest wr) {
        if (recording) {
            receives.add(new Receive(wr.wrId, wr.region, wr.offset, wr.length));
        }
    }

    Send lastSend() {
        return sends.getLast();
    }

    @Override
    public int qpNum() {
        return 1;
    }

    @Override
    public QpState state() {
        return QpState.RTS;
    }

    @Override
    public void toError() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionQueue sendCq() {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionQueue recvCq() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int pathMtu() {
        return 4096;
    }

    @Override
    public void close() {
    }

    /** A heap region: the channel only writes headers into its buffer. */
    record Region(ByteBuffer buffer) implements MemoryRegion {
        static Region of(int length) {
            return new Region(ByteBuffer.allocate(length));
        }

        @Override
        public long address() {
            return 0;
        }

        @Override
        public int length() {
            return buffer.capacity();
        }

        @Override
        public int lkey() {
            return 1;
        }

        @Override
        public int rkey() {
            return 2;
        }

        @Override
        public Set<Access> access() {
            return EnumSet.of(Access.LOCAL_WRITE);
        }

        @Override
        public void close() {
        }
    }
}
