package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Two provider instances (two NICs) talking over real loopback TCP, OS-chosen ports, in the
 * encapsulation the system property {@code vibridge.test.framing} names ({@code vitcp}, the default, or
 * {@code rdmatcp}): the build runs this package's tests once in each (VITCP-PROFILE §8).
 */
final class Fixture implements AutoCloseable {
    static final Encapsulation FRAMING = Encapsulation.ofLabel(System.getProperty("vibridge.test.framing", "vitcp"));
    static final Duration T = Duration.ofSeconds(20);
    static final Discriminator SERVER = Discriminator.ofUtf8("server");
    static final Discriminator CLIENT = Discriminator.ofUtf8("client");

    /** Each task on its own thread (the common pool may have a single worker on a small machine). */
    static final Executor OWN_THREAD = r -> Thread.ofVirtual().start(r);

    final ViNic server;
    final ViNic client;
    final ProtectionTag serverTag;
    final ProtectionTag clientTag;
    Vi serverVi;
    Vi clientVi;

    Fixture() throws IOException {
        this(loopback("server"), loopback("client"));
    }

    /** A loopback NIC listening in {@link #FRAMING}. */
    static NicConfig loopback(String name) {
        NicConfig c = NicConfig.loopback().withName(name);
        return FRAMING == Encapsulation.RDMATCP
                ? c.withRdmaTcpListen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)) : c;
    }

    /** The port of {@code nic} that speaks {@link #FRAMING}. */
    static InetSocketAddress port(ViNic nic) {
        return FRAMING == Encapsulation.RDMATCP ? nic.rdmaTcpAddress() : nic.localAddress();
    }

    /** {@code discriminator} on {@code nic}'s port of {@link #FRAMING}. */
    static ViNetAddress address(ViNic nic, Discriminator discriminator) {
        return nic.address(discriminator, FRAMING);
    }

    /** {@code discriminator} on the server NIC. */
    ViNetAddress serverAddress(Discriminator discriminator) {
        return address(server, discriminator);
    }

    Fixture(NicConfig serverConfig, NicConfig clientConfig) throws IOException {
        server = ViNic.open(serverConfig);
        client = ViNic.open(clientConfig);
        serverTag = server.createPtag();
        clientTag = client.createPtag();
    }

    static MemoryRegion region(ViNic nic, ProtectionTag tag, int size, boolean write, boolean read) {
        return nic.registerMemory(ByteBuffer.allocateDirect(size), new MemoryAttributes(tag, write, read));
    }

    MemoryRegion serverRegion(int size) {
        return region(server, serverTag, size, true, true);
    }

    MemoryRegion clientRegion(int size) {
        return region(client, clientTag, size, true, true);
    }

    ViAttributes serverAttributes(ReliabilityLevel level) {
        return ViAttributes.of(level, serverTag);
    }

    ViAttributes clientAttributes(ReliabilityLevel level) {
        return ViAttributes.of(level, clientTag);
    }

    /** Creates both VIs (server side pre-posts via {@code beforeConnect}) and connects them. */
    void connect(ViAttributes serverAttrs, ViAttributes clientAttrs) throws Exception {
        serverVi = server.createVi(serverAttrs, null, null);
        clientVi = client.createVi(clientAttrs, null, null);
        connectExisting();
    }

    void connect(ReliabilityLevel level) throws Exception {
        connect(serverAttributes(level), clientAttributes(level));
    }

    void connectExisting() throws Exception {
        try (ConnectListener l = server.listen(SERVER)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try {
                    l.connectWait(T).accept(serverVi);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, OWN_THREAD);
            clientVi.connectRequest(CLIENT, serverAddress(SERVER), T);
            accepted.get(T.toSeconds(), TimeUnit.SECONDS);
        }
    }

    static void fill(MemoryRegion r, int offset, int length, int seed) {
        ByteBuffer b = r.buffer();
        for (int i = 0; i < length; i++) {
            b.put(offset + i, (byte) (seed + i * 31));
        }
    }

    static byte[] bytes(MemoryRegion r, int offset, int length) {
        byte[] out = new byte[length];
        r.buffer().get(offset, out);
        return out;
    }

    static byte[] expected(int length, int seed) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = (byte) (seed + i * 31);
        }
        return out;
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
