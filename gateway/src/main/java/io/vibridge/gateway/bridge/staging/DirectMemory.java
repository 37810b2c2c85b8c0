package io.vibridge.gateway.bridge.staging;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;

/**
 * The JVM's direct memory as the staging pool takes it: a chunk that would pass the limit is refused (null), not
 * thrown. The JDK itself throws {@code OutOfMemoryError: Cannot reserve ... direct buffer memory}, but only
 * after a {@code System.gc()} and about half a second of retries, on the event loop of the connection asking;
 * so the use of the direct buffer pool is checked first and the error caught only as the last resort (Netty's
 * buffers share the limit and may take the room between the check and the allocation).
 */
public final class DirectMemory {
    private final long limit;
    private final BufferPoolMXBean direct;

    /** @param limit bytes of direct buffers the JVM allows ({@code MemoryLimits.maxDirect}) */
    public DirectMemory(long limit) {
        this.limit = limit;
        this.direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElse(null);
    }

    public long limit() {
        return limit;
    }

    /** Bytes of direct buffers in use now (every direct buffer of the JVM, Netty's included). */
    public long used() {
        return direct == null ? 0 : direct.getMemoryUsed();
    }

    /** A direct buffer of {@code bytes}, or null when the JVM's limit would be passed. */
    public ByteBuffer allocate(int bytes) {
        if (used() + bytes > limit) {
            return null;
        }
        try {
            return ByteBuffer.allocateDirect(bytes);
        } catch (OutOfMemoryError e) {
            return null;
        }
    }
}
