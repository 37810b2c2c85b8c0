package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.soft.udp.SegmentationRefusedException;
import io.vibridge.verbs.soft.udp.UdpSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port's way out: the pool of {@link TxBatch}es, the sealing and sending of their groups (one
 * segmented send, or datagram by datagram through {@link EgressFaults}), and the transmit ("doorbell")
 * thread, which lays out, seals and sends what posters queued, as a NIC would, so that the posting thread
 * (the gateway's event loop) goes back to its socket at once.
 */
final class Transmitter {
    private static final Logger LOG = LoggerFactory.getLogger(Transmitter.class);

    private final UdpSocket socket;
    private final SoftCounters counters;
    private final EgressFaults faults;
    private final int ipv4;
    private final int udpPort;
    private final String name;
    /**
     * Idle batches, lock-free and allocation-free (a queue's lock allocates when contended); more are made
     * when all are borrowed, at most one per thread sending at once.
     */
    private final AtomicReferenceArray<TxBatch> idleBatches;
    /** QPs waiting for the transmit thread: a Treiber stack linked through the QPs (no allocation per post). */
    private final AtomicReference<Transmittable> queue = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean closed;
    private boolean refusalLogged;                       // guarded by this

    Transmitter(UdpSocket socket, SoftCounters counters, EgressFaults faults, int ipv4, int udpPort, int idleBatches,
                String name) {
        this.socket = socket;
        this.counters = counters;
        this.faults = faults;
        this.ipv4 = ipv4;
        this.udpPort = udpPort;
        this.idleBatches = new AtomicReferenceArray<>(idleBatches);
        this.name = name;
        this.thread = new Thread(this::run, "soft-tx-" + name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    TxBatch openBatch(InetSocketAddress to, int toIp) {
        TxBatch b = null;
        for (int i = 0; b == null && i < idleBatches.length(); i++) {
            if (idleBatches.getPlain(i) != null) {
                b = idleBatches.getAndSet(i, null);
            }
        }
        if (b == null) {
            b = new TxBatch(this, socket.newSender());
        }
        b.to = to;
        b.toIp = toIp;
        return b;
    }

    void closeBatch(TxBatch b) {
        if (b == null) {
            return;
        }
        try {
            b.flush();
        } finally {
            b.to = null;
            for (int i = 0; i < idleBatches.length() && !idleBatches.compareAndSet(i, null, b); i++) {
                // the next slot; a batch finding none free is dropped
            }
        }
    }

    /**
     * Seals and sends a group of {@code count} packets, {@code b.buf[0, length)}, each {@code segmentSize}
     * bytes but the last: in one segmented send (the k-th sealed for IP ID k, as Linux inet_gso_segment
     * numbers the datagrams it splits a group into), else one by one (each for ID 0) through the faults.
     */
    void sendGroup(TxBatch b, int length, int segmentSize, int count) {
        boolean segmented = count > 1 && socket.segmentationOffload() && !faults.active();
        sealGroup(b, length, segmentSize, segmented);
        if (segmented) {
            try {
                b.sender.send(b.buf, 0, length, segmentSize, b.to, b.toIp);
                counters.packetsOut.add(count);
                counters.bytesOut.add(length);
                return;
            } catch (SegmentationRefusedException e) {
                synchronized (this) {
                    if (!refusalLogged) {
                        refusalLogged = true;
                        LOG.warn("{}: {}; sending datagrams one by one from now on", name, e.getMessage());
                    }
                }
                sealGroup(b, length, segmentSize, false);
            } catch (ClosedChannelException e) {
                return;                                    // port closing: drop
            } catch (IOException e) {
                LOG.warn("{}: UDP send to {} failed: {}", name, b.to, e.getMessage());
                return;
            }
        }
        for (int off = 0; off < length; off += segmentSize) {
            faults.send(b.sender, b.buf, off, Math.min(segmentSize, length - off), b.to, b.toIp);
        }
    }

    private void sealGroup(TxBatch b, int length, int segmentSize, boolean segmented) {
        for (int off = 0, k = 0; off < length; off += segmentSize, k++) {
            b.icrc.sealIpv4(ipv4, b.toIp, segmented ? k : 0, udpPort, b.to.getPort(), b.buf, off,
                    Math.min(segmentSize, length - off));
        }
    }

    /** Queues {@code source} for the transmit thread; the caller queues a source at most once until it ran. */
    void schedule(Transmittable source) {
        Transmittable head;
        do {
            head = queue.get();
            source.txNext(head);
        } while (!queue.compareAndSet(head, source));
        if (head == null && parked) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        while (!closed) {
            Transmittable stack = queue.getAndSet(null);
            if (stack == null) {
                parked = true;                               // then re-check: a post racing with this sees it set
                if (queue.get() == null && !closed) {
                    LockSupport.park(this);
                }
                parked = false;
                continue;
            }
            Transmittable fifo = null;                       // oldest first
            while (stack != null) {
                Transmittable next = stack.txNext();
                stack.txNext(fifo);
                fifo = stack;
                stack = next;
            }
            while (fifo != null) {
                Transmittable next = fifo.txNext();
                fifo.txNext(null);
                try {
                    fifo.transmit();
                } catch (RuntimeException e) {
                    LOG.error("{}: transmit of QP {} failed", name, fifo.qpNum(), e);
                }
                fifo = next;
            }
        }
    }

    /** Stops the thread (after what it is sending) and waits for it a while. */
    void close() throws InterruptedException {
        closed = true;
        LockSupport.unpark(thread);
        thread.join(2000);
    }
}
