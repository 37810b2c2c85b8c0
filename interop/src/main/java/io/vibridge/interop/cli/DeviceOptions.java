package io.vibridge.interop.cli;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The local verbs device: which address the soft RoCEv2 device binds and the soft provider's options. */
public final class DeviceOptions {
    @Option(names = "--device", paramLabel = "ADDR",
            description = "IP address of the local device (the soft provider binds ADDR:4791).")
    String address;

    @Option(names = "--provider", paramLabel = "NAME", defaultValue = "soft",
            description = "Verbs provider (default: ${DEFAULT-VALUE}).")
    String provider;

    @Option(names = "--udp-port", paramLabel = "PORT", defaultValue = "4791",
            description = "RoCEv2 UDP port of the soft device (default: ${DEFAULT-VALUE}).")
    int udpPort;

    @Option(names = "--udp-offload", paramLabel = "auto|on|off",
            description = "Soft device UDP segmentation offload (off: one datagram per packet, for captures).")
    String udpOffload;

    @Option(names = "--max-mtu", paramLabel = "BYTES", description = "Cap the port's path MTU (256..4096).")
    Integer maxMtu;

    @Option(names = "--netdev-mtu", paramLabel = "BYTES",
            description = "Interface MTU the soft device derives its path MTU from (instead of the interface's).")
    Integer netdevMtu;

    @Option(names = "--faults", paramLabel = "SPEC",
            description = "Soft device fault injection, e.g. drop=0.02,seed=1.")
    String faults;

    @Option(names = "--device-option", paramLabel = "KEY=VALUE", description = "Any other provider option.")
    Map<String, String> extra = new LinkedHashMap<>();

    /** The configuration for {@code address}, or for {@code fallback} when {@code --device} was not given. */
    DeviceConfig config(String fallback) {
        String a = address != null ? address : fallback;
        if (a == null) {
            throw new IllegalArgumentException("--device ADDR is required: the local soft device's IP address");
        }
        Map<String, String> options = new LinkedHashMap<>(extra);
        if (udpOffload != null) {
            options.put("udp-offload", udpOffload);
        }
        if (maxMtu != null) {
            options.put("max-mtu", Integer.toString(maxMtu));
        }
        if (netdevMtu != null) {
            options.put("netdev-mtu", Integer.toString(netdevMtu));
        }
        if (faults != null) {
            options.put("faults", faults);
        }
        return new DeviceConfig(Cli.address(a, "--device"), udpPort, provider, options);
    }

    VerbsDevice open(String fallback) {
        return Verbs.open(config(fallback));
    }
}
