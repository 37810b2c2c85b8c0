package io.vibridge.cm.wire;

import io.vibridge.cm.CmFormatException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The 16-byte IP address field shared by the Hello (CM-MAPPING §2) and the CMA header
 * (IB-WIRE-REFERENCE §6.2): an IPv6 address as its 16 bytes, an IPv4 address in the last 4 bytes
 * with the first 12 bytes zero (zero-padded as SDP and rdma_cm do, not {@code ::ffff:}-mapped).
 *
 * <p>Reading is driven by the message's IP version field, never guessed from the bytes: with IP
 * version 6 the result is always an {@link Inet6Address}, even for a {@code ::ffff:a.b.c.d} or
 * {@code ::a.b.c.d} pattern, so that decoding what was encoded gives the same address back. With IP
 * version 4 the 12 padding bytes are not checked (neither the spec nor Linux's rdma_cm rejects
 * them; Linux reads only the last 4 bytes). The IPv6 scope of an address is not carried.
 */
public final class IpAddressField {

    /** Size of the field in bytes. */
    public static final int LENGTH = 16;

    private IpAddressField() {
    }

    /** The IP version number (4 or 6) of an address. */
    public static int ipVersionOf(InetAddress address) {
        return switch (Objects.requireNonNull(address, "address")) {
            case Inet4Address a -> 4;
            case Inet6Address a -> 6;
            default -> throw new IllegalArgumentException("neither IPv4 nor IPv6: " + address);
        };
    }

    /**
     * Requires both addresses of a message to be of one IP version, as they share one version field.
     *
     * @param field the name of that field in the message, for the exception
     * @throws IllegalArgumentException if their versions differ
     */
    public static void requireSameVersion(InetAddress source, InetAddress destination, String field) {
        if (ipVersionOf(source) != ipVersionOf(destination)) {
            throw new IllegalArgumentException("source " + source + " and destination " + destination
                    + " must be of the same IP version (one " + field + " field)");
        }
    }

    /**
     * Reads the IP version that drives the reading of the address fields: the high nibble of the byte at
     * {@code offset} from absolute {@code start} (the message's first byte). The low nibble is the message's own.
     *
     * @param message the message's name, for the exception
     * @param field the field's name, for the exception
     * @throws CmFormatException if the version is neither 4 nor 6
     */
    public static int readIpVersion(ByteBuffer buf, int start, int offset, String message, String field) {
        int ipVersion = (buf.get(start + offset) & 0xFF) >>> 4;
        if (ipVersion != 4 && ipVersion != 6) {
            throw new CmFormatException(message, field, offset, "must be 4 or 6, got " + ipVersion);
        }
        return ipVersion;
    }

    /**
     * {@code address} in IP version {@code ipVersion}, so that it can share one IP version field
     * with another address: an IPv4 address becomes {@code ::ffff:a.b.c.d} for version 6, an IPv4-mapped
     * IPv6 address becomes IPv4 for version 4.
     *
     * @throws IllegalArgumentException if an IPv6 address that is not IPv4-mapped is asked for as
     *     version 4, or {@code ipVersion} is neither 4 nor 6
     */
    public static InetAddress inVersion(InetAddress address, int ipVersion) {
        int have = ipVersionOf(address);
        if (have == ipVersion) {
            return address;
        }
        byte[] b = address.getAddress();
        try {
            if (ipVersion == 6) {
                byte[] mapped = new byte[LENGTH];
                mapped[10] = (byte) 0xFF;
                mapped[11] = (byte) 0xFF;
                System.arraycopy(b, 0, mapped, 12, 4);
                return Inet6Address.getByAddress(null, mapped, -1);
            }
            if (ipVersion == 4) {
                for (int i = 0; i < 10; i++) {
                    if (b[i] != 0) {
                        throw new IllegalArgumentException(address + " has no IPv4 form");
                    }
                }
                if (b[10] != (byte) 0xFF || b[11] != (byte) 0xFF) {
                    throw new IllegalArgumentException(address + " has no IPv4 form");
                }
                return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalArgumentException("IP version must be 4 or 6, got " + ipVersion);
    }

    /** Writes {@code address} as a 16-byte field at absolute {@code index} of {@code buf}. */
    public static void write(ByteBuffer buf, int index, InetAddress address) {
        byte[] bytes = address.getAddress();
        int pad = LENGTH - bytes.length;
        for (int i = 0; i < pad; i++) {
            buf.put(index + i, (byte) 0);
        }
        buf.put(index + pad, bytes);
    }

    /**
     * Reads a 16-byte field at absolute {@code index} of {@code buf} as an address of
     * {@code ipVersion} (4 or 6; the caller has validated it).
     */
    public static InetAddress read(ByteBuffer buf, int index, int ipVersion) {
        try {
            if (ipVersion == 4) {
                byte[] b = new byte[4];
                buf.get(index + LENGTH - 4, b);
                return InetAddress.getByAddress(b);
            }
            byte[] b = new byte[LENGTH];
            buf.get(index, b);
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            // Unreachable: the arrays have legal lengths.
            throw new IllegalStateException(e);
        }
    }
}
