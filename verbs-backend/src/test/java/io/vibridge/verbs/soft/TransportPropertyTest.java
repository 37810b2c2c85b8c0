package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.VerbsDevice;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/**
 * The mixed workload under random path MTUs, fault rates and seeds: always exactly once, in order. Loss stays at
 * or below 8% each way: the transport retry count is a bound (7 retries without progress, as IBA reads it), and
 * at 15% each way a probe or its ACK is lost eight times running often enough to fail a run now and then, as it
 * would on hardware.
 */
class TransportPropertyTest {
    @Property(tries = 6, seed = "4791")
    void exactlyOnceInOrderWhateverTheFaults(@ForAll @IntRange(min = 1, max = 5) int mtuCode,
                                             @ForAll @DoubleRange(min = 0, max = 0.08) double drop,
                                             @ForAll @DoubleRange(min = 0, max = 0.05) double dup,
                                             @ForAll @DoubleRange(min = 0, max = 0.05) double reorder,
                                             @ForAll long seed) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        VerbsDevice server = TestDevices.open();
        VerbsDevice client = TestDevices.open();
        try {
            CountDownLatch listening = new CountDownLatch(1);
            CompletableFuture<String> served = CompletableFuture.supplyAsync(() -> {
                try {
                    return ChaosWorkload.serve(server, seed, 250, listening::countDown);
                } catch (InterruptedException e) {
                    return "interrupted";
                }
            }, pool);
            assertThat(listening.await(30, TimeUnit.SECONDS)).isTrue();
            String result = ChaosWorkload.run(client, server.address(), ChaosWorkload.SID, seed, 250, 128 << mtuCode, () -> {
                ((SoftDevice) client).setFaults(new FaultConfig(drop, dup, reorder, 0.002, seed));
                ((SoftDevice) server).setFaults(new FaultConfig(drop, dup, reorder, 0.002, ~seed));
            });
            assertThat(result).isNull();
            assertThat(served.get(5, TimeUnit.MINUTES)).isNull();
        } finally {
            pool.shutdownNow();
            client.close();
            server.close();
        }
    }
}
