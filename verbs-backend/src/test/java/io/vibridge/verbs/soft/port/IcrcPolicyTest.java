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
}
