package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.server.GatewayServer;
import java.net.InetAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One process, no configuration: the demo target (echo mode, soft device 127.0.0.3, port 5000) and
 * the gateway with its default configuration (soft device 127.0.0.2, VI/TCP 7470, admin 9464, the
 * route "demo" to the target). Prints how to ping and perf it; SIGTERM/SIGINT stops both, exit 0.
 */
@Command(name = "demo", description = "Run a demo target and the gateway in one process (no configuration needed).")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--check", description = "Validate the gateway's configuration (reference.conf, "
            + "application.conf, -D and VIBRIDGE_*) and exit: 0 with a one-line summary, 2 with the error.")
    boolean check;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig cfg = GatewayConfig.load();
        if (check) {
            return ConfigCheck.report(spec, cfg, "application.conf, -D and VIBRIDGE_*");
        }
        StopSignal stop = StopSignal.install();
        TargetService target = TargetCommand.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.3"))
                .withMode(TargetMode.ECHO));
        GatewayServer gateway;
        try {
            gateway = GatewayServer.start(cfg);
        } catch (RuntimeException e) {
            target.close();
            throw e;
        }
        String gw = "127.0.0.1:" + gateway.port();
        // the admin address as configured (loopback by default; a wildcard bind is reached on 127.0.0.1), and the
        // header curl needs when admin.token is set
        String adminHost = cfg.admin().host();
        String admin = "http://" + (adminHost.equals("0.0.0.0") || adminHost.equals("::") ? "127.0.0.1"
                : adminHost.contains(":") ? "[" + adminHost + "]" : adminHost) + ":" + gateway.adminPort();
        String curlAuth = cfg.admin().tokenRequired() ? "-H \"Authorization: Bearer $VIBRIDGE_ADMIN_TOKEN\" " : "";
        String framed = gateway.rdmaTcpPort() < 0 ? "off" : "127.0.0.1:" + gateway.rdmaTcpPort();
        spec.commandLine().getOut().printf("""
                vibridge demo running:
                  demo target (echo) on the soft fabric at 127.0.0.3, %s
                  gateway: VI/TCP %s, in RDMA/TCP frames %s, InfiniBand device %s at %s, admin %s/metrics%s
                Try, from another terminal:
                  vibridge ping --gateway %s --discriminator demo
                  vibridge ping --gateway %s --framing rdmatcp --discriminator demo
                  vibridge perf --gateway %s --discriminator demo
                  curl %s%s/connections
                Ctrl-C stops both.
                """, target.serviceIdsText(), gw, framed, gateway.device().name(),
                gateway.device().address().getHostAddress(), admin, adminHost.equals("127.0.0.1") ? " (this host only)"
                        : " (bound to " + adminHost + ")", gw, framed, gw, curlAuth, admin);
        spec.commandLine().getOut().flush();
        stop.await();
        gateway.close();
        target.close();
        return 0;
    }
}
