package io.vibridge.verbs;

/** Creation attributes of an RC queue pair. */
public record QpInitAttributes(CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr, int maxRecvWr) {
    public QpInitAttributes {
        if (sendCq == null || recvCq == null) {
            throw new IllegalArgumentException("send and receive CQ are required");
        }
        if (maxSendWr < 1 || maxRecvWr < 1) {
            throw new IllegalArgumentException("maxSendWr and maxRecvWr must be >= 1");
        }
    }

    public static QpInitAttributes of(CompletionQueue cq, int maxWr) {
        return new QpInitAttributes(cq, cq, maxWr, maxWr);
    }
}
