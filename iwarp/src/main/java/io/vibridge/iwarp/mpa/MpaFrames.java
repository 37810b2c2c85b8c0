package io.vibridge.iwarp.mpa;

import java.nio.ByteBuffer;

/** Collecting one MPA Request or Reply from the stream, taking no byte beyond it. */
final class MpaFrames {

    private MpaFrames() {
    }

    /**
     * Moves bytes from {@code in} into {@code collected} up to the end of the frame; returns the frame once
     * whole, else null. The key is checked as its bytes arrive.
     */
    static MpaFrame collect(ByteBuffer collected, ByteBuffer in, MpaKey key) {
        while (in.hasRemaining()) {
            int have = collected.position();
            int need = have < MpaFrame.HEADER_LENGTH ? MpaFrame.HEADER_LENGTH
                    : MpaFrame.HEADER_LENGTH + (collected.getShort(MpaFrame.OFF_PD_LENGTH) & 0xFFFF);
            int n = Math.min(need - have, in.remaining());
            collected.put(have, in, in.position(), n).position(have + n);
            in.position(in.position() + n);
            MpaFrame f = MpaFrame.decode(collected, 0, collected.position(), key);
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
