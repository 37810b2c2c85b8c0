package io.vibridge.verbs;

/** Access rights of a memory region (ibv_access_flags). Local read is always granted. */
public enum Access {
    LOCAL_WRITE,
    REMOTE_WRITE,
    REMOTE_READ
}
