package io.vibridge.verbs.rdmacore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.VerbsProvider;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * On a machine without RDMA (CI, developer hosts) the provider is registered, says it is unusable and why in one
 * line (no libibverbs.so.1, or no device, or no device for the address), and opening it fails with that line,
 * never a crash; automatic selection then falls back.
 */
class RdmaCoreProviderTest {
    static final DeviceConfig CONFIG = DeviceConfig.of("127.0.0.77");

    static boolean noRdmaDevice() {
        return !Files.isDirectory(Path.of("/sys/class/infiniband"))
                || Path.of("/sys/class/infiniband").toFile().list().length == 0;
    }

    @Test
    void isRegisteredAboveSoftAndDisni() {
        var names = Verbs.providers().stream().map(VerbsProvider::name).toList();
        assertThat(names).startsWith(RdmaCoreProvider.NAME);
        assertThat(names).contains("soft", "disni");
    }

    @Test
    void saysUnavailableAndWhyInOneLine() {
        var a = new RdmaCoreProvider().availability(CONFIG);
        assertThat(a.usable()).isFalse();
        assertThat(a.reason()).doesNotContain("\n").isNotBlank();
        if (Ibv.unavailable() != null) {                 // no library: the reason names it and what to install
            assertThat(a.reason()).contains("libibverbs.so.1").contains("install");
        } else if (noRdmaDevice()) {                      // library, no device
            assertThat(a.reason()).contains("no RDMA device");
        } else {                                          // devices, none with a GID for 127.0.0.77
            assertThat(a.reason()).contains("127.0.0.77");
        }
    }

    @Test
    void openFailsWithTheSameLine() {
        assertThatThrownBy(() -> Verbs.open(CONFIG.withProvider(RdmaCoreProvider.NAME)))
                .isInstanceOf(VerbsException.class)
                .hasMessageStartingWith("provider rdma-core is unusable: ")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> new RdmaCoreProvider().open(CONFIG)).isInstanceOf(VerbsException.class);
    }

    @Test
    void automaticSelectionFallsBackToSoft() {
        try (var d = Verbs.open(DeviceConfig.of("127.0.0.78").withOption("udp-offload", "off"))) {
            assertThat(d.providerName()).isEqualTo("soft");
        }
    }

    @Test
    void badOptionsAreOneLineErrors() {
        assertThatThrownBy(() -> RdmaCoreParams.of(Map.of("port", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("rdma-core: port=x must be a number 1..255");
        assertThatThrownBy(() -> RdmaCoreParams.of(Map.of("gid-index", "-3")))
                .hasMessage("rdma-core: gid-index=-3 must be a number 0..65535");
        assertThatThrownBy(() -> RdmaCoreParams.of(Map.of("devcie", "rxe0")))
                .hasMessageContaining("unknown device option 'devcie'");
        assertThat(RdmaCoreParams.of(Map.of("device", "rxe0", "port", "1", "gid-index", "1")))
                .isEqualTo(new RdmaCoreParams("rxe0", 1, 1));
        assertThat(RdmaCoreParams.of(Map.of())).isEqualTo(new RdmaCoreParams(null, 0, -1));
    }

    @Test
    void theRoceGidOfAnIpv4AddressIsItsMappedForm() throws Exception {
        assertThat(DeviceFinder.ipv4MappedGid(InetAddress.getByName("198.18.0.2")))
                .containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 2);
        assertThat(DeviceFinder.mtuBytes(3)).isEqualTo(1024);
        assertThat(DeviceFinder.ibvMtu(4096)).isEqualTo(5);
        assertThat(DeviceFinder.ibvMtu(256)).isEqualTo(1);
    }
}
