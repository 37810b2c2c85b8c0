package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import java.io.File;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Runs the gateway service until SIGTERM/SIGINT, then drains connections within
 * {@code shutdown-grace} and exits 0. Configuration: reference.conf, then {@code --config} (or
 * application.conf on the class path), -D options and the VIBRIDGE_* environment variables. A bad
 * configuration or a start-up fault (a port in use) ends it with one line and exit code 2.
 */
@Command(name = "gateway", description = "Run the VI/TCP to InfiniBand gateway service.")
final class GatewayCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "<file>",
            description = "HOCON file overriding reference.conf (default: application.conf on the class path).")
    File config;

    @Option(names = "--check", description = "Validate the configuration and exit: 0 with a one-line summary, "
            + "2 with the error (key, or file and line). Binds nothing, opens no device.")
    boolean check;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig cfg = config == null ? GatewayConfig.load() : GatewayConfig.load(config);
        if (check) {
            return ConfigCheck.report(spec, cfg,
                    config == null ? "application.conf, -D and VIBRIDGE_*" : config.getPath());
        }
        StopSignal stop = StopSignal.install();
        GatewayServer server = GatewayServer.start(cfg);
        spec.commandLine().getOut().printf("vibridge gateway: VI/TCP on %s:%d%s, admin http://%s:%d/metrics%n",
                cfg.listen().host(), server.port(), cfg.listen().rdmaTcp() ? ", RDMA/TCP framing on port "
                        + server.rdmaTcpPort() : "", cfg.admin().host(), server.adminPort());
        spec.commandLine().getOut().flush();
        stop.await();
        server.close();
        return 0;
    }
}
