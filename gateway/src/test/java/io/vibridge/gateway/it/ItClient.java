package io.vibridge.gateway.it;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.vitcp.engine.Negotiated;
import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.MemoryAttributes;
import io.vibridge.vitcp.provider.MemoryRegion;
import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ProtectionTag;
import io.vibridge.vitcp.provider.Vi;
import io.vibridge.vitcp.provider.ViAttributes;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.provider.ViNic;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A VI/TCP client of the container tests, written against the vitcp provider library only (no
 * gateway tool code): Reliable Reception with descriptor flow control, one data area used for Sends,
 * RDMA Write sources and RDMA Read sinks, {@link #RECEIVES} posted receives, and the demo target's
 * VBRG control protocol ({@link Control}) carried in Sends.
 */
final class ItClient implements AutoCloseable {
    static final int MESSAGE = 65536;
    static final int RECEIVES = 4;
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final ViNic nic;
    final Vi vi;
    private final MemoryRegion data;
    private final MemoryRegion recv;
    private final MemoryRegion ctl;
    private long received;
    private int requestId = 1;
    final Negotiated negotiated;

    ItClient(InetSocketAddress gateway, String discriminator) throws IOException, InterruptedException {
        nic = ViNic.open(NicConfig.loopback().withListen(null).withName("it-client"));
        try {
            ProtectionTag tag = nic.createPtag();
            data = nic.registerMemory(ByteBuffer.allocateDirect(4 * MESSAGE), new MemoryAttributes(tag, false, false));
            recv = nic.registerMemory(ByteBuffer.allocateDirect(RECEIVES * MESSAGE), new MemoryAttributes(tag, false, false));
            ctl = nic.registerMemory(ByteBuffer.allocateDirect(256), new MemoryAttributes(tag, false, false));
            vi = nic.createVi(ViAttributes.of(ReliabilityLevel.RELIABLE_RECEPTION, tag).withFlowControl(true)
                    .withMtu(ViAttributes.DEFAULT_MTU), null, null);
            for (int i = 0; i < RECEIVES; i++) {
                vi.postRecv(Descriptor.receive().data(recv, i * MESSAGE, MESSAGE));
            }
            negotiated = vi.connectRequest(Discriminator.EMPTY,
                    new ViNetAddress(gateway, Discriminator.ofUtf8(discriminator)), TIMEOUT);
        } catch (InterruptedException | RuntimeException e) {
            nic.close();
            throw e;
        }
    }

    /** The data area (4 x 64 KiB): Send payloads, RDMA Write sources, RDMA Read sinks. */
    ByteBuffer data() {
        return data.buffer();
    }

    /**
     * Sends {@code length} patterned bytes (byte 0 is 0: never taken for control) and waits for the
     * target's echo; returns {CRC32C sent, CRC32C echoed, echoed length}.
     */
    long[] echo(int length, int seed) throws InterruptedException {
        Control.fillPattern(data.buffer(), 0, length, seed);
        if (length > 0) {
            data.buffer().put(0, (byte) 0);
        }
        int sent = Control.crc32c(data.buffer(), 0, length);
        int slot = (int) (received % RECEIVES);
        Descriptor send = Descriptor.send();
        if (length > 0) {
            send.data(data, 0, length);
        }
        vi.postSend(send);
        Descriptor r = awaitReceive();
        int echoed = Control.crc32c(recv.buffer(), slot * MESSAGE, (int) r.length());
        long len = r.length();
        vi.postRecv(r);
        awaitSend();
        return new long[] {sent, echoed, len};
    }

    /** Posts a Send of {@code length} bytes of the data area without waiting for anything. */
    void postSend(int length) {
        vi.postSend(Descriptor.send().data(data, 0, length));
    }

    /** A control request that must answer OK; returns a copy of the reply (results at {@link Control#HEADER}). */
    ByteBuffer control(int command, ByteBuffer args) throws InterruptedException {
        int id = requestId++;
        ByteBuffer b = ctl.buffer();
        int a = Control.writeRequest(b, 0, command, id);
        int n = args == null ? 0 : args.remaining();
        if (n > 0) {
            b.put(a, args, args.position(), n);
        }
        int slot = (int) (received % RECEIVES);
        vi.postSend(Descriptor.send().data(ctl, 0, Control.HEADER + n));
        Descriptor r = awaitReceive();
        int off = slot * MESSAGE;
        int len = (int) r.length();
        ByteBuffer reply = ByteBuffer.allocate(len);
        reply.put(0, recv.buffer(), off, len);
        vi.postRecv(r);
        awaitSend();
        if (!Control.isReply(reply, 0, len) || Control.command(reply, 0) != command || Control.requestId(reply, 0) != id) {
            throw new AssertionError("no reply to " + Control.commandName(command) + " (got " + len + " bytes)");
        }
        if (Control.status(reply, 0) != Control.OK) {
            throw new AssertionError(Control.commandName(command) + ": " + Control.statusName(Control.status(reply, 0)));
        }
        return reply;
    }

    /** RDMA Writes {@code count} messages of {@code size} bytes from the data area to va, back to back. */
    void rdmaWrite(long va, int rkey, int count, int size) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            vi.postSend(Descriptor.rdmaWrite(va + (long) i * size, rkey).data(data, i * size, size));
        }
        for (int i = 0; i < count; i++) {
            awaitSend();
        }
    }

    /** RDMA Reads {@code count} messages of {@code size} bytes from va into the data area, one at a time. */
    void rdmaRead(long va, int rkey, int count, int size) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            vi.postSend(Descriptor.rdmaRead(va + (long) i * size, rkey).data(data, i * size, size));
            awaitSend();
        }
    }

    Descriptor awaitReceive() throws InterruptedException {
        Descriptor d = vi.recvWait(TIMEOUT);
        received++;
        if (d.isError()) {
            throw new AssertionError("receive completed in error: status 0x" + Integer.toHexString(d.status()));
        }
        return d;
    }

    Descriptor awaitSend() throws InterruptedException {
        Descriptor d = vi.sendWait(TIMEOUT);
        if (d.isError()) {
            throw new AssertionError("send/RDMA completed in error: status 0x" + Integer.toHexString(d.status()));
        }
        return d;
    }

    @Override
    public void close() {
        try {
            vi.disconnect();
        } catch (RuntimeException ignored) {
            // the connection may already be gone (the gateway closed it)
        }
        nic.close();
    }
}
