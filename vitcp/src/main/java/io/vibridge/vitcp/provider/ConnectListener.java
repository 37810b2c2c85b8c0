package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.wire.Discriminator;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A discriminator the passive provider answers for (VIA 4.1 "address discrimination values"): Connect
 * Requests whose called discriminator matches queue here until {@link #connectWait} takes them; any other
 * discriminator gets Connect No Match (draft 4.3).
 */
public final class ConnectListener implements AutoCloseable {
    private final ViNic nic;
    private final Discriminator discriminator;
    private final BlockingQueue<Link> backlog;

    ConnectListener(ViNic nic, Discriminator discriminator, int backlog) {
        this.nic = nic;
        this.discriminator = discriminator;
        this.backlog = new ArrayBlockingQueue<>(backlog);
    }

    public Discriminator discriminator() {
        return discriminator;
    }

    boolean offer(Link l) {
        return backlog.offer(l);
    }

    void withdraw(Link l) {
        backlog.remove(l);
    }

    /**
     * VipConnectWait: the next Connect Request for this discriminator; TIMEOUT if none arrives in time.
     * The caller must {@link IncomingConnection#accept} or {@link IncomingConnection#reject} it.
     */
    public IncomingConnection connectWait(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (;;) {
            long left = deadline - System.nanoTime();
            Link l = backlog.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new ViException(ViException.Code.TIMEOUT, "no connection request for " + discriminator
                        + " within " + timeout);
            }
            if (!l.isClosed()) {
                return new IncomingConnection(l, l.requestInfo);
            }
        }
    }

    /** Stops answering for the discriminator; queued requests get Connect No Match. */
    @Override
    public void close() {
        nic.unlisten(this);
        Link l;
        while ((l = backlog.poll()) != null) {
            IncomingConnection.noMatch(l);
        }
    }
}
