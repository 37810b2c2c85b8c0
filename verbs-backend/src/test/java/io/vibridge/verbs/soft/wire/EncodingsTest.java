package io.vibridge.verbs.soft.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Path MTU and CM timeout encodings (REF §1.4, §5.7). */
class EncodingsTest {

    @Test
    void pathMtu() {
        assertThat(PathMtu.bytes(PathMtu.MTU_256)).isEqualTo(256);
        assertThat(PathMtu.bytes(PathMtu.MTU_1024)).isEqualTo(1024);
        assertThat(PathMtu.bytes(PathMtu.MTU_4096)).isEqualTo(4096);
        assertThat(PathMtu.codeAtMost(1404)).isEqualTo(PathMtu.MTU_1024);
        assertThat(PathMtu.codeAtMost(100_000)).isEqualTo(PathMtu.MTU_4096);
        assertThat(PathMtu.forEthernetMtu(1500)).isEqualTo(PathMtu.MTU_1024);
        assertThat(PathMtu.forEthernetMtu(9000)).isEqualTo(PathMtu.MTU_4096);
        assertThat(PathMtu.forEthernetMtu(65536)).isEqualTo(PathMtu.MTU_4096); // loopback
        assertThat(PathMtu.isValid(0)).isFalse();
        assertThat(PathMtu.isValid(6)).isFalse();
        assertThatThrownBy(() -> PathMtu.bytes(6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PathMtu.codeAtMost(255)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cmTimeouts() {
        assertThat(CmTimeout.nanos(0)).isEqualTo(4096);
        assertThat(CmTimeout.nanos(20)).isEqualTo(4_294_967_296L); // 4.29 s
        assertThat(CmTimeout.linuxMillis(20)).isEqualTo(4096);
        assertThat(CmTimeout.linuxMillis(8)).isEqualTo(1);
        assertThat(CmTimeout.linuxMillis(3)).isEqualTo(1);
        assertThat(CmTimeout.linuxMillis(24)).isEqualTo(65536);
        assertThat(CmTimeout.atLeastNanos(4096)).isZero();
        assertThat(CmTimeout.atLeastNanos(4097)).isEqualTo(1);
        assertThat(CmTimeout.atLeastNanos(2_000_000_000L)).isEqualTo(19);
        assertThat(CmTimeout.atLeastNanos(Long.MAX_VALUE)).isEqualTo(31);
        // REF §5.7: rxe ACK delay 15 with packet lifetime 18 -> 19, with 16 -> 17.
        assertThat(CmTimeout.ackTimeout(15, 18)).isEqualTo(19);
        assertThat(CmTimeout.ackTimeout(15, 16)).isEqualTo(17);
        assertThat(CmTimeout.ackTimeout(15, 13)).isEqualTo(16); // t = 14 < 15 -> 15 + 1
        assertThat(CmTimeout.ackTimeout(15, 10)).isEqualTo(15);
        assertThat(CmTimeout.ackTimeout(31, 31)).isEqualTo(31);
        assertThatThrownBy(() -> CmTimeout.nanos(32)).isInstanceOf(IllegalArgumentException.class);
    }
}
