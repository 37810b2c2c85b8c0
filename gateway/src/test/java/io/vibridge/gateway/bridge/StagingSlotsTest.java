package io.vibridge.gateway.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.bridge.StagingSlots.Op;
import io.vibridge.gateway.bridge.staging.DirectMemory;
import io.vibridge.gateway.bridge.staging.StagingPool;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StagingSlotsTest {
    private final StagingPool pool = new StagingPool(FakeVerbs.protectionDomain(), 1024, 16, 8, 2);

    @Test
    void aChunkTheJvmRefusesRefusesTheConnectionAndIsCounted() {
        // room for one 32 MiB chunk and a half beyond the direct buffers in use now (other tests' buffers may come
        // and go by a few MiB meanwhile); a second chunk passes the limit
        int chunk = 32 << 20;
        DirectMemory memory = new DirectMemory(new DirectMemory(Long.MAX_VALUE).used() + chunk * 3L / 2);
        StagingPool p = new StagingPool(FakeVerbs.protectionDomain(), 1 << 20, 64, 32, 2, memory);
        StagingSlots first = StagingSlots.reserve(p, 20, 4, false);
        assertThat(first).isNotNull();
        assertThat(p.allocated()).isEqualTo(32);
        assertThat(StagingSlots.reserve(p, 20, 4, false)).as("needs a second chunk: refused").isNull();
        assertThat(p.allocationFailures()).isEqualTo(1);
        assertThat(p.inUse()).as("nothing held by the refused reservation").isEqualTo(20);
        assertThat(StagingSlots.reserve(p, 12, 4, false)).as("fits the first chunk").isNotNull();
        first.release();
        assertThat(StagingSlots.reserve(p, 20, 4, false)).as("slots given back are taken again").isNotNull();
        assertThat(p.allocated()).isEqualTo(32);
        assertThat(p.allocationFailures()).isEqualTo(1);
        p.close();
    }

    @Test
    void receiveSlotsComeFirstAndClientSlotsAreAdmittedUntilNoneIsFree() {
        StagingSlots s = StagingSlots.reserve(pool, 6, 2, false);
        assertThat(s.recvSlots).isEqualTo(2);
        assertThat(s.clientSlots).isEqualTo(4);
        Set<Integer> taken = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            assertThat(s.admit()).isTrue();
            int l = s.takeAdmitted();
            assertThat(l).isBetween(2, 5);
            taken.add(l);
        }
        assertThat(taken).hasSize(4);
        assertThat(s.admit()).as("every client slot holds a message").isFalse();
        assertThat(s.takeAdmitted()).isEqualTo(-1);
        assertThat(s.bufferedBytes()).isEqualTo(4 * 1024);
    }

    @Test
    void anAdmittedSlotIsKeptForItsMessageUntilTaken() {
        StagingSlots s = StagingSlots.reserve(pool, 3, 1, false);
        assertThat(s.admit()).isTrue();
        assertThat(s.admit()).as("asking again admits the same message").isTrue();
        assertThat(s.freeClientSlots()).isEqualTo(1);
        assertThat(s.hasAdmitted()).isTrue();
        int l = s.takeAdmitted();
        assertThat(s.hasAdmitted()).isFalse();
        assertThat(s.clientSlotsIdle()).isFalse();
        s.op[l] = Op.READ;
        assertThat(s.free(l)).as("a read consumed no credit").isFalse();
        assertThat(s.clientSlotsIdle()).isTrue();
    }

    @Test
    void freeingReportsWhetherTheMessageConsumedAVICredit() {
        StagingSlots s = StagingSlots.reserve(pool, 5, 1, false);
        int[] l = new int[4];
        for (int i = 0; i < 4; i++) {
            s.admit();
            l[i] = s.takeAdmitted();
        }
        s.op[l[0]] = Op.SEND;
        s.op[l[1]] = Op.WRITE;
        s.op[l[2]] = Op.WRITE;
        s.hasImm[l[2]] = true;
        s.op[l[3]] = Op.READ;
        assertThat(s.free(l[0])).isTrue();
        assertThat(s.free(l[1])).isFalse();
        assertThat(s.free(l[2])).as("VIA: write with immediate consumes a receive").isTrue();
        assertThat(s.free(l[3])).isFalse();
        assertThat(s.op).containsOnly(Op.NONE);
    }

    @Test
    void stagedMessagesLeaveInOrderAndSoDoReadResponses() {
        StagingSlots s = StagingSlots.reserve(pool, 9, 1, false);
        for (int l : new int[] {5, 2, 7, 1}) {
            s.enqueue(l);
        }
        assertThat(s.staged()).isEqualTo(4);
        StringBuilder order = new StringBuilder();
        for (int l; (l = s.head()) >= 0; s.dequeue()) {
            order.append(l);
        }
        assertThat(order).hasToString("5271");
        for (int round = 0; round < 3; round++) { // wraps around the ring
            for (int l = 1; l <= 8; l++) {
                s.pushRead(l);
            }
            for (int l = 1; l <= 8; l++) {
                assertThat(s.oldestRead()).isEqualTo(l);
                assertThat(s.popRead()).isEqualTo(l);
            }
        }
        assertThat(s.reads()).isZero();
    }

    @Test
    void slotsHaveTheirOwnMemoryWithRoomForTheFlowControlHeader() {
        StagingSlots s = StagingSlots.reserve(pool, 4, 1, true);
        assertThat(s.controlBlock).isNotNegative();
        assertThat(s.payloadCapacity()).isEqualTo(1024 - StagingSlots.HEADROOM);
        for (int l = 0; l < 4; l++) {
            s.views[l].putInt(0, l);
        }
        for (int l = 0; l < 4; l++) {
            assertThat(s.buffer[l].getInt(s.base[l])).as("slot %d", l).isEqualTo(l);
            assertThat(s.region[l].buffer()).isSameAs(s.buffer[l]);
        }
    }

    @Test
    void anExhaustedPoolHoldsNothingAndReleaseGivesEverythingBack() {
        StagingSlots a = StagingSlots.reserve(pool, 10, 2, true);
        assertThat(StagingSlots.reserve(pool, 7, 2, false)).as("16 slots in the pool").isNull();
        StagingSlots b = StagingSlots.reserve(pool, 6, 2, true);
        assertThat(StagingSlots.reserve(pool, 2, 1, true)).as("no control block left, no slot left").isNull();
        assertThat(pool.inUse()).isEqualTo(16);
        a.release();
        b.release();
        assertThat(pool.inUse()).isZero();
        assertThat(StagingSlots.reserve(pool, 16, 2, true)).isNotNull();
    }
}
