package io.vibridge.interop.pingpong;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.interop.support.Captured;
import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.LoopbackDevices;
import io.vibridge.interop.support.Outcome;
import io.vibridge.verbs.VerbsDevice;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Our pingpong client against a hand-driven server: the TCP exchange byte for byte as rc_pingpong's server does
 * it, then the first RoCEv2 packet as a plain UDP socket sees it. rc_pingpong sets {@code sq_psn} to the PSN it
 * advertised and {@code rq_psn} to the peer's: the first SEND must carry the PSN our client sent over TCP and
 * the QPN the server advertised.
 */
class PingpongPsnOnTheWireTest {
    @Test
    void firstSend_carriesTheAdvertisedPsn_toTheAdvertisedQpn() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try (DatagramChannel roce = LoopbackDevices.bindRaw();
             ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             VerbsDevice cd = LoopbackDevices.open()) {
            Inet4Address serverIp = (Inet4Address) ((InetSocketAddress) roce.getLocalAddress()).getAddress();
            byte[] gid = new byte[16];
            gid[10] = (byte) 0xff;
            gid[11] = (byte) 0xff;
            System.arraycopy(serverIp.getAddress(), 0, gid, 12, 4);
            PingpongDest server = new PingpongDest(0, 0x00abcd, 0x654321, gid);
            Future<PingpongDest> exchanged = pool.submit(() -> {
                // pp_server_exch_dest: read 52, (connect), write 52, read sizeof "done"
                try (Socket s = tcp.accept()) {
                    s.setSoTimeout(20_000);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] msg = in.readNBytes(52);
                    out.write(server.toMessage());
                    assertThat(in.readNBytes(5)).isEqualTo("done\0".getBytes(StandardCharsets.US_ASCII));
                    assertThat(in.read()).as("the client closes after \"done\"").isEqualTo(-1);
                    return PingpongDest.parse(msg);
                }
            });
            Captured co = new Captured();
            Future<Outcome> client = pool.submit(() -> PingpongClient.run(cd, new PingpongSettings(64, 1, 1024, 4,
                    false, 14), new InetSocketAddress("127.0.0.1", tcp.getLocalPort()),
                    Deadline.after(Duration.ofSeconds(3)), co.out));
            PingpongDest mine = exchanged.get(20, TimeUnit.SECONDS);
            assertThat(mine.lid()).isZero();
            assertThat(mine.gid()).isEqualTo(cd.gid());

            ByteBuffer pkt = receive(roce, Duration.ofSeconds(10));
            // RoCEv2: the UDP payload is BTH (12) + payload + ICRC (4)
            assertThat(pkt.remaining()).as("BTH + 64 bytes + ICRC").isEqualTo(12 + 64 + 4);
            assertThat(pkt.get(0) & 0xFF).as("opcode RC SEND Only").isEqualTo(0x04);
            assertThat(pkt.getShort(2) & 0xFFFF).as("P_Key").isEqualTo(0xFFFF);
            assertThat(pkt.getInt(4) & 0xFFFFFF).as("DestQP = the QPN the server advertised").isEqualTo(0x00abcd);
            assertThat(pkt.getInt(8) & 0xFFFFFF).as("PSN = the PSN the client advertised (its sq_psn)")
                    .isEqualTo(mine.psn());
            for (int i = 12; i < 12 + 64; i++) {
                assertThat(pkt.get(i)).as("payload byte %d: memset(buf, 0x7b)", i - 12).isEqualTo((byte) 0x7b);
            }
            // nobody answers: the client must give up within its budget
            Outcome o = client.get(20, TimeUnit.SECONDS);
            assertThat(o.pass()).isFalse();
            assertThat(co.toString()).contains("  remote address: LID 0x0000, QPN 0x00abcd, PSN 0x654321, GID ::ffff:"
                    + serverIp.getHostAddress());
        } finally {
            pool.shutdownNow();
        }
    }

    private static ByteBuffer receive(DatagramChannel ch, Duration within) throws Exception {
        ch.configureBlocking(false);
        ByteBuffer b = ByteBuffer.allocate(65_536);
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            if (ch.receive(b) != null) {
                return b.flip();
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no RoCEv2 packet within " + within);
    }
}
