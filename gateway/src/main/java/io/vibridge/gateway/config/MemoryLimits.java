package io.vibridge.gateway.config;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The memory this JVM may use, as it sees it: its direct memory limit ({@code -XX:MaxDirectMemorySize}; unset,
 * the JDK takes the heap limit), its heap limit ({@code -Xmx}, {@code -XX:MaxRAMPercentage}) and the memory of
 * the machine or, in a container, the container's limit (the JVM reads the cgroup). {@code staging.max-slots}
 * is checked against them, and sized from them when it is {@code auto}.
 *
 * @param maxDirect bytes of direct buffers the JVM allows
 * @param maxHeap the heap limit in bytes
 * @param total the machine's or container's memory in bytes
 */
public record MemoryLimits(long maxDirect, long maxHeap, long total) {

    /** This JVM's limits. */
    public static MemoryLimits ofThisJvm() {
        long heap = Runtime.getRuntime().maxMemory();
        long direct = heap; // what the JDK takes when -XX:MaxDirectMemorySize is unset (0)
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (hotspot != null) {
            long set = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            if (set > 0) {
                direct = set;
            }
        }
        long total = ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getTotalMemorySize() : Long.MAX_VALUE;
        return new MemoryLimits(direct, heap, total);
    }

    /**
     * Direct memory the JVM can really have: its limit, or, when that is more, what a full heap leaves of the
     * machine's or container's memory (beyond it the kernel kills the process instead of the JVM refusing).
     */
    public long directRoom() {
        return Math.max(0, Math.min(maxDirect, total - maxHeap));
    }

    /** One line for messages: the three limits in MiB. */
    String describe() {
        return "JVM direct memory limit " + mib(maxDirect) + " from -XX:MaxDirectMemorySize or else the heap limit, "
                + "heap limit " + mib(maxHeap) + ", memory of the machine or container " + mib(total);
    }

    /** Whole MiB, or KiB below one MiB. */
    static String mib(long bytes) {
        return bytes < 1 << 20 ? (bytes >> 10) + " KiB" : (bytes >> 20) + " MiB";
    }
}
