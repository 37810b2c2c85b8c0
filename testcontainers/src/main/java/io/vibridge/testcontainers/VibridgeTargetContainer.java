package io.vibridge.testcontainers;

import com.github.dockerjava.api.model.ContainerNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.utility.DockerImageName;

/**
 * The demo InfiniBand-side service of the vibridge image ({@code vibridge target}) in a container: it
 * accepts CM REQs carrying a Hello on its soft RoCEv2 device (the container's own address, UDP 4791) and
 * serves {@link TargetMode#ECHO echo} (default), {@link TargetMode#SINK sink} or
 * {@link TargetMode#SOURCE source}, with one region open to RDMA Read and Write. A gateway reaches it over
 * a Docker network: {@link VibridgeContainer#withTarget} puts both on one and starts this one first.
 *
 * <p>Supported image: {@code vibridge/gateway} (the gateway and the target are one image). Exposed ports:
 * none (RoCEv2 stays on the Docker network).
 */
public class VibridgeTargetContainer extends GenericContainer<VibridgeTargetContainer> {
    /** The port P a target serves by default; its Service IDs derive from it (CM-MAPPING §1). */
    public static final int DEFAULT_SERVICE_PORT = 5000;
    static final String READY_LINE = "target ready on";

    private final DockerImageName image;
    private final StartupLog log = new StartupLog();
    private TargetMode mode = TargetMode.ECHO;
    private int servicePort = DEFAULT_SERVICE_PORT;
    private Integer receiveBuffers;
    private String regionSize;
    private String sourceSize;

    public VibridgeTargetContainer(String dockerImageName) {
        this(DockerImageName.parse(dockerImageName));
    }

    public VibridgeTargetContainer(DockerImageName dockerImageName) {
        super(dockerImageName);
        dockerImageName.assertCompatibleWith(VibridgeContainer.DEFAULT_IMAGE_NAME);
        this.image = dockerImageName;
        // the soft device binds the container's own address (deploy/bin/vibridge)
        withEnv("VIBRIDGE_IB_ADDRESS", "auto");
        withLogConsumer(log);
        waitingFor(new ReadyOrExited("the vibridge target", log, t -> log.contains(READY_LINE))
                .withStartupTimeout(Duration.ofSeconds(60)));
    }

    public VibridgeTargetContainer withMode(TargetMode m) {
        this.mode = m;
        return self();
    }

    /** The port P its Service IDs derive from; routes to it use the same (default {@value #DEFAULT_SERVICE_PORT}). */
    public VibridgeTargetContainer withServicePort(int port) {
        Route.requirePort(port, "the target's service port");
        this.servicePort = port;
        return self();
    }

    /** Receives posted per connection ({@code --receive-buffers}, default 64). */
    public VibridgeTargetContainer withReceiveBuffers(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("receive buffers: at least 1, got " + count);
        }
        this.receiveBuffers = count;
        return self();
    }

    /** The region open to RDMA Read and Write, as {@code --region-size} takes it (e.g. "4MiB"; default 16 MiB). */
    public VibridgeTargetContainer withRegionSize(String size) {
        this.regionSize = size;
        return self();
    }

    /** Source mode: payload bytes per Send, as {@code --size} takes it (default 64 KiB). */
    public VibridgeTargetContainer withSourceSize(String size) {
        this.sourceSize = size;
        return self();
    }

    public TargetMode getMode() {
        return mode;
    }

    public int getServicePort() {
        return servicePort;
    }

    /**
     * Its InfiniBand/RoCE address: its IP address on {@code network} (where its soft device listens), once
     * it runs.
     */
    public String getIbAddress(Network network) {
        if (getContainerId() == null) {
            throw new IllegalStateException("the target container is not started: no address yet");
        }
        Map<String, ContainerNetwork> networks = getContainerInfo().getNetworkSettings().getNetworks();
        for (ContainerNetwork n : networks.values()) {
            if (network == null || network.getId().equals(n.getNetworkID())) {
                return n.getIpAddress();
            }
        }
        throw new IllegalStateException("the target container is not on network " + network.getId()
                + " (it is on " + networks.keySet() + ")");
    }

    /** The command line, as {@link #configure()} sets it. */
    List<String> command() {
        List<String> c = new ArrayList<>(List.of("target", "--port", Integer.toString(servicePort), "--mode",
                mode.cliName()));
        if (receiveBuffers != null) {
            c.addAll(List.of("--receive-buffers", receiveBuffers.toString()));
        }
        if (regionSize != null) {
            c.addAll(List.of("--region-size", regionSize));
        }
        if (sourceSize != null) {
            c.addAll(List.of("--size", sourceSize));
        }
        return c;
    }

    @Override
    protected void configure() {
        setCommand(command().toArray(String[]::new));
    }

    /** Starts it; a missing image or an exit at start is a {@link VibridgeStartupException} saying why. */
    @Override
    public void start() {
        Images.requireBuilt(image);
        try {
            super.start();
        } catch (Exception e) {
            throw VibridgeStartupException.clearest(e);
        }
    }
}
