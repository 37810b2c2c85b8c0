package io.vibridge.gateway.cli;

import io.vibridge.gateway.config.ConfigError;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.control.TargetMode;
import io.vibridge.gateway.demo.TargetService;
import java.net.InetAddress;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/**
 * One process, no configuration: the demo target (echo mode, soft device 127.0.0.3, port 5000) and
 * the gateway with its default configuration (soft device 127.0.0.2, VI/TCP 7470, admin 9464, the
 * route "demo" to the target). Prints how to ping and perf it.
 */
@Command(name = "demo", description = "Run a demo target and the gateway in one process (no configuration needed).")
final class DemoCommand implements Callable<Integer> {

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig cfg;
        try {
            cfg = GatewayConfig.load();
        } catch (ConfigError e) {
            System.err.println("vibridge demo: bad configuration: " + e.getMessage());
            return 2;
        }
        TargetService target = TargetService.start(TargetConfig.defaults(InetAddress.ofLiteral("127.0.0.3"))
                .withMode(TargetMode.ECHO));
        GatewayServer gateway;
        try {
            gateway = GatewayServer.start(cfg);
        } catch (RuntimeException e) {
            target.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            target.close();
            stopped.countDown();
            Runtime.getRuntime().halt(0);
        }, "vibridge-demo-shutdown"));
        String gw = "127.0.0.1:" + gateway.port();
        String framed = gateway.rdmaTcpPort() < 0 ? "off" : "127.0.0.1:" + gateway.rdmaTcpPort();
        System.out.printf("""
                vibridge demo running:
                  demo target (echo) on the soft fabric at 127.0.0.3, %s
                  gateway: VI/TCP %s, in RDMA/TCP frames %s, InfiniBand device %s at %s, admin http://127.0.0.1:%d/metrics
                Try, from another terminal:
                  vibridge ping --gateway %s --discriminator demo
                  vibridge ping --gateway %s --framing rdmatcp --discriminator demo
                  vibridge perf --gateway %s --discriminator demo
                  curl http://127.0.0.1:%d/connections
                Ctrl-C stops both.
                """, target.serviceIdsText(), gw, framed, gateway.device().name(),
                gateway.device().address().getHostAddress(), gateway.adminPort(), gw, framed, gw, gateway.adminPort());
        System.out.flush();
        stopped.await();
        return 0;
    }
}
