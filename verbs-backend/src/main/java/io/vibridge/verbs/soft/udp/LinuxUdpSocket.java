package io.vibridge.verbs.soft.udp;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Linux UDP socket driven through the foreign-function API, with UDP segmentation offload:
 * {@code UDP_SEGMENT} (kernel 4.18) on send, {@code UDP_GRO} (5.0) on receive. Structures are laid out
 * for LP64 Linux ({@code struct msghdr} 56 bytes, {@code struct iovec} 16, {@code struct cmsghdr} 16 +
 * data); every native structure is allocated once per sender or per socket, so sends and receives
 * allocate nothing.
 *
 * <p>Closing: {@link #close} marks the socket closed, shuts it down (which wakes a blocked
 * {@code recvmsg}), waits for calls in progress to leave, then closes the descriptor, so a late send can
 * never reach a descriptor number the process has since reused.
 */
final class LinuxUdpSocket implements UdpSocket {
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int IPPROTO_IP = 0;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IP_PMTUDISC_DO = 2;     // DF on every datagram: what IP_DONTFRAGMENT sets
    private static final int SOL_UDP = 17;
    private static final int UDP_SEGMENT = 103;
    private static final int UDP_GRO = 104;
    private static final int SHUT_RDWR = 2;
    private static final int MSG_TRUNC = 0x20;
    private static final int MSG_DONTWAIT = 0x40;
    private static final short POLLIN = 1;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EIO = 5;
    private static final int EINVAL = 22;
    private static final int ENOPROTOOPT = 92;

    // struct msghdr (LP64)
    private static final long MSG_NAME = 0;
    private static final long MSG_NAMELEN = 8;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_CONTROL = 32;
    private static final long MSG_CONTROLLEN = 40;
    private static final long MSG_FLAGS = 48;
    // scratch layout: msghdr | iovec | sockaddr_in | control
    private static final long IOV = 64;
    private static final long SOCKADDR = 80;
    private static final long CONTROL = 96;
    private static final long CONTROL_SPACE = 64;
    private static final long SCRATCH = CONTROL + CONTROL_SPACE;
    private static final int SOCKADDR_LEN = 16;
    private static final int CMSG_HEADER = 16;
    /** CMSG_SPACE(sizeof(uint16_t)) and CMSG_LEN(sizeof(uint16_t)). */
    private static final int SEGMENT_CMSG_SPACE = 24;
    private static final int SEGMENT_CMSG_LEN = 18;

    private static final ValueLayout.OfInt INT_BE = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean closed;
    private volatile boolean segmentationRefused;
    private final int receiveBuffer;
    private final int sendBuffer;

    // receive state, confined to the receiving thread
    private final MemorySegment rx;
    private final MemorySegment rxErrno;
    /** struct pollfd {int fd; short events; short revents;} for {@link #awaitReadable}. */
    private final MemorySegment pollFd;
    private ByteBuffer rxBuffer;
    private long rxAddress;
    private int sourceIp;
    private int sourcePort;
    private int segmentSize;

    private LinuxUdpSocket(int fd, int receiveBuffer, int sendBuffer) {
        this.fd = fd;
        this.receiveBuffer = receiveBuffer;
        this.sendBuffer = sendBuffer;
        this.rx = arena.allocate(SCRATCH, 8);
        this.rxErrno = arena.allocate(Native.CAPTURE);
        this.pollFd = arena.allocate(8, 4);
        pollFd.set(JAVA_INT, 0, fd);
        pollFd.set(JAVA_SHORT, 4, POLLIN);
        rx.set(ADDRESS, MSG_NAME, rx.asSlice(SOCKADDR, SOCKADDR_LEN));
        rx.set(ADDRESS, MSG_IOV, rx.asSlice(IOV, 16));
        rx.set(JAVA_LONG, MSG_IOVLEN, 1);
        rx.set(ADDRESS, MSG_CONTROL, rx.asSlice(CONTROL, CONTROL_SPACE));
    }

