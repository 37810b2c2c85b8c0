package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.ConfigError;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import java.io.File;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the gateway service until SIGTERM/SIGINT, then drains connections within
 * {@code shutdown-grace} and exits 0. Configuration: reference.conf, then {@code --config} (or
 * application.conf on the class path), -D options and the VIBRIDGE_* environment variables.
 */
@Command(name = "gateway", description = "Run the VI/TCP to InfiniBand gateway service.")
final class GatewayCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE",
            description = "HOCON file overriding reference.conf (default: application.conf on the class path).")
    File config;

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig cfg;
        try {
            cfg = config == null ? GatewayConfig.load() : GatewayConfig.load(config);
        } catch (ConfigError e) {
            System.err.println("vibridge gateway: bad configuration: " + e.getMessage());
            return 2;
        }
        GatewayServer server = GatewayServer.start(cfg);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
            Runtime.getRuntime().halt(0); // drained: exit 0 rather than the signal's status
        }, "vibridge-shutdown"));
        System.out.printf("vibridge gateway: VI/TCP on %s:%d%s, admin http://%s:%d/metrics%n", cfg.listen().host(),
                server.port(), cfg.listen().rdmaTcp() ? ", RDMA/TCP framing on port " + server.rdmaTcpPort() : "",
                cfg.admin().host(), server.adminPort());
        stopped.await();
        return 0;
    }
}
