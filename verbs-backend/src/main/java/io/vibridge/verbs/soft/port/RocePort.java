package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.soft.udp.UdpSocket;
import io.vibridge.verbs.soft.wire.Bth;
import io.vibridge.verbs.soft.wire.Gid;
import io.vibridge.verbs.soft.wire.Icrc;
import io.vibridge.verbs.soft.wire.IcrcCheck;
import io.vibridge.verbs.soft.wire.Mad;
import io.vibridge.verbs.soft.wire.Opcode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import io.vibridge.verbs.soft.port.PacketPort.AckSender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One RoCEv2 port: the UDP socket on {@code ip:4791}, the receive thread (a received group of datagrams cut
 * into packets, the ICRC policy, the BTH checks and the dispatch to a QP or to the CM), the way out
 * ({@link Transmitter}, {@link EgressFaults}) and the device's timer and event threads.
 *
 * <p>With UDP segmentation offload, the packets a QP sends in one locked section leave in groups of
 * equal-size datagrams in one system call, and one receive may return such a group. Where the kernel does
 * split a group into datagrams (a device without segmentation offload, or a receiving socket without
 * UDP_GRO), it numbers their IP IDs on from the group's, which is 0 for an unconnected DF socket (Linux
 * inet_gso_segment, ip_select_ident_segs); the ICRC covers the ID, so the k-th packet of a group is sealed
 * for ID k. A received group's k-th packet is checked for ID k, or 0 for datagrams sent one by one and
 * coalesced on the way ({@link IcrcPolicy}). On loopback, with GRO on both ends, a group travels whole.
 */
public final class RocePort implements PacketPort {
    private static final Logger LOG = LoggerFactory.getLogger(RocePort.class);

    /** Where the receive thread hands the packets that passed the port's checks. */
    public interface Inbound {
        /** An RC packet for {@code destQp}, {@code pkt[0, len)} without its ICRC; false when no such QP. */
        boolean rc(int destQp, ByteBuffer pkt, int len, int srcIp);

        /** A UD SEND Only to QP1: a CM MAD (IB-WIRE-REFERENCE §5.1), {@code pkt[0, len)} without its ICRC. */
        void gsi(ByteBuffer pkt, int len, int srcIp);
    }

    /** The port's sizes, from {@code SoftParams}. */
    public record Limits(int socketBuffer, int receiveBuffer, int idleBatches, int maxPacket, int icrcStrictAfter,
                         long reorderHoldNanos) {
    }

    private final InetAddress address;
    private final int ipv4;
    private final int udpPort;
    private final int maxPathMtu;
    private final Limits limits;
    private final String name;
    private final UdpSocket socket;
    private final SoftCounters counters = new SoftCounters();
    private final ScheduledThreadPoolExecutor timers;
    private final ExecutorService events;
    private final EgressFaults faults;
    private final Transmitter transmitter;
    private final IcrcPolicy icrc;
    private final Thread receiver;
    private final IdleStrategy idle;
    /** A received group can exceed one UDP datagram's 64 KiB (GRO may merge more; MSG_TRUNC is an error). */
    private final ByteBuffer rxBuf;
    private final ReceivedGroup rxGroup;
    /** Polling mode: one receiver at a time, the receive thread or a consumer ({@link #pollInput}); guards rxBuf. */
    private final ReentrantLock receiving = new ReentrantLock();
    /** When a consumer last polled for input: the receive thread stands aside for {@link #HANDOVER_NANOS} after. */
    private volatile long consumerPolledAt;
    private static final long HANDOVER_NANOS = 100_000;
    /** Set while a consumer receives in {@link #pollInput} (guarded by {@link #receiving}): plain ACKs may wait. */
    private boolean consumerReceiving;
    /** QPs whose ACK waits for the next idle poll (guarded by {@link #receiving}; grows only past 16 at once). */
    private final ArrayDeque<AckSender> waitingAcks = new ArrayDeque<>(16);
    private Inbound inbound;
    private volatile boolean closed;

