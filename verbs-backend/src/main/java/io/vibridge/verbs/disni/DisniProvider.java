package io.vibridge.verbs.disni;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsProvider;

/**
 * Hardware provider over DiSNI 2.1 (libdisni + libibverbs + librdmacm). Usable only when the native
 * library loads and an RDMA device is bound to the configured address; otherwise
 * {@link #availability} says why and selection falls back to the soft provider.
 */
public final class DisniProvider implements VerbsProvider {
    public static final String NAME = "disni";
    private static volatile String loadError;
    private static volatile boolean loaded;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return 100;
    }

    /** Loads libdisni once; null when loaded, else the reason. */
    @SuppressWarnings("restricted")
    static synchronized String loadNative() {
        if (loaded) {
            return null;
        }
        if (loadError != null) {
            return loadError;
        }
        String libName = System.mapLibraryName("disni");
        boolean found = false;
        for (String dir : System.getProperty("java.library.path", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && new java.io.File(dir, libName).isFile()) {
                found = true;
                break;
            }
        }
        if (!found) {   // do not even try: no restricted-method warning on machines without DiSNI
            loadError = "libdisni not present (" + libName + " not on java.library.path="
                    + System.getProperty("java.library.path") + ")";
            return loadError;
        }
        try {
            System.loadLibrary("disni");
            loaded = true;
            return null;
        } catch (UnsatisfiedLinkError | SecurityException e) {
            loadError = "libdisni not present (" + e.getMessage() + "; java.library.path="
                    + System.getProperty("java.library.path") + ")";
            return loadError;
        }
    }

    @Override
    public Availability availability(DeviceConfig config) {
        String err = loadNative();
        if (err != null) {
            return Availability.no(err);
        }
        String probe = DisniDevice.probe(config);
        return probe == null ? Availability.ok() : Availability.no(probe);
    }

    @Override
    public VerbsDevice open(DeviceConfig config) {
        String err = loadNative();
        if (err != null) {
            throw new io.vibridge.verbs.VerbsException("disni provider unusable: " + err);
        }
        return new DisniDevice(config);
    }
}
