package io.vibridge.cm.route;

import io.vibridge.cm.CmFormatException;
import io.vibridge.cm.cma.CmaHeader;
import io.vibridge.cm.hello.Hello;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * How a {@code hello} route's Hello travels in the CM REQ private data (CM-MAPPING §2.1).
 *
 * <p>A CM that passes the application all 92 bytes (the raw IB CM: the soft provider; rdma_cm with AF_IB)
 * carries the seed-001 Hello whole. rdma_cm with IP addressing over InfiniBand and RoCE writes librdmacm's
 * 36-byte CMA header first and leaves 56 bytes (IB-WIRE-REFERENCE §6.2): there the short Hello follows the
 * header, and the Service ID must be one of rdma_cm's RC port spaces, TCP or IB ({@code service-id = rdma-cm}; the
 * seed's {@code iwarp} IDs are numerically its IPoIB port space, which is UD only).
 */
public enum HelloCarriage {
    /** {@link #WHOLE} where the CM passes 92 bytes, {@link #CMA_HEADER} where it writes the CMA header itself. */
    AUTO("auto"),
    /** The seed-001 form, byte for byte: the 92-byte Hello is the whole REQ private data. */
    WHOLE("whole"),
    /** librdmacm's CMA header, then the 56-byte short Hello (no Dst IP: it is the header's destination). */
    CMA_HEADER("cma-header");

    private final String configName;

    HelloCarriage(String configName) {
        this.configName = configName;
    }

    /** {@code auto}, {@code whole} or {@code cma-header}. */
    public String configName() {
        return configName;
    }

    /** What {@link #AUTO} means on a CM that does ({@code cmWritesCmaHeader}) or does not write the CMA header. */
    public HelloCarriage resolve(boolean cmWritesCmaHeader) {
        return this != AUTO ? this : cmWritesCmaHeader ? CMA_HEADER : WHOLE;
    }

    /**
     * The format for a configuration name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static HelloCarriage fromConfigName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (HelloCarriage c : values()) {
            if (c.configName.equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown hello-carriage \"" + name + "\": expected auto, whole or cma-header");
    }

    /**
     * Decodes the Hello in a REQ's private data, in either carriage. {@code headerTakenFor} null: the CM delivers
     * all 92 bytes (the raw IB CM), and the carriages differ in byte 1: the Hello's is reserved (0), the CMA
     * header's holds its ip_version nibble (4 or 6); both start with a 0 byte (MID, cma_version). Otherwise the
     * CM is rdma_cm and took the CMA header off: what is left is a short Hello, whose target address is
     * {@code headerTakenFor}, the address the listening id is bound to.
     *
     * @throws CmFormatException if the bytes hold no valid Hello in either carriage
     */
    public static Hello decodeRequest(byte[] privateData, InetAddress headerTakenFor) {
        ByteBuffer buf = ByteBuffer.wrap(privateData);
        if (headerTakenFor != null) {
            return Hello.decodeShort(buf, headerTakenFor);
        }
        if (hasCmaHeader(privateData)) {
            CmaHeader cma = CmaHeader.decode(buf);
            return Hello.decodeShort(buf, cma.destinationAddress());
        }
        return Hello.decode(buf);
    }

    /**
     * Whether REQ private data on an {@code rdma-cm} Service ID carries a Hello behind the CMA header (a
     * {@code hello} route with this carriage) rather than the CMA header alone and zeros (an {@code rdma-cm}
     * route, CM-MAPPING §5): the short Hello's len field is never 0. {@code headerTaken}: the CM took the header
     * off already.
     */
    public static boolean carriesHello(byte[] privateData, boolean headerTaken) {
        int at = (headerTaken ? 0 : CmaHeader.LENGTH) + 4;
        return privateData.length >= at + 4 && ByteBuffer.wrap(privateData).getInt(at) != 0;
    }

    private static boolean hasCmaHeader(byte[] privateData) {
        return privateData.length > 1 && (privateData[1] & 0xF0) != 0;
    }
}
