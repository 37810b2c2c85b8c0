package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * librdmacm.so.1 through {@link java.lang.foreign}, looked up on first use (a machine may have libibverbs without
 * librdmacm: the CM then says so). Offsets of rdma_cma.h (rdma-core v44, LP64), printed by gcc from the header:
 * rdma_cm_id.route.addr.dst_addr 160; rdma_cm_event {id 0, listen_id 8, event 16, status 20, param.conn 24};
 * rdma_conn_param {private_data 0, private_data_len 8, responder_resources 9, initiator_depth 10, flow_control 11,
 * retry_count 12, rnr_retry_count 13, srq 14, qp_num 16}, 24 bytes.
 */
final class Rdmacm {
    static final String LIBRARY = "librdmacm.so.1";
    static final long ID_DST_ADDR = 160;
    static final long EV_ID = 0;
    static final long EV_LISTEN_ID = 8;
    static final long EV_EVENT = 16;
    static final long EV_STATUS = 20;
    static final long EV_CONN = 24;
    static final long CP_PRIVATE_DATA = 0;
    static final long CP_PRIVATE_DATA_LEN = 8;
    static final long CP_RESPONDER_RESOURCES = 9;
    static final long CP_INITIATOR_DEPTH = 10;
    static final long CP_RETRY_COUNT = 12;
    static final long CP_RNR_RETRY_COUNT = 13;
    static final long CP_QP_NUM = 16;
    static final long CONN_PARAM_SIZE = 24;
    static final long EVENT_SIZE = 80;
    static final int RDMA_PS_TCP = 0x0106;
    static final int RDMA_PS_IB = 0x013F;

    static final String REASON;
    static final MethodHandle CREATE_EVENT_CHANNEL;  // rdma_event_channel *(void)
    static final MethodHandle DESTROY_EVENT_CHANNEL; // void (channel)
    static final MethodHandle CREATE_ID;             // int (channel, rdma_cm_id **, void *ctx, enum ps)
    static final MethodHandle DESTROY_ID;            // int (id)
    static final MethodHandle BIND_ADDR;             // int (id, sockaddr *)
    static final MethodHandle LISTEN;                // int (id, int backlog)
    static final MethodHandle RESOLVE_ADDR;          // int (id, src, dst, int timeout_ms)
    static final MethodHandle RESOLVE_ROUTE;         // int (id, int timeout_ms)
    static final MethodHandle CONNECT;               // int (id, rdma_conn_param *)
    static final MethodHandle ACCEPT;                // int (id, rdma_conn_param *)
    static final MethodHandle REJECT;                // int (id, const void *, uint8_t len)
    static final MethodHandle ESTABLISH;             // int (id)
    static final MethodHandle DISCONNECT;            // int (id)
    static final MethodHandle GET_CM_EVENT;          // int (channel, rdma_cm_event **)
    static final MethodHandle ACK_CM_EVENT;          // int (event)
    static final MethodHandle INIT_QP_ATTR;          // int (id, ibv_qp_attr *, int *mask)
    static final MethodHandle EVENT_STR;             // const char *(enum)
    static final MethodHandle GET_DEVICES;           // ibv_context **(int *num)
    static final MethodHandle FREE_DEVICES;          // void (ibv_context **)

    static {
        String reason = Ibv.unavailable();
        MethodHandle[] h = new MethodHandle[19];
        if (reason == null) {
            try {
                SymbolLookup cm = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
                Linker l = Linker.nativeLinker();
                int i = 0;
                h[i++] = fn(cm, l, "rdma_create_event_channel", FunctionDescriptor.of(ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS), false);
                h[i++] = fn(cm, l, "rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), true);
                h[i++] = fn(cm, l, "rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(cm, l, "rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), true);
                h[i++] = fn(cm, l, "rdma_resolve_addr",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT), true);
                h[i++] = fn(cm, l, "rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), true);
                h[i++] = fn(cm, l, "rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE), true);
                h[i++] = fn(cm, l, "rdma_establish", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(cm, l, "rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
                h[i++] = fn(cm, l, "rdma_event_str", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);
                h[i++] = fn(cm, l, "rdma_get_devices", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
                h[i++] = fn(cm, l, "rdma_free_devices", FunctionDescriptor.ofVoid(ADDRESS), false);
            } catch (IllegalArgumentException e) {
                reason = LIBRARY + " not found (" + Ibv.oneLine(e.getMessage()) + "): install rdma-core's librdmacm1";
            } catch (RuntimeException | LinkageError e) {
                reason = "cannot bind " + LIBRARY + ": " + Ibv.oneLine(String.valueOf(e));
            }
        }
        REASON = reason;
        int i = 0;
        CREATE_EVENT_CHANNEL = h[i++];
        DESTROY_EVENT_CHANNEL = h[i++];
        CREATE_ID = h[i++];
        DESTROY_ID = h[i++];
        BIND_ADDR = h[i++];
        LISTEN = h[i++];
        RESOLVE_ADDR = h[i++];
        RESOLVE_ROUTE = h[i++];
        CONNECT = h[i++];
        ACCEPT = h[i++];
        REJECT = h[i++];
        ESTABLISH = h[i++];
        DISCONNECT = h[i++];
        GET_CM_EVENT = h[i++];
        ACK_CM_EVENT = h[i++];
        INIT_QP_ATTR = h[i++];
        EVENT_STR = h[i++];
        GET_DEVICES = h[i++];
        FREE_DEVICES = h[i++];
    }

    private Rdmacm() {
    }

    private static MethodHandle fn(SymbolLookup lookup, Linker l, String name, FunctionDescriptor d, boolean errno) {
        MemorySegment a = lookup.find(name).orElseThrow(() -> new IllegalStateException(LIBRARY + " lacks " + name));
        return errno ? l.downcallHandle(a, d, Ibv.CAPTURE_ERRNO) : l.downcallHandle(a, d);
    }

    /**
     * Lets librdmacm close the verbs context it holds for a removed device: it opens one of its own per device and
     * closes it only when a device-list sync finds the device gone and no id holds it (rdma-core cma.c
     * sync_devices_list, remove_cma_dev), and rdma_get_devices runs that sync. Until then the process keeps the
     * device open and the kernel's removal waits for it (Linux uverbs_main.c ib_uverbs_remove_one).
     */
    static void releaseRemovedDevices() {
        try {
            MemorySegment list = (MemorySegment) GET_DEVICES.invokeExact(MemorySegment.NULL);
            if (!list.equals(MemorySegment.NULL)) {
                FREE_DEVICES.invokeExact(list);
            }
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    static String eventName(int e) {
        try {
            return Ibv.cString((MemorySegment) EVENT_STR.invokeExact(e), 64);
        } catch (Throwable t) {
            return "event " + e;
        }
    }
}
