package io.vibridge.verbs;

import java.util.concurrent.Executor;

/**
 * InfiniBand CM (REQ/REP/RTU/REJ/DREQ/DREP over QP1). Events reach the handler on {@code executor},
 * or when that is null on the provider's event thread; events of one id arrive in order if the executor
 * runs tasks in submission order (an event loop, a single thread). The executor must not run tasks
 * inline: the provider may hold internal locks while it submits.
 */
public interface ConnectionManager {
    /** Private data limits of the CM messages (IBA 12.6). */
    int REQ_PRIVATE_DATA = 92;
    int REP_PRIVATE_DATA = 196;
    int REJ_PRIVATE_DATA = 148;
    /** REQ private data left to the application behind librdmacm's 36-byte CMA header (IB-WIRE-REFERENCE §6.2). */
    int REQ_PRIVATE_DATA_AFTER_CMA_HEADER = REQ_PRIVATE_DATA - 36;

    /**
     * Whether this CM is rdma_cm with IP addressing (AF_INET/AF_INET6 over InfiniBand or RoCE): it writes librdmacm's
     * CMA header in front of the REQ private data given to {@link #connect} (so at most
     * {@link #REQ_PRIVATE_DATA_AFTER_CMA_HEADER} bytes), takes it off the REQs it delivers, and uses Service IDs of
     * its port spaces only. False (the raw IB CM): the given bytes are the whole REQ private data, up to
     * {@link #REQ_PRIVATE_DATA}.
     */
    default boolean writesCmaHeader() {
        return false;
    }

    /**
     * Whether {@link #listen} and {@link #connect} take {@code serviceId}. True for any 64-bit ID on the raw IB CM;
     * rdma_cm takes only its port spaces' IDs, {@code (ps << 16) | port} (Linux cma.c cma_get_service_id).
     */
    default boolean takesServiceId(long serviceId) {
        return true;
    }

    /** Listens on a Service ID; each REQ for it produces a {@link CmEvent.ConnectRequest}. */
    CmListener listen(long serviceId, CmEventHandler handler, Executor executor);

    /**
     * Sends a REQ. The outcome arrives as {@link CmEvent.Established}, {@link CmEvent.Rejected} or
     * {@link CmEvent.ConnectTimeout}. The QP must be in INIT.
     */
    CmId connect(ConnectParams params, QueuePair qp, CmEventHandler handler, Executor executor);

    /** A listening Service ID. */
    interface CmListener extends AutoCloseable {
        long serviceId();

        @Override
        void close();
    }
}
