package io.vibridge.gateway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/**
 * staging.max-slots against the memory the JVM can have: auto sizes the pool from it, a number that cannot fit
 * stops the start with one message naming the keys and the sizes (GatewayCommand exits 2 on it).
 */
class StagingSizeTest {
    static final long MIB = 1 << 20;
    static final long GIB = 1 << 30;

    static GatewayConfig config(String staging, MemoryLimits memory) {
        return GatewayConfig.from(ConfigFactory.parseString("vibridge.gateway { " + staging + " }"), memory);
    }

    @Test
    void autoTakesWhatTheConnectionLimitNeedsWhenThereIsRoom() {
        GatewayConfig c = config("limits.max-connections = 100", new MemoryLimits(2 * GIB, 2 * GIB, 24 * GIB));
        assertThat(c.staging().maxSlots()).as("100 x 15 slots in whole chunks of 64").isEqualTo(24 * 64);
    }

    @Test
    void autoTakesThreeQuartersOfTheDirectMemoryLimit() {
        // the Kubernetes manifest's JVM: -XX:MaxDirectMemorySize=512m, heap 25% of 1 GiB
        GatewayConfig c = config("", new MemoryLimits(512 * MIB, 256 * MIB, GIB));
        assertThat(c.staging().maxSlots()).isEqualTo((int) (384 * MIB / 65552));
        assertThat(c.stagingConnectionCapacity()).isEqualTo(409);
    }

    @Test
    void autoFitsWhatTheHeapLeavesOfTheContainer() {
        // -XX:MaxRAMPercentage=75 in a 1 GiB container: direct memory follows the heap limit (768 MiB), but only
        // 256 MiB are left beside a full heap; beyond that the kernel would kill the process
        GatewayConfig c = config("", new MemoryLimits(768 * MIB, 768 * MIB, GIB));
        assertThat((long) c.staging().maxSlots() * 65552).isLessThanOrEqualTo(192 * MIB).isGreaterThan(191 * MIB);
    }

    @Test
    void autoWithoutRoomForOneConnectionIsAnErrorNamingTheSizes() {
        assertThatThrownBy(() -> config("", new MemoryLimits(MIB, 256 * MIB, GIB)))
                .isInstanceOfSatisfying(ConfigError.class, e -> assertThat(e.key()).isEqualTo("staging.max-slots"))
                .hasMessageContaining("auto leaves no room for one connection")
                .hasMessageContaining("768 KiB, the 3/4 of the direct memory this JVM can have that staging may take "
                        + "(JVM direct memory limit 1 MiB")
                .hasMessageContaining("holds 11 slots of 65552 B (staging.slot-size), fewer than the 15")
                .hasMessageContaining("limits.buffer-per-connection")
                .hasMessageContaining("-XX:MaxDirectMemorySize")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aNumberThatCannotFitIsAnErrorNamingTheKeysAndTheSizes() {
        assertThatThrownBy(() -> config("staging.max-slots = 16384", new MemoryLimits(512 * MIB, 256 * MIB, GIB)))
                .isInstanceOfSatisfying(ConfigError.class, e -> assertThat(e.key()).isEqualTo("staging.max-slots"))
                .hasMessageContaining("16384 slots of 65552 B (staging.slot-size) = 1024 MiB do not fit in 384 MiB")
                .hasMessageContaining("(JVM direct memory limit 512 MiB")
                .hasMessageContaining("heap limit 256 MiB, memory of the machine or container 1024 MiB")
                .hasMessageNotContaining("\n");
        assertThat(config("staging.max-slots = 6000", new MemoryLimits(512 * MIB, 256 * MIB, GIB)).staging().maxSlots())
                .isEqualTo(6000);
    }

    @Test
    void directRoomIsTheSmallerOfTheLimitAndWhatTheHeapLeaves() {
        assertThat(new MemoryLimits(GIB, GIB, 4 * GIB).directRoom()).isEqualTo(GIB);
        assertThat(new MemoryLimits(GIB, 3584 * MIB, 4 * GIB).directRoom()).isEqualTo(512 * MIB);
        assertThat(new MemoryLimits(GIB, 8 * GIB, 4 * GIB).directRoom()).isZero();
    }

    @Test
    void thisJvmsLimitsAreItsFlags() {
        // surefire's -Xmx2g and no -XX:MaxDirectMemorySize: the direct limit is the heap limit
        MemoryLimits m = MemoryLimits.ofThisJvm();
        assertThat(m.maxHeap()).isEqualTo(Runtime.getRuntime().maxMemory());
        assertThat(m.maxDirect()).isEqualTo(m.maxHeap());
        assertThat(m.total()).isGreaterThan(m.maxHeap());
    }
}
