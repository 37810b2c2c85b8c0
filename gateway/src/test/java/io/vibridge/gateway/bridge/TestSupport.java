package io.vibridge.gateway.bridge;

import com.typesafe.config.ConfigFactory;
import io.vibridge.gateway.config.GatewayConfig;
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
import io.vibridge.vitcp.wire.Encapsulation;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.zip.CRC32C;

/** Gateway configurations and VI/TCP clients (vitcp's provider library) for the bridge tests. */
public final class TestSupport {
    static final Duration T = Duration.ofSeconds(30);

    /**
     * Extra configuration for suites about neither the shutdown grace nor CM timeouts: a grace beyond {@link #T}
     * (no connection ends by its grace timer within an await) and CM timeouts a cold, busy JVM meets (the
     * target's first REP may take longer than the 67 ms of {@link #config}).
     */
    static final String PATIENT = "shutdown-grace = 60s\ninfiniband { cm-response-timeout = 18, max-cm-retries = 3 }";

    private TestSupport() {
    }

    /** A gateway config on loopback with OS-chosen ports, the soft device at {@code ib} and routes as HOCON. */
    public static GatewayConfig config(String ib, String routes, String extra) {
        String hocon = "vibridge.gateway { listen { host = \"127.0.0.1\", port = 0, rdmatcp-port = 0 }\n"
                + "admin { host = \"127.0.0.1\", port = 0 }\n"
                + "infiniband { provider = soft, address = \"" + ib + "\", local-ack-timeout = 14, cm-response-timeout = 14, max-cm-retries = 2 }\n"
                + "shutdown-grace = 5s\n"
                + "routes = [" + routes + "]\n" + extra + "\n}";
        return GatewayConfig.from(ConfigFactory.parseString(hocon));
    }

    public static String route(String match, String target, int port, int flowc, int bufs) {
        return "{ match = \"" + match + "\", target = \"" + target + "\", port = " + port + ", flowc = " + flowc
                + ", receive-size = 65552, receive-buffers = " + bufs + " }";
    }

    static ViNic clientNic() throws IOException {
        return ViNic.open(NicConfig.loopback().withListen(null).withName("client"));
    }

    /** A connected client VI with {@code recvs} receives of 64 KiB pre-posted from {@code mr}. */
    static final class Client implements AutoCloseable {
        final ViNic nic;
        final ProtectionTag tag;
        final MemoryRegion mr;
        final Vi vi;
        final int recvs;

        Client(ViNic nic, ReliabilityLevel level, boolean flowControl, int recvs) {
            this.nic = nic;
            this.tag = nic.createPtag();
            this.recvs = recvs;
            mr = nic.registerMemory(ByteBuffer.allocateDirect((recvs + 8) * 65536), new MemoryAttributes(tag, true, true));
            vi = nic.createVi(ViAttributes.of(level, tag).withMtu(65536).withFlowControl(flowControl), null, null);
            for (int i = 0; i < recvs; i++) {
                vi.postRecv(Descriptor.receive().data(mr, i * 65536, 65536));
            }
        }

        void connect(int port, String called) throws InterruptedException {
            connect(port, called, Encapsulation.VITCP);
        }

        /** Connects to the gateway's listener of {@code framing} on {@code port} (VITCP-PROFILE §8). */
        void connect(int port, String called, Encapsulation framing) throws InterruptedException {
            vi.connectRequest(Discriminator.ofUtf8("client"), new ViNetAddress(new InetSocketAddress("127.0.0.1", port),
                    Discriminator.ofUtf8(called), framing), T);
        }

        /** Offset of the send area (after the receive buffers). */
        int sendArea(int i) {
            return (recvs + i) * 65536;
        }

        @Override
        public void close() {
            try {
                vi.disconnect();
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
    }

    static void fill(MemoryRegion mr, int off, int len, long seed) {
        Random r = new Random(seed);
        ByteBuffer b = mr.buffer();
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) r.nextInt());
        }
    }

    static long crc(ByteBuffer b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b.duplicate().position(off).limit(off + len));
        return c.getValue();
    }
}
