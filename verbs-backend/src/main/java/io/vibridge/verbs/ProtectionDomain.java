package io.vibridge.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

/** A protection domain: memory regions and QPs of one PD may be used together. */
public interface ProtectionDomain extends AutoCloseable {
    /** Registers a direct buffer (its whole capacity). */
    MemoryRegion registerMemory(ByteBuffer directBuffer, Set<Access> access);

    QueuePair createQueuePair(QpInitAttributes attributes);

    @Override
    void close();
}
