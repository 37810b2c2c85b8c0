package io.vibridge.interop.virping;

import io.vibridge.interop.rping.RpingInfo;
import io.vibridge.interop.rping.RpingPattern;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import io.vibridge.interop.support.Outcome;
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
import io.vibridge.vitcp.wire.IsCode;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Objects;

/**
 * rping's client role played over VI/TCP through a vibridge gateway whose route speaks {@code rdma-cm} to an
 * rping server (CM-MAPPING §5): the VI Sends carry rping's 16-byte {@link RpingInfo} naming this client's own
 * VI memory (address = the region's address, rkey = its memory handle); the gateway forwards the server's RDMA
 * READ and WRITE of those addresses to this VI as VI RDMA Read Requests and Writes (cut-through), and the
 * server's go-ahead SENDs as VI Sends. So both regions are registered with RDMA Read and Write enabled, the VI
 * too. The steps and the check are rping.c's rping_test_client ({@code -V}: the sink equals the source after
 * each ping); {@code vi.disconnect()} ends it, which the gateway turns into a CM DREQ to the server.
 */
public final class ViRpingClient {
    public static final String NAME = "vi-rping";
    /** Receives kept posted: rping's server answers each SEND with one; a spare covers a late repost. */
    static final int RECEIVES = 2;
    /** Receive slot: larger than rping's 16 bytes so that a longer SEND is seen and reported, not fatal. */
    static final int RECEIVE_SLOT = 256;

