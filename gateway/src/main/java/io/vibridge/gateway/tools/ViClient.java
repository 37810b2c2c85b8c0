package io.vibridge.gateway.tools;

import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.control.Control;
import io.vibridge.vitcp.engine.Negotiated;
import io.vibridge.vitcp.engine.Status;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One VI/TCP client connection of the tools (ping, perf) with the vitcp provider library: an
 * active-only NIC, a send area of {@code window} slots, {@code receives} posted receive slots, a
 * control slot and, on request, memory the peer may RDMA read and write.
 *
 * <p>Not thread-safe: one tool thread drives it. Receives complete in FIFO order (VIA 6.4.2), so the
 * slot of a completed receive is a running counter modulo {@code receives}.
 */
public final class ViClient implements AutoCloseable {
    final ViClientOptions options;
    final ViNic nic;
    final ProtectionTag tag;
    final Vi vi;
    final int slot;
    final MemoryRegion sendMr;
    final MemoryRegion recvMr;
    final MemoryRegion ctlMr;
    final Descriptor[] recvs;
    final Descriptor[] sends;
    final Descriptor ctlSend;
    final Duration timeout;
    MemoryRegion exposed;
    Negotiated negotiated;
    long connectNanos;
    private long recvCount;
    private int nextRequestId = 1;
    private final ByteBuffer reply = ByteBuffer.allocate(Control.MAX_REPLY);

    private ViClient(ViClientOptions o, ViNic nic) {
        this.options = o;
        this.nic = nic;
        this.timeout = o.timeout();
        this.tag = nic.createPtag();
        this.slot = Math.max(o.messageSize(), 256);
        this.sendMr = nic.registerMemory(ByteBuffer.allocateDirect(slot * o.window()), new MemoryAttributes(tag, false, false));
        this.recvMr = nic.registerMemory(ByteBuffer.allocateDirect(slot * o.receives()), new MemoryAttributes(tag, false, false));
        this.ctlMr = nic.registerMemory(ByteBuffer.allocateDirect(256), new MemoryAttributes(tag, false, false));
        ViAttributes attrs = ViAttributes.of(o.reliability(), tag).withFlowControl(o.flowControl())
                .withMtu(Math.max(ViAttributes.DEFAULT_MTU, o.messageSize()));
        this.vi = nic.createVi(attrs, null, null);
        recvs = new Descriptor[o.receives()];
        for (int i = 0; i < recvs.length; i++) {
            recvs[i] = Descriptor.receive().data(recvMr, i * slot, slot);
            vi.postRecv(recvs[i]);
        }
        sends = new Descriptor[o.window()];
        for (int i = 0; i < sends.length; i++) {
            sends[i] = Descriptor.send();
        }
        ctlSend = Descriptor.send();
    }

    /** Opens an active-only NIC, registers memory, creates the VI and posts the receives (not connected yet). */
    public static ViClient open(ViClientOptions o) throws IOException {
        // platform threads: a tool holds a few connections, and a virtual reader waits for each read through the
        // JDK's poller thread and a carrier (two hand-offs), which costs the gateway's Send stream bandwidth
        // (README-bridge, "Where the time goes")
        NicConfig nc = NicConfig.loopback().withListen(null).withName("vibridge-tool").withKey(o.key())
                .withPlatformThreads(true);
        ViNic nic = ViNic.open(nc);
        try {
            return new ViClient(o, nic);
        } catch (RuntimeException e) {
            nic.close();
            throw e;
        }
    }

    /** VipConnectRequest; returns the setup time in nanoseconds (connect through Accept). */
    public long connect() throws InterruptedException {
        ViNetAddress remote = options.address();
        long t0 = System.nanoTime();
        negotiated = vi.connectRequest(Discriminator.EMPTY, remote, timeout);
        connectNanos = System.nanoTime() - t0;
        return connectNanos;
    }

    public Negotiated negotiated() {
        return negotiated;
    }

