package io.vibridge.bench.verbs;

import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Opcode;
import io.vibridge.verbs.soft.wire.PacketWriter;
import io.vibridge.verbs.soft.wire.Psn;
import io.vibridge.verbs.soft.wire.Reth;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The RoCEv2 transport headers per packet (IB-WIRE-REFERENCE §2): {@link PacketWriter} as the requester and responder write
 * them (BTH, and RETH on a WRITE FIRST), the static {@link Bth}/{@link Reth} reads the receive path
 * dispatches on (PacketView, WireBench's "wrap + 6 fields", is test code now: the data path never used it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RocePacketBench {

    static final int PAYLOAD = 1024;
    static final int DEST_QP = 0x11;

    private final PacketWriter writer = new PacketWriter();
    private final ByteBuffer out = ByteBuffer.allocateDirect(8192);
    private ByteBuffer packet;
    private int packetLength;
    private int psn;

    @Setup
    public void setup() {
        ByteBuffer b = ByteBuffer.allocateDirect(PacketWriter.packetLength(Opcode.RDMA_WRITE_FIRST, PAYLOAD));
        packetLength = writer.begin(b, 0, Opcode.RDMA_WRITE_FIRST, false, Bth.DEFAULT_PKEY, DEST_QP, true, 1, PAYLOAD)
                .reth(0x10_0000L, 0x42, 4 * PAYLOAD).finish();
        // heap, as WireBench's view measurement; the receive path reads absolute offsets from 0
        packet = ByteBuffer.allocate(packetLength).put(0, b, 0, packetLength);
    }

    @Benchmark
    public int writeSendOnly() {
        return writer.begin(out, 0, Opcode.SEND_ONLY, false, Bth.DEFAULT_PKEY, DEST_QP, true, nextPsn(), PAYLOAD).finish();
    }

    @Benchmark
    public int writeRdmaWriteFirst() {
        return writer.begin(out, 0, Opcode.RDMA_WRITE_FIRST, false, Bth.DEFAULT_PKEY, DEST_QP, false, nextPsn(), PAYLOAD)
                .reth(1, 2, 4096).finish();
    }

    private int nextPsn() {
        psn = Psn.next(psn); // 24 bits (IB-WIRE-REFERENCE §2.5)
        return psn;
    }

    /**
     * The reads from the device's dispatch to the responder's: opcode, version, P_Key, destination QP,
     * header length and pad, PSN, AckReq, then the RETH.
     */
    @Benchmark
    public void parseDataPath(Blackhole bh) {
        bh.consume(Bth.transportVersion(packet, 0));
        bh.consume(Bth.pkey(packet, 0));
        bh.consume(Bth.destQp(packet, 0));
        Opcode op = Opcode.lookup(Bth.opcode(packet, 0));
        bh.consume(packetLength - op.headerLength() - Bth.padCount(packet, 0));
        bh.consume(Bth.psn(packet, 0));
        bh.consume(Bth.ackRequest(packet, 0));
        bh.consume(Reth.virtualAddress(packet, Bth.LENGTH));
        bh.consume(Reth.rkey(packet, Bth.LENGTH));
        bh.consume(Reth.dmaLength(packet, Bth.LENGTH));
    }
}
