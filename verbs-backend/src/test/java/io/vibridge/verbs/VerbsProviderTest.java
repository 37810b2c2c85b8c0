package io.vibridge.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Provider lookup: DiSNI first when usable, else soft; explicit choice; clear reasons. */
class VerbsProviderTest {
    @Test
    void bothProvidersAreFoundDisniFirst() {
        assertThat(Verbs.providers()).extracting(VerbsProvider::name).containsExactly("disni", "soft");
    }

    @Test
    void disniReportsWhyItIsUnusableHere() {
        VerbsProvider disni = Verbs.providers().getFirst();
        VerbsProvider.Availability a = disni.availability(DeviceConfig.of("127.0.0.19"));
        assertThat(a.usable()).isFalse();
        assertThat(a.reason()).contains("libdisni not present");
        assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("127.0.0.19").withProvider("disni")))
                .isInstanceOf(VerbsException.class).hasMessageContaining("libdisni not present");
    }

    @Test
    void automaticSelectionFallsBackToSoft() {
        try (VerbsDevice d = Verbs.open(DeviceConfig.of("127.0.0.19"))) {
            assertThat(d.providerName()).isEqualTo("soft");
            assertThat(d.capabilities()).contains(Capability.REMOTE_ACCESS_HANDLER);
            assertThat(d.gid()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 19);
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
        try (VerbsDevice _ = Verbs.open(DeviceConfig.of("127.0.0.20").withProvider("soft"))) {
            assertThatThrownBy(() -> Verbs.open(DeviceConfig.of("127.0.0.20").withProvider("soft")))
                    .isInstanceOf(VerbsException.class).hasMessageContaining("cannot bind UDP 127.0.0.20:4791");
        }
    }
}
