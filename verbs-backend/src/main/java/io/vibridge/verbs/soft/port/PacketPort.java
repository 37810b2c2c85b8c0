package io.vibridge.verbs.soft.port;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * What the RC transport and the CM need from the device: the port's address and limits, its counters,
 * its timer and event threads, and the way out for packets. They see this rather than the device, so the
 * device (which owns them) and they do not depend on each other.
 */
public interface PacketPort {
    /** Our IPv4 address. */
    InetAddress address();

    /** Our RoCEv2 UDP port, taken as the peer's too (4791; tests use others). */
    int udpPort();

    /** The port's largest path MTU (IB-WIRE-REFERENCE §1.4): no connection uses more. */
    int maxPathMtu();

    SoftCounters counters();

    /** The device's one timer thread (retransmit, RNR, CM retry and timewait timers). */
    ScheduledThreadPoolExecutor timers();

    /** The device's event thread: user callbacks that came without an executor of their own. */
    Executor events();

    /** Borrows a batch for packets to {@code to} ({@code toIp} its IPv4 address); give it back with {@link #closeBatch}. */
    TxBatch openBatch(InetSocketAddress to, int toIp);

    /** Sends what {@code b} still holds and takes it back; a null {@code b} is ignored. */
    void closeBatch(TxBatch b);

    /** Seals and sends one packet, {@code pkt[0, total)} with its ICRC placeholder, to {@code to}. Any thread. */
    void transmit(ByteBuffer pkt, int total, InetSocketAddress to, int toIp);

    /** Rings the doorbell: queues {@code source} for the transmit thread, once until it ran. */
    void scheduleTransmit(Transmittable source);

    /**
     * True while a consumer receives on its own thread (polling mode, {@code RocePort.pollInput}): a plain ACK may
     * then wait ({@link #ackWaits}) until that consumer polls its empty queue again (or, once it stops, the
     * receive thread takes over), so that the answer it is about to post leaves first and the ACK's system call
     * is off the round trip. Always false in the default idle strategy.
     */
    boolean acksMayWait();

    /** {@code qp} holds a waiting ACK: the port calls {@link AckSender#sendWaitingAck} at its next receive. */
    void ackWaits(AckSender qp);

    /** A queue pair whose ACK waits. */
    interface AckSender {
        /** Sends the waiting ACK, if it still waits (called without the port's locks on the QP). */
        void sendWaitingAck();
    }
}
