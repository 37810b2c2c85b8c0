package io.vibridge.gateway.demo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The target's modes: command-line names, SET_MODE codes (stable), what each answers. */
class TargetModeTest {

    @Test
    void setModeCodesNeverMove_theNewModeIsAppended() {
        assertThat(TargetMode.ECHO.code()).isZero();
        assertThat(TargetMode.SINK.code()).isEqualTo(1);
        assertThat(TargetMode.SOURCE.code()).isEqualTo(2);
        assertThat(TargetMode.ECHO_ACK_WRITES.code()).isEqualTo(3);
        for (TargetMode m : TargetMode.values()) {
            assertThat(TargetMode.ofCode(m.code())).isEqualTo(m);
        }
        assertThatThrownBy(() -> TargetMode.ofCode(4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cliNames() {
        assertThat(TargetMode.fromCliName("echo")).isEqualTo(TargetMode.ECHO);
        assertThat(TargetMode.fromCliName(" Sink ")).isEqualTo(TargetMode.SINK);
        assertThat(TargetMode.fromCliName("source")).isEqualTo(TargetMode.SOURCE);
        assertThat(TargetMode.fromCliName("echo-ack-writes")).isEqualTo(TargetMode.ECHO_ACK_WRITES);
        assertThat(TargetMode.fromCliName("ECHO_ACK_WRITES")).isEqualTo(TargetMode.ECHO_ACK_WRITES);
        assertThat(TargetMode.ECHO_ACK_WRITES.cliName()).isEqualTo("echo-ack-writes");
        assertThatThrownBy(() -> TargetMode.fromCliName("echo-ack")).hasMessage(
                "must be echo, sink, source or echo-ack-writes, got 'echo-ack'");
    }

    @Test
    void onlyEchoAckWritesAnswersAWriteWithImmediate() {
        assertThat(TargetMode.ECHO.echoesSends()).isTrue();
        assertThat(TargetMode.ECHO.answersWritesWithImmediate()).isFalse();
        assertThat(TargetMode.ECHO_ACK_WRITES.echoesSends()).isTrue();
        assertThat(TargetMode.ECHO_ACK_WRITES.answersWritesWithImmediate()).isTrue();
        for (TargetMode m : new TargetMode[] {TargetMode.SINK, TargetMode.SOURCE}) {
            assertThat(m.echoesSends()).isFalse();
            assertThat(m.answersWritesWithImmediate()).isFalse();
        }
    }
}
