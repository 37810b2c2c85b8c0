package io.vibridge.bench.vitcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measurement command, not a test: opens N TCP connections to a gateway's VI/TCP port, each
 * sending only the 24-byte header of a Connect Request that claims {@code --claim} bytes (65,535: the
 * largest Segment Length), and reports how many the gateway holds and how many it closed (refused), with
 * the gateway process's heap (before and after a full GC, by {@code jcmd}) and RSS ({@code /proc}) before
 * and after. JDK only, so it also runs from source on a checkout that has not built this module:
 *
 * <pre>
 *   java benchmarks/src/main/java/io/vibridge/bench/vitcp/PendingFlood.java \
 *       --port 7470 --pid $(pgrep -f 'Main gateway') --connections 2000 --sources 127.0.30.1-8
 * </pre>
 *
 * Each connection takes a file descriptor here and, while held, one in the gateway: 20,000 need
 * {@code ulimit -n} above that on both sides, or two runs of this command side by side. Several source
 * addresses ({@code --sources}) keep clear of ephemeral port exhaustion. The connections close when the
 * command exits; run it within the gateway's {@code vi.incoming-timeout} of the measurement, or raise that.
 */
public final class PendingFlood {

    private static final int CONNECT_TIMEOUT_MILLIS = 3000;
    private static final int GIVE_UP = 20;

    private PendingFlood() {
    }