    /** Registers {@code bytes} the peer may RDMA read and write (for WRITE_TO_PEER / READ_FROM_PEER). */
    public MemoryRegion expose(int bytes) {
        if (exposed == null) {
            exposed = nic.registerMemory(ByteBuffer.allocateDirect(bytes), new MemoryAttributes(tag, true, true));
        }
        return exposed;
    }

    /** Index of the slot of the next receive to complete. */
    int nextRecvSlot() {
        return (int) (recvCount % recvs.length);
    }

    /** Waits for the next receive; throws if it failed. The caller reposts it with {@link #repost}. */
    Descriptor awaitReceive() throws InterruptedException {
        Descriptor d = vi.recvWait(timeout);
        recvCount++;
        if (d.isError()) {
            throw new ViException(ViException.Code.DESCRIPTOR_ERROR, "receive failed: "
                    + Status.describe(d.status()));
        }
        return d;
    }

    void repost(Descriptor d) {
        vi.postRecv(d);
    }

    /** Waits for the head of the send queue; throws if it failed. */
    Descriptor awaitSend() throws InterruptedException {
        Descriptor d = vi.sendWait(timeout);
        if (d.isError()) {
            throw new ViException(ViException.Code.DESCRIPTOR_ERROR, "send failed: "
                    + Status.describe(d.status()));
        }
        return d;
    }

    /**
     * Sends a control request (see {@link Control}) and waits for its reply; returns the reply (a
     * buffer reused by the next call), whose status the caller checks.
     */
    public ByteBuffer control(int command, ByteBuffer args) throws InterruptedException {
        return control(command, args, false);
    }

    /**
     * As {@link #control(int, ByteBuffer)}, but data messages arriving before the reply (a source
     * still sending) are consumed and dropped instead of being an error.
     */
    public ByteBuffer controlSkippingData(int command, ByteBuffer args) throws InterruptedException {
        return control(command, args, true);
    }

    private ByteBuffer control(int command, ByteBuffer args, boolean skipData) throws InterruptedException {
        int id = nextRequestId++;
        ByteBuffer b = ctlMr.buffer();
        int a = Control.writeRequest(b, 0, command, id);
        int n = args == null ? 0 : args.remaining();
        if (n > 0) {
            b.put(a, args, args.position(), n);
        }
        ctlSend.clearData().data(ctlMr, 0, Control.HEADER + n);
        int s = nextRecvSlot();
        vi.postSend(ctlSend);
        Descriptor r = awaitReceive();
        int len = (int) r.length();
        ByteBuffer rb = recvMr.buffer();
        int off = s * slot;
        while (skipData && !Control.isReply(rb, off, len)) {
            repost(r);
            s = nextRecvSlot();
            r = awaitReceive();
            len = (int) r.length();
            off = s * slot;
        }
        if (!Control.isReply(rb, off, len) || Control.command(rb, off) != command || Control.requestId(rb, off) != id) {
            repost(r);
            awaitSend();
            throw new IllegalStateException("peer did not answer " + Control.commandName(command)
                    + " (got a " + len + "-byte message that is not its reply: is the peer a vibridge target?)");
        }
        reply.clear();
        reply.put(0, rb, off, Math.min(len, reply.capacity()));
        reply.limit(Math.min(len, reply.capacity()));
        repost(r);
        awaitSend();
        return reply;
    }

    /** A control request that must succeed; returns the index of its results in the reply. */
    public ByteBuffer controlOk(int command, ByteBuffer args) throws InterruptedException {
        ByteBuffer r = control(command, args);
        int st = Control.status(r, 0);
        if (st != Control.OK) {
            throw new IllegalStateException(Control.commandName(command) + " failed: " + Control.statusName(st));
        }
        return r;
    }

    public void setMode(TargetMode mode) throws InterruptedException {
        controlOk(Control.SET_MODE, ByteBuffer.allocate(1).put(0, (byte) mode.code()));
    }

    /** VipDisconnect (flushes what is posted) and closes the NIC. */
    @Override
    public void close() {
        try {
            if (negotiated != null) {
                vi.disconnect();
            }
        } catch (RuntimeException ignored) {
            // closing anyway
        }
        nic.close();
    }
}
