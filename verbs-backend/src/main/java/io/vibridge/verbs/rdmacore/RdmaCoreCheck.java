package io.vibridge.verbs.rdmacore;

import static io.vibridge.verbs.rdmacore.IbvLayouts.off;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Run-time checks of {@link IbvLayouts} against what the installed libibverbs returns: a C compiler cannot check
 * hand-written layouts, so every struct the provider reads is checked for values only the right layout gives
 * (the device name where ibv_get_device_name finds it, the context's command fd naming /dev/infiniband/uverbs*,
 * abi_compat marking an extended context and verbs_context.sz, the objects we create pointing back at their
 * context, PD, CQs and type). A mismatch refuses the device with one line, before any work request is posted.
 */
final class RdmaCoreCheck {
    /** verbs.h: __VERBS_ABI_IS_EXTENDED ((void *)UINTPTR_MAX). */
    static final long ABI_IS_EXTENDED = -1L;

    private RdmaCoreCheck() {
    }

    static VerbsException mismatch(String what) {
        return new VerbsException("rdma-core layout check failed: " + what + " (the installed " + Ibv.LIBRARY
                + " " + libraryVersion().orElse("?") + " does not match rdma-core v44's verbs.h layouts)");
    }

    /** struct ibv_device.name is where ibv_get_device_name() points. */
    static void device(MemorySegment dev, String name) {
        String inStruct = dev.asSlice(off(IbvLayouts.DEVICE, "name"), 64).getString(0);
        if (name.isEmpty() || !inStruct.equals(name)) {
            throw mismatch("ibv_device.name reads '" + inStruct + "', ibv_get_device_name() says '" + name + "'");
        }
        int transport = dev.get(JAVA_INT, off(IbvLayouts.DEVICE, "transport_type"));
        if (transport < 0 || transport > 4) {
            throw mismatch("ibv_device.transport_type of " + name + " reads " + transport);
        }
    }

    /** struct ibv_context: device pointer, fds, comp vectors, abi_compat, verbs_context.sz, the four ops. */
    static void context(MemorySegment ctx, MemorySegment dev, String name) {
        if (ctx.get(ADDRESS, IbvLayouts.CTX_DEVICE).address() != dev.address()) {
            throw mismatch("ibv_context.device of " + name + " is not the device opened");
        }
        int cmdFd = ctx.get(JAVA_INT, IbvLayouts.CTX_CMD_FD);
        String target = fdTarget(cmdFd);
        if (!target.startsWith("/dev/infiniband/uverbs")) {
            throw mismatch("ibv_context.cmd_fd of " + name + " reads " + cmdFd + " -> '" + target
                    + "', not /dev/infiniband/uverbs*");
        }
        int asyncFd = ctx.get(JAVA_INT, IbvLayouts.CTX_ASYNC_FD);
        if (asyncFd < 0 || fdTarget(asyncFd).isEmpty()) {
            throw mismatch("ibv_context.async_fd of " + name + " reads " + asyncFd);
        }
        int vectors = ctx.get(JAVA_INT, IbvLayouts.CTX_NUM_COMP_VECTORS);
        if (vectors < 1 || vectors > 65536) {
            throw mismatch("ibv_context.num_comp_vectors of " + name + " reads " + vectors);
        }
        if (ctx.get(JAVA_LONG, IbvLayouts.CTX_ABI_COMPAT) != ABI_IS_EXTENDED) {
            throw mismatch("ibv_context.abi_compat of " + name + " is not __VERBS_ABI_IS_EXTENDED");
        }
        long sz = verbsContextSize(ctx);
        if (sz < IbvLayouts.VERBS_CONTEXT_SIZE_V44 || sz > 65536) {
            throw mismatch("verbs_context.sz of " + name + " reads " + sz + ", expected >= "
                    + IbvLayouts.VERBS_CONTEXT_SIZE_V44);
        }
        for (long op : new long[] {IbvLayouts.CTX_POLL_CQ, IbvLayouts.CTX_REQ_NOTIFY_CQ, IbvLayouts.CTX_POST_SEND,
                IbvLayouts.CTX_POST_RECV}) {
            if (ctx.get(ADDRESS, op).equals(MemorySegment.NULL)) {
                throw mismatch("ibv_context.ops of " + name + " has a NULL data-path call at offset " + op);
            }
        }
    }

