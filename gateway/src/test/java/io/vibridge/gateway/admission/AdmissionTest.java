package io.vibridge.gateway.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vibridge.gateway.metrics.ClientProtocol;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pending bounds, their meters and the summary line, without sockets. */
class AdmissionTest {
    static final InetAddress A = InetAddress.ofLiteral("10.0.0.1");
    static final InetAddress B = InetAddress.ofLiteral("10.0.0.2");
    static final InetAddress C = InetAddress.ofLiteral("10.0.0.3");
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Admission admission = new Admission(5, 3, registry, 60_000_000_000L);

    double refused(ClientProtocol fe, Refusal r) {
        return registry.get("vibridge.connections.refused").tag("encapsulation", fe.label()).tag("reason", r.tag())
                .counter().count();
    }

    @Test
    void boundsHoldGloballyAndPerClient_andSlotsComeBack() {
        List<Pending> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Pending p = admission.admit(ClientProtocol.VITCP, A);
            if (p != null) {
                held.add(p);
            }
        }
        assertThat(held).hasSize(3);
        assertThat(refused(ClientProtocol.VITCP, Refusal.PENDING_PER_CLIENT)).isEqualTo(1);
        held.add(admission.admit(ClientProtocol.IWARP, B));
        held.add(admission.admit(ClientProtocol.RDMATCP, B));
        assertThat(held).doesNotContainNull();
        assertThat(admission.admit(ClientProtocol.IWARP, C)).as("the gateway's bound").isNull();
        assertThat(refused(ClientProtocol.IWARP, Refusal.PENDING)).isEqualTo(1);
        assertThat(admission.pending()).isEqualTo(5);
        assertThat(registry.get("vibridge.connections.pending").tag("encapsulation", "vitcp").gauge().value()).isEqualTo(3);

        held.get(0).end();
        held.get(0).end(); // once only
        assertThat(admission.pending()).isEqualTo(4);
        assertThat(admission.pending(A)).isEqualTo(2);
        assertThat(admission.admit(ClientProtocol.IWARP, C)).isNotNull();
        assertThat(registry.get("vibridge.connections.accepted").tag("encapsulation", "iwarp").counter().count())
                .isEqualTo(2);
    }

    @Test
    void aFailedSetupIsCountedOnce_andLoggedAtInfoOncePerPeriodAndKind() {
        Pending p1 = admission.admit(ClientProtocol.VITCP, A);
        Pending p2 = admission.admit(ClientProtocol.VITCP, A);
        Pending p3 = admission.admit(ClientProtocol.VITCP, B);
        assertThat(p1.failed(SetupFailure.TIMEOUT)).as("the first timeout of the period").isTrue();
        assertThat(p1.failed(SetupFailure.CLOSED)).as("ended already: not counted again").isFalse();
        assertThat(p2.failed(SetupFailure.TIMEOUT)).as("the second timeout of the period").isFalse();
        assertThat(p3.failed(SetupFailure.CLOSED)).as("the first of another kind").isTrue();
        assertThat(admission.pending()).isZero();
        assertThat(registry.get("vibridge.connections.setup.failed").tag("encapsulation", "vitcp").tag("reason", "timeout")
                .counter().count()).isEqualTo(2);
        assertThat(registry.get("vibridge.connections.setup.failed").tag("encapsulation", "vitcp").tag("reason", "closed")
                .counter().count()).isEqualTo(1);
    }

    @Test
    void theSummaryLineSaysWhatWasRefusedAndWhy_onceEachPeriod() {
        assertThat(admission.summary()).as("nothing happened").isNull();
        for (int i = 0; i < 5; i++) {
            admission.admit(ClientProtocol.VITCP, A);
        }
        admission.refused(ClientProtocol.IWARP, Refusal.RATE);
        admission.admit(ClientProtocol.IWARP, B).failed(SetupFailure.TIMEOUT);
        Admission.Summary s = admission.summary();
        assertThat(s.refused()).isEqualTo(3);
        assertThat(s.line()).isEqualTo("vitcp: 2 refused at accept (2 per-client pending limit 3 "
                + "(limits.max-pending-per-client)); iwarp: 1 refused at accept (1 connect rate (limits.connect-rate)), "
                + "1 ended in setup without an answer (1 timed out); 3 in setup now");
        assertThat(admission.summary()).as("counted in the previous period").isNull();
    }
}
