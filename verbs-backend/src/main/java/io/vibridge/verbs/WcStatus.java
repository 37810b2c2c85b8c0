package io.vibridge.verbs;

/** Work completion status (the ibv_wc_status values this project needs). */
public enum WcStatus {
    SUCCESS,
    /** Receive buffer too small for the inbound SEND, or a local buffer too small. */
    LOCAL_LENGTH_ERROR,
    LOCAL_PROTECTION_ERROR,
    /** The QP went to the error state before this work request was executed. */
    WR_FLUSH_ERROR,
    /** NAK Invalid Request (syndrome 0x61). */
    REMOTE_INVALID_REQUEST,
    /** NAK Remote Access Error (syndrome 0x62): bad rkey, bounds or access rights. */
    REMOTE_ACCESS_ERROR,
    /** NAK Remote Operational Error (syndrome 0x63). */
    REMOTE_OPERATIONAL_ERROR,
    /** Transport retry counter exceeded (no ACK within retry_cnt local ACK timeouts). */
    RETRY_EXCEEDED,
    /** RNR retry counter exceeded. */
    RNR_RETRY_EXCEEDED,
    GENERAL_ERROR
}
