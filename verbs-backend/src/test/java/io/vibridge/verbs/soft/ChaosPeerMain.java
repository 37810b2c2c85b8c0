package io.vibridge.verbs.soft;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.Verbs;
import io.vibridge.verbs.VerbsDevice;

/** The server side of {@link ChaosWorkload} in its own JVM: args = ip seed count [faults]. */
public final class ChaosPeerMain {
    private ChaosPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        DeviceConfig cfg = DeviceConfig.of(args[0]).withProvider("soft");
        if (args.length > 3) {
            cfg = cfg.withOption("faults", args[3]);
        }
        String result;
        try (VerbsDevice dev = Verbs.open(cfg)) {
            result = ChaosWorkload.serve(dev, Long.parseLong(args[1]), Integer.parseInt(args[2]), () -> {
                System.out.println("READY");
                System.out.flush();
            });
            System.out.println("COUNTERS " + dev.counters());
        }
        System.out.println(result == null ? "RESULT OK" : "RESULT FAIL " + result);
        System.out.flush();
        System.exit(result == null ? 0 : 1);
    }
}
