package io.vibridge.verbs.soft;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;

/**
 * The server side of {@link ChaosWorkload} in its own JVM: args = seed count [faults]. Opens a device on a
 * free address and prints "READY &lt;ip&gt;".
 */
public final class ChaosPeerMain {
    private ChaosPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        String faults = args.length > 2 ? args[2] : null;
        String result;
        try (VerbsDevice dev = TestDevices.open(c -> {
            DeviceConfig s = c.withProvider("soft");
            return faults == null ? s : s.withOption("faults", faults);
        })) {
            result = ChaosWorkload.serve(dev, Long.parseLong(args[0]), Integer.parseInt(args[1]), () -> {
                System.out.println("READY " + dev.address().getHostAddress());
                System.out.flush();
            });
            System.out.println("COUNTERS " + dev.counters());
        }
        System.out.println(result == null ? "RESULT OK" : "RESULT FAIL " + result);
        System.out.flush();
        System.exit(result == null ? 0 : 1);
    }
}
