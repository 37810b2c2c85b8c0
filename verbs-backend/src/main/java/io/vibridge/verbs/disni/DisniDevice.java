package io.vibridge.verbs.disni;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaEventChannel;
import io.vibridge.verbs.Capability;
import io.vibridge.verbs.CompletionQueue;
import io.vibridge.verbs.ConnectionManager;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.DeviceCounters;
import io.vibridge.verbs.ProtectionDomain;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A DiSNI device: the verbs context of the RDMA device that holds the configured IP address, found by
 * binding an rdma_cm id to it. Counters are not available from DiSNI (all zero). No {@link Capability}
 * at all ({@link DisniProvider#CAPABILITIES} says why).
 */
public final class DisniDevice implements VerbsDevice {
    private final DeviceConfig config;
    private final RdmaEventChannel channel;
    private final RdmaCmId anchor;
    private final IbvContext context;
    private final ExecutorService events;
    private final DisniConnectionManager cm;

    DisniDevice(DeviceConfig config) {
        this.config = config;
        try {
            channel = RdmaEventChannel.createEventChannel();
            anchor = channel.createId(RdmaCm.RDMA_PS_TCP);
            anchor.bindAddr(new InetSocketAddress(config.address(), 0));
            context = anchor.getVerbs();
            if (context == null) {
                throw new VerbsException("no RDMA device has address " + config.address().getHostAddress());
            }
        } catch (IOException e) {
            throw new VerbsException("cannot open DiSNI device on " + config.address() + ": " + e, e);
        }
        events = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "disni-events-" + config.address().getHostAddress());
            t.setDaemon(true);
            return t;
        });
        cm = new DisniConnectionManager(this, channel);
    }

    /** Null if an RDMA device is bound to the address, else why not. */
    static String probe(DeviceConfig config) {
        try {
            RdmaEventChannel ch = RdmaEventChannel.createEventChannel();
            try {
                RdmaCmId id = ch.createId(RdmaCm.RDMA_PS_TCP);
                try {
                    id.bindAddr(new InetSocketAddress(config.address(), 0));
                    return id.getVerbs() == null ? "no RDMA device has address " + config.address().getHostAddress() : null;
                } finally {
                    id.destroyId();
                }
            } finally {
                ch.destroyEventChannel();
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            return "no usable RDMA device on " + config.address().getHostAddress() + ": " + e;
        }
    }

    IbvContext context() {
        return context;
    }

    ExecutorService eventExecutor() {
        return events;
    }

    @Override
    public String providerName() {
        return DisniProvider.NAME;
    }

    @Override
    public String name() {
        return "disni-" + config.address().getHostAddress();
    }

    @Override
    public InetAddress address() {
        return config.address();
    }

    @Override
    public byte[] gid() {
        byte[] a = config.address().getAddress();
        if (a.length == 16) {
            return a;
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        System.arraycopy(a, 0, g, 12, 4);
        return g;
    }

    @Override
    public Set<Capability> capabilities() {
        return DisniProvider.CAPABILITIES;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        try {
            return new DisniProtectionDomain(this, context.allocPd());
        } catch (IOException e) {
            throw new VerbsException("ibv_alloc_pd failed: " + e, e);
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        return new DisniCompletionQueue(this, capacity);
    }

    @Override
    public ConnectionManager connectionManager() {
        return cm;
    }

    @Override
    public DeviceCounters counters() {
        return new DeviceCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public void close() {
        cm.shutdown();
        try {
            anchor.destroyId();
            channel.destroyEventChannel();
        } catch (IOException e) {
            // closing anyway
        }
        events.shutdown();
    }
}
