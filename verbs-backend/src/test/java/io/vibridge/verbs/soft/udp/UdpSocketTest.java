package io.vibridge.verbs.soft.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Both sockets over loopback (addresses 127.0.0.41-49, outside TestDevices' range): a segmented send
 * arrives as one group at a UDP_GRO socket and as separate datagrams at a plain one, the portable
 * socket's "segmented" send is separate datagrams, sources are reported, and close wakes a receiver.
 */
class UdpSocketTest {
    private static final int PORT = 4799;

    private static UdpSocket open(String ip, UdpSocket.Offload offload) throws IOException {
        return UdpSocket.open(InetAddress.getByName(ip), PORT, 1 << 20, offload);
    }

    private static ByteBuffer pattern(int len) {
        ByteBuffer b = ByteBuffer.allocateDirect(UdpSocket.MAX_PAYLOAD);
        for (int i = 0; i < len; i++) {
            b.put(i, (byte) (i * 31 + 7));
        }
        return b;
    }

    /** Receives until {@code total} bytes came; returns the datagram sizes, checking content and source. */
    private static List<Integer> receiveAll(UdpSocket rx, int total, ByteBuffer expected, int srcIp, int[] receives)
            throws IOException {
        ByteBuffer buf = ByteBuffer.allocateDirect(65536);
        List<Integer> sizes = new ArrayList<>();
        int got = 0;
        while (got < total) {
            int n = rx.receive(buf);
            receives[0]++;
            assertThat(rx.sourceIp()).isEqualTo(srcIp);
            assertThat(rx.sourcePort()).isEqualTo(PORT);
            for (int i = 0; i < n; i++) {
                assertThat(buf.get(i)).as("byte %d", got + i).isEqualTo(expected.get(got + i));
            }
            for (int off = 0; off < n; off += rx.segmentSize()) {
                sizes.add(Math.min(rx.segmentSize(), n - off));
            }
            got += n;
        }
        return sizes;
    }

    private static final List<Integer> SIZES = List.of(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500);

    @Test
    void segmentedSendArrivesAsOneGroupAtAGroSocket() throws Exception {
        try (UdpSocket tx = open("127.0.0.41", UdpSocket.Offload.ON);
             UdpSocket rx = open("127.0.0.42", UdpSocket.Offload.ON)) {
            assertThat(tx.segmentationOffload()).isTrue();
            ByteBuffer data = pattern(10_500);
            tx.newSender().send(data, 0, 10_500, 1000, new InetSocketAddress("127.0.0.42", PORT), 0x7F00_002A);
            int[] receives = {0};
            assertThat(receiveAll(rx, 10_500, data, 0x7F00_0029, receives)).isEqualTo(SIZES);
            assertThat(receives[0]).as("one recvmsg for the whole group").isEqualTo(1);
        }
    }

    @Test
    void pollReturnsZeroWhenNothingWaitsAndTheGroupWhenOneDoes() throws Exception {
        try (UdpSocket tx = open("127.0.0.41", UdpSocket.Offload.ON);
             UdpSocket rx = open("127.0.0.42", UdpSocket.Offload.ON)) {
            assertThat(rx.canPoll()).isTrue();
            ByteBuffer buf = ByteBuffer.allocateDirect(65536);
            assertThat(rx.poll(buf)).isZero();
            ByteBuffer data = pattern(10_500);
            tx.newSender().send(data, 0, 10_500, 1000, new InetSocketAddress("127.0.0.42", PORT), 0x7F00_002A);
            int n = 0;
            for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); n == 0 && System.nanoTime() < until; ) {
                n = rx.poll(buf);
            }
            assertThat(n).isEqualTo(10_500);
            assertThat(rx.segmentSize()).isEqualTo(1000);
            assertThat(rx.sourceIp()).isEqualTo(0x7F00_0029);
            assertThat(buf.get(10_499)).isEqualTo(data.get(10_499));
            assertThat(rx.poll(buf)).isZero();
        }
        try (UdpSocket portable = open("127.0.0.43", UdpSocket.Offload.OFF)) {
            assertThat(portable.canPoll()).as("the portable socket blocks").isFalse();
        }
    }

    @Test
    void segmentedSendArrivesAsDatagramsAtAPlainSocket() throws Exception {
        try (UdpSocket tx = open("127.0.0.43", UdpSocket.Offload.ON);
             UdpSocket rx = open("127.0.0.44", UdpSocket.Offload.OFF)) {
            ByteBuffer data = pattern(10_500);
            tx.newSender().send(data, 0, 10_500, 1000, new InetSocketAddress("127.0.0.44", PORT), 0x7F00_002C);
            int[] receives = {0};
            assertThat(receiveAll(rx, 10_500, data, 0x7F00_002B, receives)).isEqualTo(SIZES);
            assertThat(receives[0]).isEqualTo(11);
        }
    }

    @Test
    void portableSocketSendsTheSegmentsOneByOne() throws Exception {
        try (UdpSocket tx = open("127.0.0.45", UdpSocket.Offload.OFF);
             UdpSocket rx = open("127.0.0.46", UdpSocket.Offload.ON)) {
            assertThat(tx.segmentationOffload()).isFalse();
            ByteBuffer data = pattern(10_500);
            data.position(3).limit(77);                     // the caller's position and limit survive a send
            tx.newSender().send(data, 0, 10_500, 1000, new InetSocketAddress("127.0.0.46", PORT), 0x7F00_002E);
            assertThat(data.position()).isEqualTo(3);
            assertThat(data.limit()).isEqualTo(77);
            data.clear();
            int[] receives = {0};
            assertThat(receiveAll(rx, 10_500, data, 0x7F00_002D, receives)).isEqualTo(SIZES);
        }
    }

    @Test
    void closeWakesABlockedReceiverAndStopsSenders() throws Exception {
        for (UdpSocket.Offload mode : new UdpSocket.Offload[] {UdpSocket.Offload.ON, UdpSocket.Offload.OFF}) {
            UdpSocket s = open("127.0.0.47", mode);
            CompletableFuture<Integer> r = CompletableFuture.supplyAsync(() -> {
                try {
                    return s.receive(ByteBuffer.allocateDirect(65536));
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Thread.sleep(100);                              // let it block in the kernel (not a timing assertion)
            s.close();
            assertThat(r.get(10, TimeUnit.SECONDS)).as(mode.toString()).isEqualTo(-1);
            ByteBuffer b = ByteBuffer.allocateDirect(16);
            assertThatThrownBy(() -> s.newSender().send(b, 0, 16, 16, new InetSocketAddress("127.0.0.48", PORT), 0x7F00_0030))
                    .isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void offloadOptionIsParsedStrictly() {
        assertThat(UdpSocket.Offload.parse(null)).isEqualTo(UdpSocket.Offload.AUTO);
        assertThat(UdpSocket.Offload.parse(" On ")).isEqualTo(UdpSocket.Offload.ON);
        assertThat(UdpSocket.Offload.parse("off")).isEqualTo(UdpSocket.Offload.OFF);
        assertThatThrownBy(() -> UdpSocket.Offload.parse("fast"))
                .hasMessageContaining("udp-offload must be auto, on or off, got fast");
    }

    @Test
    void bindErrorsNameTheAddress() throws Exception {
        try (UdpSocket a = open("127.0.0.49", UdpSocket.Offload.ON)) {
            assertThatThrownBy(() -> open("127.0.0.49", UdpSocket.Offload.ON))
                    .isInstanceOf(IOException.class).hasMessageContaining("127.0.0.49:" + PORT)
                    .hasMessageContaining("Address already in use");
        }
    }
}
