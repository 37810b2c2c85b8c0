package io.vibridge.verbs;

import java.nio.ByteBuffer;
import java.util.Set;

/** Registered memory: a direct buffer with keys. Remote peers address it by {@link #address()} + {@link #rkey()}. */
public interface MemoryRegion extends AutoCloseable {
    /** The registered buffer (position 0 .. capacity is the region). */
    ByteBuffer buffer();

    /** Virtual address of byte 0, the value a peer puts into RETH VA. */
    long address();

    int length();

    int lkey();

    int rkey();

    Set<Access> access();

    /** Deregisters; later inbound accesses with this rkey get a remote access error. */
    @Override
    void close();
}
