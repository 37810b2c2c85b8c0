package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * What rdma_cm does with native IB addressing (AF_IB, {@code struct sockaddr_ib} with a Service ID of our own, no
 * CMA header in the REQ) on a device, to answer whether the 92-byte Hello could travel whole through
 * rdma_cm: binds and resolves an RDMA_PS_IB id to the device's own GID with Service ID {@link #SERVICE_ID} and
 * reports each call's answer. Linux cma.c takes AF_IB only on ports with RDMA_CORE_CAP_AF_IB, which IB ports have
 * and RoCE and iWARP ports do not (cma_resolve_ib_dev, rdma_cap_af_ib); this reports what a given kernel says.
 */
public final class AfIbProbe {
    /** AF_IB in Linux's socket.h. */
    static final short AF_IB = 27;
    /** sizeof(struct sockaddr_ib) (rdma/ib.h): family, pkey, flowinfo, 16-byte GID, sid, sid_mask, scope_id. */
    static final int SOCKADDR_IB = 48;
    /** A Service ID outside rdma_cm's port spaces: the seed-001 SDP-style form for port 5001. */
    static final long SERVICE_ID = 0x0000_0000_0001_1389L;
    private static final int POLLIN = 1;

    private AfIbProbe() {
    }

    /** One line per step: rdma_bind_addr, then rdma_resolve_addr and its event, with the GID {@code gid}. */
    public static String run(byte[] gid) {
        if (Rdmacm.REASON != null) {
            return "AF_IB: librdmacm unusable: " + Rdmacm.REASON;
        }
        StringBuilder out = new StringBuilder();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
            MemorySegment channel = (MemorySegment) Rdmacm.CREATE_EVENT_CHANNEL.invokeExact(errno);
            if (channel.equals(MemorySegment.NULL)) {
                return "AF_IB: rdma_create_event_channel: " + Ibv.strerror(Ibv.errno(errno));
            }
            channel = channel.reinterpret(4);
            MemorySegment idOut = a.allocate(ADDRESS);
            int rc = (int) Rdmacm.CREATE_ID.invokeExact(errno, channel, idOut, MemorySegment.NULL, Rdmacm.RDMA_PS_IB);
            if (rc != 0) {
                Rdmacm.DESTROY_EVENT_CHANNEL.invokeExact(channel);
                return "AF_IB: rdma_create_id(RDMA_PS_IB): " + Ibv.strerror(Ibv.errno(errno));
            }
            MemorySegment id = idOut.get(ADDRESS, 0);
            rc = (int) Rdmacm.BIND_ADDR.invokeExact(errno, id, sockaddrIb(a, gid, 0));
            out.append("AF_IB: rdma_bind_addr(sockaddr_ib, own GID) -> ")
                    .append(rc == 0 ? "0" : "-1 " + Ibv.strerror(Ibv.errno(errno)));
            rc = (int) Rdmacm.RESOLVE_ADDR.invokeExact(errno, id, MemorySegment.NULL, sockaddrIb(a, gid, SERVICE_ID),
                    2000);
            out.append("; rdma_resolve_addr(sockaddr_ib, own GID, SID 0x").append(Long.toHexString(SERVICE_ID))
                    .append(") -> ").append(rc == 0 ? "0" : "-1 " + Ibv.strerror(Ibv.errno(errno)));
            if (rc == 0) {
                out.append(", event ").append(awaitEvent(a, channel, errno));
            }
            int ignored = (int) Rdmacm.DESTROY_ID.invokeExact(id);
            Rdmacm.DESTROY_EVENT_CHANNEL.invokeExact(channel);
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
        return out.toString();
    }

    private static MemorySegment sockaddrIb(Arena a, byte[] gid, long serviceId) {
        MemorySegment s = a.allocate(SOCKADDR_IB, 8);
        s.set(JAVA_SHORT, 0, AF_IB);
        s.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), 2, (short) 0xFFFF);              // default P_Key
        MemorySegment.copy(MemorySegment.ofArray(gid), 0, s, 8, 16);
        s.set(JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN), 24, serviceId);
        s.set(JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN), 32, serviceId == 0 ? 0 : -1L);   // sid_mask: all bits
        return s;
    }

    /** The next CM event's name and status, or "none within 5 s". */
    private static String awaitEvent(Arena a, MemorySegment channel, MemorySegment errno) throws Throwable {
        MemorySegment pfd = a.allocate(8, 4);
        pfd.set(JAVA_INT, 0, channel.get(JAVA_INT, 0));
        pfd.set(JAVA_SHORT, 4, (short) POLLIN);
        if ((int) Ibv.POLL.invokeExact(errno, pfd, 1L, 5000) != 1) {
            return "none within 5 s";
        }
        MemorySegment out = a.allocate(ADDRESS);
        if ((int) Rdmacm.GET_CM_EVENT.invokeExact(errno, channel, out) != 0) {
            return "rdma_get_cm_event: " + Ibv.strerror(Ibv.errno(errno));
        }
        MemorySegment ev = out.get(ADDRESS, 0).reinterpret(Rdmacm.EVENT_SIZE);
        int type = ev.get(JAVA_INT, Rdmacm.EV_EVENT);
        int status = ev.get(JAVA_INT, Rdmacm.EV_STATUS);
        int ignored = (int) Rdmacm.ACK_CM_EVENT.invokeExact(ev);
        return Rdmacm.eventName(type) + " (status " + status + (status < 0 ? ", " + Ibv.strerror(-status) : "") + ")";
    }
}