    /**
     * @param gateway       the gateway's VI/TCP listener
     * @param discriminator the route to the rping server
     * @param reliability   Reliable Delivery or Reliable Reception (the target's RDMA READ needs VI RDMA Read,
     *                      which Unreliable Delivery forbids)
     * @param count         pings ({@code -C})
     * @param size          bytes per ping ({@code -S}), rping's 26..65535
     * @param validate      {@code -V}
     * @param verbose       {@code -v}
     */
    public record Settings(InetSocketAddress gateway, String discriminator, ReliabilityLevel reliability, int count,
                           int size, boolean validate, boolean verbose) {
        public Settings {
            Objects.requireNonNull(gateway, "gateway");
            Objects.requireNonNull(discriminator, "discriminator");
            if (reliability == ReliabilityLevel.UNRELIABLE_DELIVERY) {
                throw new IllegalArgumentException("reliability must be delivery or reception: the server's RDMA READ "
                        + "becomes a VI RDMA Read, which Unreliable Delivery forbids");
            }
            if (count < 1) {
                throw new IllegalArgumentException("count (-C) must be at least 1, got " + count);
            }
            if (size < RpingPattern.MIN_SIZE || size > RpingPattern.MAX_SIZE) {
                throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + RpingPattern.MIN_SIZE
                        + " to " + RpingPattern.MAX_SIZE + ")");
            }
        }
    }

    private final Settings s;
    private final Deadline deadline;
    private final PrintStream out;
    private final ViNic nic;
    private final MemoryRegion start;
    private final MemoryRegion sink;
    private final MemoryRegion sends;
    private final MemoryRegion recvs;
    private final Vi vi;
    private final Descriptor sendSource;
    private final Descriptor sendSink;
    private int validated;

    private ViRpingClient(Settings s, Deadline deadline, PrintStream out, ViNic nic) {
        this.s = s;
        this.deadline = deadline;
        this.out = out;
        this.nic = nic;
        ProtectionTag tag = nic.createPtag();
        MemoryAttributes remote = new MemoryAttributes(tag, true, true);
        start = nic.registerMemory(ByteBuffer.allocateDirect(s.size()), remote);
        sink = nic.registerMemory(ByteBuffer.allocateDirect(s.size()), remote);
        MemoryAttributes local = new MemoryAttributes(tag, false, false);
        sends = nic.registerMemory(ByteBuffer.allocateDirect(2 * RpingInfo.LENGTH), local);
        recvs = nic.registerMemory(ByteBuffer.allocateDirect(RECEIVES * RECEIVE_SLOT), local);
        // rping_format_send: the source (start_buf) and the sink (rdma_buf), named by VI address and handle
        new RpingInfo(start.address(), start.handle(), s.size()).encode(sends.buffer(), 0);
        new RpingInfo(sink.address(), sink.handle(), s.size()).encode(sends.buffer(), RpingInfo.LENGTH);
        sendSource = Descriptor.send().data(sends, 0, RpingInfo.LENGTH);
        sendSink = Descriptor.send().data(sends, RpingInfo.LENGTH, RpingInfo.LENGTH);
        vi = nic.createVi(ViAttributes.of(s.reliability(), tag), null, null);   // RDMA Write and Read enabled
        for (int i = 0; i < RECEIVES; i++) {
            vi.postRecv(Descriptor.receive().data(recvs, i * RECEIVE_SLOT, RECEIVE_SLOT));
        }
    }

    public static Outcome run(Settings s, Deadline deadline, PrintStream out) {
        ViNic nic;
        try {
            nic = ViNic.open(NicConfig.loopback().withListen(null).withName("vi-rping"));
        } catch (IOException e) {
            return Outcome.fail(NAME, "cannot open the VI NIC: " + e);
        }
        try {
            return new ViRpingClient(s, deadline, out, nic).run();
        } catch (RuntimeException e) {
            return Outcome.fail(NAME, "VI error: " + e);
        } finally {
            nic.close();
        }
    }

    private Outcome run() {
        int ping = 0;
        try {
            connect();
            for (; ping < s.count(); ping++) {
                ping(ping);
            }
        } catch (InteropFailure f) {
            return Outcome.fail(NAME, f.getMessage() + " (after " + ping + " of " + s.count() + " pings)");
        } finally {
            disconnect();
        }
        return Outcome.pass(NAME, String.format(Locale.ROOT, "pings=%d size=%d validated=%s reliability=%s "
                        + "discriminator=%s", s.count(), s.size(), s.validate() ? Integer.toString(validated) : "off",
                s.reliability(), s.discriminator()));
    }

    private void connect() throws InteropFailure {
        out.printf(Locale.ROOT, "vi-rping: gateway %s:%d discriminator \"%s\" (%s), %d pings of %d bytes, validate "
                        + "%s%n", s.gateway().getHostString(), s.gateway().getPort(), s.discriminator(),
                s.reliability(), s.count(), s.size(), s.validate() ? "on" : "off");
        out.printf(Locale.ROOT, "source: VI address 0x%x handle 0x%x; sink: VI address 0x%x handle 0x%x%n",
                start.address(), start.handle(), sink.address(), sink.handle());
        long t0 = System.nanoTime();
        Negotiated n;
        try {
            n = vi.connectRequest(Discriminator.EMPTY,
                    new ViNetAddress(s.gateway(), Discriminator.ofUtf8(s.discriminator())), deadline.remaining());
        } catch (ViException e) {
            throw new InteropFailure("connect failed: " + describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InteropFailure("interrupted while connecting");
        }
        out.printf(Locale.ROOT, "connected in %.3f ms (MTU %d, %s, peer read window %d)%n",
                (System.nanoTime() - t0) / 1e6, n.mtu(), n.reliability(), n.peerReadWindow());
    }

    /** rping_test_client's loop body, over VI. */
    private void ping(int ping) throws InteropFailure {
        RpingPattern.fill(start.buffer(), 0, ping, s.size());
        vi.postSend(sendSource);
        awaitGoAhead("the go-ahead after the server's RDMA READ of our source (ping " + ping + ")");
        awaitSend("our source advertisement (ping " + ping + ")");
        vi.postSend(sendSink);
        awaitGoAhead("the go-ahead after the server's RDMA WRITE into our sink (ping " + ping + ")");
        awaitSend("our sink advertisement (ping " + ping + ")");
        if (s.validate()) {
            int at = RpingPattern.firstMismatch(start.buffer(), 0, sink.buffer(), 0, s.size());
            if (at >= 0) {
                throw new InteropFailure(String.format(Locale.ROOT, "data mismatch! ping %d offset %d: sink 0x%02x,"
                        + " source 0x%02x", ping, at, sink.buffer().get(at) & 0xFF, start.buffer().get(at) & 0xFF));
            }
            validated++;
        }
        if (s.verbose()) {
            out.println("ping data: " + RpingPattern.cString(sink.buffer(), 0, s.size()));
        }
    }

    /** client_recv: one 16-byte message; the receive goes back at once (rping_cq_event_handler). */
    private void awaitGoAhead(String what) throws InteropFailure {
        Descriptor d = await(true, what);
        if (d.length() != RpingInfo.LENGTH) {
            throw new InteropFailure("Received bogus data, size " + d.length() + " while waiting for " + what);
        }
        vi.postRecv(d);
    }

    private void awaitSend(String what) throws InteropFailure {
        await(false, what);
    }

    private Descriptor await(boolean receive, String what) throws InteropFailure {
        Descriptor d;
        try {
            d = receive ? vi.recvWait(deadline.remaining()) : vi.sendWait(deadline.remaining());
        } catch (ViException e) {
            if (e.code() == ViException.Code.TIMEOUT) {
                throw deadline.timeout(what);
            }
            throw new InteropFailure("VI error while waiting for " + what + ": " + e.getMessage() + " (VI "
                    + vi.state() + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InteropFailure("interrupted while waiting for " + what);
        }
        if (d.isError()) {
            throw new InteropFailure((receive ? "receive" : "send") + " failed while waiting for " + what + ": "
                    + Status.describe(d.status()) + " (VI " + vi.state() + ")");
        }
        return d;
    }

    /** VipDisconnect: the gateway sends the server a DREQ, which ends rping's server loop. */
    private void disconnect() {
        try {
            vi.disconnect();
            out.println("disconnected");
        } catch (RuntimeException e) {
            out.println("disconnect: " + e.getMessage());
        }
    }

    static String describe(ViException e) {
        return switch (e.code()) {
            case NO_MATCH -> "No Match: no route or listener for this discriminator (" + e.getMessage() + ")";
            case REJECT -> "Connect Reject, IS " + e.isCode() + " (" + IsCode.describe(e.isCode()) + ")";
            case TIMEOUT -> "timeout: " + e.getMessage();
            case NOT_REACHABLE -> "not reachable: " + e.getMessage();
            default -> e.code() + ": " + e.getMessage();
        };
    }
}
