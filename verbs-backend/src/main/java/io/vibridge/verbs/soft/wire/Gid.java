package io.vibridge.verbs.soft.wire;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * A 16-byte GID as two big-endian longs. For RoCEv2 every GID is an IPv6 address, and an IPv4
 * endpoint is the IPv4-mapped address {@code ::ffff:a.b.c.d} (REF §1.2).
 *
 * @param hi bytes 0..7
 * @param lo bytes 8..15
 */
public record Gid(long hi, long lo) {

    public static final int LENGTH = 16;
    public static final Gid ZERO = new Gid(0, 0);

    private static final long MAPPED_PREFIX = 0x0000_FFFF_0000_0000L;

    /** {@code ::ffff:a.b.c.d} for an IPv4 address given as a big-endian int. */
    public static Gid ofIpv4(int ipv4) {
        return new Gid(0, MAPPED_PREFIX | (ipv4 & 0xFFFF_FFFFL));
    }

    /** The GID of an IP address: IPv4 mapped, IPv6 as is. */
    public static Gid of(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return ofIpv4(ipv4(b));
        }
        ByteBuffer bb = ByteBuffer.wrap(b);
        return new Gid(bb.getLong(0), bb.getLong(8));
    }

    /** Reads 16 bytes at an absolute offset. */
    public static Gid read(ByteBuffer buf, int off) {
        return new Gid(buf.getLong(off), buf.getLong(off + 8));
    }

    /** Writes 16 bytes at an absolute offset. */
    public void write(ByteBuffer buf, int off) {
        buf.putLong(off, hi);
        buf.putLong(off + 8, lo);
    }

    /** Writes {@code ::ffff:a.b.c.d} at an absolute offset without allocating. */
    public static void writeIpv4Mapped(ByteBuffer buf, int off, int ipv4) {
        buf.putLong(off, 0);
        buf.putLong(off + 8, MAPPED_PREFIX | (ipv4 & 0xFFFF_FFFFL));
    }

    /** Whether this is an IPv4-mapped IPv6 address. */
    public boolean isIpv4Mapped() {
        return hi == 0 && (lo & 0xFFFF_FFFF_0000_0000L) == MAPPED_PREFIX;
    }

    /** The IPv4 address (big-endian int) of an IPv4-mapped GID. */
    public int ipv4() {
        if (!isIpv4Mapped()) {
            throw new IllegalStateException("not an IPv4-mapped GID: " + this);
        }
        return (int) lo;
    }

    /** The 16 bytes. */
    public byte[] toBytes() {
        byte[] b = new byte[LENGTH];
        write(ByteBuffer.wrap(b), 0);
        return b;
    }

    /** The address: an {@link Inet4Address} if IPv4-mapped, else an {@link Inet6Address}. */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                int v = (int) lo;
                return InetAddress.getByAddress(new byte[] {
                    (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
            }
            return Inet6Address.getByAddress(null, toBytes(), -1);
        } catch (UnknownHostException e) {
            throw new AssertionError("fixed-length address rejected", e);
        }
    }

    /** Big-endian int of a 4-byte IPv4 address. */
    public static int ipv4(byte[] address) {
        if (address.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address");
        }
        return ((address[0] & 0xFF) << 24) | ((address[1] & 0xFF) << 16)
            | ((address[2] & 0xFF) << 8) | (address[3] & 0xFF);
    }

    /** Big-endian int of an {@link Inet4Address}. */
    public static int ipv4(Inet4Address address) {
        return ipv4(address.getAddress());
    }

    @Override
    public String toString() {
        return toInetAddress().getHostAddress();
    }
}
