package io.vibridge.verbs.soft.port;

import io.vibridge.verbs.soft.udp.UdpSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Egress fault injection: every datagram leaving the port is, independently, dropped, sent with one bit
 * flipped past the BTH's first 12 bytes (the receiver's ICRC check then drops it), held back until the
 * next datagram has left (reordered; at most one is held, and a timer releases it if nothing follows) or
 * sent twice. Rates are drawn from one seeded {@link Random}, so a run is repeatable for a given order of
 * sends. Also the port's one raw send of a single datagram, counted in {@link SoftCounters#packetsOut}.
 */
public final class EgressFaults {
    private static final Logger LOG = LoggerFactory.getLogger(EgressFaults.class);

    private final SoftCounters counters;
    private final Supplier<UdpSocket.Sender> heldSender;
    private final Consumer<Runnable> releaseLater;
    private final String name;
    private volatile boolean active;
    // guarded by this
    private double drop;
    private double duplicate;
    private double reorder;
    private double corrupt;
    private Random random = new Random(0);
    private final ByteBuffer held;
    private int heldLength;
    private InetSocketAddress heldTo;
    private int heldToIp;
    private boolean holding;
    private UdpSocket.Sender heldBy;

    /**
     * @param heldSender   makes the sender that releases a held datagram from the timer thread (once)
     * @param releaseLater runs its argument a little later on another thread (the hold timer)
     * @param maxPacket    the largest datagram that may be held
     */
    public EgressFaults(SoftCounters counters, Supplier<UdpSocket.Sender> heldSender, Consumer<Runnable> releaseLater,
                        int maxPacket, String name) {
        this.counters = counters;
        this.heldSender = heldSender;
        this.releaseLater = releaseLater;
        this.held = ByteBuffer.allocateDirect(maxPacket);
        this.name = name;
    }

    /** Sets the rates (each 0..1) and reseeds; at any time. All zero turns injection off. */
    public synchronized void set(double drop, double duplicate, double reorder, double corrupt, long seed) {
        this.drop = drop;
        this.duplicate = duplicate;
        this.reorder = reorder;
        this.corrupt = corrupt;
        this.random = new Random(seed);
        this.active = drop > 0 || duplicate > 0 || reorder > 0 || corrupt > 0;
    }

    /** True while some rate is not zero: segmented sends are then split so each datagram meets the dice. */
    public boolean active() {
        return active;
    }

    /** Sends one sealed datagram {@code pkt[off, off + total)} through the faults. */
    public void send(UdpSocket.Sender sender, ByteBuffer pkt, int off, int total, InetSocketAddress to, int toIp) {
        if (!active) {
            rawSend(sender, pkt, off, total, to, toIp);
            return;
        }
        synchronized (this) {
            Random r = random;
            if (r.nextDouble() < drop) {
                counters.faultDrops.increment();
                releaseHeld();
                return;
            }
            if (r.nextDouble() < corrupt) {
                counters.faultCorruptions.increment();
                int i = off + 12 + r.nextInt(Math.max(1, total - 12));
                pkt.put(i, (byte) (pkt.get(i) ^ (1 << r.nextInt(8))));
                rawSend(sender, pkt, off, total, to, toIp); // packets are rebuilt for every (re)transmission
                return;
            }
            if (!holding && r.nextDouble() < reorder) {
                counters.faultReorders.increment();
                held.put(0, pkt, off, total);
                heldLength = total;
                heldTo = to;
                heldToIp = toIp;
                holding = true;
                releaseLater.accept(this::releaseHeldLocked);
                return;
            }
            rawSend(sender, pkt, off, total, to, toIp);
            if (r.nextDouble() < duplicate) {
                counters.faultDuplicates.increment();
                rawSend(sender, pkt, off, total, to, toIp);
            }
            releaseHeld();
        }
    }

    /** The hold timer: sends the held datagram if it is still held. */
    synchronized void releaseHeldLocked() {
        releaseHeld();
    }

    /** Under the monitor. */
    private void releaseHeld() {
        if (holding) {
            holding = false;
            if (heldBy == null) {
                heldBy = heldSender.get();
            }
            rawSend(heldBy, held, 0, heldLength, heldTo, heldToIp);
        }
    }

    private void rawSend(UdpSocket.Sender sender, ByteBuffer pkt, int off, int total, InetSocketAddress to, int toIp) {
        try {
            sender.send(pkt, off, total, total, to, toIp);
            counters.packetsOut.increment();
            counters.bytesOut.add(total);
        } catch (ClosedChannelException e) {
            // port closing: drop
        } catch (IOException e) {
            LOG.warn("{}: UDP send to {} failed: {}", name, to, e.getMessage());
        }
    }
}
