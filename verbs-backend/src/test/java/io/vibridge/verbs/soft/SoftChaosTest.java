package io.vibridge.verbs.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.VerbsDevice;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** 10,000 mixed messages with 5% loss, 1% duplication, 1% reordering and 0.5% corruption, in one JVM. */
class SoftChaosTest {
    @Test
    void tenThousandMixedMessagesUnderFaultsArriveExactlyOnceInOrder() throws Exception {
        VerbsDevice server = TestDevices.open();
        VerbsDevice client = TestDevices.open();
        try {
            long seed = 20261121L;
            int count = 10_000;
            CountDownLatch listening = new CountDownLatch(1);
            CompletableFuture<String> served = CompletableFuture.supplyAsync(() -> {
                try {
                    return ChaosWorkload.serve(server, seed, count, listening::countDown);
                } catch (InterruptedException e) {
                    return "interrupted";
                }
            });
            assertThat(listening.await(30, TimeUnit.SECONDS)).isTrue();
            String clientResult = ChaosWorkload.run(client, server.address(), seed, count, () -> {
                // faults on after connection setup, on both directions
                ((SoftDevice) client).setFaults(new FaultConfig(0.05, 0.01, 0.01, 0.005, 1));
                ((SoftDevice) server).setFaults(new FaultConfig(0.05, 0.01, 0.01, 0.005, 2));
            });
            assertThat(clientResult).isNull();
            assertThat(served.get(5, TimeUnit.MINUTES)).isNull();
            DeviceCounters cc = client.counters();
            DeviceCounters sc = server.counters();
            System.out.println("chaos client " + cc);
            System.out.println("chaos server " + sc);
            assertThat(cc.faultDrops() + sc.faultDrops()).isPositive();
            assertThat(cc.retransmissions()).isPositive();
            assertThat(sc.icrcDrops() + cc.icrcDrops()).isPositive();
            assertThat(sc.duplicatesReceived()).isPositive();
        } finally {
            client.close();
            server.close();
        }
    }
}
