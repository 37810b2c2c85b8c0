package io.vibridge.bench.vitcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Plain blocking TCP over loopback ({@link Socket}/{@link ServerSocket}, TCP_NODELAY), in one
 * process: the baseline the VI/TCP figures are compared with.
 *
 * <ul>
 * <li>{@link #pingPong}: 8-byte request, 8-byte echo; warm-up round trips, then N timed samples
 *     ({@link System#nanoTime()} deltas into a preallocated {@code long[]}, sorted for p50/p99).</li>
 * <li>{@link #streamBytes} / {@link #streamFor}: one direction, 64 KiB writes; time from the first
 *     write until the receiver has read the last byte.</li>
 * </ul>
 * The timed loops allocate nothing (preallocated arrays, streams obtained before timing). Each run
 * uses a fresh ephemeral port on the loopback address and its own receiver thread; a stuck peer
 * fails the run after {@link #IO_TIMEOUT_MILLIS} instead of hanging.
 */
public final class TcpBaseline {

    public static final int PING_SIZE = 8;
    public static final int STREAM_CHUNK = 64 * 1024;
    static final int IO_TIMEOUT_MILLIS = 60_000;
    private static final double MIB = 1024.0 * 1024.0;

    /** Round-trip latency figures in microseconds. */
    public record Latency(int samples, double p50Micros, double p99Micros, double minMicros, double maxMicros) {
    }

    /** Streaming figures: bytes received, elapsed nanoseconds, MiB/s. */
    public record Bandwidth(long bytes, long nanos, double mibPerSecond) {
    }

    /** Both figures of {@link #run}. */
    public record Result(Latency latency, Bandwidth bandwidth) {
    }

    private final InetAddress address;

    /** On {@link InetAddress#getLoopbackAddress()}. */
    public TcpBaseline() {
        this(InetAddress.getLoopbackAddress());
    }

    /** @param address a loopback address (the project sends no traffic elsewhere) */
    public TcpBaseline(InetAddress address) {
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException(address + " is not a loopback address");
        }
        this.address = address;
    }

    /** Ping-pong then streaming {@code streamBytes} bytes. */
    public Result run(int warmup, int samples, long streamBytes) throws IOException {
        return new Result(pingPong(warmup, samples), streamBytes(streamBytes));
    }

    /**
     * @param warmup untimed round trips first (JIT, TCP warm-up)
     * @param samples timed round trips (at least 1)
     */
    public Latency pingPong(int warmup, int samples) throws IOException {
        if (warmup < 0 || samples < 1) {
            throw new IllegalArgumentException("warmup " + warmup + " / samples " + samples);
        }
        long[] rtt = new long[samples];
        try (ServerSocket server = listen()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread echo = Thread.ofPlatform().daemon().name("tcp-baseline-echo").start(() -> {
                try (Socket s = accept(server)) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] buf = new byte[PING_SIZE];
                    while (readFully(in, buf, PING_SIZE)) {
                        out.write(buf, 0, PING_SIZE);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            try (Socket s = connect(server)) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                byte[] buf = new byte[PING_SIZE];
                for (int i = 0; i < warmup; i++) {
                    roundTrip(in, out, buf, i);
                }
                for (int i = 0; i < samples; i++) {
                    long t0 = System.nanoTime();
                    roundTrip(in, out, buf, i);
                    rtt[i] = System.nanoTime() - t0;
                }
                s.shutdownOutput();
            }
            join(echo, failure);
        }
        Arrays.sort(rtt);
        return new Latency(samples, micros(percentile(rtt, 0.50)), micros(percentile(rtt, 0.99)), micros(rtt[0]),
                micros(rtt[samples - 1]));
    }

    /** Streams exactly {@code bytes} bytes. */
    public Bandwidth streamBytes(long bytes) throws IOException {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes " + bytes + " < 1");
        }
        return stream(bytes, Long.MAX_VALUE);
    }

    /** Streams 64 KiB writes for about {@code duration}. */
    public Bandwidth streamFor(Duration duration) throws IOException {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration " + duration);
        }
        return stream(Long.MAX_VALUE, duration.toNanos());
    }

    private Bandwidth stream(long limitBytes, long limitNanos) throws IOException {
        long[] received = new long[2]; // [0] bytes, [1] nanoTime of the last byte
        try (ServerSocket server = listen()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread sink = Thread.ofPlatform().daemon().name("tcp-baseline-sink").start(() -> {
                try (Socket s = accept(server)) {
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[STREAM_CHUNK];
                    long total = 0;
                    int n;
                    while ((n = in.read(buf, 0, STREAM_CHUNK)) >= 0) {
                        total += n;
                        received[1] = System.nanoTime();
                    }
                    received[0] = total;
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long start;
            long sent = 0;
            try (Socket s = connect(server)) {
                OutputStream out = s.getOutputStream();
                byte[] chunk = new byte[STREAM_CHUNK];
                start = System.nanoTime();
                long deadline = limitNanos == Long.MAX_VALUE ? Long.MAX_VALUE : start + limitNanos;
                while (sent < limitBytes && (deadline == Long.MAX_VALUE || System.nanoTime() - deadline < 0)) {
                    int n = (int) Math.min(STREAM_CHUNK, limitBytes - sent);
                    out.write(chunk, 0, n);
                    sent += n;
                }
                s.shutdownOutput();
            }
            join(sink, failure); // Thread.join orders the sink's writes before our reads
            if (received[0] != sent) {
                throw new IOException("sent " + sent + " bytes but the receiver got " + received[0]);
            }
            long nanos = Math.max(1, received[1] - start);
            return new Bandwidth(sent, nanos, sent / MIB / (nanos / 1e9));
        }
    }

    private static void roundTrip(InputStream in, OutputStream out, byte[] buf, int i) throws IOException {
        buf[0] = (byte) i;
        out.write(buf, 0, PING_SIZE);
        if (!readFully(in, buf, PING_SIZE)) {
            throw new IOException("echo closed the connection");
        }
    }

    /** @return false on a clean EOF before the first byte */
    private static boolean readFully(InputStream in, byte[] buf, int len) throws IOException {
        int got = 0;
        while (got < len) {
            int n = in.read(buf, got, len - got);
            if (n < 0) {
                if (got == 0) {
                    return false;
                }
                throw new IOException("EOF after " + got + " of " + len + " bytes");
            }
            got += n;
        }
        return true;
    }

    private ServerSocket listen() throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(address, 0), 1);
        server.setSoTimeout(IO_TIMEOUT_MILLIS);
        return server;
    }

    private static Socket accept(ServerSocket server) throws IOException {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        s.setSoTimeout(IO_TIMEOUT_MILLIS);
        return s;
    }

    private Socket connect(ServerSocket server) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(address, server.getLocalPort()), IO_TIMEOUT_MILLIS);
        s.setSoTimeout(IO_TIMEOUT_MILLIS);
        return s;
    }

    private static void join(Thread t, AtomicReference<Throwable> failure) throws IOException {
        try {
            t.join(Duration.ofMillis(2L * IO_TIMEOUT_MILLIS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + t.getName(), e);
        }
        if (t.isAlive()) {
            throw new IOException(t.getName() + " did not finish");
        }
        Throwable f = failure.get();
        if (f instanceof IOException io) {
            throw io;
        }
        if (f != null) {
            throw new UncheckedIOException(new IOException(t.getName() + " failed", f));
        }
    }

    /** Nearest-rank percentile of a sorted array. */
    static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)];
    }

    private static double micros(long nanos) {
        return nanos / 1_000.0;
    }

    /** {@code TcpBaseline [warmup samples streamMiB]}: prints the figures. */
    public static void main(String[] args) throws IOException {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int samples = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        long mib = args.length > 2 ? Long.parseLong(args[2]) : 2048;
        Result r = new TcpBaseline().run(warmup, samples, mib * 1024 * 1024);
        System.out.printf("tcp ping-pong 8 B: samples=%d p50=%.1f us p99=%.1f us min=%.1f us max=%.1f us%n",
                r.latency().samples(), r.latency().p50Micros(), r.latency().p99Micros(), r.latency().minMicros(),
                r.latency().maxMicros());
        System.out.printf("tcp stream 64 KiB writes: %d bytes in %.3f s = %.1f MiB/s%n", r.bandwidth().bytes(),
                r.bandwidth().nanos() / 1e9, r.bandwidth().mibPerSecond());
    }
}
