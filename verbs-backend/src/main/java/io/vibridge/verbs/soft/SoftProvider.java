package io.vibridge.verbs.soft;

import io.vibridge.verbs.Capability;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsProvider;
import java.net.Inet4Address;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The pure-Java RoCEv2 provider. Device options: {@link SoftParams} ({@code faults}, egress fault injection,
 * is also settable at runtime with {@link SoftDevice#setFaults}).
 */
public final class SoftProvider implements VerbsProvider {
    public static final String NAME = "soft";
    /**
     * All of them: QP-level access handlers and out-of-band connect are the engine's own; its CM carries
     * 92/196 bytes of REQ/REP private data, takes any Service ID and puts ConnectParams' timers and MTU in
     * the REQ (IB-WIRE-REFERENCE §5.3, §5.7); its completion queues moderate on the device's timer thread; its
     * requester sends SEND with Invalidate (its responder reports the key and invalidates nothing: RcResponder).
     */
    static final Set<Capability> CAPABILITIES = Collections.unmodifiableSet(EnumSet.allOf(Capability.class));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability(DeviceConfig config) {
        return config.address() instanceof Inet4Address
                ? Availability.ok()
                : Availability.no("the soft provider supports IPv4 addresses only");
    }

    @Override
    public VerbsDevice open(DeviceConfig config) {
        return new SoftDevice(config);
    }
}
