package io.vibridge.gateway.bridge;

import io.vibridge.gateway.ib.WrId;

/** What a work request on a {@link TargetSide}'s queue pair was posted for (its {@link WrId} kind). */
enum TargetWork {
    RECV("receive"),
    SEND("SEND"),
    WRITE("RDMA WRITE"),
    READ("RDMA READ"),
    CREDIT("credit update SEND"),
    /** A zero-length RDMA WRITE that checks an idle target is still there ({@link TargetSide#keepaliveTick}). */
    PROBE("keepalive probe (zero-length RDMA WRITE)");

    static final TargetWork[] ALL = values();
    final String description;

    TargetWork(String description) {
        this.description = description;
    }
}
