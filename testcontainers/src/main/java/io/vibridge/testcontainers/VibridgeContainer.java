package io.vibridge.testcontainers;

import io.vibridge.vitcp.provider.NicConfig;
import io.vibridge.vitcp.provider.ViNetAddress;
import io.vibridge.vitcp.security.ConnectKeys;
import io.vibridge.vitcp.wire.Discriminator;
import io.vibridge.vitcp.wire.Encapsulation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.WaitStrategyTarget;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The vibridge gateway in a container, for an application's integration tests: VI/TCP (and its seed-004
 * RDMA/TCP framing) and iWARP clients on one side, InfiniBand RC over the soft RoCEv2 provider on the
 * other, towards {@link VibridgeTargetContainer}s on the same Docker network.
 *
 * <pre>{@code
 * VibridgeTargetContainer target = new VibridgeTargetContainer("vibridge/gateway:local");
 * VibridgeContainer gateway = new VibridgeContainer("vibridge/gateway:local").withTarget(target);
 * gateway.start();   // the target first, then the gateway, ready when its /ready answers 200
 * ViNic nic = ViNic.open(gateway.getNicConfig());
 * ... vi.connectRequest(Discriminator.EMPTY, gateway.getViNetAddress("demo"), timeout) ...
 * }</pre>
 *
 * <p>The configuration is rendered at start into /etc/vibridge/application.conf ({@link #getConfiguration()}):
 * the soft provider at path MTU 1024 (RoCEv2 packets must fit a Docker network's 1500-byte MTU), the routes
 * (a target container's address is filled in once it runs), iWARP listeners, the security key, provider
 * options and extra HOCON, which may override any key. The wait strategy asks the gateway's own readiness
 * endpoint ({@code /ready}: listeners bound, fabric up) and fails at once, quoting the gateway's output, if
 * the process exits first, as it does on a configuration error.
 *
 * <p>Supported image: {@code vibridge/gateway}, built by the vibridge build (it is in no registry); use
 * {@link DockerImageName#asCompatibleSubstituteFor} for a copy of your own. Exposed ports: 7470 (VI/TCP),
 * 7471 (VI/TCP in RDMA/TCP frames), 9464 (admin HTTP), and each iWARP listener's port.
 */
public class VibridgeContainer extends GenericContainer<VibridgeContainer> {
    /** The image's repository: the gateway and the demo target are one image. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("vibridge/gateway");
    /** The tag the vibridge build gives the image it builds ({@code mvn install}, module gateway). */
    public static final String LOCAL_TAG = "local";
    public static final DockerImageName LOCAL_IMAGE = DEFAULT_IMAGE_NAME.withTag(LOCAL_TAG);

    public static final int VITCP_PORT = 7470;
    public static final int RDMATCP_PORT = 7471;
    public static final int ADMIN_PORT = 9464;
    /** The route {@link #withTarget} adds, as the image's own default configuration names it. */
    public static final String DEFAULT_ROUTE = "demo";
    static final String CONFIG_PATH = "/etc/vibridge/application.conf";

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final DockerImageName image;
    private final StartupLog log = new StartupLog();
    private final GatewayConfiguration config = new GatewayConfiguration();
    private final List<VibridgeTargetContainer> targets = new ArrayList<>();
    private Network ownedNetwork;
    private String adminToken;
    private String rendered;

    public VibridgeContainer(String dockerImageName) {
        this(DockerImageName.parse(dockerImageName));
    }

    public VibridgeContainer(DockerImageName dockerImageName) {
        super(dockerImageName);
        dockerImageName.assertCompatibleWith(DEFAULT_IMAGE_NAME);
        this.image = dockerImageName;
        withExposedPorts(VITCP_PORT, RDMATCP_PORT, ADMIN_PORT);
        // the soft device binds the container's own address (deploy/bin/vibridge)
        withEnv("VIBRIDGE_IB_ADDRESS", "auto");
        withCommand("gateway");
        withLogConsumer(log);
        waitingFor(new ReadyOrExited("the vibridge gateway", log, VibridgeContainer::answersReady)
                .withStartupTimeout(Duration.ofSeconds(60)));
    }

    // ------------------------------------------------------------------------------------- configuration

    /**
     * Puts {@code target} on this gateway's network (a new one unless either has one), starts it before the
     * gateway, stops it with the gateway, and routes the discriminator {@value #DEFAULT_ROUTE} to it as the
     * image's default configuration routes it to the demo target (FlowC 0, receives of 64 KiB + its 16-byte
     * header), unless a {@value #DEFAULT_ROUTE} route is configured already.
     */
    public VibridgeContainer withTarget(VibridgeTargetContainer target) {
        wire(target);
        if (!config.hasRoute(DEFAULT_ROUTE)) {
            config.addRoute(Route.of(DEFAULT_ROUTE, target).withFlowC(0).withReceiveSize(65552));
        }
        return self();
    }

    /** Routes the discriminator {@code match} to {@code target} on the port it serves (wired as {@link #withTarget}). */
    public VibridgeContainer withRoute(String match, VibridgeTargetContainer target) {
        return withRoute(Route.of(match, target));
    }

    /** Routes the discriminator {@code match} to the InfiniBand/RoCE address {@code targetAddress} (an IP literal). */
    public VibridgeContainer withRoute(String match, String targetAddress, int port) {
        return withRoute(Route.of(match, targetAddress, port));
    }

    /** Adds {@code route} (cm-format, FlowC, receive sizes as it says); a target container in it is wired. */
    public VibridgeContainer withRoute(Route route) {
        if (route.target() instanceof RouteTarget.Container c) {
            wire(c.target());
        }
        config.addRoute(route);
        return self();
    }

    /** An iWARP listener on {@code port} (in the container) whose clients go to the route {@code route}. */
    public VibridgeContainer withIwarpListener(int port, String route) {
        IwarpListener l = new IwarpListener(port, route);
        if (port == VITCP_PORT || port == RDMATCP_PORT || port == ADMIN_PORT) {
            throw new IllegalArgumentException("port " + port + " is the gateway's own VI/TCP, RDMA/TCP or admin port");
        }
        config.addListener(l);
        addExposedPort(port);
        return self();
    }

    /**
     * The shared HMAC-SHA256 key of VI/TCP Security Type 1 (VITCP-PROFILE §5), as the gateway takes it:
     * "hex:...", "base64:..." or UTF-8 text of at least 16 bytes. {@link #getNicConfig()} carries it.
     */
    public VibridgeContainer withSecurityKey(String key) {
        config.securityKey(key);
        return self();
    }

    /**
     * A key of {@code vibridge.gateway.infiniband} (docs/configuration.md), e.g. {@code ("retry-count", 3)},
     * {@code ("path-mtu", 4096)}, {@code ("faults", "drop=0.01,seed=1")}, {@code ("idle", "spin")}.
     */
    public VibridgeContainer withProviderOption(String key, Object value) {
        config.providerOption(key, value);
        return self();
    }

    /** HOCON appended to the rendered configuration (full keys, e.g. {@code vibridge.gateway.limits.max-connections = 10}). */
    public VibridgeContainer withConfig(String hocon) {
        config.extra(hocon);
        return self();
    }

    /** A bearer token for the admin HTTP endpoints but /health and /ready (VIBRIDGE_ADMIN_TOKEN, 16+ characters). */
    public VibridgeContainer withAdminToken(String token) {
        this.adminToken = token;
        return withEnv("VIBRIDGE_ADMIN_TOKEN", token);
    }

    private void wire(VibridgeTargetContainer target) {
        if (targets.contains(target)) {
            return;
        }
        Network n = getNetwork() != null ? getNetwork() : target.getNetwork();
        if (n == null) {
            ownedNetwork = Network.newNetwork();
            n = ownedNetwork;
        }
        if (target.getNetwork() != null && target.getNetwork() != n) {
            throw new IllegalArgumentException("the target container is on another network than the gateway");
        }
        withNetwork(n);
        target.withNetwork(n);
        dependsOn(target);
        targets.add(target);
    }

    /** The configuration the gateway runs with, each target container's address given by {@code addressOf}. */
    String render(Function<VibridgeTargetContainer, String> addressOf) {
        return config.render(addressOf);
    }

    @Override
    protected void configure() {
        for (VibridgeTargetContainer t : targets) {
            if (t.getNetwork() != getNetwork()) {
                throw new IllegalStateException("the gateway and its target containers must share one network: "
                        + "set withNetwork on neither, or the same on both");
            }
        }
        rendered = render(t -> t.getIbAddress(getNetwork()));
        withCopyToContainer(Transferable.of(rendered), CONFIG_PATH);
    }

    /** Starts it (its targets first); a missing image or an exit at start is a {@link VibridgeStartupException}. */
    @Override
    public void start() {
        Images.requireBuilt(image);
        try {
            super.start();
        } catch (Exception e) {
            throw VibridgeStartupException.clearest(e);
        }
    }

    /** Stops it, then the target containers it was given and the network it made for them. */
    @Override
    public void stop() {
        try {
            super.stop();
        } finally {
            targets.forEach(VibridgeTargetContainer::stop);
            if (ownedNetwork != null) {
                ownedNetwork.close();
            }
        }
    }

    private static boolean answersReady(WaitStrategyTarget t) {
        URI ready = URI.create("http://" + t.getHost() + ":" + t.getMappedPort(ADMIN_PORT) + "/ready");
        try {
            return HTTP.send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ------------------------------------------------------------------------------------- endpoints

    /** The configuration it runs with, as copied in at start (null before). */
    public String getConfiguration() {
        return rendered;
    }

    public List<VibridgeTargetContainer> getTargets() {
        return List.copyOf(targets);
    }

    /** Where VI/TCP clients connect (native segments). */
    public InetSocketAddress getViTcpEndpoint() {
        return new InetSocketAddress(getHost(), getMappedPort(VITCP_PORT));
    }

    /** Where VI/TCP clients in seed-004 RDMA/TCP framing connect (VITCP-PROFILE §8). */
    public InetSocketAddress getRdmaTcpEndpoint() {
        return new InetSocketAddress(getHost(), getMappedPort(RDMATCP_PORT));
    }

    /** Where iWARP clients of the route {@code route} connect (its first iWARP listener). */
    public InetSocketAddress getIwarpEndpoint(String route) {
        for (IwarpListener l : config.listeners()) {
            if (l.route().equals(route)) {
                return new InetSocketAddress(getHost(), getMappedPort(l.port()));
            }
        }
        throw new IllegalArgumentException("no iWARP listener for route '" + route + "': add withIwarpListener(port, \""
                + route + "\")");
    }

    /** The admin HTTP endpoint: /metrics, /health, /ready, /connections, /device, /stat. */
    public URI getAdminUrl() {
        return URI.create("http://" + getHost() + ":" + getMappedPort(ADMIN_PORT));
    }

    /** Prometheus' scrape URL (with {@link #withAdminToken} it needs the token). */
    public URI getMetricsUrl() {
        return getAdminUrl().resolve("/metrics");
    }

    /** The admin token given with {@link #withAdminToken}, or null. */
    public String getAdminToken() {
        return adminToken;
    }

    /**
     * A VI provider NIC configuration for clients of this gateway: active only (it listens nowhere), with
     * the security key when one is set. Open it with {@code ViNic.open(gateway.getNicConfig())}.
     */
    public NicConfig getNicConfig() {
        NicConfig c = NicConfig.loopback().withListen(null).withName("vibridge-testcontainers");
        String key = config.securityKey();
        return key == null ? c : c.withKey(ConnectKeys.decode(key));
    }

    /** The remote address a VI connects to for {@code discriminator} (a route's match), native VI/TCP. */
    public ViNetAddress getViNetAddress(String discriminator) {
        return new ViNetAddress(getViTcpEndpoint(), Discriminator.ofUtf8(discriminator));
    }

    /** As {@link #getViNetAddress}, in seed-004 RDMA/TCP framing. */
    public ViNetAddress getRdmaTcpNetAddress(String discriminator) {
        return new ViNetAddress(getRdmaTcpEndpoint(), Discriminator.ofUtf8(discriminator), Encapsulation.RDMATCP);
    }
}
