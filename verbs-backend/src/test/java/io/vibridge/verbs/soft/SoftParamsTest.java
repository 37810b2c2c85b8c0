package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.port.IdleStrategy;
import io.vibridge.verbs.soft.transport.RnrBackoff;
import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.PathMtu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The device options of the soft provider: values, defaults and the errors that name the option. */
class SoftParamsTest {
    private static final DeviceConfig BASE = DeviceConfig.of("127.0.0.1").withProvider("soft");

    @Test
    void noOptionsGivesTheDefaults() {
        SoftParams p = SoftParams.of(BASE);
        assertThat(p.udpOffload()).isEqualTo(UdpSocket.Offload.AUTO);
        assertThat(p.faults()).isEqualTo(FaultConfig.NONE);
        assertThat(p.idle()).isEqualTo(IdleStrategy.BLOCK);
        assertThat(p.interfaceMtu()).isEqualTo(SoftParams.interfaceMtu(BASE.address()));
        assertThat(p.maxPathMtu()).isEqualTo(PathMtu.portMaxBytes(p.interfaceMtu()));
    }

    @Test
    void everyOptionTogether() {
        SoftParams p = SoftParams.of(BASE.withOption("netdev-mtu", "9000").withOption("max-mtu", "2048")
                .withOption("udp-offload", "off").withOption("faults", "drop=0.1,dup=0.2,reorder=0.3,corrupt=0.4,seed=7")
                .withOption("idle", "backoff").withOption("min-rnr-wait-us", "500").withOption("max-rnr-wait-us", "20000"));
        assertThat(p).isEqualTo(new SoftParams(9000, 2048, UdpSocket.Offload.OFF, new FaultConfig(0.1, 0.2, 0.3, 0.4, 7),
                IdleStrategy.BACKOFF, new RnrBackoff(500_000, 20_000_000)));
    }

    @Test
    void rnrWaitBoundsDefaultAndAreChecked() {
        assertThat(SoftParams.of(BASE).rnrBackoff()).isEqualTo(RnrBackoff.DEFAULT);
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("min-rnr-wait-us", "-1")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("min-rnr-wait-us");
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("min-rnr-wait-us", "5000").withOption("max-rnr-wait-us", "10")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("must not be below min-rnr-wait-us");
    }

    @ParameterizedTest
    @CsvSource({"block, block", "SPIN, spin", " backoff , backoff"})
    void idleStrategies(String value, String name) {
        assertThat(SoftParams.of(BASE.withOption("idle", value)).idle().name()).isEqualTo(name);
    }

    @Test
    void badIdle() {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("idle", "poll")))
                .isInstanceOf(VerbsException.class).hasMessage("option idle must be block, spin or backoff, got poll");
    }

    @Test
    void netdevMtuReplacesTheInterfaceMtu() {
        assertThat(SoftParams.of(BASE.withOption("netdev-mtu", "1500")).maxPathMtu()).isEqualTo(1024);
        assertThat(SoftParams.of(BASE.withOption("netdev-mtu", " 68 ")).interfaceMtu()).isEqualTo(68);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "x   | option netdev-mtu must be an interface MTU of at least 68, got x",
        "67  | option netdev-mtu must be at least 68, got 67",
        "-1  | option netdev-mtu must be at least 68, got -1"})
    void badNetdevMtu(String value, String message) {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("netdev-mtu", value)))
                .isInstanceOf(VerbsException.class).hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource({"256, 256", "512, 512", "1024, 1024", "2048, 2048", "4096, 4096"})
    void maxMtuCaps(String cap, int expected) {
        assertThat(SoftParams.of(BASE.withOption("netdev-mtu", "65536").withOption("max-mtu", cap)).maxPathMtu())
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1000 | option max-mtu must be 256, 512, 1024, 2048 or 4096, got 1000",
        "8192 | option max-mtu must be 256, 512, 1024, 2048 or 4096, got 8192",
        "128  | option max-mtu must be 256, 512, 1024, 2048 or 4096, got 128",
        "big  | option max-mtu must be 256, 512, 1024, 2048 or 4096, got big"})
    void badMaxMtu(String value, String message) {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("max-mtu", value)))
                .isInstanceOf(VerbsException.class).hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource({"auto, AUTO", "on, ON", "true, ON", "off, OFF", "false, OFF", "' OFF ', OFF"})
    void udpOffload(String value, UdpSocket.Offload expected) {
        assertThat(SoftParams.of(BASE.withOption("udp-offload", value)).udpOffload()).isEqualTo(expected);
    }

    @Test
    void badUdpOffload() {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("udp-offload", "maybe")))
                .isInstanceOf(VerbsException.class).hasMessage("option udp-offload must be auto, on or off, got maybe");
    }

    @Test
    void faultsAnySubsetAndTheDuplicateSpelling() {
        assertThat(SoftParams.faults("drop=0.05")).isEqualTo(new FaultConfig(0.05, 0, 0, 0, 0));
        assertThat(SoftParams.faults(" duplicate=1 , seed=-3 ")).isEqualTo(new FaultConfig(0, 1, 0, 0, -3));
        assertThat(SoftParams.of(BASE.withOption("faults", "reorder=0.5")).faults().reorder()).isEqualTo(0.5);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "drop        | option faults: bad element 'drop'; accepted:",
        "drop=1=2    | option faults: bad element 'drop=1=2'; accepted:",
        "jitter=0.1  | option faults: unknown fault 'jitter'; accepted:",
        "drop=x      | option faults: drop must be a rate within 0..1, got 'x'; accepted:",
        "dup=1.5     | option faults: dup must be a rate within 0..1, got '1.5'; accepted:",
        "reorder=-0.1| option faults: reorder must be a rate within 0..1, got '-0.1'; accepted:",
        "corrupt=NaN | option faults: corrupt must be a rate within 0..1, got 'NaN'; accepted:",
        "seed=0.5    | option faults: seed must be an integer, got '0.5'; accepted:"})
    void badFaults(String spec, String message) {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("faults", spec)))
                .isInstanceOf(VerbsException.class)
                .hasMessage(message + " drop, dup, reorder, corrupt (rates 0..1) and seed (an integer), as drop=0.05,seed=1");
    }

    @Test
    void unknownOptionIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> SoftParams.of(BASE.withOption("max_mtu", "1024")))
                .isInstanceOf(VerbsException.class)
                .hasMessage("unknown soft device option max_mtu (known: faults, idle, max-mtu, max-rnr-wait-us, min-rnr-wait-us, netdev-mtu, udp-offload)");
    }

    @Test
    void aBadOptionOpensNoDevice() {
        assertThatThrownBy(() -> new SoftProvider().open(BASE.withOption("max-mtu", "3")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("max-mtu");
    }

    @Test
    void defaultsAreRxesWhereRxeHasOne() {
        // rxe_param.h: RXE_MAX_UNACKED_PSNS, RXE_MAX_PKT_PER_ACK, RXE_MIN_QP_INDEX, RXE_LOCAL_CA_ACK_DELAY
        assertThat(SoftParams.WINDOW).isEqualTo(128);
        assertThat(SoftParams.MAX_PKT_PER_ACK).isEqualTo(64);
        assertThat(SoftParams.FIRST_QPN).isEqualTo(16);
        assertThat(SoftParams.TARGET_ACK_DELAY).isEqualTo(15);
    }
}
