package io.vibridge.gateway.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.vertx.core.json.JsonObject;
import io.vibridge.gateway.admin.DeviceInfo;
import io.vibridge.gateway.config.GatewayConfig;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.VerbsProvider;
import java.io.File;
import java.io.PrintWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vibridge devices}: the verbs providers with their availability, then the device the gateway's
 * configuration names (or {@code --address}) opened and described in {@code ibv_devinfo}'s layout. A soft
 * device binds its UDP port when opened: when a running gateway holds it, the description is what that
 * gateway's admin endpoint reports ({@code /device}) instead.
 */
@Command(name = "devices", description = "List the verbs providers and describe the device on an address "
        + "(ibv_devinfo-like: port state, MTUs, GID, capabilities, UDP port, offload, idle mode).")
final class DevicesCommand implements Callable<Integer> {

    @Option(names = "--address", paramLabel = "<ip>",
            description = "The device's IP address (default: infiniband.address of the gateway's configuration, "
                    + "127.0.0.2 unless configured).")
    InetAddress address;

    @Option(names = "--provider", paramLabel = "<name>",
            description = "soft or disni (default: infiniband.provider of the configuration, auto = the first "
                    + "usable).")
    String provider;

    @Option(names = "--config", paramLabel = "<file>",
            description = "The gateway's HOCON file (default: application.conf on the class path, VIBRIDGE_*).")
    File config;

    @Option(names = "--url", paramLabel = "<url>", defaultValue = "http://127.0.0.1:9464", converter = AdminUrl.class,
            description = "A running gateway's admin endpoint, asked when its device holds the address "
                    + "(default: ${DEFAULT-VALUE}).")
    URI url;

    @Mixin
    AdminAuth auth;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        GatewayConfig.Infiniband ib = (config == null ? GatewayConfig.load() : GatewayConfig.load(config)).infiniband();
        DeviceConfig dc = ib.deviceConfig(address != null ? address : ib.address(),
                provider != null ? provider : ib.provider());
        PrintWriter out = spec.commandLine().getOut();
        List<VerbsProvider> providers = Verbs.providers();
        Map<VerbsProvider, String> availability = new LinkedHashMap<>();
        for (VerbsProvider p : providers) {
            VerbsProvider.Availability a = p.availability(dc);
            availability.put(p, a.usable() ? "usable" : "unusable: " + a.reason());
        }
        DeviceListing.providers(out, providers, availability);
        out.println();
        DeviceInfo info;
        try {
            info = open(dc);
        } catch (VerbsException e) {
            if (!udpPortInUse(dc)) {
                return fail(e.getMessage(), 2);
            }
            out.printf("%s:%d is in use (a running gateway?): its device as %s/device reports it%n%n",
                    dc.address().getHostAddress(), dc.udpPort(), url);
            try {
                info = DeviceInfo.fromJson(new JsonObject(AdminClient.get(url, "/device", auth.token(spec))));
            } catch (AdminClient.Unreachable u) {
                return fail("UDP " + dc.address().getHostAddress() + ":" + dc.udpPort() + " is in use and "
                        + u.getMessage(), 1);
            }
        }
        DeviceListing.device(out, info);
        DeviceListing.bridge(out, info, ib.cutThrough());
        out.flush();
        return 0;
    }

    /** Opens the device just long enough to describe it, without its start-up log lines. */
    private static DeviceInfo open(DeviceConfig dc) {
        var logger = (Logger) LoggerFactory.getLogger("io.vibridge");
        var saved = logger.getLevel();
        logger.setLevel(Level.WARN);
        try (VerbsDevice d = Verbs.open(dc)) {
            return DeviceInfo.of(d);
        } finally {
            logger.setLevel(saved);
        }
    }

    /** Whether another socket holds the device's UDP address (the providers word a bind failure their own way). */
    private static boolean udpPortInUse(DeviceConfig dc) {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(dc.address(), dc.udpPort()))) {
            return !probe.isBound();
        } catch (SocketException e) {
            return true;
        }
    }

    private int fail(String line, int code) {
        spec.commandLine().getErr().println(spec.qualifiedName() + ": " + line);
        spec.commandLine().getErr().flush();
        return code;
    }
}
