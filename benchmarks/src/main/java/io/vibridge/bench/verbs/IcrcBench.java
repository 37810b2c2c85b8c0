package io.vibridge.bench.verbs;

import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The RoCEv2 ICRC (IB-WIRE-REFERENCE §1.5) of one SEND ONLY packet, as the soft device pays it per
 * packet: sealing on transmit, checking on receive with IP ID 0 (our sockets), and the any-IP-ID fallback
 * for a peer that sends other IDs (rxe): the GF(2) solve with the basis cached for the packet length,
 * and a basis rebuild alone (the length changes every call).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class IcrcBench {

    static final int SRC_IP = 0x7F00_0001;
    static final int DST_IP = 0x7F00_0002;
    static final int SRC_PORT = 0xC000;
    /** The IPv4 ID of the rxe-like packet: not one of ours, so only the solver finds it. */
    static final int RXE_IP_ID = 59391;

    /** Payload bytes; the packet is 12 (BTH) + payload + 4 (ICRC). */
    @Param("1024")
    public int payload;

    private final Icrc icrc = new Icrc();
    /** Sealed as our sender does: IP ID 0. */
    private ByteBuffer ours;
    /** The same packet sealed for IP ID {@link #RXE_IP_ID}. */
    private ByteBuffer rxeLike;
    private int length;
    private int calls;

    @Setup
    public void setup() {
        ours = ByteBuffer.allocateDirect(PacketWriter.packetLength(Opcode.SEND_ONLY, payload));
        length = new PacketWriter().begin(ours, 0, Opcode.SEND_ONLY, false, Bth.DEFAULT_PKEY, 0x11, true, 1, payload)
                .finish();
        icrc.sealIpv4(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, ours, 0, length);
        rxeLike = ByteBuffer.allocateDirect(length);
        rxeLike.put(0, ours, 0, length);
        Icrc.writeTrailer(rxeLike, 0, length,
                icrc.computeIpv4(SRC_IP, DST_IP, RXE_IP_ID, true, SRC_PORT, Icrc.ROCE_PORT, rxeLike, 0, length));
    }

    @Benchmark
    public void sealIpv4() {
        icrc.sealIpv4(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, ours, 0, length);
    }

    @Benchmark
    public IcrcCheck verifyIpId0() {
        return icrc.verifyIpv4(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, ours, 0, length, true);
    }

    /** The receive path's call (RoceIcrc): the expected ID first, one CRC pass when it holds. */
    @Benchmark
    public int ipv4IdExpected() {
        return icrc.ipv4Id(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, ours, 0, length, 0);
    }

    /** An ID 0 miss, then the solve with the basis already built for this length. */
    @Benchmark
    public IcrcCheck verifyAnyIpIdCachedLength() {
        return icrc.verifyIpv4(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, rxeLike, 0, length, true);
    }

    /** The basis rebuild the solver pays when the length differs from the previous fallback's (16 or 20 bytes here). */
    @Benchmark
    public int anyIpIdBasisRebuild() {
        return icrc.verifyAnyIpId(SRC_IP, DST_IP, SRC_PORT, Icrc.ROCE_PORT, rxeLike, 0,
                Bth.LENGTH + Icrc.LENGTH + (++calls & 1) * 4);
    }
}
