package io.vibridge.verbs.soft;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Opens soft devices on free loopback addresses of this module's range 127.0.0.2-127.0.0.39, so test runs
 * that overlap (two engineers, CI, a second JVM) never fight over an address. 127.0.0.40 is never bound:
 * it is the "absent peer".
 */
public final class TestDevices {
    public static final String ABSENT = "127.0.0.40";
    private static final int FIRST = 2;
    private static final int COUNT = 38;
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(COUNT));

    private TestDevices() {
    }

    private static String candidate() {
        return "127.0.0." + (FIRST + Math.floorMod(NEXT.getAndIncrement(), COUNT));
    }

    public static VerbsDevice open() {
        return open(c -> c.withProvider("soft"));
    }

    /** Opens a device on the first free address; {@code tweak} adjusts the configuration. */
    public static VerbsDevice open(UnaryOperator<DeviceConfig> tweak) {
        return open(TestDevices::candidate, 3 * COUNT, "127.0.0.2-39", tweak);
    }

    /**
     * Opens a device on the first free address of 127.0.0.{@code first}-{@code last}, a range a test class keeps
     * for itself instead of this module's shared one.
     */
    public static VerbsDevice openIn(int first, int last, UnaryOperator<DeviceConfig> tweak) {
        int[] next = {first};
        return open(() -> "127.0.0." + next[0]++, last - first + 1, "127.0.0." + first + "-" + last, tweak);
    }

    private static VerbsDevice open(Supplier<String> candidates, int tries, String range,
                                    UnaryOperator<DeviceConfig> tweak) {
        VerbsException last = null;
        for (int n = 0; n < tries; n++) {
            try {
                return Verbs.open(tweak.apply(DeviceConfig.of(candidates.get())));
            } catch (VerbsException e) {
                if (!String.valueOf(e.getMessage()).contains("cannot bind")) {
                    throw e;
                }
                last = e;
            }
        }
        throw new IllegalStateException("no free loopback address in " + range, last);
    }

    /** A plain UDP socket bound to {@code port} on a free address of the range. */
    public static DatagramChannel bindRaw(int port) throws IOException {
        for (int n = 0; n < 3 * COUNT; n++) {
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            try {
                ch.bind(new InetSocketAddress(candidate(), port));
                return ch;
            } catch (BindException e) {
                ch.close();
            }
        }
        throw new IllegalStateException("no free loopback address in 127.0.0.2-39 for port " + port);
    }
}
