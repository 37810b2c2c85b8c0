package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Two provider instances (two NICs) talking over real loopback TCP, OS-chosen ports. */
final class Fixture implements AutoCloseable {
    static final Duration T = Duration.ofSeconds(20);
    static final Discriminator SERVER = Discriminator.ofUtf8("server");
    static final Discriminator CLIENT = Discriminator.ofUtf8("client");

    /** Each task on its own thread (the common pool may have a single worker on a small machine). */
    static final java.util.concurrent.Executor OWN_THREAD = r -> Thread.ofVirtual().start(r);

    final ViNic server;
    final ViNic client;
    final ProtectionTag serverTag;
    final ProtectionTag clientTag;
    Vi serverVi;
    Vi clientVi;

    Fixture() throws IOException {
        this(NicConfig.loopback().withName("server"), NicConfig.loopback().withName("client"));
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
            clientVi.connectRequest(CLIENT, server.address(SERVER), T);
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
