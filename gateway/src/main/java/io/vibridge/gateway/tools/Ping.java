package io.vibridge.gateway.tools;

import io.vibridge.vitcp.provider.Descriptor;
import io.vibridge.vitcp.provider.ViException;
import io.vibridge.vitcp.wire.IsCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code vibridge ping}: connects, sends {@code count} Sends of {@code size} patterned bytes, checks each
 * echo byte for byte and prints ping(8)-style lines. Exit code 0 only when every echo matched.
 */
public final class Ping {
    /** Exit codes. */
    public static final int OK = 0;
    public static final int MISMATCH_OR_LOSS = 1;
    public static final int CONNECT_FAILED = 2;

    private Ping() {
    }

    /** The payload of ping {@code seq}: never starts with the control magic (byte 0 is 0). */
    static void fill(ByteBuffer b, int off, int size, int seq) {
        for (int i = 0; i < size; i++) {
            b.put(off + i, (byte) (seq * 7 + i * 31 + 1));
        }
        if (size > 0) {
            b.put(off, (byte) 0);
        }
    }

    static boolean matches(ByteBuffer b, int off, int size, int seq) {
        for (int i = 0; i < size; i++) {
            byte want = i == 0 ? 0 : (byte) (seq * 7 + i * 31 + 1);
            if (b.get(off + i) != want) {
                return false;
            }
        }
        return true;
    }

    public static int run(ViClientOptions o, int count, Duration interval, PrintStream out, PrintStream err)
            throws Exception {
        String name = o.discriminator();
        int size = o.messageSize();
        out.printf(Locale.ROOT, "PING %s via %s:%d (%s%s): %d data bytes%n", name,
                o.remote().getHostString(), o.remote().getPort(), ViClientOptions.shortName(o.reliability()),
                o.flowControl() ? ", flow control" : "", size);
        try (ViClient c = ViClient.open(o)) {
            try {
                c.connect();
            } catch (ViException e) {
                err.println("ping: connect to " + name + " via " + o.remote().getHostString() + ":" + o.remote().getPort()
                        + " failed: " + describe(e));
                return CONNECT_FAILED;
            }
            out.printf(Locale.ROOT, "connected in %.3f ms (MTU %d, reliability %s, flow control %s)%n",
                    c.connectNanos / 1e6, c.negotiated().mtu(), ViClientOptions.shortName(c.negotiated().reliability()),
                    c.negotiated().flowControl() ? "on" : "off");
            if (size > c.negotiated().mtu()) {
                err.println("ping: size " + size + " exceeds the agreed MTU " + c.negotiated().mtu());
                return CONNECT_FAILED;
            }
            Descriptor send = c.sends[0].clearData();
            if (size > 0) {
                send.data(c.sendMr, 0, size);
            }
            int received = 0;
            int mismatched = 0;
            long min = Long.MAX_VALUE;
            long max = 0;
            double sum = 0;
            double sumSq = 0;
            long start = System.nanoTime();
            for (int seq = 1; seq <= count; seq++) {
                fill(c.sendMr.buffer(), 0, size, seq);
                int s = c.nextRecvSlot();
                long t0 = System.nanoTime();
                c.vi.postSend(send);
                Descriptor r;
                try {
                    r = c.awaitReceive();
                } catch (ViException e) {
                    err.println("ping: seq=" + seq + ": " + e.getMessage());
                    break;
                }
                long rtt = System.nanoTime() - t0;
                int len = (int) r.length();
                boolean ok = len == size && matches(c.recvMr.buffer(), s * c.slot, size, seq);
                c.repost(r);
                c.awaitSend();
                received++;
                if (!ok) {
                    mismatched++;
                    out.printf(Locale.ROOT, "%d bytes from %s: seq=%d time=%.3f ms  ECHO MISMATCH%n", len, name, seq, rtt / 1e6);
                } else {
                    out.printf(Locale.ROOT, "%d bytes from %s: seq=%d time=%.3f ms%n", len, name, seq, rtt / 1e6);
                }
                min = Math.min(min, rtt);
                max = Math.max(max, rtt);
                sum += rtt;
                sumSq += (double) rtt * rtt;
                if (seq < count && !interval.isZero()) {
                    Thread.sleep(interval);
                }
            }
            long total = (System.nanoTime() - start) / 1_000_000;
            out.printf(Locale.ROOT, "%n--- %s ping statistics ---%n", name);
            out.printf(Locale.ROOT, "%d sent, %d received, %d mismatched, %.0f%% loss, time %dms%n", count, received,
                    mismatched, 100.0 * (count - received) / Math.max(1, count), total);
            if (received > 0) {
                double avg = sum / received;
                double mdev = Math.sqrt(Math.max(0, sumSq / received - avg * avg));
                out.printf(Locale.ROOT, "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms%n", min / 1e6, avg / 1e6,
                        max / 1e6, mdev / 1e6);
            }
            return received == count && mismatched == 0 ? OK : MISMATCH_OR_LOSS;
        } catch (IOException e) {
            err.println("ping: " + e);
            return CONNECT_FAILED;
        }
    }

    /** A connect failure in words, with the VI/TCP meaning of the answer. */
    static String describe(ViException e) {
        return switch (e.code()) {
            case NO_MATCH -> "No Match: no route or listener for this discriminator (" + e.getMessage() + ")";
            case REJECT -> "Connect Reject, IS " + e.isCode() + " (" + IsCode.describe(e.isCode()) + ")";
            case TIMEOUT -> "timeout: " + e.getMessage();
            case NOT_REACHABLE -> "not reachable: " + e.getMessage();
            case SECURITY -> "security failure: " + e.getMessage();
            default -> e.code() + ": " + e.getMessage();
        };
    }
}
