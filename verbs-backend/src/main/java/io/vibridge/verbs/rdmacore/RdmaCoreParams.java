package io.vibridge.verbs.rdmacore;

import io.vibridge.verbs.DeviceConfig;
import java.util.Map;
import java.util.Set;

/**
 * The rdma-core provider's device options ({@link DeviceConfig#options()}): {@code device} (e.g. {@code rxe0};
 * default: the device holding the configured address), {@code port} (1..255, default: the port holding it, else
 * 1), {@code gid-index} (default: the RoCEv2 GID whose IPv4-mapped address is the configured one; on iWARP the
 * GID made of the interface's MAC).
 *
 * @param device   device name or null
 * @param port     port number or 0 (search)
 * @param gidIndex GID index or -1 (search)
 */
record RdmaCoreParams(String device, int port, int gidIndex) {
    static final Set<String> KEYS = Set.of("device", "port", "gid-index");

    /** Reads the options of a config; unknown keys are refused only when the config names this provider. */
    static RdmaCoreParams of(DeviceConfig config) {
        return of(config.options(), RdmaCoreProvider.NAME.equalsIgnoreCase(config.provider()));
    }

    static RdmaCoreParams of(Map<String, String> options) {
        return of(options, true);
    }

    /**
     * Reads the options; a bad value, or with {@code strict} an unknown key, is an {@link IllegalArgumentException}
     * of one line (in automatic selection the options may be another provider's).
     */
    static RdmaCoreParams of(Map<String, String> options, boolean strict) {
        for (String k : options.keySet()) {
            if (strict && !KEYS.contains(k)) {
                throw new IllegalArgumentException("rdma-core: unknown device option '" + k + "' (known: device, port, gid-index)");
            }
        }
        String device = options.get("device");
        if (device != null && (device.isBlank() || device.length() > 63)) {
            throw new IllegalArgumentException("rdma-core: device='" + device + "' is not a device name");
        }
        int port = number(options, "port", 0, 1, 255);
        int gid = number(options, "gid-index", -1, 0, 65535);
        return new RdmaCoreParams(device, port, gid);
    }

    private static int number(Map<String, String> options, String key, int absent, int min, int max) {
        String v = options.get(key);
        if (v == null) {
            return absent;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("rdma-core: " + key + "=" + v + " must be a number " + min + ".." + max);
    }
}
