package io.vibridge.vitcp.engine;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/** For tests that pump engines in memory: what an engine has to write, as the bytes TCP would carry. */
public final class EngineOutput {

    private EngineOutput() {
    }

    /** Everything {@code from} has to write, each segment confirmed written. */
    public static byte[] written(ViConnection from) {
        return produce(from, true, new int[1]);
    }

    /** Everything {@code from} has to write without confirming it; {@code segments[0]} counts the segments. */
    public static byte[] unconfirmed(ViConnection from, int[] segments) {
        return produce(from, false, segments);
    }

    private static byte[] produce(ViConnection from, boolean confirm, int[] segments) {
        ByteBuffer header = ByteBuffer.allocate(ViConnection.MAX_HEADER);
        ByteBuffer[] payload = new ByteBuffer[8];
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        while (from.hasOutput()) {
            int n = from.produce(header, payload);
            if (n < 0) {
                break;
            }
            byte[] h = new byte[header.remaining()];
            header.get(h);
            wire.writeBytes(h);
            for (int i = 0; i < n; i++) {
                byte[] p = new byte[payload[i].remaining()];
                payload[i].get(p);
                wire.writeBytes(p);
            }
            segments[0]++;
            if (confirm) {
                from.written();
            }
        }
        return wire.toByteArray();
    }
}
