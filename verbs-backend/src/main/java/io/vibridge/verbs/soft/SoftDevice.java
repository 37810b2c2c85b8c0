package io.vibridge.verbs.soft;

import io.vibridge.verbs.AsyncEvent;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.QueuePair;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.soft.cm.SoftConnectionManager;
import io.vibridge.verbs.soft.port.RocePort;
import io.vibridge.verbs.soft.port.SoftCounters;
import io.vibridge.verbs.soft.resource.KeyTable;
import io.vibridge.verbs.soft.resource.SoftCompletionQueue;
import io.vibridge.verbs.soft.transport.QpTable;
import io.vibridge.verbs.soft.transport.RcQueuePair;
import io.vibridge.verbs.soft.wire.Gid;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RoCEv2 device: the {@link VerbsDevice} API over a {@link RocePort} (the UDP socket on
 * {@code ip:4791} with DF set, so Linux sends IP ID 0 and the ICRC we compute for ID 0 is right; its
 * receive, transmit, timer and event threads), the QP table, the CM and the lifecycle. Every QP guards its
 * state with its own lock; the receive, transmit and posting threads take it; user callbacks never run
 * under it. Defaults and device options: {@link SoftParams}.
 */
public final class SoftDevice implements VerbsDevice, RocePort.Inbound {
    private static final Logger LOG = LoggerFactory.getLogger(SoftDevice.class);

    private final DeviceConfig config;
    private final SoftParams params;
    private final InetAddress address;
    private final RocePort port;
    private final KeyTable keys = new KeyTable();
    private final QpTable qps;
    private final SoftConnectionManager cm;
    private volatile FaultConfig faults = FaultConfig.NONE;
    private volatile boolean closed;

    SoftDevice(DeviceConfig config) {
        this.config = config;
        this.address = config.address();
        if (!(address instanceof Inet4Address)) {
            throw new VerbsException("the soft provider supports IPv4 addresses only: " + address);
        }
        params = SoftParams.of(config);        // options first: nothing to undo when one is wrong
        try {
            port = new RocePort(address, config.udpPort(), params.maxPathMtu(), params.udpOffload(), SoftParams.PORT_LIMITS,
                    params.idle());
        } catch (IOException e) {
            throw new VerbsException("cannot bind UDP " + address.getHostAddress() + ":" + config.udpPort() + ": "
                    + e.getMessage(), e);
        }
        qps = new QpTable(port, keys, SoftParams.FIRST_QPN, SoftParams.QP_SLOTS, SoftParams.WINDOW,
                SoftParams.MAX_PKT_PER_ACK, params.rnrBackoff());
        cm = new SoftConnectionManager(port, SoftParams.PACKET_LIFETIME, SoftParams.TARGET_ACK_DELAY,
                SoftParams.TIMEWAIT_BATCH_NANOS);
        setFaults(params.faults());
        port.start(this);
        LOG.info("soft RoCEv2 device up on {}:{}: interface MTU {}, port max path MTU {}, {}", address.getHostAddress(),
                config.udpPort(), params.interfaceMtu(), params.maxPathMtu(), port.describeSocket());
    }

    /** True while sends hand groups of datagrams to the kernel at once (UDP_SEGMENT). */
    public boolean segmentationOffload() {
        return port.segmentationOffload();
    }

    /** The MTU of the network interface the device is bound to (or the {@code netdev-mtu} option). */
    public int interfaceMtu() {
        return params.interfaceMtu();
    }

    /** Sets egress fault injection (at any time). */
    public void setFaults(FaultConfig f) {
        faults = f;
        port.faults().set(f.drop(), f.duplicate(), f.reorder(), f.corrupt(), f.seed());
    }

    public FaultConfig faults() {
        return faults;
    }

    // ---------------------------------------------------------------- SPI

    @Override
    public String providerName() {
        return SoftProvider.NAME;
    }

    @Override
    public String name() {
        return "soft-" + address.getHostAddress();
    }

    @Override
    public InetAddress address() {
        return address;
    }

    public int port() {
        return port.udpPort();
    }

    @Override
    public int maxPathMtu() {
        return params.maxPathMtu();
    }

    @Override
    public byte[] gid() {
        return Gid.of(address).toBytes();
    }

    @Override
    public Set<Capability> capabilities() {
        return SoftProvider.CAPABILITIES;
    }

    /** The UDP port, the interface's MTU, whether UDP segmentation offload is on, the idle mode (option idle). */
    @Override
    public Map<String, String> properties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("udp_port", Integer.toString(port.udpPort()));
        m.put("interface_mtu", Integer.toString(params.interfaceMtu()));
        m.put("udp_offload", (segmentationOffload() ? "on" : "off") + " (option udp-offload " + params.udpOffload()
                .name().toLowerCase(Locale.ROOT) + ")");
        m.put("idle", params.idle().name());
        return m;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        return new SoftProtectionDomain(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        return new SoftCompletionQueue(port.events(), capacity, port.polls() ? port::pollInput : null, port.timers());
    }

    @Override
    public ConnectionManager connectionManager() {
        return cm;
    }

    @Override
    public DeviceCounters counters() {
        return port.counters().snapshot();
    }

    public DeviceConfig config() {
        return config;
    }

    KeyTable keys() {
        return keys;
    }

    synchronized QueuePair createQp(ProtectionDomain pd, SoftCompletionQueue sendCq, SoftCompletionQueue recvCq,
                                    int maxSend, int maxRecv) {
        if (closed) {
            throw new VerbsException("device closed");
        }
        return qps.create(pd, sendCq, recvCq, maxSend, maxRecv);
    }

    // ---------------------------------------------------------------- RocePort.Inbound (receive thread)

    @Override
    public boolean rc(int destQp, ByteBuffer pkt, int len, int srcIp) {
        RcQueuePair qp = qps.get(destQp);
        if (qp == null) {
            return false;
        }
        qp.onPacket(pkt, len, srcIp);
        return true;
    }

    @Override
    public void gsi(ByteBuffer pkt, int len, int srcIp) {
        cm.onPacket(pkt, len, Gid.ofIpv4(srcIp).toInetAddress());
    }

    // ---------------------------------------------------------------- lifecycle

    /** Queue pairs raise {@link AsyncEvent.QueuePairError} when their responder NAKs a request with an error. */
    @Override
    public void onAsyncEvent(Consumer<AsyncEvent> handler, Executor executor) {
        qps.onAsyncEvent(handler, executor);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        cm.shutdown();
        qps.errorAll();
        port.close();
        SoftCounters c = port.counters();
        long icrc = c.icrcDrops.sum();
        long malformed = c.malformedDrops.sum();
        if (icrc + malformed == 0) {
            LOG.info("soft device {} closed", name());
        } else {                                            // the first thing to look at when a peer went unheard
            LOG.info("soft device {} closed; dropped on receive: {} failing the ICRC check, {} malformed or for no QP",
                    name(), icrc, malformed);
        }
    }

    public boolean isClosed() {
        return closed;
    }
}
