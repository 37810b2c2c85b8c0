package io.vibridge.verbs.soft;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsProvider;
import java.net.Inet4Address;

/**
 * The pure-Java RoCEv2 provider. Device options: {@link SoftParams} ({@code faults}, egress fault injection,
 * is also settable at runtime with {@link SoftDevice#setFaults}).
 */
public final class SoftProvider implements VerbsProvider {
    public static final String NAME = "soft";

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
