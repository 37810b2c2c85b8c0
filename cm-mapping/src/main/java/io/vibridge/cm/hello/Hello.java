package io.vibridge.cm.hello;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.wire.Fields;
import io.vibridge.cm.wire.IpAddressField;
import java.net.InetAddress;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The Hello: the private data of the CM REQ (CM-MAPPING §2; seed 001 Figure 1; SDP's HH,
 * IB-WIRE-REFERENCE §7.2). 92 bytes, of which the first 64 are defined; big-endian.
 *
 * <pre>
 *  0  MID = 0            1  reserved          2  bufs (u16)        4  len = 92 (u32)
 *  8  reserved (8)      16  MajVer|MinVer    17  IPVer|FlowC      18  reserved (2)
 * 20  DesRemRcvSz (u32) 24  LocalRcvSz (u32) 28  Local Port (u16) 30  reserved (2)
 * 32  Src IP (16)       48  Dst IP (16)      64  reserved (28)
 * </pre>
 *
 * <p><b>Encoding</b> writes all 92 bytes, reserved bytes zero, {@code len} = 92, MajVer 2.
 *
 * <p><b>The short Hello</b> (CM-MAPPING §2.1) is the form that fits the 56 bytes rdma_cm leaves behind its CMA
 * header over InfiniBand and RoCE: the same first 48 bytes (through Src IP), {@code len} = 56, then 8 zero bytes.
 * Dst IP is not carried: the target's address is the CMA header's destination, which the receiver supplies.
 * A receiver rejects a short Hello by the same rules, with len below 48 in place of below 64.
 *
 * <p><b>Decoding</b> rejects, with a {@link CmFormatException} naming the field, exactly what
 * CM-MAPPING §3 says a receiver rejects: MID not 0, MajVer not 2, len below 64, IPVer not 4 or 6,
 * FlowC not 0 or 1; and input shorter than the 64 defined bytes. It is liberal elsewhere:
 * reserved bytes are ignored (an SDP peer puts MaxAdverts = 1 in byte 19), len above 92 is
 * accepted, the 12 padding bytes of an IPv4 address are not checked, the minor version is kept
 * as received. Such a receiver answers with CM REJ reason {@link
 * CmFormatException#CM_REJ_CONSUMER_REASON}.
 *
 * @param bufs receive buffers the sender has posted on this QP (initial credits), 0..65535
 * @param minorVersion MinVer, 0..15 (2 when sent by us)
 * @param flowControl FlowC
 * @param desiredRemoteReceiveSize DesRemRcvSz: receive size the sender asks the target to use (u32)
 * @param localReceiveSize LocalRcvSz: the sender's receive buffer size on this QP (u32)
 * @param sourcePort Local Port: the VI client's TCP source port, 0..65535
 * @param sourceAddress Src IP: the VI client's address
 * @param destinationAddress Dst IP: the target's address, same IP version as the source
 */
public record Hello(
        int bufs,
        int minorVersion,
        FlowControl flowControl,
        long desiredRemoteReceiveSize,
        long localReceiveSize,
        int sourcePort,
        InetAddress sourceAddress,
        InetAddress destinationAddress) {

    /** Size of the REQ private data the Hello fills. */
    public static final int LENGTH = 92;
    /** Bytes of the Hello that carry defined fields (the rest is reserved). */
    public static final int DEFINED_LENGTH = 64;
    /** Size of the short Hello: the REQ private data rdma_cm leaves behind its CMA header (92 - 36). */
    public static final int SHORT_LENGTH = 56;
    /** Bytes of the short Hello that carry defined fields: the Hello's first 48, through Src IP. */
    public static final int SHORT_DEFINED_LENGTH = 48;
    /** MID of a Hello. */
    public static final int MID = 0;
    /** The only major version accepted and sent (SDP's 2.2, as the seed keeps SDP's fields). */
    public static final int MAJOR_VERSION = 2;
    /** The minor version sent. */
    public static final int MINOR_VERSION = 2;

    static final String NAME = "Hello";

    /** Validates the arguments (ranges, non-null, one IP version for both addresses). */
    public Hello {
        Fields.requireRange("bufs", bufs, 0xFFFF);
        Fields.requireRange("minorVersion", minorVersion, 0xF);
        Objects.requireNonNull(flowControl, "flowControl");
        Fields.requireU32("desiredRemoteReceiveSize", desiredRemoteReceiveSize);
        Fields.requireU32("localReceiveSize", localReceiveSize);
        Fields.requireRange("sourcePort", sourcePort, 0xFFFF);
        Objects.requireNonNull(sourceAddress, "sourceAddress");
        Objects.requireNonNull(destinationAddress, "destinationAddress");
        IpAddressField.requireSameVersion(sourceAddress, destinationAddress, "IPVer");
    }

    /** A Hello as the gateway sends it: version 2.2. */
    public static Hello of(int bufs, FlowControl flowControl, long desiredRemoteReceiveSize,
            long localReceiveSize, int sourcePort, InetAddress sourceAddress, InetAddress destinationAddress) {
        return new Hello(bufs, MINOR_VERSION, flowControl, desiredRemoteReceiveSize, localReceiveSize,
                sourcePort, sourceAddress, destinationAddress);
    }

    /** IPVer: 4 or 6, from the addresses. */
    public int ipVersion() {
        return IpAddressField.ipVersionOf(sourceAddress);
    }

    /**
     * Writes the 92-byte Hello at the buffer's position and advances it by 92.
     *
     * @throws BufferOverflowException if fewer than 92 bytes remain (nothing is written)
     */
    public void encode(ByteBuffer buf) {
        write(buf, LENGTH);
    }

    /** The 92 bytes of REQ private data. */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        encode(ByteBuffer.wrap(out));
        return out;
    }

    /**
     * Writes the 56-byte short Hello (CM-MAPPING §2.1: no Dst IP) at the buffer's position and advances it by 56.
     *
     * @throws BufferOverflowException if fewer than 56 bytes remain (nothing is written)
     */
    public void encodeShort(ByteBuffer buf) {
        write(buf, SHORT_LENGTH);
    }

    /** The 56 bytes of the short Hello, the user private data behind rdma_cm's CMA header. */
    public byte[] toShortBytes() {
        byte[] out = new byte[SHORT_LENGTH];
        encodeShort(ByteBuffer.wrap(out));
        return out;
    }

    /** Writes {@code length} bytes (92 or 56): the defined fields, Dst IP only in the whole form, zeros elsewhere. */
    private void write(ByteBuffer buf, int length) {
        if (buf.remaining() < length) {
            throw new BufferOverflowException();
        }
        int p = buf.position();
        CommonHeader.write(buf, p, length, MID, bufs, minorVersion);
        buf.put(p + 17, (byte) (ipVersion() << 4 | flowControl.wireValue()));
        buf.putInt(p + 20, (int) desiredRemoteReceiveSize);
        buf.putInt(p + 24, (int) localReceiveSize);
        buf.putShort(p + 28, (short) sourcePort);
        IpAddressField.write(buf, p + 32, sourceAddress);
        if (length >= DEFINED_LENGTH) {
            IpAddressField.write(buf, p + 48, destinationAddress);
        }
        buf.position(p + length);
    }

    /**
     * Reads a Hello at the buffer's position (the start of the REQ private data). On success the
     * position advances past the private data, by {@code min(92, remaining)}; on failure it is
     * unchanged.
     *
     * @throws CmFormatException if fewer than 64 bytes remain or a field breaks CM-MAPPING §3
     */
    public static Hello decode(ByteBuffer buf) {
        return read(buf, DEFINED_LENGTH, null, LENGTH);
    }

    /**
     * Reads a short Hello (CM-MAPPING §2.1) at the buffer's position, the user private data behind rdma_cm's CMA
     * header; {@code destination} is the target's address, which the short form does not carry (the CMA header's
     * destination, or the address the receiving rdma_cm id is bound to). On success the position advances by
     * {@code min(56, remaining)}; on failure it is unchanged.
     *
     * @throws CmFormatException if fewer than 48 bytes remain, a field breaks CM-MAPPING §3 (len: below 48), or
     *     the IP version differs from the destination's
     */
    public static Hello decodeShort(ByteBuffer buf, InetAddress destination) {
        Objects.requireNonNull(destination, "destination");
        return read(buf, SHORT_DEFINED_LENGTH, destination, SHORT_LENGTH);
    }

    private static Hello read(ByteBuffer buf, int defined, InetAddress destination, int consumed) {
        CommonHeader header = CommonHeader.read(buf, NAME, MID, defined);
        int p = buf.position();
        int ipVersion = IpAddressField.readIpVersion(buf, p, 17, NAME, "IPVer");
        int flowC = buf.get(p + 17) & 0xF;
        if (flowC > 1) {
            throw new CmFormatException(NAME, "FlowC", 17, "must be 0 or 1, got " + flowC);
        }
        long desRemRcvSz = buf.getInt(p + 20) & 0xFFFF_FFFFL;
        long localRcvSz = buf.getInt(p + 24) & 0xFFFF_FFFFL;
        int localPort = buf.getShort(p + 28) & 0xFFFF;
        InetAddress src = IpAddressField.read(buf, p + 32, ipVersion);
        InetAddress dst;
        if (destination == null) {
            dst = IpAddressField.read(buf, p + 48, ipVersion);
        } else {
            try {
                dst = IpAddressField.inVersion(destination, ipVersion);
            } catch (IllegalArgumentException e) {
                throw new CmFormatException(NAME, "IPVer", 17, "is " + ipVersion + " but the target's address is "
                        + destination.getHostAddress());
            }
        }
        buf.position(p + Math.min(consumed, buf.remaining()));
        return new Hello(header.bufs(), header.minorVersion(), FlowControl.of(flowC), desRemRcvSz, localRcvSz,
                localPort, src, dst);
    }

    /** Decodes REQ private data given as an array (see {@link #decode(ByteBuffer)}). */
    public static Hello fromBytes(byte[] privateData) {
        return decode(ByteBuffer.wrap(privateData));
    }
}
