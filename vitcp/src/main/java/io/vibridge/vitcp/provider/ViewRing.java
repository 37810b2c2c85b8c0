package io.vibridge.vitcp.provider;

import io.vibridge.vitcp.engine.ViConnection;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reusable views of registered memory handed to the engine as outbound payload, so that producing a
 * segment allocates nothing. A view is a duplicate of the region's buffer whose position and limit
 * are set per use. Safe to reuse after {@link ViConnection#MAX_UNWRITTEN} further uses: each use
 * belongs to a different segment, the engine keeps at most that many segments unconfirmed, and the
 * owner confirms a segment only once its bytes left the view. Grows on demand up to that size (a
 * piece used once per message needs one view). Not thread-safe: used under the connection's lock.
 */
final class ViewRing {
    static final int SIZE = ViConnection.MAX_UNWRITTEN;

    private ByteBuffer[] views = new ByteBuffer[1];
    private ByteBuffer[] bases = new ByteBuffer[1]; // what each view duplicates (identity)
    private int used;

    /** Starts a new round (the previous message of this piece is fully written). */
    void reset() {
        used = 0;
    }

    /** A view of {@code base[offset, offset + length)}: position = offset, limit = offset + length. */
    ByteBuffer view(ByteBuffer base, int offset, int length) {
        int k = used++ % SIZE;
        if (k >= views.length) {
            int n = Math.min(SIZE, views.length * 2);
            views = Arrays.copyOf(views, n);
            bases = Arrays.copyOf(bases, n);
        }
        ByteBuffer v = views[k];
        if (bases[k] != base) {
            v = base.duplicate();
            views[k] = v;
            bases[k] = base;
        }
        v.limit(offset + length);
        v.position(offset);
        return v;
    }
}
