package io.vibridge.iwarp.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link IwarpEndpoint#connect} sets a stream up.
 *
 * @param crc            ask for CRC32C on every FPDU (RFC 5044 §7.1: used when either side asks)
 * @param ird            RDMA Read Requests of the peer this side answers outstanding (RFC 6581 IRD)
 * @param ord            RDMA Reads this side may have outstanding at the peer (RFC 6581 ORD)
 * @param maxFpdu        the largest FPDU this side emits, whole; 1448 is what Linux siw emits on an MTU-1500
 *                       link (its TCP MSS rounded down to 8, siw_qp_tx.c siw_update_tcpseg)
 * @param connectTimeout TCP connect and MPA Reply, each
 */
public record IwarpOptions(boolean crc, int ird, int ord, int maxFpdu, Duration connectTimeout) {

    public IwarpOptions {
        if (ird < 0 || ord < 0) {
            throw new IllegalArgumentException("IRD and ORD are counts, got " + ird + " and " + ord);
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
    }

    /** CRC on, IRD and ORD 4, FPDUs as siw's at MTU 1500, 10 s to connect. */
    public static IwarpOptions defaults() {
        return new IwarpOptions(true, 4, 4, 1448, Duration.ofSeconds(10));
    }

    public IwarpOptions withCrc(boolean on) {
        return new IwarpOptions(on, ird, ord, maxFpdu, connectTimeout);
    }

    public IwarpOptions withReadDepths(int inbound, int outbound) {
        return new IwarpOptions(crc, inbound, outbound, maxFpdu, connectTimeout);
    }

    public IwarpOptions withMaxFpdu(int bytes) {
        return new IwarpOptions(crc, ird, ord, bytes, connectTimeout);
    }

    public IwarpOptions withConnectTimeout(Duration timeout) {
        return new IwarpOptions(crc, ird, ord, maxFpdu, timeout);
    }
}
