package io.vibridge.cm.testutil;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random IPv4 / IPv6 addresses for property and fuzz tests. */
public final class Addresses {

    private Addresses() {
    }

    /** An address of {@code version} (4 or 6) from raw bytes; IPv6 stays IPv6 even if v4-mapped. */
    public static InetAddress of(int version, byte[] raw) {
        try {
            return version == 4 ? InetAddress.getByAddress(raw) : Inet6Address.getByAddress(null, raw, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Pairs (source, destination) of one IP version, either version. */
    public static Arbitrary<InetAddress[]> samePairs() {
        return Arbitraries.of(4, 6).flatMap(v -> {
            Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofSize(v == 4 ? 4 : 16);
            return Combinators.combine(raw, raw).as((a, b) -> new InetAddress[] {of(v, a), of(v, b)});
        });
    }

    /** A random pair of one IP version. */
    public static InetAddress[] randomPair(Random random) {
        int v = random.nextBoolean() ? 4 : 6;
        byte[] a = new byte[v == 4 ? 4 : 16];
        byte[] b = new byte[a.length];
        random.nextBytes(a);
        random.nextBytes(b);
        return new InetAddress[] {of(v, a), of(v, b)};
    }
}
