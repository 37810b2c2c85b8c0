package io.vibridge.verbs.rdmacore;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.VerbsProvider;

/**
 * The hardware provider over rdma-core's libibverbs.so.1 through {@link java.lang.foreign}: no native build of
 * ours, only the distribution's library and the device's user-space driver. Usable when the library binds, its
 * layouts pass {@link RdmaCoreCheck} and a device has a GID for the configured address (or the {@code device}
 * option names one); otherwise {@link #availability} says why in one line. Capabilities: OUT_OF_BAND_CONNECT and
 * CM_PRIVATE_DATA on IB/RoCE devices (not iWARP), CQ_MODERATION where the device has ibv_modify_cq; never
 * REMOTE_ACCESS_HANDLER (the HCA executes inbound RDMA itself). Its CM ({@link RdmaCoreConnectionManager}) is
 * rdma_cm's: 56 REQ private data bytes behind the CMA header, RC port-space Service IDs only. Automatic selection
 * takes it when a device holds the configured address (the gateway runs on it over rxe0 in the interop VM).
 */
public final class RdmaCoreProvider implements VerbsProvider {
    public static final String NAME = "rdma-core";

    @Override
    public String name() {
        return NAME;
    }

    /** Above DiSNI (100) and soft (0): the complete hardware path when a device exists. */
    @Override
    public int priority() {
        return 200;
    }

    @Override
    public Availability availability(DeviceConfig config) {
        String why = Ibv.unavailable();
        if (why != null) {
            return Availability.no(why);
        }
        try {
            RdmaCoreParams.of(config);
        } catch (IllegalArgumentException e) {
            return Availability.no(e.getMessage());
        }
        String probe = DeviceFinder.probe(config);
        if (probe != null) {
            return Availability.no(probe);
        }
        return Availability.ok();
    }

    @Override
    public VerbsDevice open(DeviceConfig config) {
        String why = Ibv.unavailable();
        if (why != null) {
            throw new VerbsException("rdma-core provider unusable: " + why);
        }
        return new RdmaCoreDevice(config);
    }
}
