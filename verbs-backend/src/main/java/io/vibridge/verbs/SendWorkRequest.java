package io.vibridge.verbs;

/**
 * A send queue work request with one scatter/gather element. Reusable: the provider copies what it
 * needs during {@link QueuePair#postSend}, so the caller may change and repost the same instance.
 */
public final class SendWorkRequest {
    public long wrId;
    public WrOpcode opcode = WrOpcode.SEND;
    /** Local buffer: source of SEND/WRITE data, destination of READ data. May be null for length 0. */
    public MemoryRegion local;
    public int localOffset;
    public int length;
    /** RDMA WRITE/READ target: remote virtual address and rkey. */
    public long remoteAddress;
    public int rkey;
    public int immediate;
    public boolean signaled = true;
    public boolean solicited;

    public SendWorkRequest set(long wrId, WrOpcode opcode, MemoryRegion local, int localOffset, int length) {
        this.wrId = wrId;
        this.opcode = opcode;
        this.local = local;
        this.localOffset = localOffset;
        this.length = length;
        return this;
    }

    public SendWorkRequest remote(long remoteAddress, int rkey) {
        this.remoteAddress = remoteAddress;
        this.rkey = rkey;
        return this;
    }

    public SendWorkRequest immediate(int imm) {
        this.immediate = imm;
        return this;
    }

    public SendWorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }
}
