package io.vibridge.iwarp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.wire.TerminateCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link IwarpEndpoint} against the engine's responder role ({@link ResponderPeer}) over loopback TCP. */
class IwarpEndpointTest {
    static final Duration T = Duration.ofSeconds(20);

    static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    static String ascii(ByteBuffer b, int length) {
        byte[] a = new byte[length];
        b.get(b.position(), a);
        return new String(a, StandardCharsets.US_ASCII);
    }

    /** The next completion, which must come. */
    static Completion next(IwarpEndpoint ep) throws IOException {
        Completion c = ep.poll(T);
        assertThat(c).as("a completion within %s", T).isNotNull();
        return c;
    }

    @Test
    void theFiveCalls_connectPostRecvPostSendPollClose() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults())) {
            assertThat(ep.settings().crc()).as("CRC asked for by default").isTrue();
            assertThat(ep.settings().ord()).isEqualTo(4);
            ByteBuffer recv = ByteBuffer.allocateDirect(65536);
            ep.postRecv(recv, 1);
            String text = "x".repeat(5000) + " over several FPDUs";
            ep.postSend(ascii(text), 2);

            assertThat(next(ep)).isEqualTo(new Completion(2, WorkKind.SEND, text.length()));
            Completion r = next(ep);
            assertThat(r).isEqualTo(new Completion(1, WorkKind.RECV, text.length()));
            assertThat(ascii(recv, r.byteLength())).isEqualTo(text);
            assertThat(recv.position()).as("the buffer's position does not move").isZero();
        }
    }

    @Test
    void aSendOfThePeerWaitsForAReceiveBufferInsteadOfEndingTheStream() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults().withCrc(false))) {
            ep.postSend(ascii("first"), 1);
            ep.postSend(ascii("second"), 2);
            assertThat(next(ep).wrId()).isEqualTo(1);
            assertThat(next(ep).wrId()).isEqualTo(2);
            assertThat(ep.poll(Duration.ofMillis(300))).as("no receive posted: nothing completes").isNull();

            ByteBuffer a = ByteBuffer.allocate(100);
            ByteBuffer b = ByteBuffer.allocate(100);
            ep.postRecv(a, 10);
            ep.postRecv(b, 11);
            Completion first = next(ep);
            Completion second = next(ep);
            assertThat(first).isEqualTo(new Completion(10, WorkKind.RECV, 5));
            assertThat(second).isEqualTo(new Completion(11, WorkKind.RECV, 6));
            assertThat(ascii(a, 5)).isEqualTo("first");
            assertThat(ascii(b, 6)).isEqualTo("second");
        }
    }

    @Test
    void thePeerWritesAndReadsRegisteredMemory() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults())) {
            ByteBuffer region = ByteBuffer.allocateDirect(16 * 1024);
            int stag = ep.registerMemory(region);
            ByteBuffer recv = ByteBuffer.allocate(8192);

            ep.postRecv(recv, 1);
            ep.postSend(ascii("W " + stag + " 100 3000"), 2);
            assertThat(next(ep).kind()).isEqualTo(WorkKind.SEND);
            Completion done = next(ep);
            assertThat(ascii(recv, done.byteLength())).isEqualTo("written");
            byte[] written = new byte[3000];
            region.get(100, written);
            assertThat(written).isEqualTo(ResponderPeer.pattern(3000));

            ep.postRecv(recv, 3);
            ep.postSend(ascii("R " + stag + " 0 4000"), 4);
            assertThat(next(ep).kind()).isEqualTo(WorkKind.SEND);
            Completion read = next(ep);
            assertThat(read.byteLength()).as("E and the 4000 bytes the peer read").isEqualTo(4001);
            byte[] echoed = new byte[4000];
            recv.get(1, echoed);
            byte[] expected = new byte[4000];
            region.get(0, expected);
            assertThat(echoed).isEqualTo(expected);
        }
    }

    @Test
    void rdmaWriteAndReadOfThePeersMemory() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults())) {
            byte[] data = ResponderPeer.pattern(20_000);
            ep.postWrite(ByteBuffer.wrap(data), ResponderPeer.STAG, 10, 1);
            assertThat(next(ep)).isEqualTo(new Completion(1, WorkKind.RDMA_WRITE, 20_000));

            ByteBuffer sink = ByteBuffer.allocateDirect(20_000);
            ep.postRead(sink, ResponderPeer.STAG, 10, 2);
            assertThat(next(ep)).isEqualTo(new Completion(2, WorkKind.RDMA_READ, 20_000));
            byte[] back = new byte[20_000];
            sink.get(0, back);
            assertThat(back).isEqualTo(data);
        }
    }

    @Test
    void aSendLongerThanTheReceiveBufferTerminatesTheStream() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults())) {
            ep.postRecv(ByteBuffer.allocate(100), 1);
            ep.postSend(ascii("L 101"), 2);
            assertThat(next(ep).kind()).as("what completed before the stream ended").isEqualTo(WorkKind.SEND);
            assertThatThrownBy(() -> ep.poll(T)).isInstanceOfSatisfying(IwarpException.class,
                    e -> assertThat(e.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_TOO_LONG));
            peer.awaitEnd();
            assertThat(peer.terminateReceived).as("the peer got the Terminate").isNotNull();
            assertThat(peer.terminateReceived.code()).isEqualTo(TerminateCode.DDP_UNTAGGED_TOO_LONG);
        }
    }

    @Test
    void aWriteToAnUnknownStagTerminatesTheStream() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(false);
             IwarpEndpoint ep = IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults())) {
            ep.postRecv(ByteBuffer.allocate(100), 1);
            ep.postSend(ascii("W 12345 0 10"), 2);
            next(ep);
            assertThatThrownBy(() -> ep.poll(T)).isInstanceOfSatisfying(IwarpException.class,
                    e -> assertThat(e.code()).isEqualTo(TerminateCode.DDP_TAGGED_INVALID_STAG));
            assertThatThrownBy(() -> ep.postSend(ascii("more"), 3)).as("nothing more may be posted")
                    .isInstanceOf(IwarpException.class);
        }
    }

    @Test
    void aRejectedRequestFailsTheConnectWithThePeersReason() throws Exception {
        try (ResponderPeer peer = new ResponderPeer(true)) {
            assertThatThrownBy(() -> IwarpEndpoint.connect(peer.address(), IwarpOptions.defaults()))
                    .isInstanceOf(IwarpException.class).hasMessageContaining("not today");
        }
    }
}
