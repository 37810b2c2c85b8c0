package io.vibridge.verbs.soft.port;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The receive-side ICRC policy: expected IP IDs, then the any-ID fallback until a source proves strict. */
class IcrcPolicyTest {
    private static final int SRC = 0x7F000002;
    private static final int DST = 0x7F000001;
    private final Icrc sealer = new Icrc();

    private ByteBuffer packet(int srcIp, int ipId) {
        ByteBuffer pkt = ByteBuffer.allocate(Bth.LENGTH + 8 + Icrc.LENGTH);
        pkt.put(0, (byte) 0x04);                                    // RC SEND ONLY
        pkt.put(Bth.LENGTH, (byte) 0x5A);
        sealer.sealIpv4(srcIp, DST, ipId, 4791, 4791, pkt, 0, pkt.capacity());
        return pkt;
    }

    private IcrcCheck verify(IcrcPolicy p, int srcIp, ByteBuffer pkt) {
        return p.verify(srcIp, 4791, DST, 4791, pkt, pkt.capacity(), 0);
    }

    @Test
    void idZeroIsValidAndACorruptPacketIsNot() {
        IcrcPolicy p = new IcrcPolicy(8);
        assertThat(verify(p, SRC, packet(SRC, 0))).isEqualTo(IcrcCheck.VALID);
        ByteBuffer bad = packet(SRC, 0);
        bad.put(Bth.LENGTH, (byte) 0x5B);
        assertThat(verify(p, SRC, bad)).isEqualTo(IcrcCheck.INVALID);
    }

    @Test
    void anUnexpectedIdIsAcceptedOnlyUntilTheSourceProvedStrict() {
        IcrcPolicy p = new IcrcPolicy(3);
        int other = SRC + 1;
        assertThat(verify(p, other, packet(other, 4000))).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);
        for (int i = 0; i < 3; i++) {
            assertThat(verify(p, SRC, packet(SRC, 0))).isEqualTo(IcrcCheck.VALID);
        }
        assertThat(verify(p, SRC, packet(SRC, 4000))).isEqualTo(IcrcCheck.INVALID);
        assertThat(verify(p, other, packet(other, 0))).isEqualTo(IcrcCheck.VALID);
        assertThat(verify(p, other, packet(other, 4001))).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);   // permissive for good
    }

    /**
     * A kernel sender's IDs count up from a random start (Linux ip_idents_reserve): one that starts at 50
     * sends fourteen IDs below 64 before 64. It must not be taken for one of our sockets (ID 0 only) and
     * then lose every packet from ID 64 on, as rxe's READ requests once were in CI.
     */
    @Test
    void aKernelCounterRunningThroughSmallIdsStaysAccepted() {
        IcrcPolicy p = new IcrcPolicy(8);
        for (int id = 50; id < 400; id++) {
            assertThat(verify(p, SRC, packet(SRC, id))).as("IP ID %d", id).isNotEqualTo(IcrcCheck.INVALID);
        }
        for (int id = 65530; id < 65536 + 20; id++) {                 // and through the wrap, over 0
            assertThat(verify(p, SRC, packet(SRC, id & 0xFFFF))).as("IP ID %d", id & 0xFFFF)
                    .isNotEqualTo(IcrcCheck.INVALID);
        }
    }

    @Test
    void aGroupFromAKernelCounterAtZeroIsNoProofEither() {
        IcrcPolicy p = new IcrcPolicy(3);
        for (int k = 0; k < 8; k++) {                                  // GRO merged IDs 0..7: the k-th has ID k
            ByteBuffer pkt = packet(SRC, k);
            assertThat(p.verify(SRC, 4791, DST, 4791, pkt, pkt.capacity(), k)).isEqualTo(IcrcCheck.VALID);
        }
        assertThat(verify(p, SRC, packet(SRC, 9000))).isEqualTo(IcrcCheck.VALID_SOME_IP_ID);
    }
}
