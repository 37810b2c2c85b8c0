package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.iwarp.mpa.MpaFrame;
import io.vibridge.iwarp.mpa.MpaKey;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * iWARP client (the engine's initiator role) -> the gateway's iWARP listener -> soft fabric -> target, one
 * JVM, over real sockets: Sends both ways, client RDMA Write and Read, the target's cut-through WRITE and
 * READ into the client's STags, with CRC off and on and both FlowC modes, and the refusals.
 */
class IwarpBridgeTest {
    static EchoTarget target;
    static GatewayServer gateway;

    @BeforeAll
    static void start() {
        target = new EchoTarget("127.0.0.65", 5000, 8, 65552);
        gateway = GatewayServer.start(TestSupport.config("127.0.0.66",
                TestSupport.route("echo0", "127.0.0.65", 5000, 0, 8) + ","
                        + TestSupport.route("echo1", "127.0.0.65", 5000, 1, 8) + ","
                        + TestSupport.route("absent", "127.0.0.79", 5000, 1, 8),
                "iwarp { host = \"127.0.0.1\", listeners = [ { port = 0, route = \"echo0\" },"
                        + " { port = 0, route = \"echo1\" }, { port = 0, route = \"absent\" } ] }"));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (target != null) {
            target.close();
        }
    }

    static int port(int flowc) {
        return gateway.iwarpPorts().get(flowc);
    }

    @ParameterizedTest(name = "FlowC {0}, CRC {1}")
    @CsvSource({"0, false", "0, true", "1, false", "1, true"})
    void sendsAreEchoed(int flowc, boolean crc) throws Exception {
        long setups = gateway.registry().get("vibridge.connect.setup").timer().count();
        try (var c = new IwarpClient(port(flowc), crc).awaitEstablished(T)) {
            assertThat(c.engine.settings().crc()).isEqualTo(crc);
            // the MPA Request to Reply time is in the connect-setup histogram
            EndToEndTest.awaitTrue(() -> gateway.registry().get("vibridge.connect.setup").timer().count() == setups + 1);
            Random r = new Random(flowc * 2L + (crc ? 1 : 0));
            for (int size : new int[] {1, 100, 1442, 1443, 4096, 65000, 65536, 7, 30000}) {
                byte[] m = new byte[size];
                r.nextBytes(m);
                m[0] = 1; // never one of the target's command words
                c.send(m);
                assertThat(c.awaitSend(T)).as("echo of %d bytes", size).isEqualTo(m);
            }
            // pipelined: several Sends in flight at once, echoed in order
            byte[][] sent = new byte[6][];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = new byte[20000 + i];
                r.nextBytes(sent[i]);
                sent[i][0] = 2;
                c.send(sent[i]);
            }
            for (byte[] m : sent) {
                assertThat(c.awaitSend(T)).isEqualTo(m);
            }
        }
    }

    @ParameterizedTest(name = "FlowC {0}")
    @CsvSource({"0", "1"})
    void clientRdmaWriteThenReadBack(int flowc) throws Exception {
        try (var c = new IwarpClient(port(flowc), true).awaitEstablished(T)) {
            long base = target.rdma.address() + 4 * 65536L + flowc * 131072L;
            int rkey = target.rdma.rkey();
            for (int size : new int[] {65536, 1, 0, 40000, 1442}) {
                byte[] data = new byte[size];
                new Random(size).nextBytes(data);
                c.write(rkey, base, data);
                c.read(rkey, base, size);
                assertThat(c.awaitRead(T)).as("%d bytes written and read back", size).isEqualTo(data);
            }
        }
    }

    @ParameterizedTest(name = "FlowC {0}, solicited {1}")
    @CsvSource({"0, false", "0, true", "1, false", "1, true"})
    void sendWithInvalidateCrossesBothWaysWithItsKey(int flowc, boolean solicited) throws Exception {
        // IWARP-MAPPING §3: Send with Invalidate <-> SEND with Invalidate, the STag passed through as the R_Key;
        // the target echoes what it got as a SEND with Invalidate of the same key (EchoTarget)
        double in = invalidates("client_to_target");
        double out = invalidates("target_to_client");
        int seen = target.invalidates.get();
        try (var c = new IwarpClient(port(flowc), false).awaitEstablished(T)) {
            for (int size : new int[] {0, 64, 1443, 65536}) {
                byte[] m = new byte[size];
                new Random(size).nextBytes(m);
                if (size > 0) {
                    m[0] = 9; // never one of the target's command words
                }
                int stag = 0x5A5A_0100 + size;
                c.send(m, solicited, stag);
                assertThat(c.awaitSend(T)).as("%d bytes", size).isEqualTo(m);
                assertThat(c.lastSendOpcode).isEqualTo(solicited ? RdmapOpcode.SEND_SE_INVALIDATE
                        : RdmapOpcode.SEND_INVALIDATE);
                assertThat(c.lastSendInvalidateStag).isEqualTo(stag);
            }
            // a plain Send stays plain
            c.send(new byte[] {9, 1});
            c.awaitSend(T);
            assertThat(c.lastSendOpcode).isEqualTo(RdmapOpcode.SEND);
        }
        assertThat(target.invalidates.get()).isEqualTo(seen + 4);
        assertThat(invalidates("client_to_target")).isEqualTo(in + 4);
        assertThat(invalidates("target_to_client")).isEqualTo(out + 4);
    }

    private static double invalidates(String direction) {
        return gateway.registry().get("vibridge.send.invalidate").tag("encapsulation", "iwarp")
                .tag("direction", direction).counter().count();
    }

    @ParameterizedTest(name = "FlowC {0}")
    @CsvSource({"0", "1"})
    void readsLongerThanAStagingSlotAreSplitAndAnsweredAsOneReadResponse(int flowc) throws Exception {
        // IWARP-MAPPING §3: slot-sized READs, one Read Response in order; 2 MiB outnumbers the connection's slots
        try (var c = new IwarpClient(port(flowc), flowc == 1).awaitEstablished(T)) {
            long base = target.rdma.address() + 4 * 65536L + 2 * 131072L;
            int rkey = target.rdma.rkey();
            byte[] data = new byte[2 << 20];
            new Random(flowc).nextBytes(data);
            for (int off = 0; off < data.length; off += 60000) {
                c.write(rkey, base + off, Arrays.copyOfRange(data, off, Math.min(data.length, off + 60000)));
            }
            for (int size : new int[] {65537, 300_000, 2 << 20}) {
                c.read(rkey, base, size);
                assertThat(c.awaitRead(T)).as("a %d-byte Read", size).isEqualTo(Arrays.copyOf(data, size));
            }
            // two in a row, then a Send: nothing overtakes, nothing interleaves
            c.read(rkey, base + 100, 200_000);
            c.read(rkey, base + 7, 70_000);
            byte[] m = {1, 2, 3, 4};
            c.send(m);
            assertThat(c.awaitRead(T)).isEqualTo(Arrays.copyOfRange(data, 100, 200_100));
            assertThat(c.awaitRead(T)).isEqualTo(Arrays.copyOfRange(data, 7, 70_007));
            assertThat(c.awaitSend(T)).isEqualTo(m);
        }
    }

    @ParameterizedTest(name = "FlowC {0}")
    @CsvSource({"0", "1"})
    void targetWritesAndReadsTheClientsMemory(int flowc) throws Exception {
        try (var c = new IwarpClient(port(flowc), false).awaitEstablished(T)) {
            int stag = 0x00C0FF00 + flowc;
            ByteBuffer mem = ByteBuffer.allocate(128 * 1024);
            c.memory.put(stag, mem);
            // the target RDMA WRITEs its pattern to the client's STag (cut-through), then echoes the command
            int len = 70000;
            c.send(command(EchoTarget.CUT_WRITE, 1000, stag, len));
            c.awaitSend(T);
            for (int i = 0; i < len; i++) {
                assertThat(mem.get(1000 + i)).as("byte %d", i).isEqualTo((byte) (i * 31 + 7));
            }
            // the target RDMA READs the client's memory and answers with its CRC-32C
            byte[] data = new byte[50000];
            new Random(5).nextBytes(data);
            mem.put(3000, data);
            c.send(command(EchoTarget.CUT_READ, 3000, stag, data.length));
            CRC32C crc = new CRC32C();
            crc.update(data);
            assertThat(ByteBuffer.wrap(c.awaitSend(T)).getLong()).isEqualTo(crc.getValue());
        }
    }

    private static byte[] command(int word, long va, int rkey, int len) {
        return ByteBuffer.allocate(20).putInt(word).putLong(va).putInt(rkey).putInt(len).array();
    }

    @Test
    void anUnreachableTargetIsARejectReplyWithTheReason() throws Exception {
        try (var c = new IwarpClient(gateway.iwarpPorts().get(2), false)) {
            assertThat(c.closedByGateway(Duration.ofSeconds(30))).isTrue();
            assertThat(c.failure).isNotNull();
            assertThat(c.failure.getMessage()).contains("rejected").contains("CM timeout");
        }
    }

    @Test
    void revisionOneIsRefusedWithAReason() throws Exception {
        try (SocketChannel s = SocketChannel.open(new InetSocketAddress("127.0.0.1", port(1)))) {
            s.write(ByteBuffer.wrap(new MpaFrame(MpaKey.REQUEST, false, false, false, false, 1, new byte[0])
                    .toBytes()));
            ByteBuffer in = ByteBuffer.allocate(1024);
            s.socket().setSoTimeout(10_000);
            while (s.read(in) >= 0) {
                // to EOF: the gateway closes after its Reject Reply
            }
            in.flip();
            MpaFrame reply = MpaFrame.decode(in, 0, in.limit(), MpaKey.REPLY);
            assertThat(reply.reject()).isTrue();
            assertThat(new String(reply.privateData(), StandardCharsets.US_ASCII)).contains("revision 1");
        }
    }

    @Test
    void aCorruptFpduIsTerminatedAndTheStreamClosed() throws Exception {
        try (var c = new IwarpClient(port(1), true).awaitEstablished(T)) {
            c.send(new byte[] {1, 2, 3});
            assertThat(c.awaitSend(T)).containsExactly(1, 2, 3);
            // a Send whose CRC is wrong: the gateway must not forward it, and ends the stream with a Terminate
            ByteBuffer b = ByteBuffer.allocate(c.engine.length(RdmapOpcode.SEND, 8));
            c.engine.send(b, ByteBuffer.wrap(new byte[8]), 0, 8, false, 0);
            b.put(b.position() - 1, (byte) (b.get(b.position() - 1) ^ 1));
            b.flip();
            while (b.hasRemaining()) {
                c.channel.write(b);
            }
            long echoed = target.received.get();
            assertThat(c.closedByGateway(Duration.ofSeconds(20))).isTrue();
            assertThat(c.terminate).isNotNull();
            assertThat(c.terminate.code()).isEqualTo(TerminateCode.MPA_CRC);
            assertThat(target.received.get()).isEqualTo(echoed);
        }
    }

    @Test
    void connectionsAreListedWithTheirFrontEnd() throws Exception {
        try (var c = new IwarpClient(port(1), false).awaitEstablished(T)) {
            c.send(new byte[] {9});
            c.awaitSend(T);
            var infos = gateway.bridgeContext().connections().stream().map(BridgedConnection::info).toList();
            assertThat(infos).extracting(i -> i.frontEnd() + " " + i.route() + " " + i.state())
                    .contains("iwarp \"echo1\" CONNECTED");
        }
        EndToEndTest.awaitTrue(() -> gateway.bridgeContext().connections().isEmpty());
    }
}
