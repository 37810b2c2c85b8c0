package io.vibridge.gateway.tools;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.ConnectListener;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.IncomingConnection;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain vitcp peer speaking the target's behaviour and {@link Control} protocol directly over
 * VI/TCP (no gateway, no InfiniBand): the baseline {@code perf --baseline} measures against, and the
 * in-process peer of the tools' tests. One passive NIC, one discriminator, one exposed region; each
 * accepted VI is served by its own virtual thread with blocking waits.
 */
public final class VitcpPeer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VitcpPeer.class);
    private static final Duration WAIT = Duration.ofMillis(500);

    private final ViNic nic;
    private final ProtectionTag tag;
    private final MemoryRegion region;
    private final ConnectListener listener;
    private final TargetMode initialMode;
    private final int receives;
    private final int receiveSize;
    private final ConcurrentLinkedQueue<MemoryRegion> slabs = new ConcurrentLinkedQueue<>();
    private final Thread acceptor;
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean closed;

    private VitcpPeer(NicConfig config, String discriminator, TargetMode mode, int receives, int receiveSize,
                      int regionSize) throws IOException {
        this.nic = ViNic.open(config);
        this.tag = nic.createPtag();
        this.region = nic.registerMemory(ByteBuffer.allocateDirect(regionSize), new MemoryAttributes(tag, true, true));
        this.listener = nic.listen(Discriminator.ofUtf8(discriminator));
        this.initialMode = mode;
        this.receives = receives;
        this.receiveSize = receiveSize;
        this.acceptor = Thread.ofPlatform().daemon().name("vitcp-peer-accept").start(this::acceptLoop);
    }

    /**
     * Starts a peer listening on {@code listen} (port 0: chosen by the OS) for {@code discriminator}.
     *
     * @param key HMAC key for Security Type 1, or null
     */
    public static VitcpPeer start(InetSocketAddress listen, String discriminator, TargetMode mode, int receives,
                                  int receiveSize, int regionSize, byte[] key) throws IOException {
        return start(listen, Encapsulation.VITCP, discriminator, mode, receives, receiveSize, regionSize, key);
    }

    /** As above, listening in {@code framing} (seed-004 frames on {@code listen} for {@code rdmatcp}). */
    public static VitcpPeer start(InetSocketAddress listen, Encapsulation framing, String discriminator, TargetMode mode,
                                  int receives, int receiveSize, int regionSize, byte[] key) throws IOException {
        NicConfig c = NicConfig.loopback().withName("vitcp-peer").withKey(key);
        c = framing == Encapsulation.RDMATCP ? c.withListen(null).withRdmaTcpListen(listen) : c.withListen(listen);
        return new VitcpPeer(c, discriminator, mode, receives, receiveSize, regionSize);
    }

    /** The TCP address clients connect to. */
    public InetSocketAddress address() {
        return nic.localAddress() != null ? nic.localAddress() : nic.rdmaTcpAddress();
    }

    public long acceptedConnections() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!closed) {
            IncomingConnection ic;
            try {
                ic = listener.connectWait(WAIT);
            } catch (ViException e) {
                continue;                                   // TIMEOUT: look at closed again
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!closed) {
                    LOG.warn("vitcp peer accept failed: {}", e.toString());
                }
                return;
            }
            Thread.ofVirtual().name("vitcp-peer-conn").start(() -> serve(ic));
        }
    }

    private MemoryRegion slab() {
        MemoryRegion m = slabs.poll();
        return m != null ? m : nic.registerMemory(ByteBuffer.allocateDirect(receives * receiveSize),
                new MemoryAttributes(tag, false, false));
    }

    private void serve(IncomingConnection ic) {
        ConnectionAttributes a = ic.info().attributes();
        if (!a.hasValidReliability()) {
            ic.reject(9);
            return;
        }
        ViAttributes attrs = ViAttributes.of(a.reliability(), tag).withFlowControl(a.flowControl())
                .withRdma(true, a.rdmaRead());
        Vi vi = nic.createVi(attrs, null, null);
        MemoryRegion slab = slab();
        Descriptor[] recvs = new Descriptor[receives];
        for (int i = 0; i < receives; i++) {
            recvs[i] = Descriptor.receive().data(slab, i * receiveSize, receiveSize);
            vi.postRecv(recvs[i]);
        }
        try {
            ic.accept(vi);
        } catch (RuntimeException e) {
            LOG.debug("vitcp peer accept failed: {}", e.toString());
            vi.disconnect();
            slabs.add(slab);
            return;
        }
        accepted.incrementAndGet();
        try {
            new Conn(vi, slab).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debug("vitcp peer connection ended: {}", e.toString());
        } finally {
            vi.disconnect();
            drain(vi);
            slabs.add(slab);
        }
    }

    private static void drain(Vi vi) {
        while (vi.recvDone() != null || vi.sendDone() != null) {
            // dequeue flushed descriptors
        }
    }

    /** One served VI (its own thread). */
    private final class Conn {
        final Vi vi;
        final MemoryRegion slab;
        final ByteBuffer sb;
        final Descriptor echo = Descriptor.send();
        final Descriptor echoImm = Descriptor.send();
        final Descriptor reply = Descriptor.send();
        final MemoryRegion replyMr = nic.registerMemory(ByteBuffer.allocateDirect(Control.MAX_REPLY),
                new MemoryAttributes(tag, false, false));
        TargetMode mode = initialMode;
        long rxMessages;
        long rxBytes;
        long txMessages;
        long txBytes;
        long count;

        Conn(Vi vi, MemoryRegion slab) {
            this.vi = vi;
            this.slab = slab;
            this.sb = slab.buffer();
        }

        // source mode: Sends of sourceSize kept outstanding from their own slots
        static final int SOURCE_DEPTH = 16;
        Descriptor[] sources;
        MemoryRegion sourceMr;
        int sourceSize;
        int sourceOutstanding;
        long sourceNext;

        void run() throws InterruptedException {
            try {
                while (!closed) {
                    Descriptor d;
                    if (mode == TargetMode.SOURCE) {
                        d = sourceStep();
                        if (d == null) {
                            continue;
                        }
                    } else {
                        try {
                            d = vi.recvWait(WAIT);
                        } catch (ViException e) {
                            if (e.code() == ViException.Code.TIMEOUT) {
                                continue;
                            }
                            throw e;
                        }
                    }
                    if (d.isError()) {
                        return;                              // flushed: the connection is gone
                    }
                    int off = (int) (count++ % receives) * receiveSize;
                    int len = (int) d.length();
                    int st = d.status();
                    boolean remoteWrite = (st & Status.OP_MASK) == Status.OP_REMOTE_RDMA_WRITE;
                    boolean imm = (st & Status.IMMEDIATE) != 0;
                    if (!remoteWrite && Control.isRequest(sb, off, len)) {
                        control(off, len);
                    } else {
                        rxMessages++;
                        rxBytes += len;
                        // VIA 10.2: a completed receive whose operation is "remote RDMA Write" was consumed
                        // by a write with immediate; like the target, only echo-ack-writes answers it
                        if (remoteWrite ? mode.answersWritesWithImmediate() : mode.echoesSends()) {
                            Descriptor e = imm ? echoImm : echo;
                            e.clearData();
                            if (!remoteWrite && len > 0) {
                                e.data(slab, off, len);
                            }
                            if (imm) {
                                e.immediate(d.immediateData());
                            }
                            send(e);
                            txMessages++;
                            txBytes += remoteWrite ? 0 : len;
                        }
                    }
                    vi.postRecv(d);
                }
            } finally {
                nic.deregisterMemory(replyMr);
                if (sourceMr != null) {
                    vi.disconnect();
                    drain(vi);
                    nic.deregisterMemory(sourceMr);
                }
            }
        }

        /** Source mode: keeps Sends outstanding; returns a completed receive, or null when none is ready yet. */
        private Descriptor sourceStep() {
            Descriptor s;
            while ((s = vi.sendDone()) != null) {
                reap(s);
            }
            while (sourceOutstanding < SOURCE_DEPTH && !closed) {
                vi.postSend(sources[(int) (sourceNext++ % SOURCE_DEPTH)]);
                sourceOutstanding++;
            }
            Descriptor d = vi.recvDone();
            if (d == null) {
                LockSupport.parkNanos(20_000);
            }
            return d;
        }

        private void startSource(int requested) {
            if (sourceMr != null) {
                return;
            }
            sourceSize = requested > 0 ? requested : receiveSize;
            sourceMr = nic.registerMemory(ByteBuffer.allocateDirect(Math.max(1, sourceSize * SOURCE_DEPTH)),
                    new MemoryAttributes(tag, false, false));
            sources = new Descriptor[SOURCE_DEPTH];
            for (int i = 0; i < SOURCE_DEPTH; i++) {
                Control.fillPattern(sourceMr.buffer(), i * sourceSize, sourceSize, 1);
                sources[i] = Descriptor.send();
                if (sourceSize > 0) {
                    sources[i].data(sourceMr, i * sourceSize, sourceSize);
                }
            }
        }

        private boolean isSource(Descriptor d) {
            if (sources != null) {
                for (Descriptor x : sources) {
                    if (x == d) {
                        return true;
                    }
                }
            }
            return false;
        }

        private void reap(Descriptor s) {
            if (s.isError()) {
                throw new IllegalStateException("send failed: " + Status.describe(s.status()));
            }
            if (isSource(s)) {
                sourceOutstanding--;
                txMessages++;
                txBytes += sourceSize;
            }
        }

        /** Posts {@code e} and waits for it (reaping source Sends completing before it, FIFO). */
        private void send(Descriptor e) throws InterruptedException {
            vi.postSend(e);
            for (;;) {
                Descriptor done = vi.sendWait(Duration.ofSeconds(30));
                if (done == e) {
                    if (done.isError()) {
                        throw new IllegalStateException("send failed: " + Status.describe(done.status()));
                    }
                    return;
                }
                reap(done);
            }
        }

        private void control(int p, int len) throws InterruptedException {
            ByteBuffer rb = replyMr.buffer();
            int cmd = Control.command(sb, p);
            int id = Control.requestId(sb, p);
            int argLen = Control.argumentLength(cmd);
            int a = p + Control.HEADER;
            int r = Control.HEADER;
            int status = Control.OK;
            ByteBuffer region = VitcpPeer.this.region.buffer();
            long regionLength = VitcpPeer.this.region.length();
            if (argLen < 0) {
                status = Control.UNKNOWN_COMMAND;
            } else if (len - Control.HEADER < argLen) {
                status = Control.BAD_REQUEST;
            } else {
                switch (cmd) {
                    case Control.QUERY_REGION -> {
                        rb.putLong(r, VitcpPeer.this.region.address());
                        rb.putInt(r + 8, VitcpPeer.this.region.handle());
                        rb.putInt(r + 12, VitcpPeer.this.region.length());
                    }
                    case Control.CHECKSUM_REGION, Control.FILL_REGION -> {
                        long offset = Integer.toUnsignedLong(sb.getInt(a));
                        long length = Integer.toUnsignedLong(sb.getInt(a + 4));
                        if (offset + length > regionLength) {
                            status = Control.OUT_OF_RANGE;
                        } else {
                            if (cmd == Control.FILL_REGION) {
                                Control.fillPattern(region, (int) offset, (int) length, sb.getInt(a + 8));
                            }
                            rb.putInt(r, Control.crc32c(region, (int) offset, (int) length));
                        }
                    }
                    case Control.SET_MODE -> {
                        int code = sb.get(a) & 0xFF;
                        if (code >= TargetMode.values().length) {
                            status = Control.BAD_REQUEST;
                        } else {
                            mode = TargetMode.ofCode(code);
                            if (mode == TargetMode.SOURCE) {
                                startSource(len - Control.HEADER >= 5 ? sb.getInt(a + 1) : 0);
                            }
                        }
                    }
                    case Control.STATS -> {
                        rb.putLong(r, rxMessages);
                        rb.putLong(r + 8, rxBytes);
                        rb.putLong(r + 16, txMessages);
                        rb.putLong(r + 24, txBytes);
                    }
                    case Control.WRITE_TO_PEER, Control.READ_FROM_PEER -> status = rdma(cmd, a, rb, r);
                    default -> status = Control.UNKNOWN_COMMAND;
                }
            }
            Control.writeReply(rb, 0, cmd, status, id);
            reply.clearData().data(replyMr, 0, Control.replyLength(cmd, status));
            send(reply);
        }

        private int rdma(int cmd, int a, ByteBuffer rb, int r) throws InterruptedException {
            long va = sb.getLong(a);
            int handle = sb.getInt(a + 8);
            int length = sb.getInt(a + 12);
            if (length < 0 || length > VitcpPeer.this.region.length()) {
                return Control.TOO_LARGE;
            }
            MemoryRegion tmp = nic.registerMemory(ByteBuffer.allocateDirect(Math.max(1, length)),
                    new MemoryAttributes(tag, false, false));
            try {
                Descriptor d;
                if (cmd == Control.WRITE_TO_PEER) {
                    Control.fillPattern(tmp.buffer(), 0, length, sb.getInt(a + 16));
                    d = Descriptor.rdmaWrite(va, handle);
                } else {
                    d = Descriptor.rdmaRead(va, handle);
                }
                if (length > 0) {
                    d.data(tmp, 0, length);
                }
                vi.postSend(d);
                Descriptor done = vi.sendWait(Duration.ofSeconds(30));
                if (done.isError()) {
                    return Control.RDMA_FAILED;
                }
                rb.putInt(r, Control.crc32c(tmp.buffer(), 0, length));
                rb.putInt(r + 4, length);
                return Control.OK;
            } finally {
                nic.deregisterMemory(tmp);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        listener.close();
        acceptor.interrupt();
        nic.close();
    }
}
