package io.vibridge.verbs;

/** Queue pair states (IBA 10.3.1). The connection manager drives the transitions. */
public enum QpState {
    RESET, INIT, RTR, RTS, SQD, SQE, ERROR
}
