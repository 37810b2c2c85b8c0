package io.vibridge.interop.support;

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

/**
 * Soft devices for this module's tests on free addresses of 127.0.0.90-127.0.0.109 (other modules' tests use
 * 2-81), so overlapping test runs do not fight over an address. 127.0.0.110 is never bound: the absent peer.
 */
public final class LoopbackDevices {
    public static final String ABSENT = "127.0.0.110";
    private static final int FIRST = 90;
    private static final int COUNT = 20;
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(COUNT));

    private LoopbackDevices() {
    }

    private static String candidate() {
        return "127.0.0." + (FIRST + Math.floorMod(NEXT.getAndIncrement(), COUNT));
    }

    /** A soft device on the first free address. */
    public static VerbsDevice open() {
        VerbsException last = null;
        for (int n = 0; n < 3 * COUNT; n++) {
            try {
                return Verbs.open(DeviceConfig.of(candidate()).withProvider("soft"));
            } catch (VerbsException e) {
                if (!String.valueOf(e.getMessage()).contains("cannot bind")) {
                    throw e;
                }
                last = e;
            }
        }
        throw new IllegalStateException("no free loopback address in 127.0.0.90-109", last);
    }

    /** An address whose UDP port 4791 was free a moment ago (for devices that something else opens). */
    public static String freeAddress() {
        for (int n = 0; n < 3 * COUNT; n++) {
            String a = candidate();
            try (DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET)) {
                ch.bind(new InetSocketAddress(a, DeviceConfig.ROCE_V2_PORT));
                return a;
            } catch (BindException e) {
                // taken: next
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no free loopback address in 127.0.0.90-109");
    }

    /** A plain UDP socket on a free address's port 4791: a hand-driven RoCEv2 peer. */
    public static DatagramChannel bindRaw() throws IOException {
        for (int n = 0; n < 3 * COUNT; n++) {
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            try {
                ch.bind(new InetSocketAddress(candidate(), DeviceConfig.ROCE_V2_PORT));
                return ch;
            } catch (BindException e) {
                ch.close();
            }
        }
        throw new IllegalStateException("no free loopback address in 127.0.0.90-109");
    }
}
