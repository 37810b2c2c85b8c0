package io.vibridge.verbs.conformance;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.rdmacore.AfIbProbe;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Runs {@link VerbsConformance} in one JVM against one device (many scenarios per JVM start: a JVM is slow to
 * start under the VM's emulation).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp ... io.vibridge.verbs.conformance.ConformanceMain \
 *      --address 198.18.0.2 [--provider rdma-core] [--option device=rxe0]... [--only a,b] [--bench] [--cm-pairs]
 *      [--timeout-ms N] [--af-ib]
 * </pre>
 * {@code --af-ib} (rdma-core): first reports what rdma_cm answers to native IB addressing on the device
 * ({@link io.vibridge.verbs.rdmacore.AfIbProbe}).
 * <pre>
 * </pre>
 * Exit 0 when nothing failed, 1 when a scenario failed, 2 for a usage error or a device that cannot be opened
 * (one line on stderr).
 */
public final class ConformanceMain {
    private ConformanceMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        String address = null;
        String provider = null;
        DeviceConfig config;
        Set<String> only = null;
        boolean bench = false;
        boolean cmPairs = false;
        boolean afIb = false;
        long timeoutMs = 10_000;
        Map<String, String> options = new HashMap<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--address" -> address = value(args, ++i, a);
                    case "--provider" -> provider = value(args, ++i, a);
                    case "--option" -> {
                        String kv = value(args, ++i, a);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--option wants key=value, got " + kv);
                        }
                        options.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    case "--only" -> only = Arrays.stream(value(args, ++i, a).split(",")).map(String::strip)
                            .collect(Collectors.toSet());
                    case "--bench" -> bench = true;
                    case "--cm-pairs" -> cmPairs = true;
                    case "--af-ib" -> afIb = true;
                    case "--timeout-ms" -> timeoutMs = Long.parseLong(value(args, ++i, a));
                    default -> throw new IllegalArgumentException("unknown argument " + a);
                }
            }
            if (address == null) {
                throw new IllegalArgumentException("--address is required");
            }
            config = new DeviceConfig(DeviceConfig.of(address).address(), DeviceConfig.ROCE_V2_PORT, provider, options);
        } catch (IllegalArgumentException e) {
            System.err.println("conformance: " + e.getMessage());
            return 2;
        }
        VerbsDevice device;
        try {
            device = Verbs.open(config);
        } catch (VerbsException | IllegalArgumentException | UnsupportedOperationException e) {
            System.err.println("conformance: " + e.getMessage());
            return 2;
        }
        Set<String> selected = only;
        Predicate<String> filter = selected == null ? n -> true : selected::contains;
        try (device) {
            System.out.println("device " + device.providerName() + " " + device.name() + " " + device.properties());
            if (afIb && "rdma-core".equals(device.providerName())) {
                System.out.println(AfIbProbe.run(device.gid()));
            }
            VerbsConformance c = new VerbsConformance(device, System.out, timeoutMs);
            VerbsConformance.Result r = (cmPairs ? c.withCmPairs() : c).run(filter, bench);
            return r.failed() == 0 ? 0 : 1;
        }
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }
}
