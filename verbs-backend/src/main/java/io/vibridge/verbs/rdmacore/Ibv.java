package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * libibverbs.so.1 (and the few libc calls the provider needs) through {@link java.lang.foreign}: one
 * downcall handle per exported function, looked up once. {@link #unavailable()} says why the library cannot
 * be used (absent, foreign access not enabled, wrong platform); the handles are null then. The four
 * data-path verbs are static inline in verbs.h and call through {@code ibv_context.ops}: the
 * {@code FP_*} handles take the function pointer read from the context as their first argument.
 */
final class Ibv {
    static final String LIBRARY = "libibverbs.so.1";
    private static final Linker LINKER = Linker.nativeLinker();
    private static final String REASON;

    static final MethodHandle GET_DEVICE_LIST;     // ibv_device **(int *num)
    static final MethodHandle FREE_DEVICE_LIST;    // void (ibv_device **)
    static final MethodHandle GET_DEVICE_NAME;     // const char *(ibv_device *)
    static final MethodHandle OPEN_DEVICE;         // ibv_context *(ibv_device *)
    static final MethodHandle CLOSE_DEVICE;        // int (ibv_context *)
    static final MethodHandle QUERY_DEVICE;        // int (ctx, ibv_device_attr *)
    static final MethodHandle QUERY_PORT;          // int (ctx, uint8_t port, _compat_ibv_port_attr *)
    static final MethodHandle QUERY_GID;           // int (ctx, uint8_t port, int index, ibv_gid *)
    static final MethodHandle ALLOC_PD;            // ibv_pd *(ctx)
    static final MethodHandle DEALLOC_PD;          // int (pd)
    static final MethodHandle REG_MR;              // ibv_mr *(pd, void *, size_t, int access)
    static final MethodHandle DEREG_MR;            // int (mr)
    static final MethodHandle CREATE_COMP_CHANNEL; // ibv_comp_channel *(ctx)
    static final MethodHandle DESTROY_COMP_CHANNEL;
    static final MethodHandle CREATE_CQ;           // ibv_cq *(ctx, int cqe, void *cq_context, channel, int vector)
    static final MethodHandle DESTROY_CQ;          // int (cq)
    static final MethodHandle GET_CQ_EVENT;        // int (channel, ibv_cq **, void **cq_context)
    static final MethodHandle ACK_CQ_EVENTS;       // void (cq, unsigned n)
    static final MethodHandle CREATE_QP;           // ibv_qp *(pd, ibv_qp_init_attr *)
    static final MethodHandle DESTROY_QP;          // int (qp)
    static final MethodHandle MODIFY_QP;           // int (qp, ibv_qp_attr *, int mask)
    static final MethodHandle QUERY_QP;            // int (qp, ibv_qp_attr *, int mask, ibv_qp_init_attr *)
    static final MethodHandle GET_ASYNC_EVENT;     // int (ctx, ibv_async_event *)
    static final MethodHandle ACK_ASYNC_EVENT;     // void (ibv_async_event *)
    static final MethodHandle IS_FORK_INITIALIZED; // enum ibv_fork_status (void), IBVERBS_1.13 (rdma-core 35)
    static final MethodHandle WC_STATUS_STR;       // const char *(enum ibv_wc_status)
    // through ibv_context.ops / verbs_context (verbs.h static inline)
    static final MethodHandle FP_POLL_CQ;          // int (cq, int n, ibv_wc *)
    static final MethodHandle FP_REQ_NOTIFY_CQ;    // int (cq, int solicited_only)
    static final MethodHandle FP_POST;             // int (qp, wr, bad_wr **): post_send and post_recv
    static final MethodHandle FP_MODIFY_CQ;        // int (cq, ibv_modify_cq_attr *)
    // libc
    static final MethodHandle GETRLIMIT;           // int (int resource, struct rlimit *)
    static final MethodHandle POLL;                // int (struct pollfd *, nfds_t, int timeout)
    static final MethodHandle STRERROR;            // char *(int)
    /** Where errno of an ibv_* call is captured (the create calls return NULL and set errno). */
    static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    static final long ERRNO_OFFSET = Linker.Option.captureStateLayout()
            .byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    static final long ERRNO_SIZE = Linker.Option.captureStateLayout().byteSize();

    static {
        String reason = platformReason();
        MethodHandle[] h = new MethodHandle[33];
        if (reason == null) {
            try {
                SymbolLookup ibv = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
                SymbolLookup libc = LINKER.defaultLookup();
                int i = 0;
                h[i++] = fn(ibv, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS), false);
                h[i++] = fn(ibv, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
                h[i++] = fn(ibv, "ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_query_port",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_query_gid",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
                h[i++] = fn(ibv, "ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_reg_mr",
                        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), true);
                h[i++] = fn(ibv, "ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
                h[i++] = fn(ibv, "ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_create_cq",
                        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), true);
                h[i++] = fn(ibv, "ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_get_cq_event",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
                h[i++] = fn(ibv, "ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
                h[i++] = fn(ibv, "ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_modify_qp",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
                h[i++] = fn(ibv, "ibv_query_qp",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
                h[i++] = fn(ibv, "ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS), false);
                h[i++] = ibv.find("ibv_is_fork_initialized")
                        .map(a -> LINKER.downcallHandle(a, FunctionDescriptor.of(JAVA_INT))).orElse(null);
                h[i++] = fn(ibv, "ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);
                h[i++] = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
                h[i++] = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
                h[i++] = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
                h[i++] = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
                h[i++] = fn(libc, "getrlimit", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), false);
                h[i++] = fn(libc, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), true);
                h[i++] = fn(libc, "strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT), false);
            } catch (IllegalArgumentException e) {   // libraryLookup: dlopen failed
                reason = LIBRARY + " not found (" + oneLine(e.getMessage())
                        + "): install rdma-core's libibverbs1 and the device's provider (ibverbs-providers)";
            } catch (MissingSymbol e) {
                reason = LIBRARY + " lacks " + e.getMessage() + ": not an rdma-core libibverbs";
            } catch (RuntimeException | LinkageError e) {
                reason = "cannot bind " + LIBRARY + ": " + oneLine(String.valueOf(e));
            }
        }
        REASON = reason;
        int i = 0;
        GET_DEVICE_LIST = h[i++];
        FREE_DEVICE_LIST = h[i++];
        GET_DEVICE_NAME = h[i++];
        OPEN_DEVICE = h[i++];
        CLOSE_DEVICE = h[i++];
        QUERY_DEVICE = h[i++];
        QUERY_PORT = h[i++];
        QUERY_GID = h[i++];
        ALLOC_PD = h[i++];
        DEALLOC_PD = h[i++];
        REG_MR = h[i++];
        DEREG_MR = h[i++];
        CREATE_COMP_CHANNEL = h[i++];
        DESTROY_COMP_CHANNEL = h[i++];
        CREATE_CQ = h[i++];
        DESTROY_CQ = h[i++];
        GET_CQ_EVENT = h[i++];
        ACK_CQ_EVENTS = h[i++];
        CREATE_QP = h[i++];
        DESTROY_QP = h[i++];
        MODIFY_QP = h[i++];
        QUERY_QP = h[i++];
        GET_ASYNC_EVENT = h[i++];
        ACK_ASYNC_EVENT = h[i++];
        IS_FORK_INITIALIZED = h[i++];
        WC_STATUS_STR = h[i++];
        FP_POLL_CQ = h[i++];
        FP_REQ_NOTIFY_CQ = h[i++];
        FP_POST = h[i++];
        FP_MODIFY_CQ = h[i++];
        GETRLIMIT = h[i++];
        POLL = h[i++];
        STRERROR = h[i++];
    }

    private Ibv() {
    }

    /** Null when libibverbs is bound, else one line saying why not. */
    static String unavailable() {
        return REASON;
    }

    private static String platformReason() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.equals("linux")) {
            return "rdma-core needs Linux (this is " + os + ")";
        }
        if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            return "the rdma-core layouts are written for LP64 x86_64/aarch64, not " + arch;
        }
        if (!Ibv.class.getModule().isNativeAccessEnabled()) {
            return "native access not enabled: start java with --enable-native-access=ALL-UNNAMED";
        }
        return null;
    }

    private static final class MissingSymbol extends RuntimeException {
        MissingSymbol(String name) {
            super(name, null, false, false);
        }
    }

    private static MethodHandle fn(SymbolLookup lookup, String name, FunctionDescriptor d, boolean errno) {
        Optional<MemorySegment> a = lookup.find(name);
        if (a.isEmpty()) {
            throw new MissingSymbol(name);
        }
        return errno ? LINKER.downcallHandle(a.get(), d, CAPTURE_ERRNO) : LINKER.downcallHandle(a.get(), d);
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replace('\n', ' ').strip();
    }

    /** strerror(err), for messages (not on the data path). */
    static String strerror(int err) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(err);
            return s.reinterpret(256).getString(0) + " (errno " + err + ")";
        } catch (Throwable e) {
            return "errno " + err;
        }
    }

    static String wcStatus(int status) {
        try {
            MemorySegment s = (MemorySegment) WC_STATUS_STR.invokeExact(status);
            return s.reinterpret(128).getString(0);
        } catch (Throwable e) {
            return "status " + status;
        }
    }

    static int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO_OFFSET);
    }

    /** A C string (up to {@code max} bytes) at {@code p}, or "" for NULL. */
    static String cString(MemorySegment p, int max) {
        return p.equals(MemorySegment.NULL) ? "" : p.reinterpret(max).getString(0);
    }

    /** Reads a pointer at {@code base + offset} as a segment of {@code size} bytes. */
    static MemorySegment pointer(MemorySegment base, long offset, long size) {
        return base.get(ADDRESS, offset).reinterpret(size);
    }

    static short pollIn() {
        return (short) 1;
    }

    static final ValueLayout.OfShort SHORT = JAVA_SHORT;

    /** A failure of a native call that Java cannot recover from (bad handle type): never expected. */
    static IllegalStateException bug(Throwable t) {
        return new IllegalStateException("rdma-core downcall failed: " + t, t);
    }
}
