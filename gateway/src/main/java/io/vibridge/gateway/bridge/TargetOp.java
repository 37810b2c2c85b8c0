package io.vibridge.gateway.bridge;

import io.netty.buffer.ByteBuf;
import io.vibridge.verbs.ReadResponder;
import java.nio.ByteBuffer;

/**
 * What the target issued toward the client, handed to a front end in the order the target issued it
 * (IBA 9.5: an RC responder executes requests in order, so the client must see them in order): a SEND
 * the gateway received into a staging slot, or an RDMA WRITE or READ the target aimed at the client's
 * memory, caught by the {@link CutThrough}. Each front end writes these in its own wire (a VI Send,
 * RDMA Write or RDMA Read Request; an RDMAP Send, RDMA Write or Read Request); none of them is a
 * verbs or a wire type.
 */
public sealed interface TargetOp permits TargetOp.Send, TargetOp.Rdma {

    /**
     * A target SEND, waiting in receive slot {@code slot} at {@code offset}: with immediate data, with the
     * Solicited Event bit, or with Invalidate ({@code invalidateKey}: the R_Key the target asks the client to
     * invalidate, IBA 9.4.1.x IETH; the client's own, passed through like a tagged operation's).
     */
    record Send(int slot, int offset, int length, boolean hasImmediate, int immediate, boolean solicited,
                boolean invalidates, int invalidateKey) implements TargetOp {
        /** A plain SEND. */
        public Send(int slot, int offset, int length) {
            this(slot, offset, length, false, 0, false, false, 0);
        }
    }

    /**
     * Target RDMA on the client's memory: the client's own address and memory handle, learned by the
     * target through the application's messages. {@link #receivesBefore} is the number of target SENDs
     * the provider had queued before it ({@link TargetOrder} posts it after those). Ends exactly once
     * with {@link #finish}.
     */
    abstract static sealed class Rdma implements TargetOp permits Write, Read {
        final long va;
        final int rkey;
        final int length;
        final int receivesBefore;
        private boolean done;

        Rdma(long va, int rkey, int length, int receivesBefore) {
            this.va = va;
            this.rkey = rkey;
            this.length = length;
            this.receivesBefore = receivesBefore;
        }

        public long remoteAddress() {
            return va;
        }

        public int remoteKey() {
            return rkey;
        }

        public int length() {
            return length;
        }

        /** Ends the operation: releases a WRITE's copy, answers a READ. Later calls do nothing. */
        public final void finish(boolean ok) {
            if (!done) {
                done = true;
                ended(ok);
            }
        }

        abstract void ended(boolean ok);
    }

    /** One target RDMA WRITE packet, copied out of the provider's receive buffer. */
    final class Write extends Rdma {
        private ByteBuf data;
        private final boolean hasImmediate;
        private final int immediate;
        private final CutThrough owner;

        Write(long va, int rkey, ByteBuf data, boolean hasImmediate, int immediate, CutThrough owner,
                int receivesBefore) {
            super(va, rkey, data.readableBytes(), receivesBefore);
            this.data = data;
            this.hasImmediate = hasImmediate;
            this.immediate = immediate;
            this.owner = owner;
        }

        /** A view of the packet's bytes from {@code offset}, {@code n} of them (valid until {@link #finish}). */
        public ByteBuffer data(int offset, int n) {
            return data.nioBuffer(offset, n);
        }

        /** All the packet's bytes, in a view reused by the next call (no allocation). */
        public ByteBuffer data() {
            return data.internalNioBuffer(0, length);
        }

        /** Whether the packet ends a WRITE with immediate data. */
        public boolean hasImmediate() {
            return hasImmediate;
        }

        public int immediate() {
            return immediate;
        }

        @Override
        void ended(boolean ok) {
            data.release();
            data = null;
            owner.released(length);
        }
    }

    /**
     * A target RDMA READ of the client's memory (or one part of a READ longer than the front end's
     * largest Read Request), answered from what the client's Read Response places.
     */
    final class Read extends Rdma {
        /** Answers the target, or null for one part of a split READ ({@link #parent} answers). */
        private final ReadResponder responder;
        private final Parent parent;
        private final int parentOffset;
        private ByteBuffer answer;

        Read(long va, int rkey, int length, ReadResponder responder, int receivesBefore) {
            this(va, rkey, length, responder, null, 0, receivesBefore);
        }

        private Read(long va, int rkey, int length, ReadResponder responder, Parent parent, int parentOffset,
                int receivesBefore) {
            super(va, rkey, length, receivesBefore);
            this.responder = responder;
            this.parent = parent;
            this.parentOffset = parentOffset;
        }

        /** Splits a READ of {@code length} bytes into parts of at most {@code part}, answered together. */
        static Read[] split(long va, int rkey, int length, int part, ReadResponder responder, int receivesBefore) {
            Read[] parts = new Read[(length + part - 1) / part];
            Parent parent = new Parent(responder, length, parts.length);
            for (int i = 0, off = 0; off < length; i++, off += part) {
                parts[i] = new Read(va + off, rkey, Math.min(part, length - off), null, parent, off, receivesBefore);
            }
            return parts;
        }

        /** Places {@code n} bytes of the client's answer, from {@code src} at {@code srcOff}, at {@code offset}. */
        public void place(long offset, ByteBuffer src, int srcOff, int n) {
            if (parent != null) {
                parent.data.put(parentOffset + (int) offset, src, srcOff, n);
                return;
            }
            if (answer == null) {
                answer = ByteBuffer.allocate(length);
            }
            answer.put((int) offset, src, srcOff, n);
            answer.position(Math.max(answer.position(), (int) offset + n));
        }

        @Override
        void ended(boolean ok) {
            if (parent != null) {
                parent.partDone(ok);
            } else if (!ok) {
                responder.fail();
            } else {
                responder.complete(answer == null ? ByteBuffer.allocate(0) : answer.flip());
            }
        }

        /** The parts of one target READ split into several Read Requests: answered once all are in. */
        private static final class Parent {
            final ReadResponder responder;
            final ByteBuffer data;
            int remaining;
            boolean failed;

            Parent(ReadResponder responder, int length, int parts) {
                this.responder = responder;
                this.data = ByteBuffer.allocate(length);
                this.remaining = parts;
            }

            void partDone(boolean ok) {
                remaining--;
                if (failed) {
                    return;
                }
                if (!ok) {
                    failed = true;
                    responder.fail();
                } else if (remaining == 0) {
                    responder.complete(data.clear());
                }
            }
        }
    }
}
