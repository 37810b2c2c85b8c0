package io.vibridge.verbs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

/**
 * What to open: the IP address of the port (soft: the UDP socket's address), the RoCEv2 UDP port (soft
 * only, default 4791), an optional provider name ("soft", "disni"; null = automatic) and
 * provider-specific options (string key/values, documented by each provider).
 */
public record DeviceConfig(InetAddress address, int udpPort, String provider, Map<String, String> options) {
    public static final int ROCE_V2_PORT = 4791;

    public DeviceConfig {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        if (udpPort < 1 || udpPort > 65535) {
            throw new IllegalArgumentException("udpPort out of range: " + udpPort);
        }
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    public static DeviceConfig of(InetAddress address) {
        return new DeviceConfig(address, ROCE_V2_PORT, null, Map.of());
    }

    public static DeviceConfig of(String address) {
        try {
            return of(InetAddress.getByName(address));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad address " + address, e);
        }
    }

    public DeviceConfig withProvider(String name) {
        return new DeviceConfig(address, udpPort, name, options);
    }

    public DeviceConfig withOption(String key, String value) {
        var m = new HashMap<>(options);
        m.put(key, value);
        return new DeviceConfig(address, udpPort, provider, m);
    }
}
