package io.vibridge.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.soft.TestDevices;
import org.junit.jupiter.api.Test;

/** Provider lookup: rdma-core, then DiSNI, when usable, else soft; explicit choice; clear reasons. */
class VerbsProviderTest {
    @Test
    void theProvidersAreFoundHardwareFirst() {
        assertThat(Verbs.providers()).extracting(VerbsProvider::name).containsExactly("rdma-core", "disni", "soft");
    }

    @Test
    void disniReportsWhyItIsUnusableHere() {
        VerbsProvider disni = Verbs.providers().get(1);
        VerbsProvider.Availability a = disni.availability(DeviceConfig.of("127.0.0.19"));
        assertThat(a.usable()).isFalse();
        assertThat(a.reason()).contains("libdisni not present");
        assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("127.0.0.19").withProvider("disni")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("libdisni not present");
    }

    @Test
    void automaticSelectionFallsBackToSoft() {
        try (VerbsDevice d = TestDevices.open(c -> c)) {
            assertThat(d.providerName()).isEqualTo("soft");
            assertThat(d.capabilities()).contains(Capability.REMOTE_ACCESS_HANDLER);
            byte[] ip = d.address().getAddress();
            assertThat(d.gid()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, ip[0], ip[1], ip[2], ip[3]);
        }
    }

    @Test
    void unknownProviderNameAndBadConfigAreRefused() {
        assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("127.0.0.19").withProvider("nope")))
                .hasMessageContaining("no verbs provider named nope");
        assertThatThrownBy(() -> new DeviceConfig(null, 4791, null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceConfig(java.net.InetAddress.getLoopbackAddress(), 0, null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecondDeviceOnTheSameAddressFailsClearly() {
        try (VerbsDevice d = TestDevices.open()) {
            String ip = d.address().getHostAddress();
            assertThatThrownBy(() -> Verbs.open(DeviceConfig.of(ip).withProvider("soft")))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("cannot bind UDP " + ip + ":4791");
        }
    }
}
