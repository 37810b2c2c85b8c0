package io.vibridge.vitcp.provider;

/** A failed provider call; {@link #code()} follows the VIP return codes (VIA 9.10.1). */
public final class ViException extends RuntimeException {

    /** VIP_* return codes. */
    public enum Code {
        ERROR_RESOURCE, INVALID_PARAMETER, TIMEOUT, REJECT, INVALID_RELIABILITY_LEVEL, INVALID_MTU,
        INVALID_QOS, INVALID_PTAG, INVALID_RDMAREAD, DESCRIPTOR_ERROR, INVALID_STATE, ERROR_NAMESERVICE,
        NO_MATCH, NOT_REACHABLE, SECURITY, ERROR
    }

    private final Code code;
    private final int isCode;

    public ViException(Code code, String message) {
        this(code, 0, message, null);
    }

    public ViException(Code code, int isCode, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.isCode = isCode;
    }

    public Code code() {
        return code;
    }

    /** The IS code of a Connect Reject (VITCP-PROFILE §2), else 0. */
    public int isCode() {
        return isCode;
    }
}