    /** Null when this JVM and platform can drive the socket, else why not. */
    static String unavailableReason() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.equals("linux")) {
            return "not Linux (" + os + ")";
        }
        if (!Set.of("amd64", "x86_64", "aarch64").contains(arch)) {
            return "untested architecture " + arch;
        }
        if (!LinuxUdpSocket.class.getModule().isNativeAccessEnabled()) {
            return "native access not enabled: start java with --enable-native-access=ALL-UNNAMED";
        }
        try {
            return Native.STRERROR == null ? "libc not found" : null;
        } catch (Throwable e) {                       // ExceptionInInitializerError, UnsatisfiedLinkError...
            return "foreign-function linkage failed: " + e;
        }
    }

    /**
     * Opens and binds the socket with DF and UDP_GRO; {@link OffloadUnavailableException} when the kernel
     * lacks UDP_SEGMENT or UDP_GRO.
     */
    static LinuxUdpSocket open(InetAddress address, int port, int bufferBytes) throws IOException {
        if (!(address instanceof Inet4Address)) {
            throw new IOException("IPv4 only: " + address);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = a.allocate(Native.CAPTURE);
            int fd = (int) Native.SOCKET.invokeExact(errno, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw error("socket", errno);
            }
            try {
                MemorySegment v = a.allocate(JAVA_INT);
                MemorySegment vlen = a.allocate(JAVA_INT);
                vlen.set(JAVA_INT, 0, 4);
                if ((int) Native.GETSOCKOPT.invokeExact(errno, fd, SOL_UDP, UDP_SEGMENT, v, vlen) != 0) {
                    throw unavailable("UDP_SEGMENT", errno);
                }
                setInt(a, errno, fd, SOL_UDP, UDP_GRO, 1, "UDP_GRO", true);
                setInt(a, errno, fd, SOL_SOCKET, SO_RCVBUF, bufferBytes, "SO_RCVBUF", false);
                setInt(a, errno, fd, SOL_SOCKET, SO_SNDBUF, bufferBytes, "SO_SNDBUF", false);
                setInt(a, errno, fd, IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "IP_MTU_DISCOVER", false);
                MemorySegment sa = a.allocate(SOCKADDR_LEN, 8);
                writeSockaddr(sa, ipv4(address), port);
                if ((int) Native.BIND.invokeExact(errno, fd, sa, SOCKADDR_LEN) != 0) {
                    throw error("bind " + address.getHostAddress() + ":" + port, errno);
                }
                int rcv = getInt(a, errno, fd, SOL_SOCKET, SO_RCVBUF);
                int snd = getInt(a, errno, fd, SOL_SOCKET, SO_SNDBUF);
                return new LinuxUdpSocket(fd, rcv, snd);
            } catch (IOException | RuntimeException | Error e) {
                int ignored = (int) Native.CLOSE.invokeExact(fd);
                throw e;
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("native call failed", t);
        }
    }

    private static void setInt(Arena a, MemorySegment errno, int fd, int level, int name, int value, String what,
                               boolean offloadOption) throws Throwable {
        MemorySegment v = a.allocate(JAVA_INT);
        v.set(JAVA_INT, 0, value);
        if ((int) Native.SETSOCKOPT.invokeExact(errno, fd, level, name, v, 4) != 0) {
            throw offloadOption ? unavailable(what, errno) : error("setsockopt " + what, errno);
        }
    }

    private static int getInt(Arena a, MemorySegment errno, int fd, int level, int name) throws Throwable {
        MemorySegment v = a.allocate(JAVA_INT);
        MemorySegment vlen = a.allocate(JAVA_INT);
        vlen.set(JAVA_INT, 0, 4);
        return (int) Native.GETSOCKOPT.invokeExact(errno, fd, level, name, v, vlen) == 0 ? v.get(JAVA_INT, 0) : -1;
    }

    private static IOException unavailable(String option, MemorySegment errno) {
        int e = errno(errno);
        String msg = "the kernel refuses " + option + ": " + strerror(e);
        return e == ENOPROTOOPT || e == EINVAL ? new OffloadUnavailableException(msg) : new IOException(msg);
    }

    private static IOException error(String call, MemorySegment errno) {
        return new IOException(call + ": " + strerror(errno(errno)));
    }

    private static int errno(MemorySegment capture) {
        return (int) Native.ERRNO.get(capture, 0L);
    }

    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) Native.STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    private static int ipv4(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | b[3] & 0xFF;
    }

    private static void writeSockaddr(MemorySegment sa, int ip, int port) {
        sa.set(JAVA_SHORT, 0, (short) AF_INET);       // sin_family, host order
        sa.set(SHORT_BE, 2, (short) port);
        sa.set(INT_BE, 4, ip);
        sa.set(JAVA_LONG, 8, 0L);
    }

    private boolean enter() {
        calls.incrementAndGet();
        if (closed) {
            calls.decrementAndGet();
            return false;
        }
        return true;
    }

    private void leave() {
        calls.decrementAndGet();
    }

    @Override
    public boolean segmentationOffload() {
        return !segmentationRefused;
    }

    @Override
    public Sender newSender() {
        return new LinuxSender();
    }

    @Override
    public int receive(ByteBuffer buf) throws IOException {
        return receive(buf, 0);
    }

    @Override
    public boolean canPoll() {
        return true;
    }

    @Override
    public int poll(ByteBuffer buf) throws IOException {
        return receive(buf, MSG_DONTWAIT);
    }

    @Override
    public void awaitReadable() throws IOException {
        if (!enter()) {
            return;
        }
        try {
            int ignored = (int) Native.POLL.invokeExact(pollFd, 1L, -1);   // shutdown at close wakes it too
        } catch (Throwable t) {
            throw new IOException("poll failed", t);
        } finally {
            leave();
        }
    }

    private int receive(ByteBuffer buf, int flags) throws IOException {
        if (buf != rxBuffer) {
            if (!buf.isDirect()) {
                throw new IllegalArgumentException("receive needs a direct buffer");
            }
            rxAddress = MemorySegment.ofBuffer(buf).address() - buf.position();
            rxBuffer = buf;
        }
        if (!enter()) {
            return -1;
        }
        try {
            while (true) {
                rx.set(JAVA_INT, MSG_NAMELEN, SOCKADDR_LEN);
                rx.set(JAVA_LONG, MSG_CONTROLLEN, CONTROL_SPACE);
                rx.set(JAVA_INT, MSG_FLAGS, 0);
                rx.set(JAVA_LONG, IOV, rxAddress);
                rx.set(JAVA_LONG, IOV + 8, buf.capacity());
                long n = (long) Native.RECVMSG.invokeExact(rxErrno, fd, rx, flags);
                if (closed) {
                    return -1;
                }
                if (n < 0) {
                    int e = errno(rxErrno);
                    if (e == EINTR) {
                        continue;
                    }
                    if (e == EAGAIN) {
                        return 0;                            // MSG_DONTWAIT and nothing queued
                    }
                    throw new IOException("recvmsg: " + strerror(e));
                }
                if ((rx.get(JAVA_INT, MSG_FLAGS) & MSG_TRUNC) != 0) {
                    throw new IOException("recvmsg: a datagram larger than the " + buf.capacity() + "-byte buffer was truncated");
                }
                sourcePort = Short.toUnsignedInt(rx.get(SHORT_BE, SOCKADDR + 2));
                sourceIp = rx.get(INT_BE, SOCKADDR + 4);
                segmentSize = groSegmentSize((int) n);
                buf.clear();
                buf.limit((int) n);
                return (int) n;
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("recvmsg failed", t);
        } finally {
            leave();
        }
    }

    /** The UDP_GRO control message's segment size, or {@code n} when the datagram came alone. */
    private int groSegmentSize(int n) {
        long len = rx.get(JAVA_LONG, MSG_CONTROLLEN);
        long p = CONTROL;
        while (p + CMSG_HEADER <= CONTROL + len) {
            long cmsgLen = rx.get(JAVA_LONG, p);
            if (cmsgLen < CMSG_HEADER) {
                break;
            }
            if (rx.get(JAVA_INT, p + 8) == SOL_UDP && rx.get(JAVA_INT, p + 12) == UDP_GRO) {
                int size = rx.get(JAVA_INT, p + CMSG_HEADER);
                return size > 0 && size < n ? size : n;
            }
            p += (cmsgLen + 7) & ~7L;
        }
        return n;
    }

    @Override
    public int sourceIp() {
        return sourceIp;
    }

    @Override
    public int sourcePort() {
        return sourcePort;
    }

    @Override
    public int segmentSize() {
        return segmentSize;
    }

    @Override
    public int receiveBufferSize() {
        return receiveBuffer;
    }

    @Override
    public int sendBufferSize() {
        return sendBuffer;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) Native.SHUTDOWN.invokeExact(fd, SHUT_RDWR);
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (calls.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            if (calls.get() > 0) {
                // a call is stuck in the kernel: leak the descriptor rather than risk closing it under that call
                LOG.warn("UDP socket fd {}: {} calls still in progress after shutdown; descriptor left open", fd, calls.get());
                return;
            }
            ignored = (int) Native.CLOSE.invokeExact(fd);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            throw new IOException("close failed", t);
        }
        arena.close();
    }

    /** A sender's msghdr, iovec, sockaddr and control message, reused for every send. */
    private final class LinuxSender implements Sender {
        private final MemorySegment msg;
        private final MemorySegment errno;
        private final long controlAddress;
        private ByteBuffer lastBuffer;
        private long lastAddress;
        private int lastIp = -1;
        private int lastPort = -1;

        LinuxSender() {
            Arena a = Arena.ofAuto();
            msg = a.allocate(SCRATCH, 8);
            errno = a.allocate(Native.CAPTURE);
            msg.set(ADDRESS, MSG_NAME, msg.asSlice(SOCKADDR, SOCKADDR_LEN));
            msg.set(JAVA_INT, MSG_NAMELEN, SOCKADDR_LEN);
            msg.set(ADDRESS, MSG_IOV, msg.asSlice(IOV, 16));
            msg.set(JAVA_LONG, MSG_IOVLEN, 1);
            MemorySegment cmsg = msg.asSlice(CONTROL, SEGMENT_CMSG_SPACE);
            cmsg.set(JAVA_LONG, 0, SEGMENT_CMSG_LEN);
            cmsg.set(JAVA_INT, 8, SOL_UDP);
            cmsg.set(JAVA_INT, 12, UDP_SEGMENT);
            controlAddress = cmsg.address();
        }

        @Override
        public void send(ByteBuffer buf, int off, int len, int segmentSize, InetSocketAddress to, int toIp)
                throws IOException {
            if (buf != lastBuffer) {
                if (!buf.isDirect()) {
                    throw new IllegalArgumentException("send needs a direct buffer");
                }
                lastAddress = MemorySegment.ofBuffer(buf).address() - buf.position();
                lastBuffer = buf;
            }
            int port = to.getPort();
            if (toIp != lastIp || port != lastPort) {
                writeSockaddr(msg.asSlice(SOCKADDR, SOCKADDR_LEN), toIp, port);
                lastIp = toIp;
                lastPort = port;
            }
            msg.set(JAVA_LONG, IOV, lastAddress + off);
            msg.set(JAVA_LONG, IOV + 8, len);
            boolean segmented = len > segmentSize;
            if (segmented) {
                msg.set(JAVA_LONG, MSG_CONTROL, controlAddress);
                msg.set(JAVA_LONG, MSG_CONTROLLEN, SEGMENT_CMSG_SPACE);
                msg.set(JAVA_SHORT, CONTROL + CMSG_HEADER, (short) segmentSize);
            } else {
                msg.set(JAVA_LONG, MSG_CONTROL, 0L);
                msg.set(JAVA_LONG, MSG_CONTROLLEN, 0L);
            }
            if (!enter()) {
                throw new ClosedChannelException();
            }
            try {
                while (true) {
                    long n = (long) Native.SENDMSG.invokeExact(errno, fd, msg, 0);
                    if (n >= 0) {
                        return;
                    }
                    int e = errno(errno);
                    if (e == EINTR) {
                        continue;
                    }
                    if (segmented && (e == EIO || e == EINVAL)) {
                        // the route's device cannot checksum or segment for us (udp_send_skb)
                        segmentationRefused = true;
                        throw new SegmentationRefusedException("sendmsg with UDP_SEGMENT " + segmentSize
                                + " to " + to + ": " + strerror(e));
                    }
                    throw new IOException("sendmsg " + len + " bytes to " + to + ": " + strerror(e));
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException("sendmsg failed", t);
            } finally {
                leave();
            }
        }
    }

    /** The libc entry points, linked on first use. */
    private static final class Native {
        static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle SOCKET;
        static final MethodHandle BIND;
        static final MethodHandle SETSOCKOPT;
        static final MethodHandle GETSOCKOPT;
        static final MethodHandle SENDMSG;
        static final MethodHandle RECVMSG;
        static final MethodHandle SHUTDOWN;
        static final MethodHandle POLL;
        static final MethodHandle CLOSE;
        static final MethodHandle STRERROR;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            Linker.Option errno = Linker.Option.captureCallState("errno");
            SOCKET = link(linker, libc, "socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), errno);
            BIND = link(linker, libc, "bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
            SETSOCKOPT = link(linker, libc, "setsockopt",
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), errno);
            GETSOCKOPT = link(linker, libc, "getsockopt",
                    FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), errno);
            SENDMSG = link(linker, libc, "sendmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno);
            RECVMSG = link(linker, libc, "recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), errno);
            SHUTDOWN = link(linker, libc, "shutdown", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
            POLL = link(linker, libc, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
            CLOSE = link(linker, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            STRERROR = link(linker, libc, "strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }

        private static MethodHandle link(Linker linker, SymbolLookup libc, String name, FunctionDescriptor d,
                                         Linker.Option... options) {
            return linker.downcallHandle(libc.find(name).orElseThrow(
                    () -> new UnsatisfiedLinkError("libc has no " + name)), d, options);
        }
    }
}