    /** Binds the socket ({@code IOException} when it cannot); no thread runs before {@link #start}. */
    public RocePort(InetAddress address, int udpPort, int maxPathMtu, UdpSocket.Offload offload, Limits limits,
                    IdleStrategy idle) throws IOException {
        this.address = address;
        this.ipv4 = Gid.ipv4(address.getAddress());
        this.udpPort = udpPort;
        this.maxPathMtu = maxPathMtu;
        this.limits = limits;
        this.name = address.getHostAddress() + ":" + udpPort;
        this.socket = UdpSocket.open(address, udpPort, limits.socketBuffer(), offload);
        this.idle = idle.blocks() || socket.canPoll() ? idle : IdleStrategy.BLOCK;
        this.rxBuf = ByteBuffer.allocateDirect(limits.receiveBuffer());
        this.rxGroup = new ReceivedGroup(rxBuf);
        this.consumerPolledAt = System.nanoTime() - 2 * HANDOVER_NANOS;
        if (this.idle != idle) {
            LOG.info("{}: idle={} needs the Linux socket (udp-offload); the receive thread blocks instead", name, idle.name());
        }
        timers = new ScheduledThreadPoolExecutor(1, daemon("soft-timer-" + name));
        timers.setRemoveOnCancelPolicy(true);
        events = Executors.newSingleThreadExecutor(daemon("soft-events-" + name));
        faults = new EgressFaults(counters, socket::newSender,
                r -> timers.schedule(r, limits.reorderHoldNanos(), TimeUnit.NANOSECONDS), limits.maxPacket(), name);
        transmitter = new Transmitter(socket, counters, faults, ipv4, udpPort, limits.idleBatches(), name);
        icrc = new IcrcPolicy(limits.icrcStrictAfter());
        receiver = new Thread(this::receiveLoop, "soft-rx-" + name);
        receiver.setDaemon(true);
        receiver.setPriority(Thread.MAX_PRIORITY);
    }

    /** Starts the transmit and receive threads, the latter handing packets to {@code to}. */
    public void start(Inbound to) {
        this.inbound = to;
        transmitter.start();
        receiver.start();
    }

