package io.vibridge.gateway.bridge.vi;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.gateway.bridge.FrontEnd;
import io.vibridge.gateway.bridge.TestSupport;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.vitcp.engine.LocalEndpoint;
import io.vibridge.vitcp.wire.ConnectionAttributes;
import io.vibridge.vitcp.wire.ConnectionHeader;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.ReliabilityLevel;
import org.junit.jupiter.api.Test;

/** The Connect Accept's terms, from the client's request, the target's terms (its HelloReply) and the configuration. */
class AcceptTermsTest {

    private static GatewayConfig config(int flowc, String extra) {
        return TestSupport.config("127.0.0.9", TestSupport.route("t", "127.0.0.10", 5000, flowc, 8), extra);
    }

    /** A FlowC 0 target's terms: its HelloReply's buffers and receive size. */
    private static FrontEnd.TargetTerms reply(int bufs, long receiveSize) {
        return new FrontEnd.TargetTerms(bufs, receiveSize, true, 4, 4, new byte[0], true);
    }

    private static ConnectionHeader request(ReliabilityLevel level, long mtu) {
        return ConnectionHeader.unsigned(ConnectionAttributes.of(level, true, true, true, false, false),
                Discriminator.ofUtf8("client"), mtu, 4, Discriminator.ofUtf8("t"));
    }

    @Test
    void theMtuIsTheSmallestOfClientConfigurationSlotAndTargetReceiveLessTheFlowControlHeader() {
        GatewayConfig c = config(0, "vi { max-mtu = 1048576 }");
        FrontEnd.TargetTerms reply = reply(8, 65552);
        AcceptTerms t = AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20), reply, c, 12);
        assertThat(t.mtu()).as("ActRcvSz 65552 less the 16-byte FlowC 0 header").isEqualTo(65536);
        assertThat(t.targetBufs()).isEqualTo(8);

        AcceptTerms small = AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_DELIVERY, 40_000), reply, c, 12);
        assertThat(small.mtu()).as("the client's own").isEqualTo(40_000);

        AcceptTerms capped = AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_DELIVERY, 1 << 20), reply,
                config(0, "vi { max-mtu = 50000 }"), 12);
        assertThat(capped.mtu()).as("vi.max-mtu").isEqualTo(50_000);
    }

    @Test
    void aTargetReceiveBelow32KiBMakesTheMtuTooSmall() {
        GatewayConfig c = config(0, "");
        AcceptTerms t = AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_DELIVERY, 65536), reply(8, 32 * 1024), c,
                12);
        assertThat(t.mtu()).isEqualTo(32 * 1024 - 16);
        assertThat(t.mtuTooSmall()).as("VITCP-PROFILE §5: 32 KiB at least").isTrue();
    }

    @Test
    void theReadWindowIsBoundedByTheClientSlotsAndClosedAtUnreliableDelivery() {
        GatewayConfig c = config(0, "vi { rdma-read-window = 6 }");
        FrontEnd.TargetTerms reply = reply(8, 65552);
        assertThat(AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_RECEPTION, 65536), reply, c, 12)
                .readWindow()).isEqualTo(6);
        assertThat(AcceptTerms.negotiate(request(ReliabilityLevel.RELIABLE_RECEPTION, 65536), reply, c, 3)
                .readWindow()).isEqualTo(3);
        AcceptTerms ud = AcceptTerms.negotiate(request(ReliabilityLevel.UNRELIABLE_DELIVERY, 65536), reply, c,
                12);
        assertThat(ud.readWindow()).isZero();
        LocalEndpoint ep = ud.endpoint(request(ReliabilityLevel.UNRELIABLE_DELIVERY, 65536), c.vi(), 1, null);
        assertThat(ep.attributes().rdmaRead()).isFalse();
        assertThat(ep.attributes().flowControl()).as("offered").isTrue();
        assertThat(ep.attributes().unordered()).as("seed 002: unordered operations understood").isTrue();
        assertThat(ep.attributes().conformsToProfile()).isTrue();
        assertThat(ep.discriminator()).isEqualTo(Discriminator.ofUtf8("t"));
    }
}