    /** verbs_context.sz, 8 bytes before the embedded ibv_context. */
    static long verbsContextSize(MemorySegment ctx) {
        return MemorySegment.ofAddress(ctx.address() + IbvLayouts.VCTX_SZ).reinterpret(8).get(JAVA_LONG, 0);
    }

    /**
     * verbs_context.modify_cq as verbs_get_ctx_op reads it: NULL when the provider has none (rxe, siw) or when
     * the context is too old to have the member.
     */
    static MemorySegment modifyCq(MemorySegment ctx) {
        if (verbsContextSize(ctx) < IbvLayouts.VCTX_MODIFY_CQ_MIN_SZ) {
            return MemorySegment.NULL;
        }
        return MemorySegment.ofAddress(ctx.address() + IbvLayouts.VCTX_MODIFY_CQ).reinterpret(8).get(ADDRESS, 0);
    }

    static void deviceAttr(MemorySegment attr, String name) {
        int ports = Byte.toUnsignedInt(attr.get(JAVA_BYTE, off(IbvLayouts.DEVICE_ATTR, "phys_port_cnt")));
        int maxQpWr = attr.get(JAVA_INT, off(IbvLayouts.DEVICE_ATTR, "max_qp_wr"));
        int maxCqe = attr.get(JAVA_INT, off(IbvLayouts.DEVICE_ATTR, "max_cqe"));
        if (ports < 1 || maxQpWr < 1 || maxCqe < 1) {
            throw mismatch("ibv_device_attr of " + name + " reads phys_port_cnt " + ports + ", max_qp_wr " + maxQpWr
                    + ", max_cqe " + maxCqe);
        }
    }

    static void portAttr(MemorySegment attr, String name, int port) {
        int state = attr.get(JAVA_INT, off(IbvLayouts.PORT_ATTR, "state"));
        int mtu = attr.get(JAVA_INT, off(IbvLayouts.PORT_ATTR, "active_mtu"));
        int tbl = attr.get(JAVA_INT, off(IbvLayouts.PORT_ATTR, "gid_tbl_len"));
        int link = Byte.toUnsignedInt(attr.get(JAVA_BYTE, off(IbvLayouts.PORT_ATTR, "link_layer")));
        if (state < 0 || state > 5 || mtu < 1 || mtu > 5 || tbl < 1 || tbl > 65536 || link > 2) {
            throw mismatch("ibv_port_attr of " + name + " port " + port + " reads state " + state + ", active_mtu "
                    + mtu + ", gid_tbl_len " + tbl + ", link_layer " + link);
        }
    }

    static void pointsTo(String what, MemorySegment struct, long offset, MemorySegment expected) {
        long got = struct.get(ADDRESS, offset).address();
        if (got != expected.address()) {
            throw mismatch(what + " reads 0x" + Long.toHexString(got) + ", expected 0x"
                    + Long.toHexString(expected.address()));
        }
    }

    static void equalsInt(String what, int got, int expected) {
        if (got != expected) {
            throw mismatch(what + " reads " + got + ", expected " + expected);
        }
    }

    /** What /proc/self/fd/N links to, or "" if nothing. */
    static String fdTarget(int fd) {
        if (fd < 0) {
            return "";
        }
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /**
     * The loaded libibverbs' file version, from /proc/self/maps: libibverbs.so.1.14.44.0 is rdma-core 44.0
     * (the last two numbers are rdma-core's release).
     */
    static Optional<String> libraryVersion() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.map(l -> l.substring(l.lastIndexOf(' ') + 1))
                    .filter(p -> p.contains("/libibverbs.so.1")).findFirst()
                    .map(p -> p.substring(p.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
