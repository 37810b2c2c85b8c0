package io.vibridge.gateway.admission;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The bound on connections still in setup (accepted, not yet bridged or closed): at most {@code max} over
 * the gateway and {@code maxPerClient} per client IP address. A pending connection costs a socket, its
 * read buffers and a setup timer until it is answered or times out, whatever it claims to send; the
 * bound keeps a flood of them from taking the file descriptors and the event loops.
 * Thread-safe: every listener's event loop takes and returns slots here.
 */
final class PendingLimits {
    private final int max;
    private final int maxPerClient;
    private int total;
    private final Map<InetAddress, int[]> perClient = new HashMap<>();

    PendingLimits(int max, int maxPerClient) {
        this.max = max;
        this.maxPerClient = maxPerClient;
    }

    /** Takes a slot for {@code client}: null when taken, else which bound refused it. */
    synchronized Refusal tryAcquire(InetAddress client) {
        if (total >= max) {
            return Refusal.PENDING;
        }
        int[] n = perClient.get(client);
        if (n != null && n[0] >= maxPerClient) {
            return Refusal.PENDING_PER_CLIENT;
        }
        if (n == null) {
            perClient.put(client, n = new int[1]);
        }
        n[0]++;
        total++;
        return null;
    }

    /** Returns a slot {@link #tryAcquire} took for {@code client}. */
    synchronized void release(InetAddress client) {
        int[] n = perClient.get(client);
        if (n == null) {
            throw new IllegalStateException("no pending connection from " + client);
        }
        if (--n[0] == 0) {
            perClient.remove(client);
        }
        total--;
    }

    synchronized int total() {
        return total;
    }

    synchronized int of(InetAddress client) {
        int[] n = perClient.get(client);
        return n == null ? 0 : n[0];
    }

    int max() {
        return max;
    }

    int maxPerClient() {
        return maxPerClient;
    }
}
