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
        qpNum = o.qpNum;
        solicited = o.solicited;
    }

    @Override
    public String toString() {
        return "WC[wrId=" + wrId + " " + status + " " + opcode + " len=" + byteLength
                + (hasImmediate ? " imm=0x" + Integer.toHexString(immediate) : "") + " qp=" + qpNum + "]";
    }
}
