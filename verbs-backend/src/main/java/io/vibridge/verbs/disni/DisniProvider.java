package io.vibridge.verbs.disni;

import io.vibridge.verbs.Capability;
import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsDevice;
import io.vibridge.verbs.VerbsException;
import io.vibridge.verbs.VerbsProvider;
import java.io.File;
import java.util.Set;

/**
 * Hardware provider over DiSNI 2.1 (libdisni + libibverbs + librdmacm). Usable only when the native
 * library loads and an RDMA device is bound to the configured address; otherwise
 * {@link #availability} says why and selection falls back to the soft provider.
 */
public final class DisniProvider implements VerbsProvider {
    public static final String NAME = "disni";
    /**
     * None. The hardware answers remote access itself (no REMOTE_ACCESS_HANDLER) and QPs connect through
     * rdma_cm only (no OUT_OF_BAND_CONNECT). DiSNI 2.1's rdma_cm binding (DisniConnectionManager) emits
     * empty private data in ConnectRequest and Established (no CM_PRIVATE_DATA), accepts only TCP
     * port-space Service IDs 0x106xxxx (no ANY_SERVICE_ID), and uses only the CM response timeout,
     * private data, read depths and retry counts of ConnectParams (no CM_RETRY_CONTROL). It binds no
     * ibv_modify_cq (no CQ_MODERATION).
     */
    static final Set<Capability> CAPABILITIES = Set.of();
    /** The JVM option DiSNI 2.1 needs on JDK 16 and later ({@link #checkJdkAccess}). */
    public static final String ADD_EXPORTS = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";
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

    /**
     * Only when named: DiSNI 2.1 carries no CM private data and no read depths (see {@link #CAPABILITIES}), so a
     * gateway that silently chose it on a machine with libdisni would lose its Hello routes.
     */
    @Override
    public boolean selectedAutomatically() {
        return false;
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
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && new File(dir, libName).isFile()) {
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

    /**
     * Null when DiSNI's Java side can run here, else why not. DiSNI 2.1's {@code MemoryUtils} reads a direct
     * buffer's address by casting it to {@code sun.nio.ch.DirectBuffer}, which JDK 16 and later keep closed
     * unless the JVM exports the package to us: without that every DiSNI call that touches a buffer (the
     * rdma_cm event channel already does) fails with an {@link IllegalAccessError} that names nothing useful.
     */
    static String checkJdkAccess() {
        Module ours = DisniProvider.class.getModule();
        return Object.class.getModule().isExported("sun.nio.ch", ours) ? null
                : "DiSNI 2.1 needs the JVM option " + ADD_EXPORTS + " (its MemoryUtils casts to sun.nio.ch.DirectBuffer;"
                        + " the vibridge launcher passes it)";
    }

    /** Null when libdisni loads and DiSNI's Java side may run, else why not. */
    private static String unusableReason() {
        String err = loadNative();
        return err != null ? err : checkJdkAccess();
    }

    @Override
    public Availability availability(DeviceConfig config) {
        String err = unusableReason();
        if (err != null) {
            return Availability.no(err);
        }
        String probe = DisniDevice.probe(config);
        return probe == null ? Availability.ok() : Availability.no(probe);
    }

    @Override
    public VerbsDevice open(DeviceConfig config) {
        String err = unusableReason();
        if (err != null) {
            throw new VerbsException("disni provider unusable: " + err);
        }
        return new DisniDevice(config);
    }
}
