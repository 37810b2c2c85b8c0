package io.vibridge.vitcp.engine;

/** Descriptor status bits and completed-operation codes of VIA 10.2 / 9.10.2. */
public final class Status {
    public static final int DONE = 0x00000001;
    public static final int FORMAT_ERROR = 0x00000002;
    public static final int PROTECTION_ERROR = 0x00000004;
    public static final int LENGTH_ERROR = 0x00000008;
    public static final int PARTIAL_ERROR = 0x00000010;
    public static final int DESC_FLUSHED_ERROR = 0x00000020;
    public static final int TRANSPORT_ERROR = 0x00000040;
    public static final int RDMA_PROT_ERROR = 0x00000080;
    public static final int REMOTE_DESC_ERROR = 0x00000100;
    public static final int ERROR_MASK = 0x000001FE;
    public static final int OP_SEND = 0x00000000;
    public static final int OP_RECEIVE = 0x00010000;
    public static final int OP_RDMA_WRITE = 0x00020000;
    public static final int OP_REMOTE_RDMA_WRITE = 0x00030000;
    public static final int OP_RDMA_READ = 0x00040000;
    public static final int OP_MASK = 0x00070000;
    public static final int IMMEDIATE = 0x00080000;

    private Status() {
    }

    /** Completed-operation code for an outbound work operation. */
    public static int opFor(int operation) {
        return switch (operation) {
            case OutboundWork.OP_SEND -> OP_SEND;
            case OutboundWork.OP_RDMA_WRITE -> OP_RDMA_WRITE;
            default -> OP_RDMA_READ;
        };
    }

    public static boolean isError(int status) {
        return (status & ERROR_MASK) != 0;
    }

    public static String describe(int status) {
        StringBuilder b = new StringBuilder();
        b.append((status & DONE) != 0 ? "DONE" : "PENDING");
        String[] names = {"", "FORMAT", "PROTECTION", "LENGTH", "PARTIAL", "FLUSHED", "TRANSPORT", "RDMA_PROT",
            "REMOTE_DESC"};
        for (int i = 1; i <= 8; i++) {
            if ((status & (1 << i)) != 0) {
                b.append('|').append(names[i]);
            }
        }
        b.append(switch (status & OP_MASK) {
            case OP_SEND -> "|OP_SEND";
            case OP_RECEIVE -> "|OP_RECEIVE";
            case OP_RDMA_WRITE -> "|OP_RDMA_WRITE";
            case OP_REMOTE_RDMA_WRITE -> "|OP_REMOTE_RDMA_WRITE";
            case OP_RDMA_READ -> "|OP_RDMA_READ";
            default -> "|OP_?";
        });
        if ((status & IMMEDIATE) != 0) {
            b.append("|IMMEDIATE");
        }
        return b.toString();
    }
}
