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
    /**
     * {@link WrOpcode#SEND_WITH_INV}: the R_Key the responder is to invalidate, carried in the last packet's IETH
     * ({@code ibv_send_wr.invalidate_rkey}, which shares its union with {@code imm_data}).
     */
    public int invalidateRkey;
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

    /** Sets {@link #invalidateRkey}; the opcode stays as set ({@link WrOpcode#SEND_WITH_INV} uses it). */
    public SendWorkRequest invalidate(int rkey) {
        this.invalidateRkey = rkey;
        return this;
    }

    public SendWorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }
}
