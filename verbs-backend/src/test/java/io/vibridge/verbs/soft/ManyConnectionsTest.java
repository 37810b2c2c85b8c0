package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.VerbsDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Several connections between the same two devices, running the mixed workload concurrently under loss. */
class ManyConnectionsTest {
    @Test
    void fourConcurrentConnectionsUnderFaults() throws Exception {
        var pool = Executors.newCachedThreadPool();
        VerbsDevice server = TestDevices.open();
        VerbsDevice client = TestDevices.open();
        try {
            ((SoftDevice) server).setFaults(new FaultConfig(0.02, 0.01, 0.01, 0.002, 3));
            ((SoftDevice) client).setFaults(new FaultConfig(0.02, 0.01, 0.01, 0.002, 4));
            int n = 4;
            int count = 600;
            List<CompletableFuture<String>> results = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long sid = 0x0000000001060000L + 9000 + i;
                long seed = 1000 + i;
                CountDownLatch listening = new CountDownLatch(1);
                results.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return ChaosWorkload.serve(server, sid, seed, count, listening::countDown);
                    } catch (InterruptedException e) {
                        return "interrupted";
                    }
                }, pool));
                assertThat(listening.await(30, TimeUnit.SECONDS)).isTrue();
                results.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return ChaosWorkload.run(client, server.address(), sid, seed, count, () -> { });
                    } catch (InterruptedException e) {
                        return "interrupted";
                    }
                }, pool));
            }
            for (CompletableFuture<String> f : results) {
                assertThat(f.get(5, TimeUnit.MINUTES)).isNull();
            }
        } finally {
            pool.shutdownNow();
            client.close();
            server.close();
        }
    }
}
