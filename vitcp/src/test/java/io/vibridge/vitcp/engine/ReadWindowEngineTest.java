package io.vibridge.vitcp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.vitcp.engine.EngineTest.Side;
import io.vibridge.vitcp.engine.EngineTest.Work;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import io.vibridge.vitcp.wire.Segments;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * VITCP-PROFILE §9.5 at the engine: the responder stops counting a request against its RDMA Read
 * window once the last response segment is produced (handed to the output), so a requester that
 * already received that segment and sends its next request never gets IS 7, whenever the owner gets
 * round to {@link ViConnection#written()}.
 */
class ReadWindowEngineTest {

    static final int WINDOW = 2;

    static LocalEndpoint endpoint(ReliabilityLevel level, String disc, int imn) {
        return new LocalEndpoint(ConnectionAttributes.of(level, true, true, false, false, false),
                Discriminator.ofUtf8(disc), 1 << 20, WINDOW, imn, 1000, 8, null);
    }

    /** Produces everything {@code from} has without confirming it: returns the bytes and the segment count. */
    static byte[] produceUnwritten(ViConnection from, int[] segments) {
        return EngineOutput.unconfirmed(from, segments);
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void responseDeliveredBeforeWritten_nextReadWithinTheWindow_noIs7(ReliabilityLevel level) {
        Random rnd = new Random(11);
        Side a = new Side();
        Side b = new Side();
        b.accept = endpoint(level, "b", 900);
        ViConnection ca = ViConnection.active(a, endpoint(level, "a", 40), Discriminator.ofUtf8("b"), 0, 0,
                1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        EngineTest.pump(ca, cb, rnd, 64);
        EngineTest.pump(cb, ca, rnd, 64);
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        for (int i = 0; i < 9000; i++) {
            b.memory.put(i, (byte) (i * 7));
        }
        Work[] reads = new Work[WINDOW + 1];
        for (int k = 0; k < reads.length; k++) {
            reads[k] = new Work(OutboundWork.OP_RDMA_READ, ByteBuffer.allocate(3000), 3000L * k, false);
            ca.post(reads[k]);
        }
        EngineTest.pump(ca, cb, rnd, 64); // a full window of requests; the last Read waits (§5)

        // b hands its responses (three segments each) to the output but written() has not run yet
        int[] segments = new int[1];
        byte[] responses = produceUnwritten(cb, segments);
        ca.receive(ByteBuffer.wrap(responses)); // TCP was faster than b's bookkeeping
        assertThat(a.completed).hasSize(WINDOW);
        assertThat(ca.hasOutput()).isTrue(); // the window reopened: a sends its next request at once
        EngineTest.pump(ca, cb, rnd, 64);

        assertThat(b.events).noneMatch(e -> e.startsWith("broken"));
        assertThat(cb.state()).isEqualTo(ViConnection.State.CONNECTED);
        for (int i = 0; i < segments[0]; i++) {
            cb.written();
        }
        EngineTest.pump(cb, ca, rnd, 64);
        EngineTest.pump(ca, cb, rnd, 64);
        assertThat(a.completed).containsOnly(Status.DONE | Status.OP_RDMA_READ).hasSize(WINDOW + 1);
        assertThat(a.events).noneMatch(e -> e.startsWith("broken"));
        assertThat(b.events).noneMatch(e -> e.startsWith("broken"));
        for (int k = 0; k < reads.length; k++) {
            for (int i = 0; i < 3000; i++) {
                assertThat(reads[k].data.get(i)).isEqualTo((byte) ((3000 * k + i) * 7));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = ReliabilityLevel.class, names = {"RELIABLE_DELIVERY", "RELIABLE_RECEPTION"})
    void windowStillEnforced_whenTheLastResponseSegmentIsNotProducedYet(ReliabilityLevel level) {
        Random rnd = new Random(12);
        Side a = new Side();
        Side b = new Side();
        b.accept = endpoint(level, "b", 1);
        ViConnection ca = ViConnection.active(a, endpoint(level, "a", 2), Discriminator.ofUtf8("b"), 0, 0,
                1_000_000_000L);
        ViConnection cb = ViConnection.passive(b, null, 0);
        EngineTest.pump(ca, cb, rnd, 64);
        EngineTest.pump(cb, ca, rnd, 64);
        int msg = ca.negotiated().localImn();
        // a hostile requester sends WINDOW + 1 requests before any response left b
        ByteBuffer seg = ByteBuffer.allocate(40 * (WINDOW + 1));
        for (int k = 0; k <= WINDOW; k++) {
            Segments.writeRdmaReadRequest(seg, 40 * k, false, msg + k, 0, 0, 0, 7, 100);
        }
        cb.receive(seg);
        if (level == ReliabilityLevel.RELIABLE_DELIVERY) {
            assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 2/7");
        } else {
            EngineTest.pump(cb, ca, rnd, 64); // the report (IS 7) goes out, then b breaks
            assertThat(b.events).contains("broken LOCAL_RECEIVE_ERROR 2/7");
            assertThat(a.events).contains("broken REMOTE_ERROR 2/7");
        }
    }
}
