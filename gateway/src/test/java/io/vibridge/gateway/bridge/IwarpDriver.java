package io.vibridge.gateway.bridge;

import static io.vibridge.gateway.bridge.TestSupport.T;
import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.tools.IwarpClient;
import io.vibridge.iwarp.engine.IwarpConnection;
import io.vibridge.iwarp.mpa.Fpdu;
import io.vibridge.iwarp.mpa.MpaInitiator;
import io.vibridge.iwarp.mpa.MpaV2Params;
import io.vibridge.iwarp.wire.DdpSegment;
import io.vibridge.iwarp.wire.RdmapOpcode;
import io.vibridge.iwarp.wire.ReadRequest;
import io.vibridge.iwarp.wire.TerminateCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * iWARP clients ({@link IwarpClient}, the engine's initiator role) of the gateway's iWARP listeners, one
 * listener per route (MPA names no service: the port chooses the route). Hostile input is laid out by hand:
 * FPDUs sealed with the CRC the stream negotiated, so that the gateway judges what they carry.
 */
final class IwarpDriver implements ClientDriver {
    private final Duration requestTimeout;
    private final List<String> routes;

    IwarpDriver(Duration requestTimeout, List<String> routes) {
        this.requestTimeout = requestTimeout;
        this.routes = routes;
    }

    @Override
    public String config() {
        StringBuilder b = new StringBuilder("iwarp { host = \"127.0.0.1\", request-timeout = ")
                .append(requestTimeout.toMillis()).append("ms, listeners = [");
        for (String r : routes) {
            b.append(r == routes.getFirst() ? " " : ", ").append("{ port = 0, route = \"").append(r).append("\" }");
        }
        return b.append(" ] }").toString();
    }

    @Override
    public ClientProtocol protocol() {
        return ClientProtocol.IWARP;
    }

    private int port(GatewayServer gateway, String route) {
        int i = routes.indexOf(route);
        if (i < 0) {
            throw new IllegalArgumentException("no iWARP listener for route " + route);
        }
        return gateway.iwarpPorts().get(i);
    }

    @Override
    public Session connect(GatewayServer gateway, String route, Assurance assurance, int unreadEchoes)
            throws IOException {
        // unread echoes wait in the client's TCP receive buffer: the gateway's output is not held up by them
        IwarpClient c = new IwarpClient(port(gateway, route), assurance != Assurance.WEAKEST).awaitEstablished(T);
        assertThat(c.engine.state()).as("MPA Reply (failure %s)", c.failure)
                .isEqualTo(IwarpConnection.State.ESTABLISHED);
        return new IwarpSession(c);
    }

    @Override
    public Hostile hostile(GatewayServer gateway, String route) throws IOException {
        return new Stream(SocketChannel.open(new InetSocketAddress("127.0.0.1", port(gateway, route))), null);
    }

    @Override
    public Hostile established(GatewayServer gateway, String route) throws IOException {
        IwarpClient c = new IwarpClient(port(gateway, route), true).awaitEstablished(T);
        assertThat(c.engine.state()).as("MPA Reply (failure %s)", c.failure)
                .isEqualTo(IwarpConnection.State.ESTABLISHED);
        return new Stream(c.channel, c);
    }

    @Override
    public String reason(Hostility input) {
        return switch (input) {
            case SILENT, PART_OF_THE_REQUEST -> "no MPA Request within";
            case GARBAGE_BEFORE_THE_REQUEST -> "protocol error: Key at offset 0";
            case MESSAGE_TOO_LARGE -> "a Send longer than the";
            case OVERSIZED_RDMA_LENGTH -> "InfiniBand reads at most 2 GiB - 1 in one READ";
            case RESERVED_OPCODE -> "is not an RDMAP opcode";
        };
    }

    @Override
    public void close() {
    }

    private static final class IwarpSession implements Session {
        private final IwarpClient c;

        IwarpSession(IwarpClient c) {
            this.c = c;
        }

        @Override
        public void send(byte[] message) throws IOException {
            c.send(message);
        }

        @Override
        public byte[] awaitEcho() throws IOException {
            return c.awaitSend(T);
        }

        /** A FIN whatever the client left unread (closing with unread bytes would reset the stream instead). */
        @Override
        public void leave() throws IOException {
            c.channel.shutdownOutput();
        }

        /**
         * IWARP-MAPPING "Disconnects": a disconnect ends the stream with a FIN, as siw closes a stream whose QP
         * disconnects; a failure of the InfiniBand side sends a Terminate first (RFC 5040 §5.3).
         */
        @Override
        public void assertClosedByGateway(Ending how) throws IOException {
            assertThat(c.closedByGateway(T)).as("the gateway closed the stream").isTrue();
            switch (how) {
                case ORDERLY -> assertThat(c.terminate).as("a FIN, not a Terminate").isNull();
                case FAILURE -> {
                    assertThat(c.terminate).as("a Terminate before the FIN").isNotNull();
                    assertThat(c.terminate.code()).isEqualTo(TerminateCode.RDMAP_CATASTROPHIC_STREAM);
                }
            }
        }

        @Override
        public void close() throws IOException {
            c.close();
        }
    }

    /** A hand-driven stream: before its MPA Request ({@code client} null) or established on {@code client}. */
    private static final class Stream implements Hostile {
        private final SocketChannel ch;
        private final IwarpClient client;

        Stream(SocketChannel ch, IwarpClient client) {
            this.ch = ch;
            this.client = client;
        }

        @Override
        public int localPort() throws IOException {
            return ((InetSocketAddress) ch.getLocalAddress()).getPort();
        }

        private IwarpClient client() {
            if (client == null) {
                throw new IllegalStateException("the stream has no MPA Reply: use established()");
            }
            return client;
        }

        private void write(ByteBuffer b) throws IOException {
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        @Override
        public void sendPartOfTheRequest() throws IOException {
            byte[] request = new MpaInitiator(true, MpaV2Params.of(4, 4), new byte[0]).request();
            write(ByteBuffer.wrap(request, 0, 10));
        }

        @Override
        public void sendGarbage() throws IOException {
            byte[] junk = new byte[300];
            new Random(1).nextBytes(junk);
            junk[0] = 7; // not the 'M' of "MPA ID Req Frame"
            write(ByteBuffer.wrap(junk));
        }

        /** A Send of 80,000 bytes: more than the target's receive size (65,552) and a staging slot. */
        @Override
        public void sendMessageLargerThanTheLimit() throws IOException {
            byte[] m = new byte[80_000];
            new Random(2).nextBytes(m);
            m[0] = 1; // never one of the target's command words
            client().send(m);
        }

        /** A Read Request of 2 GiB (RDMA Read Message Size 0x80000000, RFC 5040 §4.4). */
        @Override
        public void sendOversizedRdmaLength() throws IOException {
            int ulpdu = RdmapOpcode.READ_REQUEST.headerLength();
            ByteBuffer b = ByteBuffer.allocate(Fpdu.length(ulpdu));
            DdpSegment.writeUntagged(b, Fpdu.LENGTH_FIELD, RdmapOpcode.READ_REQUEST, true, 0, 1, 0);
            new ReadRequest(0x100, 0, 1 << 31, 0x1234, 0).encode(b, Fpdu.LENGTH_FIELD + DdpSegment.UNTAGGED_HEADER);
            seal(b, ulpdu);
        }

        /** A Send's segment whose RDMAP opcode is 0xF, which RFC 5040 §4.3 reserves (RFC 7306 uses 0x8-0xC). */
        @Override
        public void sendReservedOpcode() throws IOException {
            int ulpdu = DdpSegment.UNTAGGED_HEADER + 4;
            ByteBuffer b = ByteBuffer.allocate(Fpdu.length(ulpdu));
            DdpSegment.writeUntagged(b, Fpdu.LENGTH_FIELD, RdmapOpcode.SEND, true, 0, 1, 0);
            b.put(Fpdu.LENGTH_FIELD + 1, (byte) (DdpSegment.RDMAP_VERSION << 6 | 0xF));
            seal(b, ulpdu);
        }

        /** The first FPDU of a 10,000-byte Send. */
        @Override
        public void sendPartOfAMessage() throws IOException {
            IwarpClient c = client();
            ByteBuffer b = ByteBuffer.allocate(c.engine.length(RdmapOpcode.SEND, 10_000));
            byte[] m = new byte[10_000];
            m[0] = 1;
            c.engine.send(b, ByteBuffer.wrap(m), 0, m.length, false, 0);
            write(b.flip().limit(Fpdu.length(Fpdu.ulpduLength(b, 0))));
        }

        /** Completes the FPDU whose ULPDU is laid out after its length field, with the negotiated CRC. */
        private void seal(ByteBuffer b, int ulpdu) throws IOException {
            boolean crc = client().engine.settings().crc();
            int n = Fpdu.seal(b, 0, ulpdu, crc ? new CRC32C() : null);
            write(b.limit(n));
        }

        @Override
        public void assertClosedByGateway(Hostility input) throws IOException {
            if (client == null) {
                // RFC 5044 §7.1.2: before the MPA Reply there is no FPDU stream to carry a Terminate
                ch.socket().setSoTimeout((int) T.toMillis());
                byte[] got = ch.socket().getInputStream().readAllBytes();
                assertThat(got).as("closed after %s, nothing sent", input).isEmpty();
                return;
            }
            assertThat(client.closedByGateway(T)).as("closed by the gateway after %s", input).isTrue();
            TerminateCode expected = switch (input) {
                case MESSAGE_TOO_LARGE -> TerminateCode.DDP_UNTAGGED_TOO_LONG;
                case OVERSIZED_RDMA_LENGTH -> TerminateCode.RDMAP_UNSPECIFIED;
                case RESERVED_OPCODE -> TerminateCode.RDMAP_UNEXPECTED_OPCODE;
                case SILENT, PART_OF_THE_REQUEST, GARBAGE_BEFORE_THE_REQUEST ->
                        throw new IllegalArgumentException(input + " comes before the MPA Reply");
            };
            assertThat(client.terminate).as("a Terminate before the FIN (RFC 5040 §5.3)").isNotNull();
            assertThat(client.terminate.code()).isEqualTo(expected);
        }

        @Override
        public void close() throws IOException {
            if (client != null) {
                client.close();
            } else {
                ch.close();
            }
        }
    }
}
