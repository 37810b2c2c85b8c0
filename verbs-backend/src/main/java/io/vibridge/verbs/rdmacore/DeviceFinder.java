package io.vibridge.verbs.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.vibridge.verbs.DeviceConfig;
import io.vibridge.verbs.VerbsException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds and opens the verbs device, port and GID for a {@link DeviceConfig}: by the {@code device} option, or by
 * the configured IPv4 address, whose RoCEv2 GID is its IPv4-mapped form (::ffff:a.b.c.d, as rdma_cm and the
 * kernel's roce_gid_mgmt make it), or on iWARP the GID made of the MAC of the interface that holds the address
 * (siw_query_gid). {@link RdmaCoreCheck} checks the layouts against what the library returns on the way.
 */
final class DeviceFinder {
    static final int TRANSPORT_IB = 0;       // enum ibv_transport_type: IB (and RoCE)
    static final int TRANSPORT_IWARP = 1;
    static final int LINK_LAYER_ETHERNET = 2;

    private DeviceFinder() {
    }

    /** An opened device: the context and the port/GID chosen. */
    record Opened(MemorySegment context, String name, int port, int gidIndex, byte[] gid, int transport,
                  int linkLayer, int activeMtu, int maxQpWr, int maxCqe, int maxQpRdAtom, int maxQpInitRdAtom,
                  int deviceCapFlags, String firmware, String gidType) {
    }

    /** Null when a device for {@code config} can be opened, else why not (one line). */
    static String probe(DeviceConfig config) {
        try {
            Opened o = open(config);
            close(o.context());
            return null;
        } catch (VerbsException | IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    static void close(MemorySegment context) {
        try {
            int ignored = (int) Ibv.CLOSE_DEVICE.invokeExact(context);
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    /** Opens the device for {@code config}; a {@link VerbsException} of one line when there is none. */
    static Opened open(DeviceConfig config) {
        RdmaCoreParams params = RdmaCoreParams.of(config);
        String address = config.address().getHostAddress();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment num = a.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) Ibv.GET_DEVICE_LIST.invokeExact(num);
            if (list.equals(MemorySegment.NULL)) {
                throw new VerbsException(Ibv.LIBRARY + " found but no RDMA device (ibv_get_device_list failed: "
                        + "the kernel has no /sys/class/infiniband or no ib_uverbs module)");
            }
            try {
                int n = num.get(JAVA_INT, 0);
                if (n == 0) {
                    throw new VerbsException(Ibv.LIBRARY + " found but no RDMA device exists (load a NIC driver, "
                            + "or rdma_rxe / siw and 'rdma link add')");
                }
                list = list.reinterpret(8L * (n + 1));
                List<String> seen = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = list.getAtIndex(ADDRESS, i).reinterpret(IbvLayouts.DEVICE.byteSize());
                    String name = Ibv.cString((MemorySegment) Ibv.GET_DEVICE_NAME.invokeExact(dev), 64);
                    RdmaCoreCheck.device(dev, name);
                    seen.add(name);
                    if (params.device() != null && !params.device().equals(name)) {
                        continue;
                    }
                    Opened o = tryDevice(a, dev, name, config, params);
                    if (o != null) {
                        return o;
                    }
                }
                if (params.device() != null && !seen.contains(params.device())) {
                    throw new VerbsException("no RDMA device named " + params.device() + " (devices: " + seen + ")");
                }
                throw new VerbsException("no RDMA device has a GID for " + address
                        + (params.device() != null ? " on " + params.device() : "") + " (devices: " + seen
                        + "; set the device option gid-index, or give the address to a RoCE netdev)");
            } finally {
                Ibv.FREE_DEVICE_LIST.invokeExact(list);
            }
        } catch (VerbsException | IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw Ibv.bug(t);
        }
    }

    /** Opens {@code dev} and finds the port and GID; null (device closed again) when it has none for the address. */
    private static Opened tryDevice(Arena a, MemorySegment dev, String name, DeviceConfig config,
                                    RdmaCoreParams params) throws Throwable {
        MemorySegment errno = a.allocate(Ibv.ERRNO_SIZE);
        MemorySegment ctx = (MemorySegment) Ibv.OPEN_DEVICE.invokeExact(errno, dev);
        if (ctx.equals(MemorySegment.NULL)) {
            throw new VerbsException("ibv_open_device(" + name + "): " + Ibv.strerror(Ibv.errno(errno))
                    + " (is /dev/infiniband/uverbs* accessible in this container?)");
        }
        boolean keep = false;
        try {
            ctx = ctx.reinterpret(IbvLayouts.CONTEXT.byteSize());
            RdmaCoreCheck.context(ctx, dev, name);
            int transport = dev.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE, "transport_type"));
            MemorySegment attr = a.allocate(IbvLayouts.DEVICE_ATTR);
            int rc = (int) Ibv.QUERY_DEVICE.invokeExact(ctx, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device(" + name + "): " + Ibv.strerror(rc));
            }
            RdmaCoreCheck.deviceAttr(attr, name);
            int ports = Byte.toUnsignedInt(attr.get(JAVA_BYTE, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "phys_port_cnt")));
            MemorySegment pattr = a.allocate(IbvLayouts.PORT_ATTR);
            MemorySegment gid = a.allocate(IbvLayouts.GID);
            byte[] want = wantedGid(config.address(), transport);
            for (int port = 1; port <= ports; port++) {
                if (params.port() != 0 && params.port() != port) {
                    continue;
                }
                pattr.fill((byte) 0);
                rc = (int) Ibv.QUERY_PORT.invokeExact(ctx, (byte) port, pattr);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_port(" + name + ", " + port + "): " + Ibv.strerror(rc));
                }
                RdmaCoreCheck.portAttr(pattr, name, port);
                int tbl = pattr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.PORT_ATTR, "gid_tbl_len"));
                int found = -1;
                String foundType = "";
                byte[] foundGid = null;
                for (int i = 0; i < tbl && i < 4096; i++) {
                    if (params.gidIndex() >= 0 && params.gidIndex() != i) {
                        continue;
                    }
                    if ((int) Ibv.QUERY_GID.invokeExact(ctx, (byte) port, i, gid) != 0) {
                        continue;
                    }
                    byte[] g = gid.toArray(JAVA_BYTE);
                    boolean match = params.gidIndex() >= 0 || (want != null && (transport == TRANSPORT_IWARP
                            ? Arrays.equals(g, 0, 6, want, 0, 6) : Arrays.equals(g, want)));
                    if (!match || isZero(g)) {
                        continue;
                    }
                    String type = gidType(name, port, i);
                    if (found < 0 || (type.equals("RoCE v2") && !foundType.equals("RoCE v2"))) {
                        found = i;
                        foundType = type;
                        foundGid = g;
                    }
                }
                if (found >= 0) {
                    keep = true;
                    return new Opened(ctx, name, port, found, foundGid, transport,
                            Byte.toUnsignedInt(pattr.get(JAVA_BYTE, IbvLayouts.off(IbvLayouts.PORT_ATTR, "link_layer"))),
                            pattr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.PORT_ATTR, "active_mtu")),
                            attr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "max_qp_wr")),
                            attr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "max_cqe")),
                            attr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "max_qp_rd_atom")),
                            attr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "max_qp_init_rd_atom")),
                            attr.get(JAVA_INT, IbvLayouts.off(IbvLayouts.DEVICE_ATTR, "device_cap_flags")),
                            attr.asSlice(0, 64).getString(0), foundType);
                }
            }
            return null;
        } finally {
            if (!keep) {
                close(ctx);
            }
        }
    }

    private static boolean isZero(byte[] g) {
        for (byte b : g) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The GID that identifies {@code address}: IB/RoCE ::ffff:a.b.c.d (IPv4) or the address itself (IPv6);
     * iWARP the MAC of the interface holding it (first 6 bytes); null when there is none.
     */
    static byte[] wantedGid(InetAddress address, int transport) {
        if (transport == TRANSPORT_IWARP) {
            try {
                NetworkInterface nif = NetworkInterface.getByInetAddress(address);
                return nif == null ? null : nif.getHardwareAddress();
            } catch (SocketException e) {
                return null;
            }
        }
        return ipv4MappedGid(address);
    }

    static byte[] ipv4MappedGid(InetAddress address) {
        byte[] a = address.getAddress();
        if (!(address instanceof Inet4Address)) {
            return a;
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        System.arraycopy(a, 0, g, 12, 4);
        return g;
    }

    /** The kernel's GID type ("RoCE v2", "IB/RoCE v1"), or "" where sysfs does not say (iWARP, no sysfs). */
    static String gidType(String device, int port, int index) {
        Path p = Path.of("/sys/class/infiniband", device, "ports", Integer.toString(port), "gid_attrs", "types",
                Integer.toString(index));
        try {
            return Files.readString(p).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** enum ibv_mtu (1..5) to bytes. */
    static int mtuBytes(int ibvMtu) {
        return ibvMtu >= 1 && ibvMtu <= 5 ? 128 << ibvMtu : 0;
    }

    /** Bytes (256..4096) to enum ibv_mtu. */
    static int ibvMtu(int bytes) {
        return Integer.numberOfTrailingZeros(bytes) - 7;
    }

    static short s(MemorySegment m, long off) {
        return m.get(JAVA_SHORT, off);
    }
}
