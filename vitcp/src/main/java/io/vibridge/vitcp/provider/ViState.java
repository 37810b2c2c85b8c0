package io.vibridge.vitcp.provider;

/** VIP_VI_STATE (VIA 5, 9.10.7). */
public enum ViState {
    IDLE, PENDING_CONNECT, CONNECTED, ERROR
}
