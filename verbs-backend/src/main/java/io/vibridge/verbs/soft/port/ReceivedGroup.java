package io.vibridge.verbs.soft.port;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Views of the datagrams of a received group, each a buffer whose index 0 is the datagram's first
 * byte (the transport reads packets at absolute offsets from 0). Made once per datagram size and
 * position and kept for the last few sizes (a peer's full packets, a READ response stream's, a WRITE
 * FIRST's), so the receive path allocates nothing while the sizes recur.
 */
final class ReceivedGroup {
    private static final int SIZES = 4;
    private final ByteBuffer buf;
    private final ByteBuffer whole;                 // the whole buffer, to slice from
    private final int[] sizes = new int[SIZES];
    private final ByteBuffer[][] views = new ByteBuffer[SIZES][128];
    private int next;                               // the entry replaced when a new size comes

    ReceivedGroup(ByteBuffer buf) {
        this.buf = buf;
        this.whole = buf.duplicate().clear();
    }

    ByteBuffer datagram(int index, int size, int len) {
        if (index == 0) {
            buf.limit(len).position(0);
            return buf;
        }
        ByteBuffer[] forSize = viewsFor(size);
        ByteBuffer v = index < forSize.length ? forSize[index] : null;
        if (v == null) {
            int at = index * size;
            v = whole.slice(at, Math.min(size, whole.capacity() - at));
            if (index < forSize.length) {
                forSize[index] = v;
            }
        }
        v.limit(len).position(0);
        return v;
    }

    private ByteBuffer[] viewsFor(int size) {
        for (int i = 0; i < SIZES; i++) {
            if (sizes[i] == size) {
                return views[i];
            }
        }
        int i = next;
        next = (next + 1) % SIZES;
        sizes[i] = size;
        Arrays.fill(views[i], null);
        return views[i];
    }
}
