package io.vibridge.verbs;

/** A receive work request with one scatter element. Reusable like {@link SendWorkRequest}. */
public final class ReceiveWorkRequest {
    public long wrId;
    public MemoryRegion region;
    public int offset;
    public int length;

    public ReceiveWorkRequest set(long wrId, MemoryRegion region, int offset, int length) {
        this.wrId = wrId;
        this.region = region;
        this.offset = offset;
        this.length = length;
        return this;
    }
}
