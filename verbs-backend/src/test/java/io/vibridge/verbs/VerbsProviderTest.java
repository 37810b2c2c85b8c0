package io.vibridge.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.soft.TestDevices;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Provider lookup: rdma-core, DiSNI, soft by priority; automatic selection takes the first usable it may select (DiSNI
 * only by name); explicit choice; clear reasons. */
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
    void disniIsNeverChosenAutomatically() {
        VerbsProvider disni = Verbs.providers().stream().filter(p -> p.name().equals("disni")).findFirst().orElseThrow();
        VerbsProvider soft = Verbs.providers().stream().filter(p -> p.name().equals("soft")).findFirst().orElseThrow();
        assertThat(disni.selectedAutomatically()).isFalse();
        assertThat(Verbs.providers().getFirst().selectedAutomatically()).as("rdma-core").isTrue();
        assertThat(soft.selectedAutomatically()).isTrue();
    }

    @Test
    void whenNothingIsUsableTheErrorSaysWhyForEachProvider() {
        // the soft provider takes IPv4 only; DiSNI is passed over as "only when named", whatever this machine has
        assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("::1")))
                .isInstanceOf(VerbsException.class)
                .hasMessageContaining("no usable verbs provider: ")
                .hasMessageContaining("rdma-core: ").hasMessageContaining("; disni: only when named; soft: ")
                .hasMessageContaining("soft: ");
    }

    @Test
    void unknownProviderNameAndBadConfigAreRefused() {
        assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("127.0.0.19").withProvider("nope")))
                .hasMessageContaining("no verbs provider named nope (there are rdma-core, disni, soft)");
        assertThatThrownBy(() -> new DeviceConfig(null, 4791, null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DeviceConfig(InetAddress.getLoopbackAddress(), 0, null, null))
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
