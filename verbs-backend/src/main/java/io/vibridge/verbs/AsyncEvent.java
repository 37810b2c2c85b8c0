package io.vibridge.verbs;

/**
 * An asynchronous event of an opened device, as {@code ibv_get_async_event} reports them: trouble that no work
 * request's completion carries ({@link VerbsDevice#onAsyncEvent}).
 */
public sealed interface AsyncEvent {

    /** Why a queue pair went to ERROR by itself. */
    enum QpErrorCause {
        /**
         * As responder it refused an inbound RDMA operation for its R_Key, bounds or access rights and sent a Remote
         * Access Error NAK ({@code IBV_EVENT_QP_ACCESS_ERR}; IBA 9.7.5.2.4 class C).
         */
        ACCESS_VIOLATION,
        /** As responder it refused an invalid request and sent an Invalid Request NAK ({@code IBV_EVENT_QP_REQ_ERR}). */
        INVALID_REQUEST,
        /** A transport error outside any work request ({@code IBV_EVENT_QP_FATAL}). */
        FATAL
    }

    /** Queue pair {@code qpNum} is in ERROR; its outstanding work requests complete flushed. */
    record QueuePairError(int qpNum, QpErrorCause cause) implements AsyncEvent {
    }

    /** The port left ACTIVE ({@code IBV_EVENT_PORT_ERR}) or came back ({@code IBV_EVENT_PORT_ACTIVE}). */
    record PortStateChange(int port, boolean active) implements AsyncEvent {
    }

    /** The port's addresses (GID table) changed ({@code IBV_EVENT_GID_CHANGE}): connections may need a new path. */
    record AddressChange(int port) implements AsyncEvent {
    }

    /**
     * The device is unusable ({@code IBV_EVENT_DEVICE_FATAL}) or was removed: every queue pair on it is dead and the
     * device must be closed.
     */
    record DeviceFatal(String reason) implements AsyncEvent {
    }
}