    /** The command line's options. */
    record Options(String host, int port, long pid, int connections, List<InetAddress> sources, int claim,
            int settleSeconds, boolean hold) {

        static Options parse(String[] args) {
            String host = "127.0.0.1";
            int port = 7470;
            long pid = 0;
            int connections = 2000;
            List<InetAddress> sources = List.of(InetAddress.getLoopbackAddress());
            int claim = 65535;
            int settle = 3;
            boolean hold = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--hold")) {
                    hold = true;
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + a + " needs a value");
                }
                String v = args[++i];
                switch (a) {
                    case "--host" -> host = v;
                    case "--port" -> port = number(a, v, 1, 65535);
                    case "--pid" -> pid = number(a, v, 1, Integer.MAX_VALUE);
                    case "--connections" -> connections = number(a, v, 0, 1 << 20);
                    case "--sources" -> sources = sources(v);
                    case "--claim" -> claim = number(a, v, 24, 65535);
                    case "--settle" -> settle = number(a, v, 0, 3600);
                    default -> throw new IllegalArgumentException("unknown option " + a
                            + " (--host, --port, --pid, --connections, --sources, --claim, --settle, --hold)");
                }
            }
            return new Options(host, port, pid, connections, sources, claim, settle, hold);
        }

        private static int number(String option, String v, int min, int max) {
            try {
                int n = Integer.parseInt(v);
                if (n >= min && n <= max) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // below
            }
            throw new IllegalArgumentException(option + " " + v + ": expected " + min + ".." + max);
        }

        /** {@code 127.0.30.1-8} (a range in the last byte) or {@code 127.0.0.5}. */
        private static List<InetAddress> sources(String v) {
            Matcher m = Pattern.compile("(\\d+\\.\\d+\\.\\d+\\.)(\\d+)(?:-(\\d+))?").matcher(v);
            if (!m.matches()) {
                throw new IllegalArgumentException("--sources " + v + ": expected a.b.c.d or a.b.c.d-e");
            }
            int from = Integer.parseInt(m.group(2));
            int to = m.group(3) == null ? from : Integer.parseInt(m.group(3));
            if (from < 1 || to > 254 || to < from) {
                throw new IllegalArgumentException("--sources " + v + ": the last byte's range must be within 1..254");
            }
            List<InetAddress> l = new ArrayList<>();
            for (int i = from; i <= to; i++) {
                l.add(InetAddress.ofLiteral(m.group(1) + i));
            }
            return l;
        }
    }

    /** The gateway process's memory at one moment. */
    record Memory(long heapUsedKib, long heapAfterGcKib, long rssKib) {
        String show() {
            return String.format(Locale.ROOT, "heap used %.1f MiB (after full GC %.1f MiB), RSS %.1f MiB",
                    heapUsedKib / 1024.0, heapAfterGcKib / 1024.0, rssKib / 1024.0);
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("pending-flood: " + e.getMessage());
            System.exit(2);
            return;
        }
        Memory before = o.pid() > 0 ? memory(o.pid()) : null;
        if (before != null) {
            System.out.println("before: " + before.show());
        }
        byte[] header = connectRequestHeader(o.claim());
        List<SocketChannel> open = new ArrayList<>(o.connections());
        long start = System.nanoTime();
        int failed = 0;
        String firstFailure = null;
        int inARow = 0;
        for (int i = 0; i < o.connections() && inARow < GIVE_UP; i++) {
            SocketChannel ch = SocketChannel.open();
            try {
                ch.bind(new InetSocketAddress(o.sources().get(i % o.sources().size()), 0));
                // bounded: a gateway that stopped accepting (out of memory) leaves its backlog full, SYNs unanswered
                ch.socket().connect(new InetSocketAddress(o.host(), o.port()), CONNECT_TIMEOUT_MILLIS);
                ch.write(ByteBuffer.wrap(header));
                ch.configureBlocking(false);
                open.add(ch);
                inARow = 0;
            } catch (IOException e) {
                failed++;
                inARow++;
                if (firstFailure == null) {
                    firstFailure = e.toString();
                }
                ch.close();
            }
        }
        if (inARow >= GIVE_UP) {
            System.out.println("gave up after " + GIVE_UP + " failures in a row (the gateway no longer accepts)");
        }
        System.out.printf(Locale.ROOT, "opened %d connections in %.1f s, each sent a %d-byte header claiming %d bytes"
                        + "%s%n", open.size(), (System.nanoTime() - start) / 1e9, header.length, o.claim(),
                failed == 0 ? "" : "; " + failed + " could not connect or write (" + firstFailure + ")");
        TimeUnit.SECONDS.sleep(o.settleSeconds());
        int held = 0;
        ByteBuffer sink = ByteBuffer.allocate(512);
        for (SocketChannel ch : open) {
            int n;
            try {
                n = ch.read(sink.clear());
            } catch (IOException e) {
                n = -1; // reset
            }
            if (n == 0) {
                held++;
            }
        }
        System.out.printf(Locale.ROOT, "after %d s: %d held open by the gateway, %d closed by it%n", o.settleSeconds(),
                held, open.size() - held);
        if (before != null) {
            Memory after = memory(o.pid());
            System.out.println("after:  " + after.show());
            System.out.printf(Locale.ROOT, "delta:  heap used %+.1f MiB (after full GC %+.1f MiB), RSS %+.1f MiB%n",
                    (after.heapUsedKib() - before.heapUsedKib()) / 1024.0,
                    (after.heapAfterGcKib() - before.heapAfterGcKib()) / 1024.0,
                    (after.rssKib() - before.rssKib()) / 1024.0);
        }
        if (o.hold()) {
            System.out.println("holding the connections; interrupt to end");
            Thread.sleep(Long.MAX_VALUE);
        }
        for (SocketChannel ch : open) {
            ch.close();
        }
    }

    /** A VI/TCP segment header (VITCP-PROFILE §2): Version 1, Type 5 (Connect Request), Segment Length {@code claim}. */
    static byte[] connectRequestHeader(int claim) {
        ByteBuffer b = ByteBuffer.allocate(24);
        b.put(0, (byte) 1);
        b.put(1, (byte) (5 << 3));
        b.putShort(2, (short) claim);
        b.putInt(12, 1); // Message Number
        return b.array();
    }

    /** Heap used as jcmd GC.heap_info reports it, before and after jcmd GC.run; RSS from /proc. */
    static Memory memory(long pid) throws IOException, InterruptedException {
        long used = heapUsedKib(pid);
        jcmd(pid, "GC.run");
        long afterGc = heapUsedKib(pid);
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return new Memory(used, afterGc, rss);
    }

    private static long heapUsedKib(long pid) throws IOException, InterruptedException {
        String out = jcmd(pid, "GC.heap_info");
        Matcher m = Pattern.compile("used (\\d+)K").matcher(out);
        if (!m.find()) {
            throw new IOException("jcmd " + pid + " GC.heap_info: no heap line in " + out);
        }
        return Long.parseLong(m.group(1));
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("jcmd " + pid + " " + command + ": no answer within 60 s");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
