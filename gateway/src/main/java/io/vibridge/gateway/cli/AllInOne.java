package io.vibridge.gateway.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.gateway.server.GatewayServer;
import io.vibridge.gateway.server.StartupError;
import io.vibridge.gateway.demo.TargetConfig;
import io.vibridge.gateway.demo.TargetService;
import java.net.InetAddress;
import org.slf4j.LoggerFactory;

/**
 * {@code perf --all-in-one}: a demo target and a gateway in the perf process, both on the soft
 * provider, the gateway listening on an OS-chosen loopback port with one route to the target.
 */
record AllInOne(TargetService target, GatewayServer gateway, Level savedLevel)
        implements AutoCloseable {

    /** The soft devices' UDP port is taken on that address, most often by the README's demo. */
    private static final String BUSY_HINT = " (is vibridge demo, a target or a gateway running on that address? ";

    static AllInOne start(String targetAddress, String gatewayIbAddress, int flowc, String discriminator,
                          boolean verbose) {
        var logger = (Logger) LoggerFactory.getLogger("io.vibridge");
        var saved = logger.getLevel();
        if (!verbose) {
            logger.setLevel(Level.WARN); // 1000 connects' lines would bury the figures
        }
        TargetService target;
        try {
            target = TargetCommand.start(TargetConfig.defaults(InetAddress.ofLiteral(targetAddress)).withProvider("soft"));
        } catch (StartupError e) {
            logger.setLevel(saved);
            throw new StartupError(e.getMessage() + BUSY_HINT + "--target-address chooses another)", e);
        }
        try {
            String hocon = "vibridge.gateway { listen { host = \"127.0.0.1\", port = 0, rdmatcp-port = 0 }\n"
                    + "admin { host = \"127.0.0.1\", port = 0 }\n"
                    + "infiniband { provider = soft, address = \"" + gatewayIbAddress + "\" }\n"
                    + "shutdown-grace = 2s\n"
                    + "iwarp { host = \"127.0.0.1\", listeners = [ { port = 0, route = "
                    + ConfigUtil.quoteString(discriminator) + " } ] }\n"
                    + "routes = [ { match = " + ConfigUtil.quoteString(discriminator) + ", target = \""
                    + targetAddress + "\", port = 5000, flowc = " + flowc
                    + ", receive-size = 65552, receive-buffers = 8 } ]\n}";
            GatewayServer gateway;
            try {
                gateway = GatewayServer.start(GatewayConfig.from(ConfigFactory.parseString(hocon)));
            } catch (StartupError e) {
                throw new StartupError(e.getMessage() + BUSY_HINT + "--gateway-ib-address chooses another)", e);
            }
            return new AllInOne(target, gateway, saved);
        } catch (RuntimeException e) {
            target.close();
            logger.setLevel(saved);
            throw e;
        }
    }

    @Override
    public void close() {
        gateway.close();
        target.close();
        ((Logger) LoggerFactory.getLogger("io.vibridge")).setLevel(savedLevel);
    }
}
