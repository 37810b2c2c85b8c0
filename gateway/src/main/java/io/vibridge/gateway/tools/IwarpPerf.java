package io.vibridge.gateway.tools;

import io.vibridge.gateway.demo.control.Control;
import io.vibridge.gateway.demo.control.TargetMode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code vibridge perf --framing iwarp}: the gateway driven over iWARP by {@link IwarpClient} (the
 * {@code iwarp} engine's initiator role) against a vibridge target, with the target's {@link Control}
 * protocol in ordinary Sends: Send round trip (echo mode), Send bandwidth (sink mode, ended by a STATS
 * round trip that proves every Send arrived), RDMA Write bandwidth into the target's region (ended the
 * same way: the target's SEND completes after the WRITEs before it, IBA 9.5) and RDMA Read bandwidth
 * (Read Requests kept at the ORD the MPA Reply allowed). The client is blocking Java NIO on one thread;
 * its copies of what it receives count in the figures. Figures in perftest's columns as {@link Perf} prints
 * them: latency one-way (half the round trip), bandwidth in MB/sec (2^20 B/s) or Gb/sec.
 */
public final class IwarpPerf {
    private static final String LINE = "-".repeat(72);

    private IwarpPerf() {
    }

    /** Runs {@code settings.tests()} that apply to iWARP (Send latency, Send/Write/Read bandwidth). */
    public static void run(InetSocketAddress gateway, boolean crc, Perf.Settings settings, Duration timeout,
                           PrintStream out) throws IOException {
        out.printf(Locale.ROOT, "%s%n iWARP client (MPA rev 2, CRC %s) -> gateway %s%n%s%n", LINE, crc ? "on" : "off",
                gateway, LINE);
        try (IwarpClient c = new IwarpClient(gateway, crc, 16 * 1024).awaitEstablished(timeout)) {
            for (Perf.Test t : settings.tests()) {
                switch (t) {
                    case SEND_LAT -> sendLatency(c, settings, timeout, out);
                    case SEND_BW -> sendBandwidth(c, settings, timeout, out);
                    case WRITE_BW -> writeBandwidth(c, settings, timeout, out);
                    case READ_BW -> readBandwidth(c, settings, timeout, out);
                    case RECV_BW, CONNECT -> out.printf(Locale.ROOT, " %-22s not measured over iWARP%n", t.title);
                }
            }
        }
        out.println(LINE);
    }

    private static void sendLatency(IwarpClient c, Perf.Settings s, Duration timeout, PrintStream out)
            throws IOException {
        byte[] m = new byte[Math.max(1, s.latSize())];
        m[0] = 1; // never the control magic
        int warm = Math.min(1000, s.latIterations());
        for (int i = 0; i < warm; i++) {
            c.send(m);
            c.awaitSend(timeout);
        }
        long[] rtt = new long[s.latIterations()];
        for (int i = 0; i < rtt.length; i++) {
            long t0 = System.nanoTime();
            c.send(m);
            c.awaitSend(timeout);
            rtt[i] = System.nanoTime() - t0;
        }
        out.println(" " + Perf.Test.SEND_LAT.title + " (ONE-WAY: half of each round trip, as ib_send_lat)");
        Perf.printColumns(out, Perf.Test.SEND_LAT, s.gbits());
        Perf.printRow(out, new Perf.Result(Perf.Test.SEND_LAT, m.length, rtt.length, 0, 0, 0, Latency.oneWay(rtt), 1),
                s.gbits());
    }

    private static void sendBandwidth(IwarpClient c, Perf.Settings s, Duration timeout, PrintStream out)
            throws IOException {
        control(c, Control.SET_MODE, new byte[] {(byte) TargetMode.SINK.code()}, timeout);
        long before = control(c, Control.STATS, new byte[0], timeout).getLong(Control.HEADER);
        byte[] m = new byte[s.bwSize()];
        m[0] = 1;
        int n = s.bwIterations();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            c.send(m);
        }
        long after = control(c, Control.STATS, new byte[0], timeout).getLong(Control.HEADER);
        long ns = System.nanoTime() - t0;
        control(c, Control.SET_MODE, new byte[] {(byte) TargetMode.ECHO.code()}, timeout);
        if (after - before != n) { // control messages are not counted
            throw new IOException("the target counted " + (after - before) + " Sends of " + n);
        }
        bandwidth(out, Perf.Test.SEND_BW, m.length, n, ns, s.gbits());
    }

    private static void writeBandwidth(IwarpClient c, Perf.Settings s, Duration timeout, PrintStream out)
            throws IOException {
        Region r = Region.query(c, timeout);
        byte[] m = new byte[s.bwSize()];
        int n = s.bwIterations();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            c.write(r.rkey, r.address(i, m.length), m);
        }
        control(c, Control.STATS, new byte[0], timeout); // after every WRITE (IBA 9.5)
        bandwidth(out, Perf.Test.WRITE_BW, m.length, n, System.nanoTime() - t0, s.gbits());
    }

    private static void readBandwidth(IwarpClient c, Perf.Settings s, Duration timeout, PrintStream out)
            throws IOException {
        Region r = Region.query(c, timeout);
        int size = s.bwSize();
        int n = s.bwIterations();
        int issued = 0;
        int done = 0;
        long t0 = System.nanoTime();
        while (done < n) {
            while (issued < n && c.engine.canReadRequest()) {
                c.read(r.rkey, r.address(issued, size), size);
                issued++;
            }
            c.pollUntil(() -> !c.readsDone.isEmpty(), timeout);
            while (c.readsDone.poll() != null) {
                done++;
            }
        }
        bandwidth(out, Perf.Test.READ_BW, size, n, System.nanoTime() - t0, s.gbits());
    }

    /** The target's RDMA region (QUERY_REGION), cut into message-sized slots used in turn. */
    private record Region(long va, int rkey, long length) {
        static Region query(IwarpClient c, Duration timeout) throws IOException {
            ByteBuffer q = control(c, Control.QUERY_REGION, new byte[0], timeout);
            return new Region(q.getLong(Control.HEADER), q.getInt(Control.HEADER + 8),
                    Integer.toUnsignedLong(q.getInt(Control.HEADER + 12)));
        }

        /** The address of message {@code i} of {@code size} bytes. */
        long address(int i, int size) {
            long slots = Math.max(1, length / Math.max(1, size));
            return va + (i % slots) * size;
        }
    }

    /** One row (no peak is measured here: the average stands in for it). */
    private static void bandwidth(PrintStream out, Perf.Test t, int size, int n, long ns, boolean gbits) {
        double mib = (double) size * n / (1 << 20) / (ns / 1e9);
        out.println(" " + t.title);
        Perf.printColumns(out, t, gbits);
        Perf.printRow(out, new Perf.Result(t, size, n, mib, mib, n / (ns / 1e9), null, 1), gbits);
    }

    private static int requestId;

    /** One control round trip; the reply (status OK) or an exception. */
    private static ByteBuffer control(IwarpClient c, int command, byte[] args, Duration timeout) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(Control.HEADER + args.length);
        int id = ++requestId;
        b.put(Control.writeRequest(b, 0, command, id), args);
        c.send(b.array());
        while (true) {
            ByteBuffer r = ByteBuffer.wrap(c.awaitSend(timeout));
            if (Control.isReply(r, 0, r.limit()) && Control.requestId(r, 0) == id) {
                if (Control.status(r, 0) != Control.OK) {
                    throw new IOException("control command " + command + " failed: status " + Control.status(r, 0));
                }
                return r;
            }
        }
    }
}
