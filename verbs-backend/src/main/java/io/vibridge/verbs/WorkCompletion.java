package io.vibridge.verbs;

/**
 * A work completion. Mutable on purpose: {@link CompletionQueue#poll} fills caller-owned instances so
 * polling allocates nothing. Copy what you need before the next poll into the same array.
 */
public final class WorkCompletion {
    public long wrId;
    public WcStatus status = WcStatus.SUCCESS;
    public WcOpcode opcode = WcOpcode.SEND;
    /** Bytes transferred: received bytes for RECV/RECV_RDMA_WITH_IMM (the WRITE's length), the WR length otherwise. */
    public int byteLength;
    public boolean hasImmediate;
    /** Immediate data as sent on the wire (big-endian 32 bits). */
    public int immediate;
    /**
     * An inbound SEND with Invalidate completed this receive (opcode {@link WcOpcode#RECV}), as
     * {@code IBV_WC_WITH_INV} in {@code wc_flags}; never together with {@link #hasImmediate}.
     */
    public boolean hasInvalidate;
    /**
     * The R_Key the sender named in the IETH ({@code ibv_wc.invalidated_rkey}). Whether the provider invalidated a
     * registration of its own under that key is the provider's to say (the soft provider invalidates nothing).
     */
    public int invalidatedRkey;
    public int qpNum;
    /** True if the inbound message had the solicited event bit. */
    public boolean solicited;

    public void copyFrom(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        byteLength = o.byteLength;
        hasImmediate = o.hasImmediate;
        immediate = o.immediate;
        hasInvalidate = o.hasInvalidate;
        invalidatedRkey = o.invalidatedRkey;
        qpNum = o.qpNum;
        solicited = o.solicited;
    }

    @Override
    public String toString() {
        return "WC[wrId=" + wrId + " " + status + " " + opcode + " len=" + byteLength
                + (hasImmediate ? " imm=0x" + Integer.toHexString(immediate) : "")
                + (hasInvalidate ? " inv=0x" + Integer.toHexString(invalidatedRkey) : "") + " qp=" + qpNum + "]";
    }
}