    /** For the device's log line at open: the granted socket buffers and the offload mode. */
    public String describeSocket() {
        return "socket buffers rcv " + socket.receiveBufferSize() + " snd " + socket.sendBufferSize() + " (asked "
                + limits.socketBuffer() + "), UDP segmentation offload " + (socket.segmentationOffload() ? "on" : "off")
                + ", receive thread idle=" + idle.name();
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** True in polling mode: consumers polling an empty completion queue receive themselves ({@link #pollInput}). */
    public boolean polls() {
        return !idle.blocks();
    }

    /** True while sends hand groups of datagrams to the kernel at once (UDP_SEGMENT). */
    public boolean segmentationOffload() {
        return socket.segmentationOffload();
    }

    public EgressFaults faults() {
        return faults;
    }

    // ---------------------------------------------------------------- PacketPort

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public int udpPort() {
        return udpPort;
    }

    @Override
    public int maxPathMtu() {
        return maxPathMtu;
    }

    @Override
    public SoftCounters counters() {
        return counters;
    }

    @Override
    public ScheduledThreadPoolExecutor timers() {
        return timers;
    }

    @Override
    public ExecutorService events() {
        return events;
    }

    @Override
    public TxBatch openBatch(InetSocketAddress to, int toIp) {
        return transmitter.openBatch(to, toIp);
    }

    @Override
    public void closeBatch(TxBatch b) {
        transmitter.closeBatch(b);
    }

    @Override
    public void transmit(ByteBuffer pkt, int total, InetSocketAddress to, int toIp) {
        TxBatch b = openBatch(to, toIp);
        try {
            b.buf.put(b.reserve(total), pkt, 0, total);
        } finally {
            closeBatch(b);
        }
    }

    @Override
    public void scheduleTransmit(Transmittable source) {
        transmitter.schedule(source);
    }

    // ---------------------------------------------------------------- receive

    private void receiveLoop() {
        if (idle.blocks()) {
            blockingLoop();
        } else {
            pollingLoop();
        }
    }

    /** Idle strategy {@code block}: the thread sleeps in {@code recvmsg} between packets. */
    private void blockingLoop() {
        while (!closed) {
            try {
                int total = socket.receive(rxBuf);
                if (total < 0) {
                    break;
                }
                onGroup(total);
            } catch (ClosedChannelException e) {
                break;
            } catch (Exception e) {
                if (!closed) {
                    LOG.error("{}: receive loop error (packet dropped)", name, e);
                }
            }
        }
    }

    /**
     * Polling mode: non-blocking receives while the idle strategy lasts, then a wait for the socket to become
     * readable; while a consumer polls ({@link #pollInput}), the consumer receives and this thread stays out of
     * its way, so that a round trip costs one polling thread per side, as a busy-polling socket does.
     */
    private void pollingLoop() {
        long lastWork = System.nanoTime();
        while (!closed) {
            try {
                if (System.nanoTime() - consumerPolledAt < HANDOVER_NANOS) {
                    LockSupport.parkNanos(this, HANDOVER_NANOS);
                    lastWork = System.nanoTime();
                    continue;
                }
                int total;
                receiving.lock();
                try {
                    sendWaitingAcks();                          // a consumer stopped polling: its ACKs go now
                    total = socket.poll(rxBuf);
                    if (total > 0) {
                        onGroup(total);
                    }
                } finally {
                    receiving.unlock();
                }
                if (total < 0) {
                    break;
                }
                if (total > 0) {
                    lastWork = System.nanoTime();
                } else if (!idle.idle(System.nanoTime() - lastWork)) {
                    socket.awaitReadable();
                    lastWork = System.nanoTime();
                }
            } catch (ClosedChannelException e) {
                break;
            } catch (Exception e) {
                if (!closed) {
                    LOG.error("{}: receive loop error (packet dropped)", name, e);
                }
            }
        }
    }

    /**
     * Polling mode, on a consumer's thread that found its completion queue empty: receives what waits on the
     * socket, as the receive thread would, so that the completion needs no thread hand-off. Returns the bytes
     * received (0 also when the receive thread is receiving, or in the default idle strategy, {@code block}).
     */
    public int pollInput() {
        if (idle.blocks() || closed) {
            return 0;
        }
        consumerPolledAt = System.nanoTime();
        if (!receiving.tryLock()) {
            return 0;
        }
        try {
            sendWaitingAcks();                                  // the consumer had its turn since: now the ACKs
            int total = socket.poll(rxBuf);
            if (total > 0) {
                consumerReceiving = true;
                try {
                    onGroup(total);
                } finally {
                    consumerReceiving = false;
                }
            }
            return Math.max(total, 0);
        } catch (Exception e) {
            if (!closed && !(e instanceof ClosedChannelException)) {
                LOG.error("{}: receive error on a polling consumer (packet dropped)", name, e);
            }
            return 0;
        } finally {
            receiving.unlock();
        }
    }

    @Override
    public boolean acksMayWait() {
        return consumerReceiving;
    }

    @Override
    public void ackWaits(AckSender qp) {
        waitingAcks.addLast(qp);
    }

    /** Caller holds {@link #receiving}. */
    private void sendWaitingAcks() {
        for (AckSender qp; (qp = waitingAcks.pollFirst()) != null; ) {
            qp.sendWaitingAck();
        }
    }

    /** A received group of {@code total} bytes at {@link #rxBuf}, cut into its datagrams. */
    private void onGroup(int total) {
        int srcIp = socket.sourceIp();
        int srcPort = socket.sourcePort();
        int size = socket.segmentSize();
        for (int off = 0, k = 0; off < total; off += size, k++) {
            int len = Math.min(size, total - off);
            onDatagram(rxGroup.datagram(k, size, len), len, k, srcIp, srcPort);
        }
    }

    /** One received datagram, {@code pkt[0, len)}, the {@code index}-th of its group. */
    private void onDatagram(ByteBuffer pkt, int len, int index, int srcIp, int srcPort) {
        counters.packetsIn.increment();
        counters.bytesIn.add(len);
        if (len < Bth.LENGTH + Icrc.LENGTH) {
            counters.malformedDrops.increment();
            return;
        }
        IcrcCheck ok = icrc.verify(srcIp, srcPort, ipv4, udpPort, pkt, len, index);
        if (ok == IcrcCheck.INVALID) {
            counters.icrcDrops.increment();
            return;
        }
        if (ok == IcrcCheck.VALID_SOME_IP_ID) {
            counters.icrcAnyIdAccepts.increment();
        }
        dispatch(pkt, len - Icrc.LENGTH, srcIp);
    }

    private void dispatch(ByteBuffer pkt, int len, int srcIp) {
        int opcode = Bth.opcode(pkt, 0);
        if (Bth.transportVersion(pkt, 0) != 0) {
            counters.malformedDrops.increment();
            return;
        }
        if ((Bth.pkey(pkt, 0) & 0x7FFF) != (Bth.DEFAULT_PKEY & 0x7FFF)) {
            // §1.6: the P_Key must match our only key, 0xFFFF (low 15 bits equal)
            counters.malformedDrops.increment();
            return;
        }
        int destQp = Bth.destQp(pkt, 0);
        if (opcode == Opcode.UD_SEND_ONLY.code()) {         // CM MADs to QP1 (§5.1)
            if (destQp == Mad.GSI_QP) {
                inbound.gsi(pkt, len, srcIp);
            } else {
                counters.malformedDrops.increment();
            }
            return;
        }
        if (opcode > 0x1F || !inbound.rc(destQp, pkt, len, srcIp)) {   // not RC (opcode bits 7:5 != 0), no QP
            counters.malformedDrops.increment();
        }
    }

    // ---------------------------------------------------------------- lifecycle

    /** Closes the socket, stops the threads and waits for the receive and transmit threads a while. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            socket.close();
        } catch (IOException e) {
            LOG.warn("{}: closing the UDP socket: {}", name, e.getMessage());
        }
        timers.shutdownNow();
        events.shutdown();
        try {
            receiver.join(2000);
            transmitter.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
