package io.vibridge.gateway.hostile;

import io.vibridge.vitcp.wire.ConnectAccept;
import io.vibridge.vitcp.wire.ConnectRequest;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.ControlSegment;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.SegmentHeader;
import io.vibridge.vitcp.wire.SegmentType;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A stalled-reader load: {@code n} VI/TCP clients connect to a route, push Sends
 * (16 KiB each) until TCP stops taking them, and never read what comes back. Each socket has a 4 KiB receive
 * buffer, so the echo backs up at once: the gateway has to stop posting receives towards the target and stop
 * reading the client. Run beside a {@code vibridge demo} and watch its CPU and RNR counters:
 *
 * <pre>java -cp gateway/target/test-classes:$(cat gateway/target/runtime-classpath.txt) \
 *     io.vibridge.gateway.hostile.StalledReaders 127.0.0.1 7470 demo 50 60</pre>
 *
 * Arguments: gateway host, VI/TCP port, route discriminator, clients, seconds to hold the connections open.
 */
public final class StalledReaders {
    /** Bytes per Send (-Dpayload, default 16 KiB) and the client's socket receive buffer (-Drcvbuf, default 4 KiB). */
    private static final int PAYLOAD = Integer.getInteger("payload", 16 << 10);
    private static final int RCVBUF = Integer.getInteger("rcvbuf", 4096);
    /**
     * -Dsource=true: instead of pushing Sends, each client asks the demo target for SOURCE mode (its control
     * protocol, README-tools.md: SET_MODE) and then reads nothing: the target pushes towards a client that
     * does not take anything.
     */
    private static final boolean SOURCE = Boolean.getBoolean("source");

    private StalledReaders() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: StalledReaders <host> <port> <discriminator> <clients> <seconds>");
            System.exit(2);
        }
        InetSocketAddress to = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
        Discriminator route = Discriminator.ofUtf8(args[2]);
        int n = Integer.parseInt(args[3]);
        long seconds = Long.parseLong(args[4]);
        AtomicInteger connected = new AtomicInteger();
        AtomicLongArray lastWrite = new AtomicLongArray(n);
        failed.set(0);
        CountDownLatch go = new CountDownLatch(1);
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread.sleep(20);                                // a connect rate the target's CM keeps up with
            Socket s = new Socket();
            s.setReceiveBufferSize(RCVBUF);
            s.connect(to);
            sockets.add(s);
            int k = i;
            Thread t = new Thread(() -> push(s, route, connected, lastWrite, k, go), "stalled-" + i);
            t.setDaemon(true);
            t.start();
        }
        // every client connects before any pushes: a loaded target's CM answers late (IS 12 to the late ones)
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (connected.get() + failed.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        go.countDown();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            long now = System.nanoTime();
            int blocked = 0;
            for (int i = 0; i < n; i++) {
                long t = lastWrite.get(i);
                blocked += t != 0 && now - t > 2_000_000_000L ? 1 : 0;
            }
            System.out.println("connected " + connected.get() + ", writes blocked for 2 s or more " + blocked);
        }
        for (Socket s : sockets) {
            s.close();
        }
    }

    /** Connects, then writes Sends until a write blocks (the gateway stopped reading); never reads again. */
    private static final AtomicInteger failed = new AtomicInteger();

    private static void push(Socket s, Discriminator route, AtomicInteger connected, AtomicLongArray lastWrite, int k,
            CountDownLatch go) {
        try {
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            ConnectionHeader h = ConnectionHeader.unsigned(ConnectionAttributes.of(ReliabilityLevel.RELIABLE_DELIVERY,
                    true, true, false, false, false), Discriminator.ofUtf8("stalled"), 1 << 20, 0, route);
            int msg = 1000;
            ConnectRequest cr = new ConnectRequest(msg, 0, h);
            ByteBuffer b = ByteBuffer.allocate(cr.encodedLength());
            cr.encode(b, 0);
            out.write(b.array());
            out.flush();
            byte[] head = new byte[4];
            in.readFully(head);
            int len = ((head[2] & 0xFF) << 8) | (head[3] & 0xFF);
            byte[] all = new byte[len];
            System.arraycopy(head, 0, all, 0, 4);
            in.readFully(all, 4, len - 4);
            if (!(ControlSegment.decode(ByteBuffer.wrap(all), 0, len) instanceof ConnectAccept)) {
                System.err.println("not accepted: " + ControlSegment.decode(ByteBuffer.wrap(all), 0, len));
                failed.incrementAndGet();
                return;
            }
            connected.incrementAndGet();
            go.await();
            if (SOURCE) {
                ByteBuffer set = ByteBuffer.allocate(SegmentHeader.LENGTH + 13);
                SegmentHeader.write(set, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, set.capacity(), 0, 0,
                        msg, 0, 0, 0, 0);
                set.putInt(SegmentHeader.LENGTH, 0x56425247).put(SegmentHeader.LENGTH + 4, (byte) 1)
                        .put(SegmentHeader.LENGTH + 5, (byte) 0x06).putInt(SegmentHeader.LENGTH + 8, 1)
                        .put(SegmentHeader.LENGTH + 12, (byte) 2);        // SET_MODE, mode code 2 = SOURCE
                out.write(set.array());
                lastWrite.set(k, System.nanoTime());
                return;                                      // and never read
            }
            int segLen = SegmentHeader.LENGTH + PAYLOAD;
            ByteBuffer seg = ByteBuffer.allocate(segLen);
            while (true) {
                SegmentHeader.write(seg, 0, SegmentType.SEND, SegmentHeader.FLAG_END_OF_MESSAGE, segLen, 0, 0, msg++, 0, 0,
                        0, 0);
                out.write(seg.array());                      // blocks for good once the gateway stops reading
                lastWrite.set(k, System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            if (!s.isClosed()) {
                System.err.println("client: " + e);
            }
        }
    }
}
