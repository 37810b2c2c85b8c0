package io.vibridge.cm.cma;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;
import io.vibridge.cm.wire.IpAddressField;
import java.net.InetAddress;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * librdmacm's {@code cma_hdr}: the first 36 bytes of the CM REQ private data of an AF_INET /
 * AF_INET6 rdma_cm connect (IB-WIRE-REFERENCE §6.2; CM-MAPPING §5), big-endian:
 *
 * <pre>
 *  0  cma_version = 0     1  ip_version (bits 7:4 = 4 or 6, bits 3:0 = 0)     2  port (u16, SOURCE port)
 *  4  src_addr (16)      20  dst_addr (16)                                    36  user private data (56)
 * </pre>
 *
 * <p>The destination port is not in the header; it is in the Service ID ({@code rdma-cm} scheme).
 *
 * <p><b>Encoding</b> writes the 36 bytes with the low nibble of byte 1 zero; {@link
 * #toPrivateData(byte[])} builds the whole 92-byte REQ private data with up to 56 user bytes.
 *
 * <p><b>Decoding</b> rejects, with a {@link CmFormatException}, what Linux's passive rdma_cm
 * rejects: cma_version not 0, IP version (high nibble of byte 1) not 4 or 6; and input shorter than
 * 36 bytes. Like Linux it ignores the low nibble of byte 1 and the 12 padding bytes of an IPv4
 * address.
 *
 * @param sourcePort the active side's source port, 0..65535
 * @param sourceAddress the active side's IP address
 * @param destinationAddress the passive side's IP address, same IP version as the source
 */
public record CmaHeader(int sourcePort, InetAddress sourceAddress, InetAddress destinationAddress) {

    /** Size of the header in bytes. */
    public static final int LENGTH = 36;
    /** {@code CMA_VERSION}: the only version sent and accepted. */
    public static final int CMA_VERSION = 0;
    /** Size of the CM REQ private data. */
    public static final int REQ_PRIVATE_DATA_LENGTH = 92;
    /** User private data that fits after the header in a REQ (92 - 36). */
    public static final int MAX_USER_DATA = REQ_PRIVATE_DATA_LENGTH - LENGTH;

    static final String NAME = "CmaHeader";

    /** Validates the port range and that both addresses have one IP version. */
    public CmaHeader {
        Fields.requireRange("sourcePort", sourcePort, 0xFFFF);
        Objects.requireNonNull(sourceAddress, "sourceAddress");
        Objects.requireNonNull(destinationAddress, "destinationAddress");
        IpAddressField.requireSameVersion(sourceAddress, destinationAddress, "ip_version");
    }

    /** 4 or 6, from the addresses. */
    public int ipVersion() {
        return IpAddressField.ipVersionOf(sourceAddress);
    }

    /**
     * Writes the 36-byte header at the buffer's position and advances it by 36.
     *
     * @throws BufferOverflowException if fewer than 36 bytes remain (nothing is written)
     */
    public void encode(ByteBuffer buf) {
        if (buf.remaining() < LENGTH) {
            throw new BufferOverflowException();
        }
        int p = buf.position();
        buf.put(p, (byte) CMA_VERSION);
        buf.put(p + 1, (byte) (ipVersion() << 4));
        buf.putShort(p + 2, (short) sourcePort);
        IpAddressField.write(buf, p + 4, sourceAddress);
        IpAddressField.write(buf, p + 20, destinationAddress);
        buf.position(p + LENGTH);
    }

    /** The 36 header bytes. */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        encode(ByteBuffer.wrap(out));
        return out;
    }

    /**
     * The 92-byte CM REQ private data: this header, then {@code userData}, then zeros.
     *
     * @throws IllegalArgumentException if {@code userData} is longer than 56 bytes
     */
    public byte[] toPrivateData(byte[] userData) {
        if (userData.length > MAX_USER_DATA) {
            throw new IllegalArgumentException("user private data is at most " + MAX_USER_DATA
                    + " bytes after the CMA header, got " + userData.length);
        }
        byte[] out = new byte[REQ_PRIVATE_DATA_LENGTH];
        ByteBuffer buf = ByteBuffer.wrap(out);
        encode(buf);
        buf.put(userData);
        return out;
    }

    /**
     * Reads the header at the buffer's position; on success the position advances by 36, to the
     * user private data; on failure it is unchanged.
     *
     * @throws CmFormatException if fewer than 36 bytes remain, cma_version is not 0 or the IP
     *     version is not 4 or 6
     */
    public static CmaHeader decode(ByteBuffer buf) {
        Fields.requireRemaining(buf, LENGTH, NAME);
        int p = buf.position();
        int version = buf.get(p) & 0xFF;
        if (version != CMA_VERSION) {
            throw new CmFormatException(NAME, "cma_version", 0, "must be 0, got " + version);
        }
        int ipVersion = IpAddressField.readIpVersion(buf, p, 1, NAME, "ip_version");
        int port = buf.getShort(p + 2) & 0xFFFF;
        InetAddress src = IpAddressField.read(buf, p + 4, ipVersion);
        InetAddress dst = IpAddressField.read(buf, p + 20, ipVersion);
        buf.position(p + LENGTH);
        return new CmaHeader(port, src, dst);
    }

    /** Decodes REQ private data given as an array (see {@link #decode(ByteBuffer)}). */
    public static CmaHeader fromBytes(byte[] privateData) {
        return decode(ByteBuffer.wrap(privateData));
    }
}
